"""The BLUFS paper's experiment: Friedman-Nemenyi, the CD diagram, the kNN protocol, the
two-stage search, the paper tables, dataset skipping, Diamond9, and the config end to end."""

from __future__ import annotations

import runpy
import shutil
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats as sps
from snakemake_cli import (
    ROOT,
    needs_snakemake,
    planned_jobs,
    run_snakemake,
    validated,
    write_config,
)

from ufsbench import rank_features
from ufsbench.datasets import load_registry, unavailable_reason
from ufsbench.evaluate import knn_classification
from ufsbench.methods.base import Selection
from ufsbench.methods.registry import get_method
from ufsbench.papers.blufs import (
    default_best_count_cells,
    default_cells,
    oracle_cells,
    versus_paper,
    wide_table,
)
from ufsbench.plan import Plan, available_datasets, parse_setting_id, setting_id
from ufsbench.plots import cliques, plot_cd_diagram
from ufsbench.reference import load_reference
from ufsbench.stats import average_ranks, friedman_nemenyi, nemenyi_q
from ufsbench.tools import publish_run
from ufsbench.tuning import stage1_winners, stage2_settings

REFERENCE = ROOT / "resources" / "reference" / "blufs.tsv"


# -- Friedman + Nemenyi ---------------------------------------------------------------------


def test_nemenyi_critical_values_match_demsar_table():
    # Demšar (2006), Table 5(a): q_0.05 for k = 2..10.
    expected = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    # Demšar's table rounds a studentized-range table: agree within one unit of the 3rd decimal.
    assert [nemenyi_q(k) for k in range(2, 11)] == pytest.approx(expected, abs=1.5e-3)


def test_friedman_matches_the_paper_table_ranks_and_cd():
    """Spec §6.7: ranks of Table II (Baseline excluded): BLUFS 1.00 ... ; CD 4.79 (K=10, N=8)."""
    ref = load_reference(REFERENCE)
    acc = ref[(ref["table"] == "II") & (ref["method"] != "allfea")]
    table = acc.pivot(index="dataset", columns="method", values="mean")
    result = friedman_nemenyi(table)
    ranks = result["ranks"]
    expected = {"blufs": 1.0, "blsfs": 3.25, "spcafs": 4.375, "blsfe": 4.875,
                "lapscore": 5.875, "rne": 6.625, "mcfs": 6.75, "sogfs": 7.0,
                "udfs": 7.625, "fspca": 7.625}  # fmt: skip
    assert ranks.to_dict() == pytest.approx(expected)
    assert result["cd"] == pytest.approx(4.79, abs=0.005)
    # E19: BLUFS vs LapScore differ by 4.875 > CD, so Nemenyi finds them different.
    assert result["pairwise"].loc["blufs", "lapscore"] < 0.05
    # Without ties the statistic equals scipy's Friedman chi-square.
    chi2, p = sps.friedmanchisquare(*table.to_numpy().T)
    assert result["chi2"] == pytest.approx(chi2, rel=0.02)  # scipy corrects for the one tie


def test_friedman_equals_scipy_without_ties_and_nemenyi_p_is_alpha_at_cd():
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.normal(size=(14, 4)), columns=list("abcd"))
    result = friedman_nemenyi(table)
    chi2, p = sps.friedmanchisquare(*table.to_numpy().T)
    assert result["chi2"] == pytest.approx(chi2) and result["p_value"] == pytest.approx(p)
    # Demšar's example size: k = 4, N = 14 gives CD = 2.569 sqrt(20 / 84) = 1.25.
    assert result["cd"] == pytest.approx(1.2536, abs=1e-3)
    # A rank difference of exactly CD has a Nemenyi p-value of exactly alpha.
    se = np.sqrt(4 * 5 / (6 * 14))
    p_at_cd = sps.studentized_range.sf(result["cd"] / se * np.sqrt(2), 4, np.inf)
    assert p_at_cd == pytest.approx(0.05, abs=1e-6)


def test_ranks_average_ties_and_reject_missing():
    table = pd.DataFrame({"a": [3.0, 1.0], "b": [3.0, 2.0], "c": [1.0, 3.0]})
    assert average_ranks(table).to_dict() == {"a": 2.25, "b": 1.75, "c": 2.0}
    with pytest.raises(ValueError, match="has a missing score"):
        average_ranks(table.assign(c=[1.0, np.nan]))


def test_cd_diagram_groups_and_renders():
    ranks = pd.Series({"a": 1.0, "b": 1.5, "c": 3.5, "d": 4.0})
    assert cliques(ranks, 1.0) == [(0, 1), (2, 3)]
    assert cliques(ranks, 3.1) == [(0, 3)]
    fig = plot_cd_diagram(ranks, 1.0, title="t")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "CD = 1.00" in texts and "a (1.00)" in texts and "d (4.00)" in texts
    bars = [c for c in fig.axes[0].collections if max(c.get_linewidths()) >= 3]
    assert len(bars) == 2


# -- kNN classification protocol ------------------------------------------------------------


