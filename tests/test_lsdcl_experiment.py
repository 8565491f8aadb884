"""The LSDCL reproduction config, end to end on WINE with a tiny grid (real snakemake CLI).

The config is config/experiments/lsdcl.yaml itself, with every grid cut to its first values
and few iterations; the dataset subset comes from the command line, as a user would pass
it. Methods not registered yet (a baseline family still on its branch) are left out.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from snakemake_cli import ROOT, needs_snakemake, planned_jobs, run_snakemake, write_config

from ufsbench.methods.registry import REGISTRY
from ufsbench.plan import expand_grid, setting_id
from ufsbench.reference import load_reference
from ufsbench.tools import publish_run

pytestmark = [pytest.mark.slow, needs_snakemake]

CONFIG = ROOT / "config" / "experiments" / "lsdcl.yaml"
QUICK = ROOT / "config" / "experiments" / "lsdcl-quick.yaml"


# A few methods of every kind keep the run short: the control, a closed-form baseline,
# the proposed method and one ablation.
KEEP = ("allfea", "random", "lapscore", "lsdcl", "lsdcl_m1")


def tiny(config: dict) -> dict:
    """The experiment config with small grids, 3 k-means runs and 5 iterations."""
    config = dict(config)
    methods = {}
    for method, grid in config["methods"].items():
        if method not in REGISTRY or method not in KEEP:
            continue
        grid = dict(grid or {})
        if method == "random":
            methods[method] = grid
            continue
        small = {}
        for key, values in grid.items():
            keep = 2 if method == "lsdcl" else 1
            small[key] = values[:keep] if isinstance(values, list) else values
        if REGISTRY[method].iterative:
            small["max_iter"] = [5]
        methods[method] = small
    config["methods"] = methods
    config["evaluation"] = {**config["evaluation"], "repeats": 3}
    # The cross-validation rules run on WINE (USPS49 is too large for CI).
    config["paper"] = {
        **config["paper"],
        "crossval": {
            **config["paper"]["crossval"],
            "dataset": "wine",
            "train_sizes": [90],
            "draws": 2,
            # nested searches both gammas in each draw; full_data_oracle fixes one
            "grid": {
                "lambda1": [1.0, 100.0],
                "lambda2": [1.0],
                "gamma": [1.0, 8.0],
                "max_iter": [5],
            },
            "full_data_oracle": {"gamma": 8.0},
        },
    }
    return config


@pytest.fixture(scope="module")
def wine_run(tmp_path_factory, mirror):
    workdir = tmp_path_factory.mktemp("lsdcl")
    config = tiny(yaml.safe_load(CONFIG.read_text()))
    config["mirror"] = str(mirror)
    write_config(workdir, config)
    run_snakemake(workdir, "--cores", "2", "--config", "datasets=[wine]")
    return workdir, config


def test_ablations_run_only_on_their_figures_dataset(wine_run):
    workdir, config = wine_run
    assert config["methods"]["lsdcl_m1"]["datasets"] == ["coil20"]
    assert (workdir / "results" / "lsdcl" / "wine" / "lsdcl").is_dir()
    assert not (workdir / "results" / "lsdcl" / "wine" / "lsdcl_m1").exists()
    scores = pd.read_csv(workdir / "results" / "lsdcl" / "tables" / "scores.tsv", sep="\t")
    assert "lsdcl_m1" not in set(scores["method"]) and "lsdcl" in set(scores["method"])


def test_paper_tables_are_well_formed(wine_run):
    workdir, config = wine_run
    tables = workdir / "results" / "lsdcl" / "tables"
    ran = [m for m in config["paper"]["methods"] if m in config["methods"]]
    for name in ("acc", "nmi"):
        table = pd.read_csv(tables / f"lsdcl_{name}.tsv", sep="\t")
        assert list(table.columns) == ["dataset", "method", "mean", "std", "p", "bold"]
        assert set(table["dataset"]) == {"wine", "Average"}
        assert list(table[table["dataset"] == "wine"]["method"]) == ran
        scored = table[(table["dataset"] == "wine") & (table["method"] != "allfea")]
        assert scored["p"].between(0, 1).all() and (scored["p"] == 1.0).any()
        assert table["mean"].between(0, 100).all()
        markdown = (tables / f"lsdcl_{name}.md").read_text()
        assert "| wine |" in markdown and "(p=" in markdown
        assert r"\begin{tabular}" in (tables / f"lsdcl_{name}.tex").read_text()


def test_vs_paper_has_every_cell_of_the_subset(wine_run):
    workdir, config = wine_run
    table = pd.read_csv(workdir / "results" / "lsdcl" / "tables" / "lsdcl_vs_paper.tsv", sep="\t")
    reference = load_reference(ROOT / config["paper"]["reference"])
    expected = reference[
        (reference["dataset"] == "wine") & reference["method"].isin(list(config["methods"]))
    ]
    assert len(table) == len(expected) == 2 * len(expected["method"].unique())
    assert set(zip(table["method"], table["metric"], strict=True)) == set(
        zip(expected["method"], expected["metric"], strict=True)
    )
    assert set(table["our_metric"]) == {"acc", "nmi_sqrt"}
    np.testing.assert_allclose(table["diff"], table["ours"] - table["paper"])
    assert table["ours"].notna().all()
    # Every method with a grid has its default-setting result and a random control
    # with as many draws as its grid has settings.
    tuned = table[table["method"] != "allfea"]
    assert tuned["default"].notna().all() and tuned["random_control"].notna().all()
    lsdcl = tuned[tuned["method"] == "lsdcl"]
    assert (lsdcl["random_draws"] == 2 * 2 * 2).all()
    assert lsdcl["note"].str.contains("proline").all()  # the hand-written note is appended


def test_crossval_tables(wine_run):
    workdir, _ = wine_run
    tables = workdir / "results" / "lsdcl" / "tables"
    summary = pd.read_csv(tables / "lsdcl_crossval.tsv", sep="\t")
    assert set(summary["split"]) == {"train", "test"}
    assert list(pd.unique(summary["protocol"])) == ["nested", "full_data_oracle"]
    assert set(summary["n_train"]) == {90} and (summary["draws"] == 2).all()
    assert summary["mean"].between(0, 100).all()
    markdown = (tables / "lsdcl_crossval.md").read_text()
    assert "| Average |" in markdown
    assert "selection: nested" in markdown and "selection: full_data_oracle" in markdown
    # The paper's cells are USPS49's: none is answered by a WINE run, all are listed,
    # the nested selection compared, the full-data oracle beside it.
    # The crossval notes (measured/lsdcl/notes_crossval.tsv) follow "not run".
    versus = pd.read_csv(tables / "lsdcl_crossval_vs_paper.tsv", sep="\t")
    assert len(versus) == 200 and versus["note"].str.startswith("not run. Protocol").all()
    assert set(versus["protocol"]) == {"nested"} and "full_data_oracle_diff" in versus


def test_crossval_nested_chooses_gamma_per_draw_from_training_data(wine_run):
    """Nested: every gamma competes in each draw on training scores; the full-data
    oracle only sees gamma 8, and its cells are the nested run's gamma-8 candidates."""
    workdir, config = wine_run
    folder = workdir / "results" / "lsdcl" / "wine" / "crossval" / "lsdcl"
    nested = pd.read_csv(folder / "nested" / "n90.tsv", sep="\t")
    oracle = pd.read_csv(folder / "full_data_oracle" / "n90.tsv", sep="\t")
    assert oracle["params"].str.contains("gamma=8").all()
    # one job per draw serves both selections: the oracle's settings run once, not twice
    logs = workdir / "logs" / "lsdcl" / "crossval" / "wine" / "lsdcl"
    chose = "4 settings ranked (nested from 4, full_data_oracle from 2)"
    assert f"draw 1: {chose}" in (logs / "n90" / "d1.log").read_text()
    assert f"draw 0: {chose}" in (logs / "n90" / "d0.log").read_text()
    assert "nested: 2 draws" in (logs / "n90.log").read_text()
    # Same draws and seeds: where nested chose a gamma-8 setting it is the oracle's row
    # unless another gamma-8 setting won in both; and nested's training score is never
    # below the oracle's, since it chooses from a superset by training score.
    merged = nested.merge(oracle, on=["n_train", "draw", "n_features"], suffixes=("", "_o"))
    assert len(merged) == len(nested) == len(oracle)
    assert (merged["train_acc"] >= merged["train_acc_o"] - 1e-12).all()
    same = merged["params"] == merged["params_o"]
    np.testing.assert_allclose(merged.loc[same, "test_acc"], merged.loc[same, "test_acc_o"])


