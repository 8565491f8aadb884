"""Running the real snakemake CLI on this workflow from tests, in a scratch directory."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = shutil.which("snakemake")
needs_snakemake = pytest.mark.skipif(SNAKEMAKE is None, reason="the snakemake CLI is not installed")


def snakemake_cmd(workdir, *args) -> list[str]:
    """The command line for this workflow run in ``workdir`` with its ``config.yaml``."""
    return [
        SNAKEMAKE,
        "--snakefile",
        str(ROOT / "workflow" / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        *args,
    ]


# The --workflow-profile profiles/slurm run on the single-node test SLURM (test_cluster's
# ``slurm`` fixture): no accounting database there, so job states come from squeue, and
# --cores 2 is the node's size, so a group submission never asks for more.
SLURM_RUN_ARGS = (
    "--workflow-profile",
    str(ROOT / "profiles" / "slurm"),
    "--jobs",
    "4",
    "--cores",
    "2",
    "--default-resources",
    "slurm_partition=debug",
    "mem_mb=1000",
    "runtime=30",
    "cpus_per_task=1",
    "--slurm-status-command",
    "squeue",
    "--slurm-init-seconds-before-status-checks",
    "5",
)


def run_snakemake(workdir, *args, check=True, timeout=900, env=None):
    """Run it (in ``env``, default this process's); with ``check``, fail the test with the
    output's tail when it fails."""
    cmd = snakemake_cmd(workdir, *args)
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and result.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-6000:]}")
    return result


def planned_jobs(output: str) -> list[tuple[str, str]]:
    """(rule, wildcards) of every job a dry run lists."""
    jobs, rule = [], None
    for line in output.splitlines():
        match = re.match(r"^(?:local)?rule (\w+):", line.strip())
        if match:
            rule = match.group(1)
            jobs.append((rule, ""))
        elif rule and line.strip().startswith("wildcards:"):
            jobs[-1] = (rule, line.strip())
    return jobs


def validated(config: dict) -> dict:
    """A copy of ``config`` validated against the workflow's schema, which fills in every
    default, as the workflow's ``validate`` does before the plan reads it."""
    import copy

    from snakemake.utils import validate

    config = copy.deepcopy(config)
    validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    return config


def write_config(workdir, config):
    (Path(workdir) / "config.yaml").write_text(yaml.safe_dump(config))