def test_knn_protocol_separates_informative_from_noise(planted_data):
    X, y, informative = planted_data
    d = X.shape[1]
    noise = [j for j in range(d) if j not in informative]
    good = Selection.from_scores(np.isin(np.arange(d), informative).astype(float))
    bad = Selection(ranking=np.array(noise + list(informative)), scores=np.zeros(d))
    a = knn_classification(X, y, good, [4], splits=10, seed_key=("t",))
    b = knn_classification(X, y, bad, [4], splits=10, seed_key=("t",))
    assert list(a.columns) == ["n_features", "split", "accuracy"] and len(a) == 10
    assert a["accuracy"].mean() > 0.9 > b["accuracy"].mean() + 0.2
    again = knn_classification(X, y, good, [4], splits=10, seed_key=("t",))
    pd.testing.assert_frame_equal(a, again)


def test_knn_protocol_brute_force_one_split():
    """1-NN accuracy of one split equals a brute-force nearest-neighbour count."""
    from sklearn.model_selection import train_test_split

    from ufsbench.seeding import derive_seed

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    sel = Selection.from_scores(np.array([3.0, 2.0, 1.0]))
    got = knn_classification(X, y, sel, [2], splits=1, seed_key=("k",))["accuracy"].iloc[0]
    train, test = train_test_split(np.arange(40), test_size=0.5, stratify=y,
                                   random_state=derive_seed("k", "split", 0))  # fmt: skip
    Xs = X[:, :2]
    dist = ((Xs[test, None, :] - Xs[None, train, :]) ** 2).sum(-1)
    pred = y[train][dist.argmin(axis=1)]
    assert got == pytest.approx(np.mean(pred == y[test]))
    assert np.bincount(y[test]).tolist() == [10, 10]  # stratified


def test_knn_protocol_errors():
    X = np.random.default_rng(0).normal(size=(6, 2))
    sel = Selection.from_scores(np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="every class needs >= 2 samples"):
        knn_classification(X, np.array([0, 0, 0, 0, 0, 1]), sel, [1])
    with pytest.raises(ValueError, match="splits=0"):
        knn_classification(X, np.repeat([0, 1], 3), sel, [1], splits=0)


# -- two-stage search and paper tables -------------------------------------------------------


def _scores(rows):
    frame = pd.DataFrame(rows, columns=["params", "n_features", "repeat", "acc"])
    return frame.assign(dataset="d", method="blufs", in_grid=True, is_default=False,
                        nmi_max=frame["acc"], nmi_sqrt=frame["acc"])  # fmt: skip


def test_stage1_winners_per_count_and_per_dataset():
    scores = _scores([("a", 10, 0, 0.5), ("a", 10, 1, 0.7), ("b", 10, 0, 0.4), ("b", 10, 1, 0.4),
                      ("a", 20, 0, 0.1), ("b", 20, 0, 0.9), ("a", 30, 0, 0.9)])  # fmt: skip
    assert stage1_winners(scores, anchor="per_count") == {10: "a", 20: "b", 30: "a"}
    # per_dataset: best cell 0.9 at counts 20 (b) and 30 (a): the smaller count wins.
    assert stage1_winners(scores, anchor="per_dataset") == {10: "b", 20: "b", 30: "b"}
    with pytest.raises(ValueError, match="unknown anchor"):
        stage1_winners(scores, anchor="best")


def test_stage2_settings_skip_stage1_and_share_runs():
    spec = get_method("blufs")
    a = spec.check_params({"alpha": 0.01})
    b = spec.check_params({"alpha": 100.0})
    stage1 = {setting_id(a): a, setting_id(b): b}
    winners = {10: setting_id(a), 20: setting_id(a), 30: setting_id(b)}
    out = stage2_settings(spec, stage1, winners, {"lam": [1.0, 10.0], "mu": [1.0]})
    # lam = mu = 1 is the stage-1 setting itself: only lam = 10 is new, once per winner.
    assert [(p["alpha"], p["lam"], counts) for _, p, counts in out] == [
        (0.01, 10.0, [10, 20]), (100.0, 10.0, [30])]  # fmt: skip
    with pytest.raises(ValueError, match="unknown parameter 'gamma'"):
        stage2_settings(spec, stage1, winners, {"gamma": [1.0]})


def test_setting_id_round_trip():
    spec = get_method("blufs")
    params = spec.check_params({"alpha": 1e-4, "p_support": None, "y_safeguard": False})
    assert parse_setting_id(spec, setting_id(params)) == params
    with pytest.raises(ValueError, match="cannot read setting id"):
        parse_setting_id(spec, "nonsense=1")


def test_oracle_cells_take_the_best_cell_its_std_and_the_smaller_count():
    scores = _scores([("a", 10, 0, 0.5), ("a", 10, 1, 0.7), ("b", 20, 0, 0.6), ("b", 20, 1, 0.6),
                      ("b", 30, 0, 0.2)])  # fmt: skip
    cells = oracle_cells(scores, metrics=("acc",))
    row = cells.iloc[0]
    assert (row["params"], row["n_features"]) == ("a", 10)  # 60 at s=10 ties 60 at s=20
    assert row["mean"] == pytest.approx(60.0) and row["std"] == pytest.approx(100 * np.std(
        [0.5, 0.7], ddof=1))  # fmt: skip
    assert wide_table(cells, "acc").loc["d", "blufs"] == "60.00±14.14 (10)"