def test_figures_and_logs_exist(wine_run):
    workdir, _ = wine_run
    figure = workdir / "results" / "lsdcl" / "figures" / "lsdcl" / "sensitivity_wine.png"
    assert figure.stat().st_size > 1000
    log = (workdir / "logs" / "lsdcl" / "paper" / "lsdcl_vs_paper.log").read_text()
    assert "lsdcl" in log


def test_quick_config_plans_the_same_outputs():
    quick = yaml.safe_load(QUICK.read_text())
    full = yaml.safe_load(CONFIG.read_text())
    assert set(quick["datasets"]) < set(full["datasets"])
    assert quick["paper"]["reference"] == full["paper"]["reference"]
    assert set(quick["methods"]) == set(full["methods"])
    for method, grid in quick["methods"].items():
        for key, values in (grid or {}).items():
            if isinstance(values, list):
                assert len(values) <= len(full["methods"][method][key]), (method, key)


def test_mcfs_readings_config_crosses_every_reading_with_the_papers_grid():
    readings = yaml.safe_load((ROOT / "config/experiments/mcfs-readings.yaml").read_text())
    full = yaml.safe_load(CONFIG.read_text())
    assert readings["datasets"] == full["datasets"]
    assert readings["feature_counts"] == full["feature_counts"]
    assert readings["evaluation"] == full["evaluation"] and readings["graph"] == full["graph"]
    spec = REGISTRY["mcfs"]
    grid = readings["methods"]["mcfs"]
    assert grid["weight, t"] == full["methods"]["mcfs"]["weight, t"]
    for option in readings["paper"]["readings"]["params"]:
        assert set(grid[option]) == set(spec.params[option].options), option
        assert grid[option][0] == spec.defaults[option]  # the default reading comes first
    settings = expand_grid("mcfs", grid)
    assert len({setting_id(s) for s in settings}) == 8 * 3 * 2


