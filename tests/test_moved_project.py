"""A finished project moved to another folder, with its mirror elsewhere too, re-runs
nothing: no job's params hold the project's or the mirror's absolute path."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
import yaml
from snakemake_cli import ROOT, SNAKEMAKE, needs_snakemake

pytestmark = [pytest.mark.slow, needs_snakemake]


def snakemake_in(project, *args):
    """The project's own workflow run in the project folder, as a user runs it."""
    cmd = [SNAKEMAKE, "--snakefile", str(project / "workflow" / "Snakefile"), *args]
    out = subprocess.run(cmd, cwd=project, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out.stdout + out.stderr


def test_moving_the_project_and_the_mirror_reruns_nothing(tmp_path):
    project = tmp_path / "here" / "ufsbench"
    for part in ("workflow", "config", "resources", "profiles"):
        shutil.copytree(ROOT / part, project / part)
    rng = np.random.default_rng(0)
    (project / "data").mkdir()
    mine = pd.DataFrame(rng.normal(size=(30, 4)), columns=list("pqrs"))
    mine.assign(kind=np.repeat(["a", "b", "c"], 10)).to_csv(project / "data/mine.csv", index=False)
    config = {
        "datasets": ["wine", "mine"],
        "local_datasets": {"mine": {"path": "data/mine.csv", "label": "kind"}},
        "feature_counts": {"wine": [2, 4]},
        # the project's own config/config.yaml applies first: only these two methods run
        "replace_methods": True,
        "methods": {"allfea": {}, "lapscore": {"t": [1.0]}},
        "evaluation": {"repeats": 2},
    }

    def run(*args):
        return snakemake_in(project, "--configfile", "run.yaml", *args)

    def with_mirror(mirror):
        mirror.mkdir(parents=True, exist_ok=True)
        (project / "run.yaml").write_text(yaml.safe_dump({**config, "mirror": str(mirror)}))

    with_mirror(tmp_path / "mirror-a")
    run("--cores", "2")
    assert (project / "results/default/tables/summary.tsv").is_file()

    moved = tmp_path / "elsewhere" / "renamed"
    moved.parent.mkdir()
    project = project.rename(moved)
    with_mirror(tmp_path / "mirror-b")
    assert "Nothing to be done" in run("-n")
    # the check can fail: a changed param of the first job still re-runs it and all after
    config["normalize"] = {"scheme": "minmax"}
    with_mirror(tmp_path / "mirror-b")
    assert "Params have changed" in run("-n")