def test_versus_paper_difference_and_companions():
    cells = pd.DataFrame({"dataset": ["warpar10p"] * 2, "method": ["blufs", "random"],
                          "metric": ["acc"] * 2, "mean": [40.0, 41.0], "std": [1.0, 1.0],
                          "n_features": [30, 30], "params": ["x", "seed=1"]})  # fmt: skip
    reseeds = pd.DataFrame({"dataset": "warpar10p", "method": "blufs", "metric": "acc",
                            "seed": [0, 1], "value": [30.0, 32.0]})  # fmt: skip
    out = versus_paper(cells, load_reference(REFERENCE), reseeds=reseeds)
    row = out.iloc[0]
    assert len(out) == 1 and row["paper"] == 38.45
    assert row["difference"] == pytest.approx(1.55) and row["reseed_mean"] == 31.0
    assert row["random_oracle"] == 41.0
    assert "misses the paper by -7.45" in row["notes"] and "RandomSubset" in row["notes"]
    assert "the paper's cell is 2.55 below our RandomSubset oracle" in row["notes"]
    above = versus_paper(cells.assign(mean=[40.0, 38.0]), load_reference(REFERENCE))
    assert "below our RandomSubset" not in above.iloc[0]["notes"]  # paper 38.45 >= 38


def test_versus_paper_keeps_the_columns_of_blufs_vs_paper():
    cells = pd.DataFrame({"dataset": "warpar10p", "method": ["blufs", "allfea"],
                          "metric": "acc", "mean": [40.0, 30.0], "std": [1.0, 0.5],
                          "n_features": [20, 400], "params": ["x", "default"]})  # fmt: skip
    defaults = cells.assign(mean=[33.0, 30.0], n_features=[10, 1])
    best_count = cells.assign(mean=[35.0, 30.0], n_features=[50, 400])
    out = versus_paper(
        cells, load_reference(REFERENCE), defaults=defaults, default_best_count=best_count
    )
    assert list(out.columns) == [
        "dataset", "method", "metric", "ours", "ours_std", "ours_s", "params", "paper",
        "paper_std", "paper_s", "difference", "random_oracle", "default", "default_counts",
        "default_best_count", "default_best_count_s", "reseed_mean", "reseed_std", "reseeds",
        "reseed_difference", "notes",
    ]  # fmt: skip
    row = out.set_index("method").loc["blufs"]
    assert (row["ours_s"], row["paper_s"], row["default_best_count_s"]) == (20, 30, 50)
    assert (row["paper_std"], row["default"], row["default_counts"]) == (2.11, 33.0, 10)
    assert row["default_best_count"] == 35.0
    assert np.isnan(row["random_oracle"]) and np.isnan(row["reseeds"]) and row["notes"] == ""


def test_renote_writes_what_the_tables_job_writes_with_the_current_notes(tmp_path):
    from ufsbench.io import write_table
    from ufsbench.papers.blufs import renote
    from ufsbench.reference import add_notes

    cells = pd.DataFrame({"dataset": ["warpar10p"] * 3, "method": ["blufs", "udfs", "random"],
                          "metric": ["acc"] * 3, "mean": [40.0, 20.123456, 41.0],
                          "std": [1.0, 2.0, 1.0], "n_features": [30, 20, 30],
                          "params": ["x", "y", "seed=1"]})  # fmt: skip
    reseeds = pd.DataFrame({"dataset": "warpar10p", "method": "blufs", "metric": "acc",
                            "seed": [0, 1], "value": [30.0, 32.123]})  # fmt: skip
    old = pd.DataFrame({"dataset": ["warpar10p"], "method": ["udfs"], "note": ["old reading"]})
    new = pd.DataFrame({"dataset": ["*", "warpar10p"], "method": ["blufs", "*"],
                        "metric": ["acc", ""], "note": ["new reading", "our copy"]})  # fmt: skip
    made = versus_paper(cells, load_reference(REFERENCE), reseeds=reseeds)
    # The table as a run made with the old notes published it, read back.
    write_table(tmp_path / "vs.tsv", add_notes(made, old, column="notes"))
    published = pd.read_csv(tmp_path / "vs.tsv", sep="\t")
    assert "old reading" in published.set_index("method").loc["udfs", "notes"]
    for notes in (old, new, None):
        expected = add_notes(made, notes, column="notes")["notes"].tolist()
        assert renote(published, notes)["notes"].tolist() == expected
    again = renote(published, new).set_index("method")["notes"]
    assert again["blufs"].startswith("seed-averaged winner misses the paper by -7.39")
    assert again["blufs"].endswith(". new reading. our copy")  # equally broad: file order
    assert again["udfs"].endswith("our copy") and "old reading" not in again["udfs"]


