"""``bench-scale --scenario ray``: its options, and one small run end to end (its own Ray, started and shut down)."""

from __future__ import annotations

import argparse
import json

import pytest

from chop_bench.scale import add_arguments, run_command

from .conftest import manual


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_scenario_registers_its_options() -> None:
    args = parse("--scenario", "ray", "--workers", "3", "--min-seconds", "5", "--corpus", "x", "--batch-size", "4")
    assert (args.workers, args.min_seconds, str(args.corpus), args.batch_size) == (3, 5.0, "x", 4)
    defaults = parse()
    assert (defaults.workers, defaults.min_seconds, defaults.batch_size) == (2, 60.0, None)


@pytest.mark.slow
def test_a_small_run_prints_one_json_object_with_identical_rows(tmp_path, capsys) -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()
    manuals = tmp_path / "manuals"
    manuals.mkdir()
    for n in range(4):
        (manuals / f"nimbus_ac-{n}.txt").write_text(manual(n), encoding="utf-8")
    args = parse("--scenario", "ray", "--json", "--corpus", str(tmp_path), "--min-seconds", "0.2", "--batch-size", "2")
    assert run_command(args) == 0
    row = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert row["scenario"] == "ray" and row["workers"] == 2 and row["identical"] is True
    assert row["documents"] == 4 * row["copies"] and row["chunks"] > row["documents"]
    assert row["speedup"] > 0 and row["startup_s"] > 0 and row["one_process_s"] > 0 and row["ray_s"] > 0
    assert not ray.is_initialized()
