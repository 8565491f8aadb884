"""Estimate the CPU cost of a full paper config from a measured sample run, before and after.

    python benchmarks/estimate_jobs.py PAPER --after LOG SAMPLE_CONFIG [--after ...] \
        [--before LOG SAMPLE_CONFIG ...] [--before-commit REV] [--mirror PATH] \
        [--out benchmarks/estimates/PAPER.tsv]

Plans every job of ``config/experiments/PAPER.yaml`` with ``snakemake -n -F`` (a run from
scratch on the datasets the mirror holds; the others are skipped as in a real run) and
scales the sample's measured CPU seconds per unit of work to it
(:mod:`ufsbench.tools.estimate_jobs`). The logs come from sample runs made with
``benchmarks/job_cpu/sitecustomize.py`` first on ``PYTHONPATH``, e.g.::

    PYTHONPATH=$PWD/benchmarks/job_cpu:$PWD/src UFSBENCH_JOB_CPU_LOG=/tmp/after-blufs.tsv \
        nice -n 15 snakemake --cores 1 --configfile config/experiments/blufs-quick.yaml \
        --config mirror=/work/shared/datasets

and the same in an export of the older commit (``git archive REV | tar -x -C /tmp/before``)
for ``--before``. Writes the per-kind table (``--out``, with the command and commits in
``#`` header lines) and ``<out stem>_by_rule.tsv``, and prints the summary by rule.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import pandas as pd  # noqa: E402

from ufsbench.io import atomic_path  # noqa: E402
from ufsbench.tools import estimate_jobs as est  # noqa: E402


def dry_run(config: Path, mirror: str) -> str:
    """``snakemake -n -F`` output of ``config`` in this checkout (nothing is run)."""
    command = ["snakemake", "-n", "-F", "--cores", "1", "--configfile", str(config),
               "--config", f"mirror={mirror}"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"snakemake -n failed:\n{done.stderr[-2000:]}")
    return done.stdout + done.stderr


def sample(pairs) -> pd.DataFrame | None:
    frames = []
    for log, config in pairs:
        jobs = est.read_job_log(log)
        plan = est._plan(ROOT / config)
        frames.append(est.unit_table(plan, jobs.itertuples(index=False, name=None)))
    return pd.concat(frames, ignore_index=True) if frames else None


def write(path: Path, frame: pd.DataFrame, header: list[str]):
    with atomic_path(path) as tmp:
        with open(tmp, "w") as handle:
            handle.writelines(f"# {line}\n" for line in header)
            frame.to_csv(handle, sep="\t", index=False, float_format="%.6g")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paper", help="config/experiments/PAPER.yaml is the target")
    for label in ("after", "before"):
        parser.add_argument(
            f"--{label}", nargs=2, action="append", default=[],
            metavar=("LOG", "SAMPLE_CONFIG"), help=f"job CPU log of a sample run ({label})",
        )  # fmt: skip
    parser.add_argument("--before-commit", default="", help="commit the --before logs ran at")
    parser.add_argument("--mirror", default="/work/shared/datasets")
    parser.add_argument("--out", type=Path, help="default: benchmarks/estimates/PAPER.tsv")
    args = parser.parse_args()
    if not args.after:
        parser.error("give at least one --after LOG SAMPLE_CONFIG")

    config = Path("config/experiments") / f"{args.paper}.yaml"
    out = args.out or ROOT / "benchmarks" / "estimates" / f"{args.paper}.tsv"
    planned_jobs = est.parse_dry_run(dry_run(config, args.mirror))
    planned = est.unit_table(est._plan(ROOT / config), planned_jobs)
    samples = {label: sample(getattr(args, label)) for label in ("before", "after")}
    samples = {label: frame for label, frame in samples.items() if frame is not None}
    table = est.scale(planned, samples)
    labels = list(samples)
    summary = est.summarise(table, labels, "rule")

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    header = [
        "command: " + shlex.join(["python", "benchmarks/estimate_jobs.py", *sys.argv[1:]]),
        f"target: {config} planned at commit {commit} (snakemake -n -F, mirror {args.mirror})",
        f"after: sample logs {' '.join(log for log, _ in args.after)} (commit {commit})",
    ]
    if args.before:
        logs = " ".join(log for log, _ in args.before)
        header.append(f"before: sample logs {logs} (commit {args.before_commit or '?'})")
    header.append("CPU seconds per kind = sample CPU s per unit x planned units; NaN: not measured")
    write(out, table, header)
    write(out.with_name(f"{out.stem}_by_rule.tsv"), summary, header)
    print(f"{config}: estimated CPU hours of the measured jobs ({', '.join(labels)})")
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    line = est.not_measured(table, labels)
    if line:
        print(line)


if __name__ == "__main__":
    main()
