"""Logging and thread limits for one workflow job (called first by every script)."""

from __future__ import annotations

import logging
import sys

from threadpoolctl import threadpool_limits

from .provenance import format_record, job_record


def setup(
    log_path, threads: int = 1, name: str = "ufsbench", *, code: str | None = None
) -> logging.Logger:
    """Send warnings and errors to the job's log and cap BLAS threads at ``threads``.

    Capping the BLAS pool keeps ``--cores N`` from oversubscribing the machine and keeps
    results independent of how many jobs run at once. The log's first line is the job's
    provenance (:mod:`ufsbench.provenance`): the commit it runs at, read now (not a
    param, so a new commit re-runs nothing), its code hash ``code`` (the rule's ``code``
    param) and the package versions.
    """
    stream = open(log_path, "w", buffering=1)  # noqa: SIM115 - lives as long as the job
    sys.stderr = stream
    logging.basicConfig(
        stream=stream,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
        force=True,
    )
    logging.captureWarnings(True)
    threadpool_limits(limits=max(1, int(threads)))
    log = logging.getLogger(name)
    log.info(format_record(job_record(code)))
    return log
