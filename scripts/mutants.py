"""Mutation testing of the core modules where a silent bug costs users most (``make mutants``).

Each module runs on its own, with mutmut (``pip install -e '.[dev]'``), against only the test files that
exercise it (:data:`MODULES`), in a scratch copy of the package under ``.mutants/<module>/`` (git-ignored),
so a run takes a few minutes a module on two cores and never touches the working tree. The results merge
into ``benchmarks/mutants/report.json`` and ``report.md``: per module the mutants made, killed (a timeout
counts as killed), survived (a mutant no selected test reached counts as survived too) and equivalent.

A surviving mutant that changes no behaviour is listed in ``benchmarks/mutants/equivalent.json`` with why:
its mutmut name and the mutated line, so an entry whose code changed no longer excuses a survivor. The
score is killed / (made - equivalent); the run fails when a module's score is under ``--min-score``.

    python scripts/mutants.py chop_integrations/_text/token_sums.py   # one module
    python scripts/mutants.py --all                                   # every listed module
    python scripts/mutants.py --changed-since v0.1.0                  # those changed since a ref
    python scripts/mutants.py --ci                # CI: changed since the last tag, else a sample (--budget s)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "mutants"
EQUIVALENT = OUT / "equivalent.json"
WORK = ROOT / ".mutants"

#: Each mutated module and the test files that exercise its behaviour (run for each mutant that they reach).
MODULES: dict[str, list[str]] = {
    "chop_integrations/_llm/identity.py": [
        "tests/reliability/test_identity_params.py",
        "tests/reliability/test_cache_key_identity.py",
        "tests/reliability/test_secrets_stay_hidden.py",
        "tests/reliability/test_llama_index_id_covers_every_setting.py",
        "tests/reliability/test_langchain_id_covers_a_models_own_fields.py",
    ],
    "chop_integrations/_llm/cache.py": [
        "tests/reliability/test_in_memory_cache.py",
        "tests/efficiency/test_efficiency_cache.py",
        "tests/reliability/test_pickling.py",
        "tests/test_llm_options.py",
    ],
    "chop_integrations/_text/tokens.py": [
        "tests/core/test_tiktoken_counter.py",
        "tests/core/test_tokens.py",
    ],
    "chop_integrations/_text/token_sums.py": [
        "tests/core/test_token_sums.py",
        "tests/core/test_document_counts.py",
        "tests/core/test_run_memo.py",
        "tests/core/test_long_runs.py",
        "tests/efficiency/test_linear_operation_counts.py",
    ],
    "chop_integrations/_offline/continuity.py": [
        "tests/offline/test_continuity_rules.py",
        "tests/offline/test_topic_change_without_heading.py",
        "tests/offline/test_offline_deciders.py",
        "tests/offline/test_continuity_speedups.py",
    ],
    "chop_integrations/_offline/topic.py": [
        "tests/offline/test_topic_shift_reference.py",
        "tests/offline/test_offline_deciders.py",
        "tests/offline/test_tiling_figures.py",
    ],
    "chop_integrations/_query/reader.py": [
        "tests/query/test_reader_rules.py",
        "tests/query/test_reader.py",
        "tests/query/test_reader_properties.py",
        "tests/query/test_reader_llm.py",
        "tests/query/test_reader_forms.py",
    ],
    "chop_integrations/_chop/prefix.py": [
        "tests/chop/test_prefix_policy_rules.py",
        "tests/chop/test_signatures.py",
        "tests/chop/test_prefix_memory.py",
    ],
    "chop_integrations/_chop/base_chunks.py": [
        "tests/chop/test_base_chunks_rules.py",
        "tests/chop/test_chop.py",
    ],
    "chop_integrations/_cli/output.py": [
        "tests/cli/test_out_checks.py",
        "tests/cli/test_output_names.py",
    ],
    "chop_integrations/_files.py": [
        "tests/cli/test_atomic_output.py",
        "tests/cli/test_out_checks.py",
        "tests/cli/test_output_names.py",
    ],
}

#: Functions of a module left out of its run, and why (they are marked ``# pragma: no mutate block`` in the scratch
#: copy only): here, how tokens.py finds, checks and downloads tiktoken's encoding file, which is not counting.
OUT_OF_SCOPE: dict[str, tuple[list[str], str]] = {
    "chop_integrations/_text/tokens.py": (
        [
            *("_cache_key", "_cache_dirs", "_intact", "_find_file", "share_tiktoken_cache", "_download"),
            *("_load_from", "_load_other", "get_encoding", "_one_line"),
        ],
        "finding, checking and downloading tiktoken's encoding file (not counting; its mutants wait on the network)",
    ),
}

_KILLED = {"killed", "timeout", "caught by type check", "segfault"}


def _run_module(module: str, tests: list[str], children: int) -> dict[str, object]:
    """Mutate ``module`` in a scratch copy, run mutmut with ``tests``, and return its counts and survivors."""
    work = WORK / module.replace("/", "_").removesuffix(".py")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    shutil.copytree(ROOT / "chop_integrations", work / "chop_integrations", ignore=ignore)
    shutil.copytree(ROOT / "tests", work / "tests", ignore=ignore)
    shutil.copytree(ROOT / "bench", work / "bench", ignore=ignore)  # the benchmark package some tests import
    _leave_out(work / module, OUT_OF_SCOPE.get(module, ([], ""))[0])
    conftest = work / "tests" / "conftest.py"  # mutmut's forced-fail run makes every mutated function raise: one
    # called while the conftest is imported (share_tiktoken_cache) must not stop collection (a usage error to mutmut)
    conftest.write_text(
        conftest.read_text("utf-8").replace(
            "\nshare_tiktoken_cache()",
            "\nwith __import__('contextlib').suppress(Exception):\n    share_tiktoken_cache()",
        ),
        "utf-8",
    )
    config = {
        "source_paths": ["chop_integrations"],
        "only_mutate": [module],
        "pytest_add_cli_args_test_selection": tests,
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-m", "not slow", "-q"],
        "mutate_only_covered_lines": False,
    }
    toml = (ROOT / "pyproject.toml").read_text("utf-8")
    toml += "\n[tool.mutmut]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in config.items())
    (work / "pyproject.toml").write_text(toml, "utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": ""}
    started = time.monotonic()
    with open(work / "mutmut.log", "w", encoding="utf-8") as log:
        run = subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(children)],
            cwd=work,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
        )
    if run.returncode != 0 or not (work / "mutants" / (module + ".meta")).exists():
        raise RuntimeError(f"mutmut failed on {module} (exit {run.returncode}); see {work / 'mutmut.log'}")
    return _score(module, tests, time.monotonic() - started)


def _score(module: str, tests: list[str], seconds: float) -> dict[str, object]:
    """The counts and survivors of ``module``'s last run (its scratch copy), under the equivalence list as it is now."""
    work = WORK / module.replace("/", "_").removesuffix(".py")
    meta = work / "mutants" / (module + ".meta")
    if not meta.exists():
        raise RuntimeError(f"no run of {module} to score in {work}")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": ""}
    from mutmut.stats import status_by_exit_code

    codes = json.loads(meta.read_text("utf-8"))["exit_code_by_key"]
    statuses = {name: status_by_exit_code[code] for name, code in codes.items()}
    equivalent = json.loads(EQUIVALENT.read_text("utf-8")) if EQUIVALENT.exists() else {}
    survivors, excused = [], []
    alive = sorted(name for name, status in statuses.items() if status not in _KILLED)
    diffs = _diffs(work, module, alive, env)
    for name in alive:
        status, diff = statuses[name], diffs[name]
        line = _mutated_line(diff)
        note = equivalent.get(name)
        if note and note.get("line") == line:
            excused.append({"name": name, "line": line, "why": note["why"]})
        else:
            survivors.append({"name": name, "status": status, "line": line, "diff": diff.strip()})
    made = len(statuses)
    killed = sum(status in _KILLED for status in statuses.values())
    scored = made - len(excused)
    return {
        "tests": tests,
        "left_out": OUT_OF_SCOPE.get(module, ([], ""))[0],
        "made": made,
        "killed": killed,
        "survived": len(survivors),
        "equivalent": len(excused),
        "score": round(killed / scored, 4) if scored else 1.0,
        "seconds": round(seconds, 1),
        "survivors": survivors,
        "equivalents": excused,
    }