def test_default_companion_averages_every_count_without_labels():
    """Issue #29: the default companion is the default setting over every feature count,
    not the count the labels favour; that one is kept, named default_best_count."""
    scores = pd.DataFrame({
        "dataset": "d", "method": "m", "params": ["default"] * 4 + ["x"] * 4,
        "is_default": [True] * 4 + [False] * 4, "in_grid": True,
        "n_features": [10, 10, 20, 20] * 2, "repeat": [0, 1] * 4,
        "acc": [0.5, 0.7, 0.9, 0.9, 1.0, 1.0, 1.0, 1.0], "nmi_max": 0.5,
    })  # fmt: skip
    cells = default_cells(scores, metrics=("acc",)).iloc[0]
    assert cells["mean"] == pytest.approx(75.0) and cells["n_features"] == 2
    assert cells["std"] == pytest.approx(np.std([60.0, 90.0], ddof=1))
    best = default_best_count_cells(scores, metrics=("acc",)).iloc[0]
    assert (best["mean"], best["n_features"]) == (pytest.approx(90.0), 20)


# -- datasets that cannot be fetched --------------------------------------------------------


def test_unavailable_datasets_are_skipped_with_a_reason(tmp_path, capsys):
    registry = load_registry()
    assert unavailable_reason(registry["wine"], None) is None
    assert registry["lung"].sha256 is None and registry["mstar"].n_features == 1024
    empty = tmp_path / "mirror"
    empty.mkdir()
    # a gated file (no public copy) is never available without a local copy, offline or not
    reason = unavailable_reason(registry["mpie_s1"], None, mirror=empty)
    assert "mpie_s1" in reason and "no public URL" in reason
    kept = available_datasets(["wine", "mpie_s1"], registry, empty, raw_root=tmp_path)
    assert kept == ["wine"]
    assert "skipping dataset 'mpie_s1'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="none of"):
        available_datasets(["mpie_s1"], registry, empty, raw_root=tmp_path)


# -- the synthetic experiment ----------------------------------------------------------------


def test_blufs_recovers_diamond9_on_a_reduced_sample(mirror):
    """Spec §2.12: Diamond9 + 7 N(0,1) columns, s = 2, default parameters -> {0, 1}.

    A regression check only (spec §10.2 F2): the informative columns also differ from
    the noise by their non-zero means.
    """
    from ufsbench.data import load_dataset

    registry = load_registry()
    X, y, _ = load_dataset(registry["diamond9_noise"], mirror / "diamond9.mat")
    keep = np.random.default_rng(0).choice(len(y), 600, replace=False)
    sel = rank_features(X[keep], "blufs", n_clusters=9, feature_counts=[2], random_state=0)
    assert sorted(sel.top(2).tolist()) == [0, 1]


# -- the experiment config, end to end --------------------------------------------------------


def test_blufs_config_tunes_what_the_paper_tunes():
    """Spec §4/§6.2: SOGFS and SPCAFS over the 8-value gamma grid, BLSFS and BLUFS by the
    two-stage search, every graph-based method on the paper's 10-NN graph."""
    config = yaml.safe_load((ROOT / "config/experiments/blufs.yaml").read_text())
    plan = Plan(validated(config), load_registry(ROOT / "config" / "datasets.yaml"))
    grid = [10.0**p for p in range(-4, 4)]

    def tuned(method):
        return [s.params for s in plan.settings[method] if s.in_grid]

    for method in ("sogfs", "spcafs"):
        assert sorted(p["gamma"] for p in tuned(method)) == grid
    assert all(p["k"] == 10 for p in tuned("sogfs"))
    blsfs = tuned("blsfs")
    assert len(blsfs) == 64 and {p["alpha"] for p in blsfs} == {1.0}
    assert config["blufs"]["two_stage"]["blsfs"] == {"alpha": grid}
    assert len(tuned("blufs")) == 64
    assert config["blufs"]["two_stage"]["blufs"] == {"mu": grid, "lam": grid}
    for method in ("rne", "blsfs", "blufs"):
        assert all(p["k"] == 10 for p in tuned(method)), method
    assert config["graph"]["k"] == 10  # the k-NN graph of LapScore and MCFS


def _tiny_blufs_config():
    """blufs.yaml on one small dataset with a tiny grid (few jobs: each costs an import)."""
    config = yaml.safe_load((ROOT / "config/experiments/blufs.yaml").read_text())
    grid = [0.1, 10.0]
    config.update(
        mirror=None,
        datasets=["wine", "lung"],  # lung cannot be fetched offline: skipped with a message
        feature_counts={"wine": [2, 4]},
        methods={
            "allfea": {},
            "random": {"draws": 2},
            "blufs": {"alpha": grid, "beta": [1.0], "max_iter": [5]},
            "blufs_case1": {"beta": [1.0], "max_iter": [5]},
        },  # fmt: skip
        evaluation={**config["evaluation"], "repeats": 2, "n_init": 2},
    )
    config["blufs"].update(
        two_stage={"blufs": {"lam": grid}}, reseeds=2, reseed_methods=["blufs"],
        ablation=["blufs_case1"], knn={"splits": 3, "test_size": 0.5, "k": 1},
        synthetic={"datasets": ["synthetic_planted"], "methods": ["blufs"], "n_features": 2},
        figures={kind: ["wine"] for kind in ("sensitivity", "stability", "correlation",
                                              "convergence")} | {"correlation_methods": ["blufs"]},
        runtime={"methods": ["blufs"], "repeats": 1},
    )  # fmt: skip
    return config


