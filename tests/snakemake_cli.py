"""Running the real snakemake CLI on this workflow from tests, in a scratch directory."""

from __future__ import annotations

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


def run_snakemake(workdir, *args, check=True, timeout=900):
    """Run it; with ``check``, fail the test with the output's tail when it fails."""
    cmd = snakemake_cmd(workdir, *args)
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-6000:]}")
    return result


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
