"""End to end: examples/my_method through the real snakemake CLI (issue #28 item 4).

The example package is copied to a scratch folder and put on PYTHONPATH, as
docs/own-method.md tells users to; the method must appear in every table and figure,
and editing its source must re-run exactly its jobs and what summarises them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zlib
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import MIRROR
from snakemake_cli import (
    ROOT,
    needs_snakemake,
    planned_jobs,
    run_snakemake,
    snakemake_cmd,
)

from ufsbench.tools import publish_run

pytestmark = [pytest.mark.slow, needs_snakemake]

EXAMPLE = ROOT / "examples" / "my_method"
SUMMARY_RULES = {"aggregate", "ttest", "leaderboard", "figure_curves", "figure_convergence", "all"}


def pdf_text(path) -> str:
    """The text a matplotlib PDF draws (its TJ/Tj strings, kerning removed)."""
    data = Path(path).read_bytes()
    text = []
    for match in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            stream = zlib.decompress(match.group(1))
        except zlib.error:
            continue
        for array in re.findall(rb"\[(.*?)\]\s*TJ", stream, re.S):
            text.append(b"".join(re.findall(rb"\(((?:\\.|[^\\)])*)\)", array)))
        text.extend(re.findall(rb"\(((?:\\.|[^\\)])*)\)\s*Tj", stream))
    return b"\n".join(text).decode("latin-1").replace("\\", "")


def run(workdir, *args, check=True):
    """The snakemake CLI with the example package on PYTHONPATH; its output."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{workdir / 'pkg'}"}
    result = run_snakemake(workdir, *args, check=check, timeout=1800, env=env)
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def example_run(tmp_path_factory):
    if not (MIRROR / "MANIFEST.tsv").is_file():
        pytest.skip(f"dataset mirror not found at {MIRROR} (set UFSBENCH_MIRROR)")
    workdir = tmp_path_factory.mktemp("example")
    shutil.copytree(EXAMPLE / "my_ufs", workdir / "pkg" / "my_ufs")
    config = yaml.safe_load((EXAMPLE / "config.yaml").read_text())
    config["mirror"] = str(MIRROR)
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    run(workdir, "--cores", "2")
    return workdir


def test_the_method_appears_in_every_table(example_run):
    tables = sorted((example_run / "results" / "my_method" / "tables").iterdir())
    assert {t.name for t in tables} >= {
        "summary.tsv", "summary.md", "summary.tex", "scores.tsv", "leaderboard.md"
    }  # fmt: skip
    for table in tables:
        assert "mine" in table.read_text(), f"{table.name} lacks the example method"


def test_the_method_appears_in_every_figure(example_run):
    figures = sorted((example_run / "results" / "my_method" / "figures").rglob("*.pdf"))
    assert {f.parent.name for f in figures} == {"wine", "zoo", "leaderboard"}
    for figure in figures:
        text = pdf_text(figure)
        assert "mine" in text and "lapscore" in text.lower(), (figure, text[:500])


def test_the_leaderboard_publishes_with_cost_and_provenance(example_run, tmp_path):
    into = tmp_path / "measured"
    args = ["--config", str(example_run / "config.yaml"), "--into", str(into), "--root", str(ROOT)]
    publish_run.main([str(example_run), *args])
    run_folder = into / "runs" / "wine+zoo"
    assert {p.name for p in run_folder.iterdir()} == {
        "leaderboard.tsv", "leaderboard.md", "summary.tsv", "cd_oracle_acc.png",
        "cd_default_acc.png", "cost.tsv", "jobs.tsv", "run.json",
    }  # fmt: skip
    assert "mine" in (into / "leaderboard.md").read_text()
    published = run_folder / "cd_oracle_acc.png"
    assert (into / published.name).read_bytes() == published.read_bytes()
    cost = pd.read_csv(run_folder / "cost.tsv", sep="\t")
    assert {"mine", "random", "lapscore"} <= set(cost["method"])
    assert json.loads((run_folder / "run.json").read_text())["datasets"] == ["wine", "zoo"]
    runs = pd.read_csv(into / "runs.tsv", sep="\t")
    assert list(runs["run"]) == ["wine+zoo"] and runs["stale_jobs"].tolist() == [0]
    # A second run beside it cannot be ranked with it: the leaderboard is one run.
    shutil.copytree(run_folder, into / "runs" / "other")
    with pytest.raises(SystemExit, match="published from one run"):
        publish_run.main(args)


def test_editing_the_method_reruns_only_its_jobs_and_the_tables(example_run):
    assert "Nothing to be done" in run(example_run, "-n")
    source = example_run / "pkg" / "my_ufs" / "selectors.py"
    original = source.read_text()
    source.write_text(original.replace("spread**alpha", "spread**alpha * 2.0"))
    try:
        jobs = planned_jobs(run(example_run, "-n"))
    finally:
        source.write_text(original)
    per_method = [(rule, wc) for rule, wc in jobs if rule in ("select", "evaluate")]
    assert sorted(rule for rule, _ in per_method) == ["evaluate"] * 2 + ["select"] * 2
    assert all("method=mine" in wc for _, wc in per_method), per_method
    assert {rule for rule, _ in jobs} - {"select", "evaluate"} <= SUMMARY_RULES
    assert "aggregate" in {rule for rule, _ in jobs}
    # the restored source has the recorded hash again: nothing to do
    assert "Nothing to be done" in run(example_run, "-n")


def test_a_missing_module_fails_before_any_job(example_run, tmp_path):
    config = yaml.safe_load((example_run / "config.yaml").read_text())
    config["methods"]["mine"]["callable"] = "my_ufs.nowhere:graph_smoothness"
    config["experiment"] = "broken"
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    (tmp_path / "pkg").symlink_to(example_run / "pkg")
    result = subprocess.run(
        snakemake_cmd(tmp_path, "--cores", "1"),
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{tmp_path / 'pkg'}"},
    )
    assert result.returncode != 0
    assert "cannot import module 'my_ufs.nowhere'" in result.stdout + result.stderr
    assert not (tmp_path / "results").exists()
