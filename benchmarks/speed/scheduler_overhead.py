"""Snakemake's own CPU per job: the ILP scheduler against the greedy one (issue 27, item 5).

    python benchmarks/speed/scheduler_overhead.py [--jobs 400 1500]
        [--schedulers ilp greedy] [--out TSV]

A full paper run spends CPU in the Snakemake process itself, besides its jobs: in the
SRSG run of 2026-11-27 (1394 jobs) the main process used ~3 CPU s per finished job,
about a third of a core, most of it selecting the next jobs (``py-spy``: stat-ing the
inputs of every ready job each round, and the ILP). This script isolates that cost on a
synthetic workflow of N independent jobs that each copy one small file (the jobs
themselves cost almost nothing) and runs it once per scheduler, each in a fresh
interpreter: CPU of the Snakemake process, CPU of its children (the jobs' shells and, for
``ilp``, the CBC solver), wall time, and per job. The ratios are measured in one run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

SNAKEFILE = """
N = {n}
rule all:
    input: expand("out/{{i}}.txt", i=range(N))
rule data:
    output: "data.txt"
    shell: "echo x > {{output}}"
rule job:
    input: "data.txt"
    output: "out/{{i}}.txt"
    shell: "cp {{input}} {{output}}"
"""

# Runs Snakemake in this interpreter, so that RUSAGE_SELF is Snakemake's own CPU.
RUNNER = textwrap.dedent(
    """
    import json, resource, sys, time
    from snakemake.cli import main
    start = time.perf_counter()
    sys.argv = ["snakemake", "--cores", "2", "--scheduler", sys.argv[1]]
    try:
        main()
    except SystemExit as stop:
        code = stop.code
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"code": code, "wall_s": time.perf_counter() - start,
                      "main_cpu_s": own.ru_utime + own.ru_stime,
                      "children_cpu_s": kids.ru_utime + kids.ru_stime}))
    """
)


def measure(n_jobs: int, scheduler: str) -> dict:
    """One run of the synthetic workflow with ``n_jobs`` jobs in a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="ufsbench-sched-") as folder:
        Path(folder, "Snakefile").write_text(SNAKEFILE.format(n=n_jobs))
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, scheduler],
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        )
        made = len(list(Path(folder, "out").glob("*.txt")))
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["code"] not in (0, None) or made != n_jobs:
        raise SystemExit(f"{scheduler}, {n_jobs} jobs: snakemake failed ({made} outputs)")
    return result


def main(argv=None):
    # no data set, mirror or repeats here: only the job counts, schedulers and output
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, nargs="+", default=[400, 1500])
    p.add_argument("--schedulers", nargs="+", default=["ilp", "greedy"])
    p.add_argument("--out", type=Path, default=None, help="TSV path (default: results/)")
    args = p.parse_args(argv)
    columns = ["jobs", "scheduler", "main_cpu_s", "children_cpu_s", "wall_s",
               "cpu_ms_per_job"]  # fmt: skip
    rows = []
    for n_jobs in args.jobs:
        total = {}
        for scheduler in args.schedulers:
            r = measure(n_jobs, scheduler)
            cpu = r["main_cpu_s"] + r["children_cpu_s"]
            total[scheduler] = cpu
            rows.append((n_jobs, scheduler, r["main_cpu_s"], r["children_cpu_s"], r["wall_s"],
                         1000 * cpu / n_jobs))  # fmt: skip
        if {"ilp", "greedy"} <= total.keys():
            print(f"{n_jobs} jobs: ilp / greedy CPU = {total['ilp'] / total['greedy']:.2f}")
    _cli.write_tsv("scheduler_overhead", columns, rows, args.out)


if __name__ == "__main__":
    main()