def test_published_run_merges_into_the_runs_own_tables(wine_run, tmp_path):
    """ufsbench-publish-run on the finished run: one run merged is that run."""
    workdir, config = wine_run
    config_path = workdir / "config.yaml"
    into = tmp_path / "measured"
    # Research notes live beside the published tables: publishing never writes them.
    into.mkdir()
    (into / "notes.tsv").write_text("dataset\tmethod\tnote\n")
    args = ["--config", str(config_path), "--into", str(into), "--root", str(ROOT)]
    publish_run.main([str(workdir), *args])
    published = into / "runs" / "wine"
    info = json.loads((published / "run.json").read_text())
    assert info["datasets"] == ["wine"] and len(info["commit"]) == 40
    assert info["cpu_seconds"] > 0 and (published / "sensitivity_wine.png").is_file()
    # The tie scan of the run's selections, merged with its run and commit.
    for name in ("tie_settings.tsv", "tie_cells.tsv"):
        run_ties = pd.read_csv(published / name, sep="\t")
        merged_ties = pd.read_csv(into / name, sep="\t")
        assert list(merged_ties.columns[:2]) == ["run", "commit"]
        assert len(merged_ties) == len(run_ties) and set(merged_ties["run"]) <= {"wine"}
    # Per job (issue #29 item 2): the commit each job ran at, read from its log, and the
    # method code it ran; nothing changed since, so no cell is stale.
    # (several commits when the checkout moved on while the run ran: that is the point)
    commits = info["jobs"]["job_commits"]
    assert commits and all(len(c) == 40 for c in commits) and info["jobs"]["versions"]
    jobs = pd.read_csv(published / "jobs.tsv", sep="\t", dtype={"code": str})
    select = jobs[(jobs["stage"] == "select") & (jobs["method"] == "lsdcl")]
    assert len(select) == 1 and select["jobs"].iloc[0] >= 1
    provenance = pd.read_csv(into / "provenance.tsv", sep="\t")
    ran_methods = provenance[provenance["stage"].isin(["select", "crossval"])]
    assert len(ran_methods) and not ran_methods["stale"].astype(bool).any()
    runs = pd.read_csv(into / "runs.tsv", sep="\t")
    assert list(runs["job_commits"]) == [",".join(c[:12] for c in commits)]
    assert list(runs["stale_jobs"]) == [0]
    tables = workdir / "results" / "lsdcl" / "tables"
    ours = pd.read_csv(into / "lsdcl_acc.tsv", sep="\t")
    run = pd.read_csv(tables / "lsdcl_acc.tsv", sep="\t")
    pd.testing.assert_frame_equal(ours, run, check_dtype=False, rtol=1e-9)
    # The comparison lists every cell of the config's ten datasets: WINE's as the run
    # wrote them, the others as not run yet.
    ours = pd.read_csv(into / "lsdcl_vs_paper.tsv", sep="\t")
    run = pd.read_csv(tables / "lsdcl_vs_paper.tsv", sep="\t")
    # The published comparison also says where the tie rule completed a cell's features.
    scanned = ours[ours["dataset"] == "wine"]
    assert scanned["tied_counts"].notna().all() and (scanned["tie_picks_max"] >= 0).all()
    tied = scanned["tied_counts"] > 0
    assert scanned.loc[tied, "note"].str.contains("tie rule").all()
    wine = scanned.loc[~tied, run.columns].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        wine, run[~tied.to_numpy()].reset_index(drop=True), check_dtype=False, rtol=1e-9
    )
    others = ours[ours["dataset"] != "wine"]
    assert set(others["dataset"]) == set(config["datasets"]) - {"wine"}
    assert others["ours"].isna().all() and others["note"].str.startswith("not run").all()
    fidelity = pd.read_csv(into / "lsdcl_fidelity.tsv", sep="\t")
    assert (fidelity["cells"] == 1).all() and (fidelity["missing"] == 9).all()
    assert "| wine |" in (into / "lsdcl_nmi.md").read_text()
    assert (into / "lsdcl_crossval.tsv").is_file()
    assert len(pd.read_csv(into / "runs.tsv", sep="\t")) == 1
    # Publishing the same datasets again needs --replace.
    with pytest.raises(SystemExit, match="already published by wine"):
        publish_run.main([str(workdir), *args])
    publish_run.main([str(workdir), *args, "--replace"])
    assert [p.name for p in (into / "runs").iterdir()] == ["wine"]
    assert (into / "notes.tsv").read_text() == "dataset\tmethod\tnote\n"
    # Without a run, the merge is rebuilt only: an edited notes file reaches its cells.
    notes = tmp_path / "notes.tsv"
    notes.write_text("dataset\tmethod\tnote\nwine\tlsdcl\tedited after the run\n")
    config["paper"] = {**config["paper"], "notes": str(notes)}
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(config))
    merge_only = ["--config", str(edited), "--into", str(into), "--root", str(ROOT)]
    publish_run.main(merge_only)
    merged = pd.read_csv(into / "lsdcl_vs_paper.tsv", sep="\t")
    lsdcl = merged[(merged["method"] == "lsdcl") & (merged["dataset"] == "wine")]["note"]
    assert len(lsdcl) == 2
    assert lsdcl.str.endswith("edited after the run").all()
    assert not lsdcl.str.contains("proline").any()
    # The cross-validation's comparison takes its current notes too.
    cv_notes = tmp_path / "cv_notes.tsv"
    cv_notes.write_text("dataset\tmethod\tmetric\tnote\nusps49\tlsdcl\tnmi\tedited NMI note\n")
    config["paper"]["crossval"] = {**config["paper"]["crossval"], "notes": str(cv_notes)}
    edited.write_text(yaml.safe_dump(config))
    publish_run.main(merge_only)
    versus = pd.read_csv(into / "lsdcl_crossval_vs_paper.tsv", sep="\t").set_index("metric")
    assert (versus.loc["nmi", "note"] == "not run. edited NMI note").all()
    assert (versus.loc["acc", "note"] == "not run").all()