# The whole run over WINE and IRIS (LUNG skipped), made once: the end-to-end test reads it,
# the test of publishing runs over disjoint datasets splits it.
JOINT = ("wine", "iris")


@pytest.fixture(scope="module")
def joint_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("joint")
    config = _tiny_blufs_config()
    config["datasets"] = [*JOINT, "lung"]
    config["feature_counts"] = {"wine": [2, 4], "iris": [1, 2]}
    config["methods"]["lapscore"] = {"t": [1.0]}  # a second method for the Friedman test
    # SPCAFS is seed-free: its re-seeding is one job
    config["methods"]["spcafs"] = {"gamma": [1.0], "max_iter": [5]}
    config["blufs"]["reseed_methods"] = ["blufs", "spcafs"]
    config["blufs"]["reference"] = str(REFERENCE)
    config["blufs"]["figures"] = {
        kind: list(JOINT) for kind in ("sensitivity", "stability", "correlation", "convergence")
    } | {"correlation_methods": ["blufs"]}
    notes = workdir / "notes.tsv"
    notes.write_text("dataset\tmethod\tnote\nwine\tblufs\tWINE is not a dataset of the paper\n")
    config["blufs"]["notes"] = str(notes)
    # 2 feature counts x 2 stage-2 points = 4 runs: BLUFS's own 2 runs per part gives stage 2
    # in 2 parts (the run's chunk_size, 4, would give one).
    config["chunk_size"] = 4
    config["methods"]["blufs"]["chunk_size"] = 2
    write_config(workdir, config)
    result = run_snakemake(workdir, "--cores", "2")
    return SimpleNamespace(workdir=workdir, config=config, stderr=result.stderr)


@pytest.mark.slow
@needs_snakemake
def test_blufs_config_runs_end_to_end(joint_run):
    workdir, config = joint_run.workdir, joint_run.config
    assert "skipping dataset 'lung'" in joint_run.stderr
    tables = workdir / "results" / "blufs" / "tables"
    stage2 = pd.read_csv(workdir / "results/blufs/wine/blufs/stage2/scores.tsv", sep="\t")
    assert set(stage2["params"].str.extract(r"lam=([^,]+)")[0]) == {"0.1", "10"}
    scores = pd.read_csv(tables / "scores.tsv", sep="\t")
    assert len(stage2) and set(stage2["params"]) <= set(scores["params"])
    # each dataset's own table (what its companions read) is its rows of the run's, in order
    for dataset in JOINT:
        own = pd.read_csv(workdir / "results/blufs" / dataset / "scores.tsv", sep="\t")
        rows = scores[scores["dataset"] == dataset].reset_index(drop=True)
        pd.testing.assert_frame_equal(own, rows, check_exact=True)
    versus = pd.read_csv(tables / "blufs_vs_paper.tsv", sep="\t")
    blufs = versus[(versus["method"] == "blufs") & (versus["metric"] == "acc")]
    row = blufs.set_index("dataset").loc["wine"]
    assert row["reseeds"] == 2 and not np.isnan(row["default"])
    assert row["notes"].endswith("WINE is not a dataset of the paper")
    others = versus.loc[(versus["method"] != "blufs") | (versus["dataset"] != "wine"), "notes"]
    assert not others.fillna("").str.contains("WINE").any()
    assert (tables / "blufs_table2.md").read_text().startswith("**Table II")
    assert "Case I" in (tables / "blufs_table5.md").read_text()
    figures = workdir / "results/blufs/figures/blufs"
    assert (figures / "cd_acc.png").stat().st_size > 0
    picks = pd.read_csv(tables / "blufs_synthetic_synthetic_planted.tsv", sep="\t")
    assert picks["method"].tolist() == ["blufs"] and picks["hits"].iloc[0] in (0, 1, 2)
    assert "seconds" not in picks.columns
    # The synthetic and runtime jobs run a method: their records carry its code hash, so
    # provenance.tsv can flag them when that code changes.
    from ufsbench.provenance import method_hashes, read_job_records, workflow_codebase

    jobs = read_job_records(workdir / "logs/blufs")
    leaf = jobs[jobs["stage"].isin(["blufs/synthetic", "blufs/runtime"])]
    assert set(leaf["stage"]) == {"blufs/synthetic", "blufs/runtime"}
    now = method_hashes(workflow_codebase(scripts=ROOT / "workflow/scripts"), ["blufs"])
    blufs_jobs = leaf[leaf["method"] == "blufs"]
    assert len(blufs_jobs) >= 2 and blufs_jobs["code"].str.startswith(now["blufs"]).all()
    traces = pd.read_csv(tables / "blufs_convergence_wine.tsv", sep="\t")
    assert "seconds" not in traces.columns and len(traces)
    for name in ("sensitivity", "stability", "correlation", "convergence"):
        assert (figures / f"{name}_wine.png").stat().st_size > 0, name
    # Table VIII is made of timings: results/timings, not the byte-identical results/tables.
    table8 = (workdir / "results/blufs/timings/blufs_table8.md").read_text()
    assert "| wine |" in table8 and "Load average during the runs" in table8
    runtime = pd.read_csv(workdir / "results/blufs/wine/blufs/runtime.tsv", sep="\t").iloc[0]
    # Timed on one BLAS/OpenMP thread (the pools threadpoolctl saw, each limited to 1).
    assert runtime["mean_cpu_seconds"] > 0 and runtime["mean_seconds"] > 0
    pools = str(runtime["blas_threads"]).split(";")
    assert pools and all(p.rsplit(":", 1)[1] == "1" for p in pools), pools
    _assert_stage2_parts_equal_the_serial_search(workdir, config, parts=2)
    # Re-seeding: a job per seed; one for both seeds of the seed-free SPCAFS.
    wine = workdir / "results/blufs/wine"
    assert sorted(p.name for p in (wine / "blufs/reseed").iterdir()) == ["r0.tsv", "r1.tsv"]
    assert sorted(p.name for p in (wine / "spcafs/reseed").iterdir()) == ["r0-1.tsv"]
    for method in ("blufs", "spcafs"):
        reseeds = pd.read_csv(wine / method / "reseed.tsv", sep="\t")
        assert reseeds.groupby("metric")["seed"].apply(list).map([0, 1].__eq__).all()
    # Everything is up to date: a second plan has nothing to do.
    again = run_snakemake(workdir, "-n")
    assert "Nothing to be done" in again.stdout + again.stderr, again.stdout[-2000:]


