"""CPU cost of a paper config: measured costs per setting, scaled by measured speed-ups.

    ufsbench-estimate-runtime CONFIG (--costs COST.tsv [COST.tsv ...] | --results RUN)
        [--measured-config RUN_CONFIG] [--clock cpu|wall] [--speedups SPEEDUPS.tsv]
        [--overhead STAGE BEFORE AFTER ...] [--by stage|method|dataset|all]

e.g. the LSDCL reproduction, from its published runs and today's benchmarks::

    ufsbench-estimate-runtime config/experiments/lsdcl.yaml \\
        --costs measured/lsdcl/runs/*/cost.tsv --speedups benchmarks/speedups.tsv \\
        --overhead select 1.95 0.45 --overhead evaluate 1.60 0.46

Inputs
------
``--costs``: what a finished run cost, one row per (dataset, method, stage) with
``dataset, method, stage, cpu_s`` (the ``cost.tsv`` of a published run,
``measured/<paper>/runs/*/cost.tsv``); several tables are added up. The run's setting
counts come from ``--measured-config`` (default: the target config itself). Or
``--results``: a finished run's ``results/<experiment>`` folder, read from its Snakemake
benchmark files (``--clock``: each job's CPU or wall seconds) with the settings its score
files hold, e.g. a quick run scaled to the full config (as
``benchmarks/estimate_runtime.py`` does, which uses these readers).

``--speedups``: measured CPU-time ratios (before / after) of the engines since the costs
were measured, one row per ``dataset, method, stage, factor`` (``*`` matches anything;
the most specific row wins: dataset, then method, then stage), and a ``source`` column
naming the benchmark that measured it. No row: factor 1 (nothing is assumed).

``--overhead STAGE BEFORE AFTER``: a job's fixed CPU seconds (interpreter, imports) then
and now (``benchmarks/speed/job_overhead.py``); ``METHOD/STAGE`` for one method's jobs
(it wins over the stage's).

What is computed
----------------
For every (dataset, method) the target config plans (:class:`ufsbench.plan.Plan`) and
stage ``select``/``evaluate``: ``before`` = measured seconds per setting x the target's
settings; ``after`` = ``(before - jobs x BEFORE) / factor + jobs x AFTER``, where ``jobs``
is the number of chunks the target plans. Other stages of the cost tables (``crossval``)
on the target's datasets are carried over, divided by their factor. A planned pair the
tables lack is listed as not measured (no guess): its cost is not in the totals.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

PLANNED_STAGES = ("select", "evaluate")
COST_COLUMNS = ("dataset", "method", "stage", "cpu_s")
SPEEDUP_COLUMNS = ("dataset", "method", "stage", "factor")
GROUPS = {"stage": ["stage"], "method": ["method"], "dataset": ["dataset"]}
GROUPS["all"] = ["dataset", "method", "stage"]


CLOCK_COLUMNS = {"cpu": "cpu_time", "wall": "s"}


def job_seconds(bench: Path, clock: str = "cpu") -> float:
    """Seconds of one Snakemake benchmark file (its last repeat) on the given clock."""
    import pandas as pd

    return float(pd.read_csv(bench, sep="\t")[CLOCK_COLUMNS[clock]].iloc[-1])


def measured_per_setting(run: Path, clock: str = "cpu"):
    """Seconds and settings of every (dataset, method, stage) of a finished run's results
    folder ``run`` (``results/<experiment>``): ``dataset, method, stage, seconds,
    settings``, from its benchmark files and the settings its score files hold."""
    import pandas as pd

    rows = []
    for stage in PLANNED_STAGES:
        for bench in sorted((Path(run) / "benchmarks" / stage).glob("*/*/c*.tsv")):
            dataset, method, chunk = bench.parts[-3], bench.parts[-2], bench.stem
            scores = Path(run) / dataset / method / chunk / "scores.tsv"
            if not scores.exists():
                continue
            settings = pd.read_csv(scores, sep="\t", usecols=["params"])["params"].nunique()
            rows.append((dataset, method, stage, job_seconds(bench, clock), settings))
    frame = pd.DataFrame(rows, columns=["dataset", "method", "stage", "seconds", "settings"])
    return frame.groupby(["dataset", "method", "stage"], as_index=False)[
        ["seconds", "settings"]
    ].sum()


def crossval_per_run(run: Path, clock: str = "cpu") -> dict:
    """Seconds per (draw x setting) of the cross-validation jobs, per training size."""
    out = {}
    for bench in sorted((Path(run) / "benchmarks" / "crossval").glob("*/*/n*.tsv")):
        out[int(bench.stem[1:])] = job_seconds(bench, clock)
    return out


def read_costs(paths):
    """The cost tables ``paths`` added up by (dataset, method, stage); CPU seconds."""
    import pandas as pd

    frames = []
    for path in paths:
        frame = pd.read_csv(path, sep="\t")
        missing = [c for c in COST_COLUMNS if c not in frame.columns]
        if missing:
            raise ValueError(f"cost table {path}: no column(s) {', '.join(missing)}")
        frames.append(frame[list(COST_COLUMNS)])
    if not frames:
        raise ValueError("no cost table given")
    costs = pd.concat(frames, ignore_index=True)
    if not (costs["cpu_s"] >= 0).all():
        raise ValueError("cost tables: cpu_s must be a non-negative number everywhere")
    return costs.groupby(["dataset", "method", "stage"], as_index=False)["cpu_s"].sum()


def read_speedups(path):
    """The speed-up table at ``path`` (see the module docstring), checked."""
    import pandas as pd

    frame = pd.read_csv(path, sep="\t", dtype={c: str for c in SPEEDUP_COLUMNS[:3]})
    missing = [c for c in SPEEDUP_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"speed-up table {path}: no column(s) {', '.join(missing)}")
    if not (frame["factor"] > 0).all():
        raise ValueError(f"speed-up table {path}: every factor must be positive")
    keys = frame[list(SPEEDUP_COLUMNS[:3])].apply(tuple, axis=1)
    if keys.duplicated().any():
        raise ValueError(f"speed-up table {path}: row {keys[keys.duplicated()].iloc[0]} twice")
    return frame


def factor(speedups, dataset: str, method: str, stage: str) -> float:
    """The most specific speed-up row for (dataset, method, stage); 1 without one."""
    if speedups is None or speedups.empty:
        return 1.0
    best, rank = 1.0, -1
    for row in speedups.itertuples(index=False):
        fields = (row.dataset, row.method, row.stage)
        if all(f in ("*", v) for f, v in zip(fields, (dataset, method, stage), strict=True)):
            specific = sum(4 >> i for i, f in enumerate(fields) if f != "*")
            if specific > rank:
                best, rank = float(row.factor), specific
    return best


def planned(plan):
    """Settings and jobs (chunks) per (dataset, method) of a :class:`~ufsbench.plan.Plan`."""
    return {
        (dataset, method): (len(plan.settings[method]), len(plan.chunks(method)))
        for dataset, method in plan.runs()
    }


def estimate(costs, target: dict, measured: dict | None = None, speedups=None, overhead=None):
    """Before/after CPU seconds per (dataset, method, stage) of the target plan.

    Parameters
    ----------
    costs : pandas.DataFrame
        :func:`read_costs` of a finished run; with a ``settings`` column (the settings
        measured, as from ``--results``) that count replaces ``measured``'s.
    target, measured : dict
        :func:`planned` of the target config and of the measured run's (default: target).
    speedups : pandas.DataFrame, default=None
        :func:`read_speedups`; None: no speed-up.
    overhead : dict, default=None
        ``{stage: (before_s, after_s)}`` per job; a ``"method/stage"`` key wins.

    Returns
    -------
    pandas.DataFrame
        ``dataset, method, stage, settings, jobs, factor, before_s, after_s, measured``;
        unmeasured pairs have NaN seconds.
    """
    import pandas as pd

    measured = target if measured is None else measured
    overhead = overhead or {}
    counted = "settings" in costs.columns
    cost = {
        (r.dataset, r.method, r.stage): (r.cpu_s, r.settings if counted else None)
        for r in costs.itertuples(index=False)
    }
    rows = []
    for (dataset, method), (settings, jobs) in target.items():
        for stage in PLANNED_STAGES:
            seconds, done = cost.get((dataset, method, stage), (None, None))
            f = factor(speedups, dataset, method, stage)
            if done is None and seconds is not None and (dataset, method) in measured:
                done = measured[dataset, method][0]
            if seconds is None or not done:
                rows.append((dataset, method, stage, settings, jobs, f, math.nan, math.nan, False))
                continue
            before = seconds / done * settings
            fixed = overhead.get(f"{method}/{stage}", overhead.get(stage, (0.0, 0.0)))
            fixed_before, fixed_after = fixed
            work = max(before - jobs * fixed_before, 0.0)
            after = work / f + jobs * fixed_after
            rows.append((dataset, method, stage, settings, jobs, f, before, after, True))
    datasets = {dataset for dataset, _ in target}
    for (dataset, method, stage), (seconds, _) in cost.items():
        if stage not in PLANNED_STAGES and dataset in datasets:
            f = factor(speedups, dataset, method, stage)
            rows.append((dataset, method, stage, 0, 0, f, seconds, seconds / f, True))
    columns = ["dataset", "method", "stage", "settings", "jobs", "factor", "before_s"]
    return pd.DataFrame(rows, columns=[*columns, "after_s", "measured"])


def summarise(table, by: str = "stage"):
    """CPU hours before and after, grouped ``by`` (measured rows), largest first, total last."""
    import pandas as pd

    keys = GROUPS[by]
    done = table[table["measured"]]
    out = done.groupby(keys, as_index=False)[["jobs", "before_s", "after_s"]].sum()
    out = out.rename(columns={"before_s": "before_cpu_h", "after_s": "after_cpu_h"})
    out[["before_cpu_h", "after_cpu_h"]] /= 3600.0
    out = out.sort_values("before_cpu_h", ascending=False, ignore_index=True)
    total = dict.fromkeys(keys, "")
    total[keys[0]] = "total"
    total.update(
        jobs=out["jobs"].sum(),
        before_cpu_h=out["before_cpu_h"].sum(),
        after_cpu_h=out["after_cpu_h"].sum(),
    )
    out = pd.concat([out, pd.DataFrame([total])], ignore_index=True)
    out["ratio"] = out["before_cpu_h"] / out["after_cpu_h"]
    return out


def _plan(path: Path):
    from ..datasets import load_registry
    from ..plan import Plan
    from .config import load_config

    return Plan(load_config(path), load_registry())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="ufsbench-estimate-runtime", description=__doc__.splitlines()[0]
    )
    parser.add_argument("config", type=Path, help="target experiment config (YAML)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--costs", type=Path, nargs="+", help="cost tables (TSV)")
    source.add_argument("--results", type=Path, help="a finished run's results folder")
    parser.add_argument("--clock", choices=sorted(CLOCK_COLUMNS), default="cpu")
    parser.add_argument("--measured-config", type=Path, help="config of the measured run")
    parser.add_argument("--speedups", type=Path, help="speed-up table (TSV)")
    parser.add_argument(
        "--overhead", nargs=3, action="append", default=[], metavar=("STAGE", "BEFORE", "AFTER"),
        help="per-job fixed CPU seconds of a stage, then and now",
    )  # fmt: skip
    parser.add_argument("--by", choices=sorted(GROUPS), default="stage")
    args = parser.parse_args(argv)

    overhead = {stage: (float(b), float(a)) for stage, b, a in args.overhead}
    target = planned(_plan(args.config))
    measured = planned(_plan(args.measured_config)) if args.measured_config else None
    speedups = read_speedups(args.speedups) if args.speedups else None
    if args.results:
        costs = measured_per_setting(args.results, args.clock)
        costs = costs.rename(columns={"seconds": "cpu_s"})
    else:
        costs = read_costs(args.costs)
    table = estimate(costs, target, measured, speedups, overhead)
    summary = summarise(table, args.by)
    print(f"{args.config}: CPU hours before (measured) and after (scaled), by {args.by}")
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    missing = table[~table["measured"]]
    pairs = sorted(set(zip(missing["dataset"], missing["method"], strict=True)))
    if pairs:
        settings = int(missing.drop_duplicates(["dataset", "method"])["settings"].sum())
        shown = ", ".join(f"{d}/{m}" for d, m in pairs[:12])
        more = f" and {len(pairs) - 12} more" if len(pairs) > 12 else ""
        print(
            f"not measured ({len(pairs)} of {len(target)} planned (dataset, method) pairs, "
            f"{settings} settings; not in the totals): {shown}{more}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
