"""What a run cost: CPU and wall hours of its jobs, per stage, dataset and method.

Sums the Snakemake benchmark files of a run's results folder
(``results/<experiment>/benchmarks/<stage>/<dataset>/<method>/<job>.tsv``, their last
repeat), or the cost tables a publication keeps of its runs (``measured/<paper>/runs/*/
cost.tsv``, sums per stage, dataset and method: no job counts):

    ufsbench-run-cost results/<experiment> [--by stage|dataset|method|all]
    ufsbench-run-cost measured/<paper> [--by ...]      # a publication's cost tables
    ufsbench-run-cost AFTER --compare BEFORE [--by ...]

CPU seconds (``cpu_time``) are the work; wall seconds (``s``) grow with whatever else
shared the machine. Jobs without a benchmark file (downloads, tables, figures) are not
counted: they are seconds next to the solver and k-means jobs.

``--compare`` sets two runs of the same config side by side (a whole reproduction before
and after a change): CPU hours before, after and their ratio, over the (stage, dataset,
method) groups both ran. A group still under way on either side reads too cheap there
(a published cost keeps only sums, so this cannot be checked): compare finished runs, or
with ``--datasets`` the datasets both finished. Either side is a results folder or a
publication (``measured/<paper>``, whose ``runs/*/cost.tsv`` are read, or one
``cost.tsv``). Two runs on a loaded machine are not a benchmark: CPU seconds grow with
the load (``mean_load`` of the benchmark files).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

LEVELS = {"stage": ["stage"], "dataset": ["dataset"], "method": ["method"]}
LEVELS["all"] = ["stage", "dataset", "method"]
GROUP = LEVELS["all"]


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
    """CPU and wall hours and job counts grouped ``by``, largest CPU first, with a total
    (``jobs``: :func:`job_costs`, or :func:`group_costs`, which has no job counts)."""
    keys = LEVELS[by]
    sums = {"cpu_h": ("cpu_s", "sum"), "wall_h": ("wall_s", "sum")}
    # A publication's cost.tsv keeps sums per group, not jobs: no job count then.
    counts = {"jobs": ("job", "size")} if "job" in jobs else {}
    table = jobs.groupby(keys).agg(**counts, **sums)
    table[["cpu_h", "wall_h"]] /= 3600.0
    table = table.sort_values("cpu_h", ascending=False, kind="stable").reset_index()
    return with_total(table, keys)


def with_total(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``table`` with a last row "total": the sum of every column but the ``keys``."""
    total = {key: "" for key in keys}
    total[keys[0]] = "total"
    total.update({column: table[column].sum() for column in table if column not in keys})
    return pd.concat([table, pd.DataFrame([total])], ignore_index=True)


def group_costs(path: Path) -> pd.DataFrame:
    """CPU and wall seconds per (stage, dataset, method) of a results folder, a publication
    folder (its ``runs/*/cost.tsv``) or one ``cost.tsv``."""
    path = Path(path)
    if (path / "benchmarks").is_dir():
        costs = job_costs(path)
    else:
        files = [path] if path.is_file() else sorted(path.glob("runs/*/cost.tsv"))
        if not files:
            raise SystemExit(
                f"{path}: neither a results folder (benchmarks/), a publication "
                "(runs/*/cost.tsv) nor a cost.tsv"
            )
        costs = pd.concat([pd.read_csv(f, sep="\t") for f in files], ignore_index=True)
    return costs.groupby(GROUP, as_index=False)[["cpu_s", "wall_s"]].sum()


def compare(before: pd.DataFrame, after: pd.DataFrame, by: str, datasets=None) -> pd.DataFrame:
    """CPU hours ``before`` and ``after`` (from :func:`group_costs`) and before / after,
    grouped ``by``, over the groups both ran (of ``datasets`` only, if given); largest
    before first, with a total."""
    both = before.merge(after, on=GROUP, suffixes=("_before", "_after"))
    if datasets:
        both = both[both["dataset"].isin(datasets)]
    if both.empty:
        raise SystemExit("the two runs share no (stage, dataset, method) group")
    keys = LEVELS[by]
    table = both.groupby(keys)[["cpu_s_before", "cpu_s_after"]].sum() / 3600.0
    table.columns = ["cpu_h_before", "cpu_h_after"]
    table = with_total(table.sort_values("cpu_h_before", ascending=False).reset_index(), keys)
    table["ratio"] = table["cpu_h_before"] / table["cpu_h_after"]
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "results", type=Path,
        help="a run's results/<experiment> folder, measured/<paper> or a cost.tsv",
    )  # fmt: skip
    parser.add_argument("--by", choices=sorted(LEVELS), default="stage")
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="BEFORE",
        help="another run of the same config (results folder, measured/<paper> or a cost.tsv)",
    )
    parser.add_argument("--datasets", nargs="+", help="with --compare: only these datasets")
    args = parser.parse_args(argv)
    fmt = {"index": False, "float_format": lambda v: f"{v:.2f}"}
    if args.compare is not None:
        before, after = group_costs(args.compare), group_costs(args.results)
        table = compare(before, after, args.by, args.datasets)
        shared = len(before.merge(after[GROUP], on=GROUP))
        print(
            f"{shared} (stage, dataset, method) groups ran in both; "
            f"{len(before) - shared} only before, {len(after) - shared} only after"
        )
        print(table.to_string(**fmt))
        return
    if (args.results / "benchmarks").is_dir():
        jobs = job_costs(args.results)
        if jobs.empty:
            raise SystemExit(f"no benchmark files under {args.results / 'benchmarks'}")
    else:  # a publication or a cost.tsv
        jobs = group_costs(args.results)
    print(summarise(jobs, args.by).to_string(**fmt))


if __name__ == "__main__":
    main()