def _assert_stage2_parts_equal_the_serial_search(workdir, config, parts):
    """The workflow's stage 2 (in ``parts`` jobs) equals the search run serially in one go."""
    from ufsbench.io import load_data, load_selections, write_table
    from ufsbench.tuning import run_settings

    stage2 = workdir / "results/blufs/wine/blufs/stage2"
    assert sorted(p.name for p in stage2.glob("part*")) == [f"part{p}" for p in range(parts)]
    for p in range(parts):
        assert (workdir / f"logs/blufs/blufs/stage2/wine/blufs/part{p}.log").stat().st_size > 0
        assert (workdir / f"results/blufs/benchmarks/stage2/wine/blufs/part{p}.tsv").is_file()
        assert len(pd.read_csv(stage2 / f"part{p}/scores.tsv", sep="\t")), f"part {p} is empty"
    X, y, _ = load_data(workdir / "results/blufs/wine/data.npz")
    chunks = (workdir / "results/blufs/wine/blufs").glob("c*/scores.tsv")
    stage1 = pd.concat([pd.read_csv(f, sep="\t") for f in chunks])
    spec = get_method("blufs")
    settings = {sid: parse_setting_id(spec, sid) for sid in stage1["params"].unique()}
    blufs = config["blufs"]
    winners = stage1_winners(stage1, metric=blufs["anchor_metric"], anchor=blufs["anchor"])
    serial = stage2_settings(spec, settings, winners, blufs["two_stage"]["blufs"])
    evaluation = {"init": "random", **config["evaluation"]}
    kmeans = {key: evaluation[key] for key in ("repeats", "n_init", "max_iter", "init")}
    selections, scores = run_settings(
        X,
        y,
        "blufs",
        serial,
        dataset="wine",
        n_clusters=3,
        kmeans={**kmeans, "engine": evaluation["kmeans"]},
        seeding=evaluation["seeding"],
    )
    write_table(workdir / "serial.tsv", scores)

    def without_seconds(path):  # the last column, select_seconds, is wall-clock time
        return [line.rsplit("\t", 1)[0] for line in path.read_text().splitlines()]

    assert without_seconds(stage2 / "scores.tsv") == without_seconds(workdir / "serial.tsv")
    merged = load_selections(stage2 / "selection.npz")
    assert list(merged) == list(selections)
    for sid, sel in selections.items():
        assert all(np.array_equal(merged[sid].subsets[m], sel.subsets[m]) for m in sel.subsets)
        assert np.array_equal(merged[sid].ranking, sel.ranking)


# -- analysis figures ------------------------------------------------------------------------


def _sid(alpha, beta, lam, mu):
    return f"alpha={alpha:g},beta={beta:g},lam={lam:g},mu={mu:g}"


