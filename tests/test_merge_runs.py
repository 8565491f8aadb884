"""Runs over disjoint dataset subsets merge into the outputs of one run over all of them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufsbench import plan, reference
from ufsbench.aggregate import CURVE_COLUMNS, SCORE_COLUMNS
from ufsbench.io import write_table
from ufsbench.papers import figures as paperfigures
from ufsbench.papers import merge as merge_runs
from ufsbench.papers import tables as papertables

DATASETS = ("wine", "zoo", "jaffe")
METHODS = ("allfea", "a", "b", "c")


def curves_of(datasets=DATASETS, seed=0):
    """Curves of three tested methods and AllFea; ``b`` is best on zoo only."""
    rng = np.random.default_rng(seed)
    rows = []
    for dataset in datasets:
        rows.append((dataset, "allfea", "oracle", "acc", 9, 50.0 + len(dataset), "default"))
        for method, level in zip(METHODS[1:], (70.0, 60.0, 65.0), strict=True):
            level += 15.0 * (dataset == "zoo" and method == "b")
            for count in (1, 2, 3, 4, 5):
                rows.append(
                    (dataset, method, "oracle", "acc", count, level + rng.normal(0, 2), "x")
                )
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))


def roundtrip(frame, tmp_path, name):
    """As a published table: written and read back as TSV."""
    path = tmp_path / f"{name}.tsv"
    write_table(path, frame)
    return pd.read_csv(path, sep="\t")


def test_merged_paper_table_equals_one_run_over_all_datasets(tmp_path):
    curves = curves_of()
    whole = papertables.paper_table(curves, "acc", methods=list(METHODS))
    parts = [
        roundtrip(
            papertables.paper_table(
                curves[curves["dataset"].isin(subset)], "acc", methods=list(METHODS)
            ),
            tmp_path,
            "-".join(subset),
        )
        for subset in (("jaffe",), ("wine", "zoo"))
    ]
    merged = merge_runs.merge_paper_tables(parts, methods=list(METHODS), order=DATASETS)
    assert list(merged["dataset"]) == list(whole["dataset"])
    assert list(merged["method"]) == list(whole["method"])
    assert list(merged["bold"]) == list(whole["bold"])
    for column in ("mean", "std", "p"):
        np.testing.assert_allclose(merged[column], whole[column], rtol=1e-9)
    # A part's own Average differs from the whole's: the merge recomputes it.
    part_average = parts[1].set_index(["dataset", "method"]).loc[("Average", "b"), "mean"]
    whole_average = whole.set_index(["dataset", "method"]).loc[("Average", "b"), "mean"]
    assert part_average != pytest.approx(whole_average)


def test_merge_rejects_a_dataset_in_two_runs():
    curves = curves_of()
    one = papertables.paper_table(curves[curves["dataset"].isin(["wine", "zoo"])], "acc")
    two = papertables.paper_table(curves[curves["dataset"].isin(["zoo"])], "acc")
    with pytest.raises(ValueError, match="dataset 'zoo' is in paper table 1 and 2"):
        merge_runs.merge_paper_tables([one, two])
    with pytest.raises(ValueError, match="no paper table"):
        merge_runs.merge_paper_tables([])


def test_concat_disjoint_orders_datasets_and_keeps_rows_within_them():
    one = pd.DataFrame({"dataset": ["zoo", "zoo", "Average"], "v": [1, 2, 9]})
    two = pd.DataFrame({"dataset": ["extra", "wine"], "v": [3, 4]})
    out = merge_runs.concat_disjoint([one, two], order=["wine", "zoo"])
    assert list(out["dataset"]) == ["wine", "zoo", "zoo", "extra"]
    assert list(out["v"]) == [4, 1, 2, 3]


REF = """table\tdataset\tmethod\tmetric\tmean\tstd\tp\tbold
t2\twine\ta\tacc\t72.00\t2.00\t1.00\ttrue
t2\twine\tb\tacc\t58.00\t2.00\t0.01\tfalse
t2\tzoo\ta\tacc\t71.00\t2.00\t0.30\ttrue
t2\tzoo\tb\tacc\t77.00\t2.00\t1.00\ttrue
t2\tjaffe\ta\tacc\t69.00\t2.00\t1.00\ttrue
t2\tjaffe\tb\tacc\t66.00\t2.00\t0.20\ttrue
"""


def test_merged_comparison_equals_one_run_and_takes_the_current_notes(tmp_path):
    path = tmp_path / "ref.tsv"
    path.write_text(REF)
    ref = reference.load_reference(path)
    ours = pd.DataFrame(
        [
            (d, m, p, "acc", 60.0 + i + (p == "default") * -3.0, 1.0)
            for i, (d, m) in enumerate((d, m) for d in DATASETS for m in ("a", "b"))
            for p in ("oracle", "default")
        ],
        columns=["dataset", "method", "protocol", "metric", "mean", "std"],
    )
    controls = pd.DataFrame(
        [(d, "acc", 61.0, 7) for d in DATASETS],
        columns=["dataset", "metric", "random_control", "random_draws"],
    )
    columns = ["dataset", "method", "note"]
    old = pd.DataFrame([("zoo", "b", "written before the run")], columns=columns)
    new = pd.DataFrame([("*", "a", "current note")], columns=columns)
    whole = reference.vs_paper(ref, ours, controls=controls, notes=new)
    parts = []
    for subset in (("wine", "zoo"), ("jaffe",)):
        keep = ref["dataset"].isin(subset).to_numpy()
        part = reference.vs_paper(ref[keep], ours, controls=controls, notes=old)
        parts.append(roundtrip(part, tmp_path, "-".join(subset)))
    merged, fidelity = merge_runs.merge_vs_paper(parts, notes=new, order=DATASETS)
    assert list(merged["note"]) == list(whole["note"])
    assert not merged["note"].str.contains("written before").any()
    assert merged.loc[0, "note"].endswith("current note")
    numeric = ["ours", "paper", "diff", "default", "random_control", "ours_minus_random"]
    np.testing.assert_allclose(merged[numeric], whole[numeric], rtol=1e-9)
    expected = reference.fidelity_summary(whole)
    pd.testing.assert_frame_equal(fidelity, expected, check_dtype=False)
    assert fidelity.set_index("method").loc["a", "cells"] == 3
    # With the reference, cells no run answered yet are listed, in the reference's order.
    partial, partial_fidelity = merge_runs.merge_vs_paper(parts[:1], notes=new, reference=ref)
    assert list(partial["dataset"]) == list(whole["dataset"])
    unrun = partial[partial["dataset"] == "jaffe"]
    assert unrun["ours"].isna().all() and unrun["note"].str.startswith("not run").all()
    assert list(unrun["paper"]) == [69.0, 66.0]
    np.testing.assert_allclose(partial["ours"].iloc[:4], whole["ours"].iloc[:4])
    counts = partial_fidelity.set_index("method")
    assert (counts.loc["a", "cells"], counts.loc["a", "missing"]) == (2, 1)


def test_best_traces_take_each_datasets_best_setting():
    rows = []
    for dataset, best in (("d1", "s=2"), ("d2", "s=1")):
        for setting in ("s=1", "s=2"):
            value = 0.8 if setting == best else 0.5
            for count in (1, 2):
                rows.append((dataset, "m", setting, True, False, count, 0, value, value, value))
    scores = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    traces = pd.DataFrame(
        [
            (d, "m", s, it, 10.0 - it + (s == "s=2"))
            for d in ("d1", "d2")
            for s in ("s=1", "s=2")
            for it in (2, 1, 0)
        ],
        columns=["dataset", "method", "params", "iteration", "objective"],
    )
    best = paperfigures.best_traces(traces, scores, "m", ["d2", "d1"])
    assert list(best["dataset"]) == ["d2"] * 3 + ["d1"] * 3
    assert list(best["params"]) == ["s=1"] * 3 + ["s=2"] * 3
    assert list(best["iteration"]) == [0, 1, 2, 0, 1, 2]
    panels = paperfigures.trace_panels(best)
    assert list(panels) == ["d2", "d1"] and panels["d1"][0] == "s=2"


def test_setting_labels_keep_the_grid_parameters():
    entry = {"datasets": ["coil20"], "chunk_size": 2, "lambda1": [1.0], "weight, t": [["heat", 1]]}
    shown = plan.grid_parameters(entry)
    assert shown == ["lambda1", "weight", "t"]
    sid = "k=5,lambda1=0.1,max_iter=100,t=2,weight=heat"
    assert paperfigures.setting_label(sid, shown) == "lambda1=0.1,t=2,weight=heat"
    assert paperfigures.setting_label(sid) == sid
    assert paperfigures.setting_label("default", shown) == "default"


def test_merge_crossval_orders_as_summarize_and_refuses_a_size_twice():
    from ufsbench.crossval import summarize

    rng = np.random.default_rng(0)
    rows = []
    for protocol in ("nested", "full_data_oracle"):
        for n_train in (60, 90, 120):
            for draw in range(3):
                for count in (1, 2):
                    scores = rng.random(6)
                    rows.append((protocol, n_train, draw, count, "x", *scores))
    columns = ["protocol", "n_train", "draw", "n_features", "params"]
    columns += [f"{s}_{m}" for s in ("train", "test") for m in ("acc", "nmi_max", "nmi_sqrt")]
    results = pd.DataFrame(rows, columns=columns)
    whole = summarize(results, dataset="wine", method="lsdcl")
    parts = [
        summarize(results[results["n_train"].isin(sizes)], dataset="wine", method="lsdcl")
        for sizes in ((120,), (60, 90))
    ]
    merged = merge_runs.merge_crossval(parts, ["nested", "full_data_oracle"])
    pd.testing.assert_frame_equal(merged, whole)
    with pytest.raises(ValueError, match="'nested' at n_train=60 is in cross-validation"):
        merge_runs.merge_crossval([parts[1], parts[1]])
