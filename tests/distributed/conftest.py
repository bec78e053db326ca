"""Documents for the Ray adapter's tests: small synthetic manuals and a few real ones."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("ray")
pyarrow = pytest.importorskip("pyarrow")

from tests.support.data import MANUALS  # noqa: E402

_SECTIONS = [
    ("Installation", "Mount the unit on a solid wall at least {h} cm above the floor. Keep the vents free."),
    ("Cleaning the filter", "Clean the air filter every {w} weeks. Wash it in lukewarm water and let it dry."),
    ("Error codes", "E{e} means the outdoor sensor failed. Switch the unit off and call the service."),
    ("Warranty", "The compressor is covered for {y} years from the date of purchase."),
]


def manual(number: int) -> str:
    """A short air-conditioner manual whose numbers (and so whose text) differ per model."""
    parts = [f"Nimbus AC-{number}\nOwner's Manual\n\n"]
    for title, body in _SECTIONS:
        parts.append(f"{title}\n\n{body.format(h=100 + number, w=2 + number % 3, e=number % 9, y=number % 7 + 1)}\n\n")
    return "".join(parts)


_README_SENTENCE = "The tool reads every file of the project once and writes one index that later runs reuse.\n"
#: A README's sections (parent, sub-heading): "Examples" heads a part of "Usage" and, later, one of "API".
README_SECTIONS = (("Install", "Requirements"), ("Usage", "Examples"), ("API", "Examples"))


def readme(name: str, sections: tuple[tuple[str, str], ...] = README_SECTIONS) -> str:
    """A markdown README named ``name`` with these (parent, sub-heading) sections, one chunk each at 60 tokens."""
    body = "".join(f"## {p}\n\n{_README_SENTENCE}\n### {s}\n\n{_README_SENTENCE * 3}\n" for p, s in sections)
    return f"# {name}\n\n{_README_SENTENCE}\n{body}"


def synthetic_table(count: int = 8) -> pyarrow.Table:
    """``count`` manuals with ``id``, ``source`` and an extra metadata column."""
    return pyarrow.table(
        {
            "id": [f"doc-{n}" for n in range(count)],
            "text": [manual(n) for n in range(count)],
            "source": [f"nimbus_ac-{n}.txt" for n in range(count)],
            "shelf": [n % 3 for n in range(count)],
        }
    )


def real_table(count: int = 4) -> pyarrow.Table:
    """The first ``count`` Samsung manuals (skips when the shared data is not there)."""
    files = sorted(MANUALS.glob("*.txt"))[:count]
    if len(files) < count:
        pytest.skip(f"needs {MANUALS}")
    return pyarrow.table({"text": [f.read_text(encoding="utf-8") for f in files], "source": [f.name for f in files]})


def by_chunk(table: pyarrow.Table) -> pyarrow.Table:
    """Rows in (document, chunk) order, whatever order the actors produced them in."""
    return table.sort_by([("chop_document", "ascending"), ("chop_index", "ascending")])


@pytest.fixture(scope="module")
def ray_cluster():
    """One local Ray (2 CPUs) for the whole module, shut down at its end.

    The workers import this checkout's package and the tests' doubles (``distributed.fakes``), whatever
    else the environment has installed.
    """
    import os

    import ray

    tests = Path(__file__).resolve().parents[1]
    path = os.pathsep.join([str(tests.parent), str(tests), os.environ.get("PYTHONPATH", "")])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield ray
    ray.shutdown()