def test_sensitivity_grids_read_both_stages_at_the_winning_count():
    from ufsbench.papers.blufs_figures import plot_sensitivity, sensitivity_grids

    rows = []
    for a in (0.1, 1.0):
        for b in (0.1, 1.0):
            rows.append((_sid(a, b, 1, 1), 10, 0, 0.1 * a + 0.2 * b))
            rows.append((_sid(a, b, 1, 1), 20, 0, 0.0))
    for lam in (1.0, 10.0):
        for mu in (1.0, 10.0):
            if (lam, mu) != (1.0, 1.0):
                rows.append((_sid(1, 1, lam, mu), 10, 0, 0.3 + 0.01 * lam * mu))
    (first, second), s = sensitivity_grids(_scores(rows), "d")
    assert s == 10  # the winner (lam = mu = 10) is at count 10
    x, y, grid = first
    assert (x, y) == ("alpha", "beta") and grid.loc[1.0, 1.0] == pytest.approx(30.0)
    assert grid.loc[0.1, 1.0] == pytest.approx(12.0)  # beta = 0.1 row, alpha = 1 column
    x, y, grid = second
    assert (x, y) == ("mu", "lam") and grid.shape == (2, 2)
    assert grid.loc[10.0, 10.0] == pytest.approx(130.0) and grid.loc[1.0, 1.0] == pytest.approx(
        30.0
    )
    fig = plot_sensitivity([first, second], "d", s)
    assert len(fig.axes) == 3  # 2 panels and one colour bar: one scale (issue 26)
    assert fig.axes[0].images[0].get_clim() == fig.axes[1].images[0].get_clim()


def test_redundancy_of_correlated_columns():
    from ufsbench.papers.blufs_figures import redundancy

    rng = np.random.default_rng(0)
    a = rng.normal(size=200)
    X = np.column_stack([a, 2 * a + 1, rng.normal(size=200), np.ones(200)])
    R, score = redundancy(X, [0, 1])
    assert R[0, 1] == pytest.approx(1.0) and score == pytest.approx(1.0)
    R, score = redundancy(X, [0, 2, 3])  # a constant column counts as uncorrelated
    assert score < 0.1 and R[2, 0] == 0.0
    R, score = redundancy(X, [2])  # one selected feature (a count of 1): nothing off-diagonal
    assert R.shape == (1, 1) and score == 0.0


def test_selections_by_method_merge_each_methods_chunks(tmp_path):
    from ufsbench.io import save_selections
    from ufsbench.papers.blufs_figures import selections_by_method

    def chunk(method, i, settings):
        path = tmp_path / "selections" / "d" / method / str(i) / "selection.npz"
        path.parent.mkdir(parents=True)
        save_selections(path, {s: Selection.from_scores(np.array(v)) for s, v in settings})
        return str(path)

    paths = [
        chunk("blufs", 0, [("a=1", [0.0, 1.0, 2.0])]),
        chunk("lapscore", 0, [("", [2.0, 1.0, 0.0])]),
        chunk("blufs", 1, [("a=2", [1.0, 2.0, 0.0]), ("a=3", [2.0, 0.0, 1.0])]),
    ]
    found = selections_by_method(paths)
    assert {m: sorted(found[m]) for m in found} == {
        "blufs": ["a=1", "a=2", "a=3"],
        "lapscore": [""],
    }
    assert found["blufs"]["a=2"].ranking.tolist() == [1, 0, 2]
    assert found["lapscore"][""].ranking.tolist() == [0, 1, 2]


def test_table8_aligns_methods_and_reads_files_without_cpu_seconds(tmp_path):
    # Rows are datasets and columns methods even when a method lacks a dataset; a
    # runtime file from before CPU seconds were kept shows its wall seconds alone.
    runs = {
        ("isolet", "blufs"): {"mean_seconds": 2.0, "mean_cpu_seconds": 1.5, "load_average": 3.0},
        ("isolet", "fspca"): {"mean_seconds": 0.5, "mean_cpu_seconds": 0.4, "load_average": 5.0},
        ("pie", "fspca"): {"mean_seconds": 0.7},
    }
    inputs = []
    for (dataset, method), columns in runs.items():
        path = tmp_path / f"{dataset}_{method}.tsv"
        row = {"dataset": dataset, "method": method, "cpus": 2, **columns}
        pd.DataFrame([row]).to_csv(path, sep="\t", index=False)
        inputs.append(str(path))
    stub = SimpleNamespace(
        input=inputs,
        log=[str(tmp_path / "table8.log")],
        params=SimpleNamespace(reference=str(REFERENCE)),
        output=SimpleNamespace(tsv=str(tmp_path / "t8.tsv"), md=str(tmp_path / "t8.md")),
    )
    script = ROOT / "workflow" / "scripts" / "blufs_table8.py"
    runpy.run_path(str(script), init_globals={"snakemake": stub})
    lines = (tmp_path / "t8.md").read_text().splitlines()
    paper = load_reference(REFERENCE)
    paper = paper[paper["table"] == "VIII"].set_index(["dataset", "method"])["mean"]
    assert lines[2] == "| dataset | BLUFS | FSPCA |"
    isolet = f"| isolet | 2.00 [1.50] ({paper['isolet', 'blufs']:.2f}) | 0.50 [0.40] "
    assert lines[4] == isolet + f"({paper['isolet', 'fspca']:.2f}) |"
    assert lines[5] == f"| pie | - | 0.70 ({paper['pie', 'fspca']:.2f}) |"
    assert lines[-1].startswith("Load average during the runs 3.0-5.0 on 2 CPUs")


