"""CPU cost of every job a config plans, from the measured CPU seconds of a sample of jobs.

    python -m ufsbench.tools.estimate_jobs CONFIG --dry-run DRY_RUN.txt \\
        --after LOG SAMPLE_CONFIG [--after ...] [--before LOG SAMPLE_CONFIG ...] \\
        [--by rule|key] [--out TSV]

``DRY_RUN.txt``: the output of ``snakemake -n`` for ``CONFIG`` in an empty working
directory (every job planned); ``benchmarks/estimate_jobs.py`` makes it and calls this.
``LOG``: the CPU seconds of the jobs of a finished sample run of ``SAMPLE_CONFIG`` (e.g. a
``-quick`` config), one line per job (``rule``, wildcards as JSON, CPU seconds, and
optionally ``ok``/``failed``), as ``benchmarks/job_cpu/sitecustomize.py`` writes them;
``--before`` the same sample at older code.

What is computed
----------------
A job's *kind* is its rule and its wildcards without the ones that index jobs of one kind
(:data:`INDEX_WILDCARDS`: chunk, part, setting ids, seed): e.g. ``select`` on
``dataset=jaffe, method=blufs``, or ``css_run`` on ``dataset=dna, css_method=pocss, k=50``.
A job's *units* count the work that grows with the config (:func:`job_units`: settings
of a select chunk, settings x feature counts x repeats of an evaluate chunk, ...; 1 for
any other job). For every kind the target plans: CPU seconds = measured CPU seconds per
unit of that kind in the sample x the target's units of it. A kind the sample lacks (a
dataset or method it did not run) is "not measured": listed, never guessed, and not in
the totals. Per-unit costs vary between settings (iteration counts), so a sample on a
coarser grid gives an estimate, not a measurement.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path

INDEX_WILDCARDS = frozenset({"chunk", "part", "gsid", "csid", "seed"})
_RULE = re.compile(r"^(\s*)(?:local)?rule (\w+):$")
_WILDCARDS = re.compile(r"^\s+wildcards: (.*)$")


def parse_dry_run(text: str) -> list[tuple[str, dict]]:
    """``(rule, wildcards)`` of every job in the output of ``snakemake -n`` (members of
    group jobs too: their blocks are indented)."""
    jobs, rule, wildcards, indent = [], None, {}, ""
    for line in text.splitlines():
        match = _RULE.match(line)
        ended = rule is not None and not line.startswith(indent + " ")
        if match or ended:
            if rule is not None:
                jobs.append((rule, wildcards))
            rule, wildcards, indent = (
                (match.group(2), {}, match.group(1)) if match else (None, {}, "")
            )
            continue
        found = _WILDCARDS.match(line) if rule is not None else None
        if found:
            wildcards = _parse_wildcards(found.group(1))
    if rule is not None:
        jobs.append((rule, wildcards))
    return jobs


def _parse_wildcards(text: str) -> dict:
    out, last = {}, None
    for piece in text.split(", "):
        name, eq, value = piece.partition("=")
        if eq and re.fullmatch(r"\w+", name):
            out[name], last = value, name
        elif last is not None:  # a value holding ", "
            out[last] += ", " + piece
        else:
            raise ValueError(f"dry run: cannot read wildcards {text!r}")
    return out


def kind(rule: str, wildcards: dict) -> str:
    """The job kind: ``rule`` and its non-index wildcards, e.g. ``select[dataset=x,method=y]``."""
    kept = ",".join(f"{k}={v}" for k, v in sorted(wildcards.items()) if k not in INDEX_WILDCARDS)
    return f"{rule}[{kept}]"


def job_units(plan, rule: str, wildcards: dict) -> tuple[float, str]:
    """Units of work of one job of ``plan`` (:class:`ufsbench.plan.Plan`) and their name.

    select: settings of the chunk; evaluate: settings x feature counts x repeats;
    blufs_stage2: the (setting, count) runs of the (dataset, method) over its parts;
    blufs_reseed_part: its seeds; blufs_knn: feature counts x splits; any other job: 1.
    """
    from ..plan import BlufsSection
    from ..tuning import stage2_part_count

    dataset, method = wildcards.get("dataset"), wildcards.get("method")
    if rule in ("select", "evaluate"):
        settings = len(plan.chunks(method)[wildcards["chunk"]])
        if rule == "select":
            return float(settings), "settings"
        counts = len(plan.feature_counts(dataset))
        return float(settings * counts * plan.evaluation.repeats), "setting x count x repeat"
    if rule == "blufs_reseed_part":
        from ..reseeding import part_seeds

        return float(len(part_seeds(wildcards["part"]))), "seeds"
    if rule in ("blufs_stage2", "blufs_knn"):
        blufs = BlufsSection.read(plan.config.get("blufs") or {}, True)
        counts = len(plan.feature_counts(dataset))
        if rule == "blufs_stage2":
            runs = counts * blufs.stage2_grid_size(method)
            parts = stage2_part_count(counts, blufs.stage2_grid_size(method),
                                      plan.method_chunk_size[method])  # fmt: skip
            return runs / parts, "stage-2 runs (setting x count)"
        return float(counts * int(blufs.knn["splits"])), "count x split"
    return 1.0, "job"


def read_job_log(path):
    """The job log at ``path``: ``rule, wildcards, cpu_s`` of the jobs that did not fail."""
    import pandas as pd

    rows = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        fields = line.split("\t")
        if len(fields) not in (3, 4):
            raise ValueError(f"job log {path}, line {number}: expected 3 or 4 fields")
        if len(fields) == 4 and fields[3] != "ok":
            continue
        cpu = float(fields[2])
        if not cpu >= 0:
            raise ValueError(f"job log {path}, line {number}: bad CPU seconds {fields[2]!r}")
        rows.append((fields[0], json.loads(fields[1]), cpu))
    return pd.DataFrame(rows, columns=["rule", "wildcards", "cpu_s"])


def unit_table(plan, jobs):
    """``kind, unit, units`` (and ``cpu_s`` if given) of the jobs ``(rule, wildcards[, cpu])``."""
    import pandas as pd

    rows = []
    for job in jobs:
        rule, wildcards = job[0], job[1]
        units, name = job_units(plan, rule, wildcards)
        rows.append((rule, kind(rule, wildcards), name, units, *job[2:]))
    columns = ["rule", "kind", "unit", "units"]
    if rows and len(rows[0]) == 5:
        columns.append("cpu_s")
    return pd.DataFrame(rows, columns=columns)


def scale(planned, samples):
    """CPU seconds of every planned job kind from measured samples.

    Parameters
    ----------
    planned : pandas.DataFrame
        ``rule, kind, unit, units``, one row per planned job (:func:`unit_table`).
    samples : dict
        ``{label: DataFrame}``, each ``rule, kind, unit, units, cpu_s`` of measured jobs
        (e.g. ``{"before": ..., "after": ...}``).

    Returns
    -------
    pandas.DataFrame
        Per planned kind: ``rule, kind, unit, jobs, units``, then per label
        ``<label>_sample_jobs`` and ``<label>_cpu_s`` (NaN: not measured).
    """
    out = planned.groupby(["rule", "kind", "unit"], as_index=False).agg(
        jobs=("units", "size"), units=("units", "sum")
    )
    if out["kind"].duplicated().any():
        raise ValueError(f"kind {out['kind'][out['kind'].duplicated()].iloc[0]} has two units")
    for label, sample in samples.items():
        measured = sample.groupby("kind").agg(
            n=("units", "size"), units=("units", "sum"), cpu_s=("cpu_s", "sum")
        )
        n, rate = [], []
        for row in out.itertuples(index=False):
            if row.kind in measured.index and measured.at[row.kind, "units"] > 0:
                n.append(int(measured.at[row.kind, "n"]))
                rate.append(measured.at[row.kind, "cpu_s"] / measured.at[row.kind, "units"])
            else:
                n.append(0)
                rate.append(math.nan)
        out[f"{label}_sample_jobs"] = n
        out[f"{label}_cpu_s"] = [r * u for r, u in zip(rate, out["units"], strict=True)]
    return out


def summarise(table, labels, by: str = "rule"):
    """Per ``by`` (rule or kind): jobs, jobs measured (by every label), and CPU hours of
    the measured jobs per label; largest last label first, total last. A group's hours
    add only jobs measured by every label, so before and after cover the same jobs."""
    import pandas as pd

    table = table.copy()
    both = table[[f"{label}_cpu_s" for label in labels]].notna().all(axis=1)
    table["measured_jobs"] = table["jobs"].where(both, 0)
    for label in labels:
        table[f"{label}_cpu_h"] = table[f"{label}_cpu_s"].where(both, 0.0) / 3600.0
    hours = [f"{label}_cpu_h" for label in labels]
    out = table.groupby(by, as_index=False)[["jobs", "measured_jobs", *hours]].sum()
    out = out.sort_values(hours[-1], ascending=False, ignore_index=True)
    total = {by: "total", "jobs": out["jobs"].sum(), "measured_jobs": out["measured_jobs"].sum()}
    total.update({h: out[h].sum() for h in hours})
    return pd.concat([out, pd.DataFrame([total])], ignore_index=True)


def not_measured(table, labels) -> str | None:
    """One line naming the planned jobs some label did not measure, per rule; None if none."""
    missing = table[table[[f"{label}_cpu_s" for label in labels]].isna().any(axis=1)]
    if missing.empty:
        return None
    per_rule = missing.groupby("rule")["jobs"].sum().sort_values(ascending=False, kind="stable")
    shown = ", ".join(f"{rule} {jobs}" for rule, jobs in per_rule.items())
    return (
        f"not measured ({int(missing['jobs'].sum())} of {int(table['jobs'].sum())} planned "
        f"jobs, not in the totals): {shown}"
    )


def _plan(path: Path):
    from ..datasets import load_registry
    from ..plan import Plan
    from .config import load_config

    return Plan(load_config(path), load_registry())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ufsbench.tools.estimate_jobs", description=__doc__.splitlines()[0]
    )
    parser.add_argument("config", type=Path, help="target experiment config (YAML)")
    parser.add_argument("--dry-run", type=Path, required=True, help="`snakemake -n` output")
    for label in ("after", "before"):
        parser.add_argument(
            f"--{label}", nargs=2, action="append", default=[], type=Path,
            metavar=("LOG", "SAMPLE_CONFIG"), help=f"job CPU log of a sample run ({label})",
        )  # fmt: skip
    parser.add_argument("--by", choices=["rule", "kind"], default="rule")
    parser.add_argument("--out", type=Path, help="write the per-kind table (TSV) here")
    args = parser.parse_args(argv)
    if not args.after:
        parser.error("give at least one --after LOG SAMPLE_CONFIG")

    import pandas as pd

    planned = unit_table(_plan(args.config), parse_dry_run(args.dry_run.read_text()))
    samples = {}
    for label in ("before", "after"):
        frames = []
        for log, config in getattr(args, label):
            jobs = read_job_log(log)
            frames.append(unit_table(_plan(config), jobs.itertuples(index=False, name=None)))
        if frames:
            samples[label] = pd.concat(frames, ignore_index=True)
    table = scale(planned, samples)
    labels = list(samples)
    if args.out:
        from ..io import write_table

        write_table(args.out, table)
    summary = summarise(table, labels, args.by)
    print(f"{args.config}: estimated CPU hours of the measured jobs ({', '.join(labels)})")
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    line = not_measured(table, labels)
    if line:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
