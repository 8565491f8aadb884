"""Estimate the run time of a large config from a finished run of a smaller one.

(The readers live in :mod:`ufsbench.tools.estimate_runtime`, whose command
``ufsbench-estimate-runtime --results RUN`` does the same for the select and evaluate
stages, and also scales published cost tables by measured speed-ups.)

Reads the Snakemake benchmark files of a finished run (``results/<experiment>/benchmarks/
{select,evaluate,crossval}/...``), derives the measured seconds per hyper-parameter setting of
every (dataset, method), and multiplies by the number of settings the target config
plans for it. Datasets or methods the measured run lacks are reported, not guessed.

The default clock is each job's CPU time (``cpu_time`` of the benchmark file): the jobs
are single-threaded (Snakemake sets ``OMP_NUM_THREADS`` etc. to the job's threads), so CPU
seconds measure the work whatever else shared the machine. ``--clock wall`` uses the wall
seconds (``s``) instead, an upper bound that grows with the load of the measured run (a
run at ``nice 19`` beside other work measured 20x its CPU time).

    python benchmarks/estimate_runtime.py RESULTS TARGET_CONFIG [--cores 2] \
        [--measured-config RUN_CONFIG] [--clock cpu|wall]

e.g. ``RESULTS`` the folder ``results/lsdcl-quick`` of a finished ``lsdcl-quick`` run and
``TARGET_CONFIG`` ``config/experiments/lsdcl.yaml``.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from ufsbench.datasets import load_registry  # noqa: E402
from ufsbench.plan import Plan  # noqa: E402
from ufsbench.tools.config import load_config  # noqa: E402
from ufsbench.tools.estimate_runtime import (  # noqa: E402
    CLOCK_COLUMNS,
    crossval_per_run,
    measured_per_setting,
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a finished run's results/<experiment> folder")
    parser.add_argument("config", type=Path)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument(
        "--measured-config", type=Path, help="config of the finished run (for crossval)"
    )
    parser.add_argument(
        "--clock", choices=sorted(CLOCK_COLUMNS), default="cpu",
        help="cpu: each job's CPU seconds (default); wall: its wall seconds",
    )  # fmt: skip
    args = parser.parse_args()

    config = load_config(args.config, root=ROOT)  # validated: the plan reads the schema's defaults
    measured_config = (
        yaml.safe_load(args.measured_config.read_text()) if args.measured_config else None
    )
    registry = load_registry(ROOT / "config" / "datasets.yaml")
    plan = Plan(config, registry)
    per = measured_per_setting(args.run, args.clock)
    per["per_setting"] = per["seconds"] / per["settings"]
    total = 0.0
    missing = []
    by_method = defaultdict(float)
    for dataset, method in plan.runs():
        n = len(plan.settings[method])
        part = per[(per["dataset"] == dataset) & (per["method"] == method)]
        if part.empty:
            missing.append(f"{dataset}/{method}")
            continue
        seconds = float(part["per_setting"].sum()) * n
        by_method[method] += seconds
        total += seconds
    print(
        f"target: {args.config} ({len(plan.datasets)} datasets, {len(plan.methods)} methods; "
        f"{args.clock} seconds)"
    )
    for method, seconds in sorted(by_method.items(), key=lambda kv: -kv[1]):
        print(f"  {method:<10} {seconds / 3600:8.2f} core-hours")
    cv = (config.get("paper") or {}).get("crossval")
    cv_measured = crossval_per_run(args.run, args.clock)
    if cv and cv_measured and measured_config:
        mcv = measured_config["paper"]["crossval"]
        m_runs = mcv["draws"] * _grid_size(mcv["grid"])
        t_runs = cv["draws"] * _grid_size(cv["grid"])
        # Cost per (draw x setting) grows with the training size: interpolate linearly.
        sizes = sorted(cv_measured)
        cv_total = 0.0
        for size in cv["train_sizes"]:
            nearest = min(sizes, key=lambda s: abs(s - size))
            cv_total += cv_measured[nearest] / m_runs * (size / nearest) * t_runs
        print(f"  {'crossval':<10} {cv_total / 3600:8.2f} core-hours")
        total += cv_total
    print(
        f"total: {total / 3600:.1f} core-hours = {total / 3600 / args.cores:.1f} h on "
        f"{args.cores} cores (excluding Snakemake overhead and idle cores)"
    )
    if missing:
        print(f"not measured (not in the run): {', '.join(missing)}")


def _grid_size(grid: dict) -> int:
    size = 1
    for values in grid.values():
        size *= len(values) if isinstance(values, list) else 1
    return size


if __name__ == "__main__":
    main()
