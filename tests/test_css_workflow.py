"""End to end: the CSS branch of the workflow with the real snakemake CLI on a tiny config."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from snakemake_cli import ROOT, needs_snakemake, run_snakemake, write_config

from ufsbench.tools import publish_run

pytestmark = [pytest.mark.slow, needs_snakemake]

TINY_CSS = {
    "datasets": ["wine"],
    "feature_counts": {"wine": [2, 3]},
    "methods": {"greedy_css": {}},
    "normalize": {"scheme": "unit_column"},
    "evaluation": {"repeats": 2, "protocol": ["default"]},
    "unavailable": "skip",
    "css": {
        "datasets": ["wine", "mediamill"],
        "methods": {"greedy_css": {}, "iter_fs": {}, "pocss": {"engine": "numpy"}},
        "k": [3],
        "seeds": 2,
        "curves": {"datasets": ["wine"], "k": [2, 3]},
        "anytime": ["wine"],
    },
}


def offline_registry(workdir):
    """The registry with mediamill gated (no URL), so it is skipped whatever the network."""
    doc = yaml.safe_load((ROOT / "config" / "datasets.yaml").read_text())
    doc["datasets"]["mediamill"].update(url=None, access="not part of this test")
    path = workdir / "datasets.yaml"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


@pytest.fixture(scope="module")
def css_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("css")
    notes = workdir / "notes.tsv"
    notes.write_text("dataset\tmethod\tnote\nmediamill\t*\tthe test's own note on mediamill\n")
    (workdir / "mirror").mkdir()
    config = {
        **TINY_CSS,
        "mirror": str(workdir / "mirror"),
        "dataset_registry": offline_registry(workdir),
        "css": {**TINY_CSS["css"], "notes": str(notes)},
    }
    write_config(workdir, config)
    result = run_snakemake(workdir, "--cores", "2")
    assert "ufsbench: skipping dataset 'mediamill': file train-exp1.svm.bz2" in result.stderr
    return workdir


def test_css_branch_writes_its_tables_and_figures(css_run):
    tables = css_run / "results" / "default" / "tables"
    runs = pd.read_csv(tables / "css_runs.tsv", sep="\t")
    # k = 3: greedy once, iter_fs and pocss twice; k = 2 (curve) the same again
    assert len(runs) == 10
    assert set(runs["method"]) == {"greedy_css", "iter_fs", "pocss"}
    assert "seconds" not in runs.columns  # timings apart: results/timings/css_seconds.tsv
    seconds = pd.read_csv(css_run / "results" / "default" / "timings" / "css_seconds.tsv", sep="\t")
    assert len(seconds) == len(runs) and (seconds["seconds"] >= 0).all()
    assert (runs["error_ratio"] >= 1.0).all() and (runs["n_selected"] <= runs["k"]).all()
    summary = pd.read_csv(tables / "css_summary.tsv", sep="\t")
    assert summary[summary["method"] == "pocss"]["n_runs"].tolist() == [2, 2]
    paper = pd.read_csv(tables / "pocss_vs_paper.tsv", sep="\t")
    assert paper["note"].fillna("").str.contains("not part of this test").sum() == 6
    assert paper["note"].fillna("").str.startswith("not run: dataset 'mediamill'").sum() == 6
    assert paper["note"].fillna("").str.endswith(". the test's own note on mediamill").sum() == 6
    anytime = pd.read_csv(tables / "css_anytime.tsv", sep="\t")
    assert set(anytime["method"]) == {"pocss"} and (anytime["error_ratio"] >= 1.0 - 1e-9).all()
    table1 = (tables / "css_table1.md").read_text()
    assert "average rank" in table1 and "## Not run\n\n- mediamill: dataset 'mediamill'" in table1
    figures = css_run / "results" / "default" / "figures" / "css" / "wine"
    for name in ("error_ratio_vs_k", "anytime"):
        assert (figures / f"{name}.png").stat().st_size > 0
    assert (css_run / "logs" / "default" / "css" / "wine" / "pocss" / "k3" / "s1.log").is_file()


def test_css_rerun_has_nothing_to_do(css_run):
    result = run_snakemake(css_run, "-n", "--cores", "1")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_css_run_publishes_its_tables_latex_fidelity_and_cost(css_run, tmp_path):
    into = tmp_path / "measured"
    args = ["--config", str(css_run / "config.yaml"), "--into", str(into), "--root", str(ROOT)]
    publish_run.main([str(css_run), *args])
    run_folder = into / "runs" / "wine"  # mediamill was skipped: not a dataset of the run
    assert json.loads((run_folder / "run.json").read_text())["datasets"] == ["wine"]
    names = {p.name for p in run_folder.iterdir()}
    assert {"css_table1.md", "pocss_vs_paper.tsv", "css_runs.tsv", "wine_anytime.png"} <= names
    assert {"wine_error_ratio_vs_k.png", "summary.tsv", "cost.tsv", "jobs.tsv"} <= names
    cost = pd.read_csv(run_folder / "cost.tsv", sep="\t")
    assert set(cost[cost["stage"] == "css"]["method"]) == {"greedy_css", "iter_fs", "pocss"}
    tex = (into / "css_table1.tex").read_text()
    assert r"\begin{tabular}" in tex and "% - mediamill: dataset 'mediamill'" in tex
    fidelity = pd.read_csv(into / "pocss_fidelity.tsv", sep="\t")
    assert set(fidelity["method"]) >= {"greedy_css", "pocss"} and (fidelity["ran"] == 0).all()
    runs = pd.read_csv(into / "runs.tsv", sep="\t")
    assert runs["run"].tolist() == ["wine"] and runs["stale_jobs"].tolist() == [0]
    jobs = pd.read_csv(run_folder / "jobs.tsv", sep="\t", dtype={"code": str})
    # each CSS run recorded the code it ran (logs/<exp>/css/<dataset>/<method>/k<k>/s<seed>)
    css = jobs[(jobs["stage"] == "css") & (jobs["dataset"] == "wine")]
    assert set(css["method"]) == {"greedy_css", "iter_fs", "pocss"}
    assert css["code"].str.len().min() > 0


def test_bad_css_config_fails_before_any_job(tmp_path):
    bad = {**TINY_CSS, "css": {**TINY_CSS["css"], "methods": {"pocss": {"budget": 3}}}}
    bad["css"]["datasets"] = ["wine"]
    write_config(tmp_path, bad)
    result = run_snakemake(tmp_path, "-n", check=False)
    assert result.returncode != 0
    assert "css.methods.pocss" in result.stdout + result.stderr
    assert not (tmp_path / "results").exists()
