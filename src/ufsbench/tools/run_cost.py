"""What a run cost: CPU and wall hours of its jobs, per stage, dataset and method.

Sums the Snakemake benchmark files of a run's results folder
(``results/<experiment>/benchmarks/<stage>/<dataset>/<method>/<job>.tsv``, their last
repeat):

    ufsbench-run-cost results/<experiment> [--by stage|dataset|method|all]

CPU seconds (``cpu_time``) are the work; wall seconds (``s``) grow with whatever else
shared the machine. Jobs without a benchmark file (downloads, tables, figures) are not
counted: they are seconds next to the solver and k-means jobs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

LEVELS = {"stage": ["stage"], "dataset": ["dataset"], "method": ["method"]}
LEVELS["all"] = ["stage", "dataset", "method"]


def job_costs(results: Path) -> pd.DataFrame:
    """One row per benchmarked job of a run's results folder (``results/<experiment>``):
    stage, dataset, method, job, cpu and wall seconds."""
    rows = []
    root = results / "benchmarks"
    # benchmarks/<stage>/<dataset>/<method>/<job>.tsv, the job deeper for some stages
    # (css/<dataset>/<method>/k<k>/s<seed>.tsv: job "k<k>/s<seed>").
    for bench in sorted(root.rglob("*.tsv")):
        parts = bench.relative_to(root).with_suffix("").parts
        if len(parts) < 4:
            continue
        last = pd.read_csv(bench, sep="\t").iloc[-1]
        rows.append((*parts[:3], "/".join(parts[3:]), last["cpu_time"], last["s"]))
    return pd.DataFrame(rows, columns=["stage", "dataset", "method", "job", "cpu_s", "wall_s"])


def summarise(jobs: pd.DataFrame, by: str) -> pd.DataFrame:
    """CPU and wall hours and job counts grouped ``by``, largest CPU first, with a total."""
    keys = LEVELS[by]
    table = jobs.groupby(keys).agg(
        jobs=("job", "size"), cpu_h=("cpu_s", "sum"), wall_h=("wall_s", "sum")
    )
    table[["cpu_h", "wall_h"]] /= 3600.0
    table = table.sort_values("cpu_h", ascending=False).reset_index()
    total = {key: "" for key in keys}
    total[keys[0]] = "total"
    total.update(jobs=len(jobs), cpu_h=table["cpu_h"].sum(), wall_h=table["wall_h"].sum())
    return pd.concat([table, pd.DataFrame([total])], ignore_index=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a run's results/<experiment> folder")
    parser.add_argument("--by", choices=sorted(LEVELS), default="stage")
    args = parser.parse_args(argv)
    jobs = job_costs(args.results)
    if jobs.empty:
        raise SystemExit(f"no benchmark files under {args.results / 'benchmarks'}")
    print(summarise(jobs, args.by).to_string(index=False, float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
