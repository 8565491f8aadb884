"""benchmarks/estimate_runtime.py: costs from a run's benchmark files (run_cost: test_tools)."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
import yaml
from conftest import ROOT

# Each test runs the scripts in a subprocess (estimate_runtime.py plans with snakemake -n):
# ~23 CPU s in all, so they run with the slow tests (python -m pytest -m "").
pytestmark = pytest.mark.slow

SCRIPT = ROOT / "benchmarks" / "estimate_runtime.py"
HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _job(run, stage, chunk, *, wall, cpu, settings):
    """One finished chunk of wine/random in the results folder ``run``: its benchmark file
    and its scores."""
    bench = run / "benchmarks" / stage / "wine" / "random" / f"{chunk}.tsv"
    bench.parent.mkdir(parents=True, exist_ok=True)
    bench.write_text(HEADER + f"{wall}\t0:00:00\t1\t1\t1\t1\t0\t0\t5\t{cpu}\n")
    scores = run / "wine" / "random" / chunk / "scores.tsv"
    scores.parent.mkdir(parents=True, exist_ok=True)
    params = [f"seed={i}" for i in settings]
    pd.DataFrame({"params": params, "acc": 0.5}).to_csv(scores, sep="\t", index=False)


def _estimate(tmp_path, *clock):
    run = tmp_path / "run"
    # Two chunks of two settings each: 7200 CPU s (20x as much wall) for 4 settings.
    _job(run, "select", "c0", wall=20 * 1800, cpu=1800, settings=[0, 1])
    _job(run, "evaluate", "c0", wall=20 * 1800, cpu=1800, settings=[0, 1])
    _job(run, "select", "c1", wall=20 * 1800, cpu=1800, settings=[2, 3])
    _job(run, "evaluate", "c1", wall=20 * 1800, cpu=1800, settings=[2, 3])
    config = tmp_path / "target.yaml"
    config.write_text(yaml.safe_dump({"datasets": ["wine"], "methods": {"random": {"draws": 10}}}))
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(run), str(config), *clock],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return out.stdout


def test_cpu_clock_is_the_default_and_scales_per_setting(tmp_path):
    out = _estimate(tmp_path)
    # 7200 CPU s for 4 settings, 10 planned: 18000 s = 5.00 core-hours.
    assert "cpu seconds" in out
    assert "random         5.00 core-hours" in out
    assert "total: 5.0 core-hours = 2.5 h on 2 cores" in out


def test_wall_clock_reads_the_wall_seconds(tmp_path):
    out = _estimate(tmp_path, "--clock", "wall")
    assert "wall seconds" in out
    assert "random       100.00 core-hours" in out


def test_unmeasured_runs_are_reported_not_guessed(tmp_path):
    out = _estimate(tmp_path)
    assert "not measured" not in out
    config = tmp_path / "two.yaml"
    config.write_text(
        yaml.safe_dump({"datasets": ["wine", "zoo"], "methods": {"random": {"draws": 10}}})
    )
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "run"), str(config)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout  # fmt: skip
    assert "not measured (not in the run): zoo/random" in out