def test_crossval_parts_over_training_sizes_publish_as_one_run(wine_run, tmp_path):
    """The cross-validation of sizes 60 and 90 run as two parts (each alone, as a long
    nested search may have to, one after the other in one folder) publishes as the one
    run over both does; each part's cost and job records are its own size's. The parts'
    folder is the whole run's, restricted to one size at a time: no draw is redone (a
    draw does not depend on the other sizes run), and each part is published beside the
    other size's draws and benchmarks."""
    _, config = wine_run
    config = {**config, "paper": {**config["paper"]}}
    config["paper"]["crossval"] = {**config["paper"]["crossval"], "train_sizes": [60, 90]}
    (tmp_path / "whole").mkdir()
    write_config(tmp_path / "whole", config)
    config_file = str(tmp_path / "whole" / "config.yaml")

    def run(name, train_sizes):
        override = f"paper={{crossval: {{train_sizes: {train_sizes}}}}}"
        result = run_snakemake(tmp_path / name, "--cores", "2", "--until", "crossval_vs_paper",
                               "--config", "datasets=[wine]", override)  # fmt: skip
        return {rule for rule, _ in planned_jobs(result.stdout + result.stderr)}

    def publish(run, into, *extra):
        args = ["--config", config_file, "--into", str(into), "--root", str(ROOT)]
        publish_run.main([str(tmp_path / run), *args, "--crossval-part", *extra])

    one, merged = tmp_path / "one", tmp_path / "merged"
    assert "crossval_draw" in run("whole", "[60, 90]")
    publish("whole", one)
    shutil.copytree(tmp_path / "whole", tmp_path / "parts", symlinks=True)
    for size in (90, 60):
        assert "crossval_draw" not in run("parts", f"[{size}]")
        publish("parts", merged)
    part = merged / "runs" / "wine-crossval-nested+full_data_oracle-n60"
    benchmarks = tmp_path / "parts/results/lsdcl/benchmarks/crossval/wine/lsdcl"
    draws = sorted((benchmarks / "n60").glob("d*.tsv"))
    assert len(draws) > 1 and (benchmarks / "n90").is_dir()
    cpu = sum(pd.read_csv(f, sep="\t")["cpu_time"].iloc[-1] for f in draws)
    cost = pd.read_csv(part / "cost.tsv", sep="\t")
    assert cost.loc[cost["stage"] == "crossval", "cpu_s"].sum() == pytest.approx(cpu)
    records = pd.read_csv(part / "jobs.tsv", sep="\t")
    assert records.loc[records["stage"] == "crossval", "jobs"].sum() == len(draws) + 1  # + n60
    assert sorted(p.name for p in (merged / "runs").iterdir()) == [
        "wine-crossval-nested+full_data_oracle-n60",
        "wine-crossval-nested+full_data_oracle-n90",
    ]
    for name in ("lsdcl_crossval.tsv", "lsdcl_crossval.md", "lsdcl_crossval_vs_paper.tsv"):
        assert (one / name).read_text() == (merged / name).read_text(), name
    # the parts publish no dataset: the paper tables stay those of the dataset runs
    assert not (merged / "lsdcl_acc.tsv").exists()
    info = json.loads((merged / "runs" / "wine-crossval-nested+full_data_oracle-n60" /
                       "run.json").read_text())  # fmt: skip
    assert info["datasets"] == [] and info["crossval"] == [["full_data_oracle", 60], ["nested", 60]]
    # A size published twice needs --replace, which drops the earlier part.
    with pytest.raises(SystemExit, match="already published by wine-crossval"):
        publish("parts", merged)
    publish("parts", merged, "--replace")
    assert len(list((merged / "runs").iterdir())) == 2
    assert (one / "lsdcl_crossval.tsv").read_text() == (merged / "lsdcl_crossval.tsv").read_text()
    # A part cannot replace the size a dataset run's cross-validation holds.
    full = tmp_path / "full"
    workdir, _ = wine_run
    publish_run.main([str(workdir), "--config", str(workdir / "config.yaml"), "--into",
                      str(full), "--root", str(ROOT)])  # fmt: skip
    with pytest.raises(SystemExit, match="publish the other selections or sizes only"):
        publish("whole", full, "--replace")  # its size 90 is the dataset run's