def _same_publication(one, merged):
    """Every file ``one`` publishes, ``merged`` publishes alike (Table VIII's timings are
    the runs' own: its rows and columns must agree, not its seconds)."""
    names = sorted(p.name for p in one.iterdir() if p.is_file())
    assert names == sorted(p.name for p in merged.iterdir() if p.is_file())
    for name in names:
        if name in ("runs.tsv", "provenance.tsv"):  # the index of the runs: differs by design
            continue
        if name.startswith("blufs_table8"):
            if name.endswith(".tsv"):
                keys = ["dataset", "method"]
                a, b = (pd.read_csv(d / name, sep="\t")[keys] for d in (one, merged))
                pd.testing.assert_frame_equal(a, b)
            continue
        assert (one / name).read_bytes() == (merged / name).read_bytes(), name


# Rules whose outputs read every dataset of the run: all a run restricted to fewer datasets
# may redo. The per-dataset BLUFS jobs (re-seeding, kNN, figures) read their dataset's own
# scores; of the spine, only the convergence plots read the run's table.
ACROSS_DATASETS = {"aggregate", "ttest", "figure_curves", "convergence", "figure_convergence",
                   "blufs_tables", "blufs_cd", "blufs_table8", "all"}  # fmt: skip


@pytest.mark.slow
@needs_snakemake
def test_blufs_runs_over_disjoint_datasets_publish_as_one_run(joint_run, tmp_path):
    """Runs of WINE and of IRIS, published into one folder, equal the run over both. Each
    is the joint run restricted to its dataset: it redoes only what reads every dataset."""
    for name in JOINT:
        shutil.copytree(joint_run.workdir, tmp_path / name, symlinks=True)
        result = run_snakemake(tmp_path / name, "--cores", "2", "--config", f"datasets=[{name}]")
        redone = {rule for rule, _ in planned_jobs(result.stdout + result.stderr)}
        assert redone and redone <= ACROSS_DATASETS, sorted(redone - ACROSS_DATASETS)
    config_file = str(joint_run.workdir / "config.yaml")
    one, merged = tmp_path / "one", tmp_path / "merged"
    publish_run.main([str(joint_run.workdir), "--config", config_file, "--into", str(one),
                      "--root", str(ROOT)])  # fmt: skip
    # Published from one run: its tables with LaTeX, figures, fidelity and cost.
    names = {p.name for p in one.iterdir()}
    assert {"blufs_table2.tex", "blufs_table8.md", "cd_acc.png", "blufs_fidelity.tsv"} <= names
    # WINE and IRIS are no datasets of the paper: no cell to compare, the summary is its header
    fidelity = pd.read_csv(one / "blufs_fidelity.tsv", sep="\t")
    assert fidelity.empty and {"method", "metric", "ran"} <= set(fidelity.columns)
    cost = pd.read_csv(one / "runs" / "+".join(JOINT) / "cost.tsv", sep="\t")
    # the companions that compute are timed beside the selection and evaluation
    timed = {"select", "evaluate", "stage2", "reseed", "knn", "runtime", "synthetic"}
    assert timed <= set(cost["stage"])
    for name in ("iris", "wine"):
        publish_run.main([str(tmp_path / name), "--config", config_file, "--into", str(merged),
                          "--root", str(ROOT)])  # fmt: skip
    _same_publication(one, merged)
    friedman = pd.read_csv(merged / "blufs_friedman_acc.tsv", sep="\t")
    assert friedman["n_datasets"].eq(2).all()
    assert set(friedman["method"]) == {"blufs", "lapscore", "spcafs"}
    index = pd.read_csv(merged / "runs.tsv", sep="\t")
    assert sorted(index["run"]) == ["iris", "wine"]
    # A dataset published twice is refused; --replace swaps the run that had it.
    args = ["--config", config_file, "--into", str(merged), "--root", str(ROOT)]
    with pytest.raises(SystemExit, match="already published by wine"):
        publish_run.main([str(tmp_path / "wine"), *args])
    publish_run.main([str(tmp_path / "wine"), *args, "--replace"])
    _same_publication(one, merged)
    # A run from before Table V's cells were kept cannot be merged: it says what to redo.
    (merged / "runs" / "iris" / "blufs_table5.tsv").unlink()
    with pytest.raises(SystemExit, match="runs iris lack blufs_table5.tsv"):
        publish_run.main(args)


def test_knn_winners_keep_the_dataset_order_and_take_the_smaller_count_on_ties():
    from ufsbench.papers.blufs_report import knn_winners

    rows = [("wine", "blufs", 4, 0.8), ("wine", "blufs", 2, 0.8), ("wine", "blufs", 4, 0.8),
            ("wine", "blufs", 2, 0.8), ("iris", "blufs", 1, 0.5), ("iris", "blufs", 2, 0.9),
            ("iris", "blufs", 1, 0.7), ("iris", "blufs", 2, 0.7)]  # fmt: skip
    knn = pd.DataFrame(rows, columns=["dataset", "method", "n_features", "accuracy"])
    best = knn_winners(knn)
    # wine first as in the input, though iris has the smallest count; wine's tie -> 2
    assert best["dataset"].tolist() == ["wine", "iris"]
    assert best["n_features"].tolist() == [2, 2]
    np.testing.assert_allclose(best["mean"], [80.0, 80.0])
    np.testing.assert_allclose(best["std"], [0.0, 100 * np.std([0.9, 0.7], ddof=1)])
