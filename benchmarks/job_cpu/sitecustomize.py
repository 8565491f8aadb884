"""Log the CPU seconds of every Snakemake ``script:`` job, whatever its rule.

Snakemake writes benchmark files only for rules with a ``benchmark:`` directive; this
module measures every job the same way without touching the workflow. Put its folder
first on ``PYTHONPATH`` and name a log file::

    PYTHONPATH=benchmarks/job_cpu:src UFSBENCH_JOB_CPU_LOG=/tmp/jobs.tsv \\
        snakemake --cores 1 --configfile config/experiments/blufs-quick.yaml

Python imports ``sitecustomize`` at start-up; in a job process (one whose ``__main__``
holds Snakemake's ``snakemake`` object when it exits) it appends one line to the log:
``rule``, the wildcards as JSON, the process's CPU seconds (user + system, its own and
its waited-for children's, imports included), and ``ok`` or ``failed`` (an uncaught
exception). Other processes write nothing.
"""

import atexit
import json
import os
import resource
import sys

_failed = []
_excepthook = sys.excepthook


def _hook(kind, value, traceback):
    _failed.append(kind)
    _excepthook(kind, value, traceback)


sys.excepthook = _hook


def _log_job():
    path = os.environ.get("UFSBENCH_JOB_CPU_LOG")
    job = getattr(sys.modules.get("__main__"), "snakemake", None)
    if not path or job is None or not hasattr(job, "rule"):
        return
    cpu = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        cpu += usage.ru_utime + usage.ru_stime
    wildcards = {key: str(value) for key, value in dict(job.wildcards.items()).items()}
    status = "failed" if _failed else "ok"
    line = f"{job.rule}\t{json.dumps(wildcards, sort_keys=True)}\t{cpu:.3f}\t{status}\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())  # one short write: lines of parallel jobs do not mix
    finally:
        os.close(fd)


atexit.register(_log_job)
