"""The clustering task: its plan and tables, and end to end with the real snakemake CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from snakemake_cli import ROOT, needs_snakemake, run_snakemake, validated, write_config

from ufsbench.clustering import (
    ClusterPlan,
    compare_with_paper,
    fs_graph_setting,
    is_default_setting,
    paper_table_markdown,
    per_setting,
    summarize,
)
from ufsbench.datasets import load_registry
from ufsbench.reference import load_reference
from ufsbench.tools import publish_run

REGISTRY = load_registry(ROOT / "config" / "datasets.yaml")
REFERENCE = ROOT / "resources" / "reference" / "srsg_paper.tsv"

TINY = {
    "datasets": ["iris"],
    "methods": {"allfea": {}},
    "tasks": ["clustering"],
    "clustering": {
        "methods": {
            "km": {},
            "sc": {},
            "l1graph": {"lam": [0.1, 0.5]},
            "smce": {"K": [10]},
            "lr_l1graph": {"max_iter": [20]},
            "srsg": {"max_sweeps": [3]},
        },
        "seeds": 2,
    },
}


def test_plan_expands_grids_and_checks_names():
    plan = ClusterPlan(validated(TINY), REGISTRY)
    assert plan.enabled and plan.datasets == ["iris"]
    assert [s.id for s in plan.settings["l1graph"]] == ["lam=0.1", "lam=0.5"]
    assert plan.params("srsg", "max_sweeps=3")["gamma"] == 0.1  # defaults filled in
    assert len(plan.score_files()) == 7
    bad = {**TINY, "clustering": {"methods": {"srsg": {"gama": [0.1]}}}}
    with pytest.raises(ValueError, match="clustering.methods.srsg.*unknown parameter"):
        ClusterPlan(validated(bad), REGISTRY)
    with pytest.raises(ValueError, match="unknown method 'srgs'"):
        # a validated config's section with a name the schema would refuse first
        filled = validated(TINY)
        ClusterPlan(
            {**filled, "clustering": {**filled["clustering"], "methods": {"srgs": {}}}}, REGISTRY
        )
    with pytest.raises(ValueError, match="unknown dataset 'nope'"):
        ClusterPlan(validated({**TINY, "clustering": {"datasets": ["nope"]}}), REGISTRY)


def test_fs_graph_setting():
    assert fs_graph_setting("knn", {}) is None
    method, sid, params = fs_graph_setting("srsg", {"gamma": 0.2})
    assert (method, sid, params["gamma"], params["K"]) == ("srsg", "gamma=0.2", 0.2, 5)
    with pytest.raises(ValueError, match="graph.params"):
        fs_graph_setting("l1graph", {"gamma": 0.2})


def test_reference_table_is_complete_and_subsets_match_the_registry():
    ref = load_reference(REFERENCE)
    assert len(ref) == 360  # 30 rows x 6 methods x 2 metrics
    assert ref["mean"].between(0, 1).all()
    assert set(ref["method"]) == {"km", "sc", "l1graph", "smce", "lr_l1graph", "srsg"}
    # the sample counts the paper's accuracies imply (srsg.md §11), as registered
    implied = {
        "coil20_c4": 288,
        "coil20_c16": 1152,
        "yaleb_c10": 640,
        "yaleb_c30": 1902,
        "umist_c4": 123,
        "umist_c16": 434,
        "heart": 270,
        "ionosphere": 351,
        "breast_wdbc": 569,
    }
    for name, n in implied.items():
        assert name in set(ref["dataset"])
        assert REGISTRY[name].n_samples == n
    value = ref[(ref.dataset == "ionosphere") & (ref.method == "srsg") & (ref.metric == "acc")]
    assert value["mean"].item() == 0.7635


def test_summary_picks_best_setting_and_compares_with_paper():
    rows = []
    for setting, acc in (("lam=0.1", 0.6), ("lam=0.5", 0.9)):
        for seed in range(3):
            rows.append(
                {
                    "dataset": "heart",
                    "method": "l1graph",
                    "setting": setting,
                    "seed": seed,
                    "acc": acc + 0.01 * seed,
                    "nmi_max": 0.1,
                    "nmi_sqrt": 0.1,
                }
            )
    summary = summarize(pd.DataFrame(rows))
    best = summary.iloc[0]
    assert best["setting"] == "lam=0.5" and best["protocol"] == "oracle"
    assert best["acc_mean"] == pytest.approx(0.91) and best["acc_seed0"] == pytest.approx(0.9)
    comparison = compare_with_paper(summary, load_reference(REFERENCE))
    ran = comparison[comparison.status == "run"]
    acc = ran[ran.metric == "acc"].iloc[0]
    assert acc["paper"] == 0.6370 and acc["difference"] == pytest.approx(0.91 - 0.637)
    assert len(ran) == 2 and len(comparison) == 360  # every other paper cell: not run
    assert comparison.loc[comparison.status == "not run", "ours"].isna().all()
    markdown = paper_table_markdown(comparison, "3")
    assert "| Heart | AC |" in markdown and "0.9100 (0.6370)" in markdown


def test_fidelity_sorts_cells_into_target_seed_noise_and_miss():
    # Heart, paper ACC: KM 0.5889, SC 0.6037, l1-graph 0.6370 (srsg_paper.tsv).
    spread = np.array([-1.0, 1.0] * 5)  # mean 0, std 1.054 over 10 seeds
    cells = {
        "km": 0.5889 + 0.015 + 0.001 * spread,  # 0.015 off, tiny spread: within target
        "sc": 0.6037 + 0.03 + 0.06 * spread,  # 0.03 off, 2 SE = 0.04: within seed noise
        "l1graph": 0.6370 - 0.03 + 0.01 * spread,  # 0.03 off, 2 SE = 0.0067: a miss
    }
    rows = [
        {"dataset": "heart", "method": method, "setting": "default", "seed": seed,
         "acc": acc, "nmi_max": 0.1, "nmi_sqrt": 0.1}
        for method, accs in cells.items()
        for seed, acc in enumerate(accs)
    ]  # fmt: skip
    summary = summarize(pd.DataFrame(rows))
    assert (summary["n_seeds"] == 10).all()
    comparison = compare_with_paper(summary, load_reference(REFERENCE))
    acc = comparison[(comparison.status == "run") & (comparison.metric == "acc")]
    verdict = dict(zip(acc["method"], acc["fidelity"], strict=True))
    assert verdict == {"km": "within target", "sc": "within seed noise", "l1graph": "miss"}
    se = acc.set_index("method")["ours_se"]
    assert se["sc"] == pytest.approx(round(0.06 * np.std(spread, ddof=1) / np.sqrt(10), 4))
    assert (comparison.loc[comparison.status == "not run", "fidelity"] == "").all()
    markdown = paper_table_markdown(comparison, "3")
    assert "1 within target, 1 within seed noise, 1 miss (target ±0.02)" in markdown


def test_oracle_cells_carry_the_default_setting_beside_them():
    # l1graph: lam=0.1 is the default (ACC 0.60), lam=0.5 the oracle (0.70); LR-l1 has no
    # default in its grid; SC's only setting is its default.
    means = {("l1graph", "lam=0.1"): 0.60, ("l1graph", "lam=0.5"): 0.70,
             ("lr_l1graph", "gamma_l2=0.3,lam=0.5"): 0.65, ("sc", "default"): 0.55}  # fmt: skip
    rows = [
        {"dataset": "heart", "method": method, "setting": sid, "seed": seed,
         "acc": acc + 0.01 * (-1) ** seed, "nmi_max": 0.1, "nmi_sqrt": 0.1}
        for (method, sid), acc in means.items()
        for seed in range(4)
    ]  # fmt: skip
    summary = summarize(pd.DataFrame(rows)).set_index("method")
    assert summary.loc["l1graph", "setting"] == "lam=0.5"
    assert summary.loc["l1graph", "acc_default"] == pytest.approx(0.60)
    assert np.isnan(summary.loc["lr_l1graph", "acc_default"])
    assert summary.loc["sc", "acc_default"] == pytest.approx(0.55)
    comparison = compare_with_paper(summary.reset_index(), load_reference(REFERENCE))
    acc = comparison[(comparison.status == "run") & (comparison.metric == "acc")]
    assert acc.set_index("method")["ours_default"].to_dict() == pytest.approx(
        {"l1graph": 0.60, "lr_l1graph": np.nan, "sc": 0.55}, nan_ok=True
    )
    assert is_default_setting("lr_l1graph", "gamma_l2=0.1,lam=0.1")
    assert is_default_setting("srsg", "K=5,gamma=0.1")
    assert not is_default_setting("srsg", "K=5,gamma=0.2")
    assert not is_default_setting("l1graph", "lam=0.1,bogus=1")


def test_per_setting_keeps_every_setting_with_its_seed_statistics():
    accs = {("l1graph", "lam=0.1"): [0.5, 0.7, 0.6], ("l1graph", "lam=0.5"): [0.9, 0.8, 0.7],
            ("srsg", "step_scale=8"): [0.4, 0.2, 0.3]}  # fmt: skip
    rows = [
        {"dataset": "heart", "method": method, "setting": sid, "seed": seed, "acc": acc,
         "nmi_max": 2 * acc, "nmi_sqrt": 0.1}
        for (method, sid), values in accs.items()
        for seed, acc in zip((3, 1, 2), values, strict=True)  # seeds out of order
    ]  # fmt: skip
    table = per_setting(pd.DataFrame(rows)).set_index(["method", "setting"])
    assert len(table) == 3  # none chosen: the sensitivity of each method to its settings
    for key, values in accs.items():
        row = table.loc[key]
        assert row["acc_mean"] == pytest.approx(np.mean(values))
        assert row["acc_std"] == pytest.approx(np.std(values, ddof=1))
        assert row["nmi_max_mean"] == pytest.approx(2 * np.mean(values))
        assert row["acc_seed0"] == values[1] and row["n_seeds"] == 3  # the smallest seed: 1
    assert table["default"].to_dict() == {
        ("l1graph", "lam=0.1"): True, ("l1graph", "lam=0.5"): False,
        ("srsg", "step_scale=8"): False,
    }  # fmt: skip


@pytest.mark.slow
@needs_snakemake
def test_clustering_branch_end_to_end(tmp_path):
    write_config(tmp_path, TINY)
    run_snakemake(tmp_path, "--cores", "2")
    summary = pd.read_csv(tmp_path / "results/default/tables/clustering.tsv", sep="\t")
    assert set(summary["method"]) == {"km", "sc", "l1graph", "smce", "lr_l1graph", "srsg"}
    assert summary["acc_mean"].between(0, 1).all() and (summary["acc_mean"] > 0.6).all()
    scores = pd.read_csv(
        tmp_path / "results/default/iris/clustering/scores/srsg/max_sweeps=3.tsv", sep="\t"
    )
    assert list(scores["seed"]) == [0, 1]
    assert (tmp_path / "results/default/iris/clustering/graph/srsg/max_sweeps=3.json").exists()
    log = tmp_path / "logs/default/cluster_graph/iris/srsg/max_sweeps=3.log"
    assert "srsg sweep 1" in log.read_text()
    for table in (1, 2, 3):
        md = tmp_path / f"results/default/tables/srsg_table{table}.md"
        assert md.read_text().startswith("# Table")
    assert (tmp_path / "results/default/tables/srsg_vs_paper.tsv").exists()
    again = run_snakemake(tmp_path, "-n")
    assert "Nothing to be done" in again.stdout + again.stderr
    # Published from this one run: the tables, their LaTeX, the fidelity counts.
    into = tmp_path / "measured"
    args = ["--config", str(tmp_path / "config.yaml"), "--into", str(into), "--root", str(ROOT)]
    publish_run.main([str(tmp_path), *args])
    assert {"srsg_table1.tex", "srsg_fidelity.tsv", "clustering.tsv"} <= {
        p.name for p in into.iterdir()
    }
    settings = pd.read_csv(into / "clustering_settings.tsv", sep="\t")
    assert len(settings) == len(settings.drop_duplicates(["method", "setting"]))
    assert set(settings["method"]) == set(summary["method"])
    cost = pd.read_csv(into / "runs" / "iris" / "cost.tsv", sep="\t")
    # every job that computes is timed: the graphs and the clusterings scored on them
    assert {"cluster_graph", "cluster_scores"} <= set(cost["stage"])
    assert set(cost[cost["stage"] == "cluster_scores"]["method"]) == set(summary["method"])
    fidelity = pd.read_csv(into / "srsg_fidelity.tsv", sep="\t")
    assert {"within_target", "miss"} <= set(fidelity.columns)


@pytest.mark.slow
@needs_snakemake
def test_selectors_use_a_sparse_graph_named_in_the_config(tmp_path):
    config = {
        "datasets": ["iris"],
        "feature_counts": {"iris": [1, 2]},
        "methods": {"lapscore": {}},
        "graph": {"source": "srsg", "params": {"max_sweeps": 2}},
        "evaluation": {"repeats": 1},
    }
    write_config(tmp_path, config)
    target = "results/default/iris/lapscore/c0/selection.npz"
    run_snakemake(tmp_path, "--cores", "2", target)
    assert (tmp_path / "results/default/iris/clustering/graph/srsg/max_sweeps=2.npz").exists()
    with np.load(tmp_path / target) as f:
        assert any("ranking" in key for key in f.files)
    # the same selector on the default k-NN graph builds no sparse graph
    other = tmp_path / "knn"
    other.mkdir()
    write_config(other, {**config, "graph": {"k": 5}})
    plan = run_snakemake(other, "-n", target)
    assert "cluster_graph" not in plan.stdout + plan.stderr
    # an unknown graph parameter fails before any job runs
    write_config(other, {**config, "graph": {"source": "srsg", "params": {"gama": 1}}})
    bad = run_snakemake(other, "-n", check=False)
    assert bad.returncode != 0 and "graph.params" in bad.stdout + bad.stderr


@pytest.mark.parametrize("name, n, c", [("umist_c4", 123, 4), ("coil20_c8", 576, 8)])
def test_first_class_subsets_load_with_the_papers_sizes(mirror, name, n, c):
    from ufsbench.data import load_dataset
    from ufsbench.datasets import find_in_mirror

    entry = REGISTRY[name]
    X, y, info = load_dataset(entry, find_in_mirror(entry.file_entry, mirror))
    assert X.shape[0] == n and sorted(set(y)) == list(range(c))
    base_X, base_y, _ = load_dataset(entry.parent, find_in_mirror(entry.file_entry, mirror))
    np.testing.assert_array_equal(X, base_X[base_y < c])
    assert info["first_classes"] == c