def _leave_out(path: Path, functions: list[str]) -> None:
    """Mark ``functions`` of the file at ``path`` so that mutmut neither mutates nor wraps them."""
    lines = path.read_text("utf-8").split("\n")
    for name in functions:
        start = next(i for i, line in enumerate(lines) if re.match(rf"\s*(?:async\s+)?def {name}\(", line))
        end = next(i for i in range(start, len(lines)) if re.search(r":\s*(?:#.*)?$", lines[i]))  # the header's end
        lines[end] = lines[end].split("  #")[0] + "  # pragma: no mutate block"
    path.write_text("\n".join(lines), "utf-8")


_DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
names = json.loads(sys.stdin.read())
print(json.dumps({name: get_diff_for_mutant(name, path=sys.argv[1]) for name in names}))
"""


def _diffs(work: Path, module: str, names: list[str], env: dict[str, str]) -> dict[str, str]:
    """Each mutant's diff against the original function (one process for all, as ``mutmut show`` prints it)."""
    if not names:
        return {}
    shown = subprocess.run(
        [sys.executable, "-c", _DIFFS, module],
        cwd=work,
        env=env,
        input=json.dumps(names),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(shown.stdout)


def _mutated_line(diff: str) -> str:
    """The mutated lines of a mutmut diff (its ``+`` lines, stripped), which an equivalence note must match."""
    return "\n".join(
        line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")
    )


def _git(*args: str) -> str | None:
    """The output of ``git args`` in the repository, or None where git or the history cannot answer."""
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _changed_since(ref: str) -> list[str]:
    """The listed modules that changed since ``ref``, or whose tests did."""
    names = (_git("diff", "--name-only", ref, "--") or "").split()
    return [m for m, tests in MODULES.items() if m in names or any(t in names for t in tests)]


def _ci_modules(budget_s: float) -> list[str]:
    """CI's share: the modules changed since the last release tag (``MUTANTS_SINCE``: another ref), else a sample.

    Both are cut to what fits ``budget_s`` by the seconds each module took in the checked-in report (one module
    at the least); the sample rotates with the commit, so every module comes round.
    """
    ref = os.environ.get("MUTANTS_SINCE") or _git("describe", "--tags", "--abbrev=0")
    changed = _changed_since(ref) if ref else []
    path = OUT / "report.json"
    seconds = {m: float(r["seconds"]) for m, r in json.loads(path.read_text("utf-8")).items()} if path.exists() else {}
    if changed:
        order = changed
        print(f"mutants: the listed modules changed since {ref}: {', '.join(changed)}")
    else:
        modules = list(MODULES)
        turn = int(_git("rev-parse", "HEAD") or "0", 16) % len(modules)
        order = modules[turn:] + modules[:turn]
        print(f"mutants: {'no listed module changed since ' + ref if ref else 'no release tag'}: a sample")
    chosen: list[str] = []
    spent = 0.0
    for module in order:
        cost = seconds.get(module, budget_s)
        if chosen and spent + cost > budget_s:
            continue
        chosen.append(module)
        spent += cost
    left = [m for m in order if m not in chosen]
    if left:
        print(f"mutants: over the {budget_s:g} s budget, left to the next runs: {', '.join(left)}")
    return chosen


def _write_report(results: dict[str, dict[str, object]]) -> None:
    """Merge ``results`` into report.json and rewrite report.md from it."""
    path = OUT / "report.json"
    report = json.loads(path.read_text("utf-8")) if path.exists() else {}
    report.update(results)
    report = {m: report[m] for m in MODULES if m in report}
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", "utf-8")
    lines = [
        "# Mutation testing report",
        "",
        "Written by `make mutants` (scripts/mutants.py, mutmut). Score: killed / (made - equivalent).",
        "",
        "| module | mutants made | killed | survived | equivalent | score | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for module, r in report.items():
        lines.append(
            f"| `{module}` | {r['made']} | {r['killed']} | {r['survived']} | {r['equivalent']} "
            f"| {r['score']:.1%} | {r['seconds']} |"
        )
    for module, (functions, why) in OUT_OF_SCOPE.items():
        lines += ["", f"Left out of `{module}`: {', '.join(f'`{f}`' for f in functions)}: {why}."]
    for module, r in report.items():
        if r["equivalents"]:
            lines += ["", f"## Equivalent mutants in `{module}` (benchmarks/mutants/equivalent.json)", ""]
            lines += [f"- `{e['name']}`: `{e['line']}`: {e['why']}" for e in r["equivalents"]]
    for module, r in report.items():
        if r["survivors"]:
            lines += ["", f"## Survivors in `{module}`", ""]
            for s in r["survivors"]:
                lines += [f"- `{s['name']}` ({s['status']}): `{s['line']}`"]
    (OUT / "report.md").write_text("\n".join(lines) + "\n", "utf-8")


def main(argv: list[str] | None = None) -> int:
    """Run the modules asked for, write the report, and fail when a score is under the minimum."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="module paths (chop_integrations/...py) of MODULES")
    parser.add_argument("--all", action="store_true", help="every module of MODULES")
    parser.add_argument("--changed-since", metavar="REF", help="the modules (or their tests) changed since REF")
    parser.add_argument("--ci", action="store_true", help="CI's share: changed since the last tag, else a sample")
    parser.add_argument("--budget", type=float, default=150.0, help="--ci: seconds of mutation runs (default 150)")
    parser.add_argument("--min-score", type=float, default=0.9, help="fail under this killed share (default 0.9)")
    parser.add_argument("--children", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--rescore", action="store_true", help="score the last runs again (equivalence list edited)")
    args = parser.parse_args(argv)
    modules = list(MODULES) if args.all else list(args.modules)
    if args.ci:
        modules += [m for m in _ci_modules(args.budget) if m not in modules]
    if args.changed_since:
        modules += [m for m in _changed_since(args.changed_since) if m not in modules]
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        parser.error(f"not a listed module: {', '.join(unknown)} (listed: {', '.join(MODULES)})")
    if not modules:
        print("no module to mutate")
        return 0
    results, failed = {}, []
    for module in modules:  # one at a time: each run already uses every core it is given
        try:
            if args.rescore:
                last = json.loads((OUT / "report.json").read_text("utf-8")).get(module, {})
                results[module] = _score(module, MODULES[module], float(last.get("seconds", 0.0)))
            else:
                results[module] = _run_module(module, MODULES[module], args.children)
        except RuntimeError as err:  # (its clean test run failed: the others still run)
            print(err, file=sys.stderr, flush=True)
            failed.append(module)
            continue
        _write_report({module: results[module]})
        print(f"{module}: done in {results[module]['seconds']} s", flush=True)
    low = {m: r["score"] for m, r in results.items() if float(r["score"]) < args.min_score}  # type: ignore[arg-type]
    for m, r in results.items():
        print(f"{m}: {r['killed']}/{r['made'] - r['equivalent']} killed ({r['score']:.1%}), {r['survived']} survived")
    if low:
        print(f"mutation score under {args.min_score:.0%}: {low}", file=sys.stderr)
    return 1 if low or failed else 0


if __name__ == "__main__":
    sys.exit(main())
