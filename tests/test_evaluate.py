"""The clustering protocol: rows, the AllFea baseline, scheduling-free seeds, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufsbench.evaluate import evaluate_selection
from ufsbench.kmeans import cluster
from ufsbench.methods.base import Selection
from ufsbench.metrics import clustering_accuracy
from ufsbench.seeding import derive_seed


@pytest.fixture(scope="module")
def data(planted_data):
    X, y, informative = planted_data
    d = X.shape[1]
    scores = np.zeros(d)
    scores[informative] = 1.0 + np.arange(len(informative))
    return X, y, Selection.from_scores(scores)


def test_evaluate_rows_and_columns(data):
    X, y, selection = data
    out = evaluate_selection(X, y, selection, [4, 2], n_clusters=3, repeats=3, seed_key=("t",))
    assert list(out.columns) == ["n_features", "repeat", "acc", "nmi_max", "nmi_sqrt"]
    assert out[["n_features", "repeat"]].values.tolist() == [
        [2, 0], [2, 1], [2, 2], [4, 0], [4, 1], [4, 2],
    ]  # fmt: skip
    for column in ("acc", "nmi_max", "nmi_sqrt"):
        assert out[column].between(0, 1).all()
    assert (out["nmi_max"] <= out["nmi_sqrt"] + 1e-12).all()


def test_evaluate_planted_features_cluster_well(data):
    X, y, selection = data
    out = evaluate_selection(X, y, selection, [4], n_clusters=3, repeats=5, seed_key=("p",))
    assert out["acc"].max() > 0.9


def test_evaluate_uses_top_m_and_derived_seed(data):
    X, y, selection = data
    out = evaluate_selection(
        X, y, selection, [3], n_clusters=3, repeats=2, seed_key=("wine", "ndfs")
    )
    labels = cluster(X[:, selection.top(3)], 3, random_state=derive_seed("wine", "ndfs", 3, 1))
    assert out.loc[1, "acc"] == clustering_accuracy(y, labels)


def test_evaluate_all_features_only_full_count(data):
    X, y, selection = data
    d = X.shape[1]
    out = evaluate_selection(
        X, y, None, [2, 4], n_clusters=3, repeats=2, seed_key=("a",), all_features=True
    )
    assert out["n_features"].tolist() == [d, d]
    labels = cluster(X, 3, random_state=derive_seed("a", d, 0))
    assert out.loc[0, "acc"] == clustering_accuracy(y, labels)


def test_evaluate_seeds_do_not_depend_on_which_counts_run(data):
    X, y, selection = data
    both = evaluate_selection(X, y, selection, [5, 10], n_clusters=3, repeats=4, seed_key=("s",))
    alone = evaluate_selection(X, y, selection, [10], n_clusters=3, repeats=4, seed_key=("s",))
    pd.testing.assert_frame_equal(
        both[both["n_features"] == 10].reset_index(drop=True), alone.reset_index(drop=True)
    )


def test_evaluate_sklearn_engine(data):
    X, y, selection = data
    out = evaluate_selection(
        X, y, selection, [4], n_clusters=3, repeats=2, engine="sklearn", seed_key=("k",)
    )
    labels = cluster(
        X[:, selection.top(4)], 3, engine="sklearn", random_state=derive_seed("k", 4, 0)
    )
    assert out.loc[0, "acc"] == clustering_accuracy(y, labels)


def test_evaluate_rejects_too_many_features(data):
    X, y, selection = data
    with pytest.raises(ValueError, match="cannot select 21 features: the data has 20 features"):
        evaluate_selection(X, y, selection, [5, 21], n_clusters=3)


def test_evaluate_rejects_missing_labels(data):
    X, _, selection = data
    with pytest.raises(ValueError, match="y is missing"):
        evaluate_selection(X, None, selection, [5], n_clusters=3)


def test_evaluate_rejects_single_class(data):
    X, _, selection = data
    with pytest.raises(ValueError, match="y needs at least 2 classes, got 1"):
        evaluate_selection(X, np.zeros(len(X)), selection, [5], n_clusters=3)


def test_evaluate_rejects_label_length_mismatch(data):
    X, y, selection = data
    with pytest.raises(ValueError, match=r"y must have shape \(150,\) to match X, got \(149,\)"):
        evaluate_selection(X, y[:-1], selection, [5], n_clusters=3)


def test_evaluate_rejects_selection_of_other_width(data):
    X, y, _ = data
    selection = Selection.from_scores(np.arange(7.0))
    with pytest.raises(ValueError, match="the selection ranks 7 features but X has 20"):
        evaluate_selection(X, y, selection, [5], n_clusters=3)


def test_evaluate_cache_reuses_repeated_subsets_with_identical_scores(data):
    """A grid whose settings repeat top-m subsets: cached scores equal uncached ones,
    and only the distinct (columns, seed) runs are clustered."""
    X, y, selection = data
    d = X.shape[1]
    same = Selection.from_scores(selection.scores.copy())  # same ranking
    other = Selection.from_scores(-selection.scores + np.arange(d) * 1e-3)  # other ranking
    # From the planted ranking, only the order below the top 4 differs: top-4 repeat.
    tail = Selection.from_scores(selection.scores + np.arange(d) * 1e-6)
    cache, counts = {}, [2, 4, 6]
    for sel in (selection, same, other, tail):
        plain = evaluate_selection(X, y, sel, counts, n_clusters=3, repeats=2, seed_key=("c",))
        cached = evaluate_selection(
            X, y, sel, counts, n_clusters=3, repeats=2, seed_key=("c",), cache=cache
        )
        pd.testing.assert_frame_equal(cached, plain)
    distinct = {(tuple(sel.top(m)), m) for sel in (selection, same, other, tail) for m in counts}
    assert len(cache) == 2 * len(distinct) < 2 * 4 * len(counts)


def test_evaluate_cache_keeps_seeds_and_kmeans_settings_apart(data):
    X, y, selection = data
    cache = {}
    a = evaluate_selection(X, y, selection, [3], n_clusters=3, repeats=2, seed_key=("a",),
                           cache=cache)  # fmt: skip
    b = evaluate_selection(X, y, selection, [3], n_clusters=3, repeats=2, seed_key=("b",),
                           cache=cache)  # fmt: skip
    c = evaluate_selection(X, y, selection, [3], n_clusters=3, repeats=2, seed_key=("a",),
                           n_init=3, cache=cache)  # fmt: skip
    assert len(cache) == 6  # three keys x two repeats: nothing shared
    labels = cluster(X[:, selection.top(3)], 3, random_state=derive_seed("b", 3, 1))
    assert b.loc[1, "acc"] == clustering_accuracy(y, labels)
    plain = evaluate_selection(X, y, selection, [3], n_clusters=3, repeats=2, seed_key=("a",),
                               n_init=3)  # fmt: skip
    pd.testing.assert_frame_equal(c, plain)
    assert a.shape == b.shape == c.shape


def test_rows_without_pandas_are_the_rows_of_the_frame(data):
    X, y, selection = data
    kwargs = dict(n_clusters=3, repeats=2, seed_key=("t",))
    frame = evaluate_selection(X, y, selection, [2, 4], **kwargs)
    rows = evaluate_selection(X, y, selection, [2, 4], **kwargs, as_frame=False)
    assert isinstance(rows, list) and len(rows) == 4
    assert frame.values.tolist() == [list(row) for row in rows]


def test_write_rows_writes_the_bytes_pandas_writes(tmp_path):
    """The evaluate job's table writer (no pandas) against ``write_table`` of a DataFrame:
    floats at 10 digits with NaN empty, signed zero and infinities, bools, integers, and
    strings that need quoting; and columns it does not know go through pandas."""
    from ufsbench.evaluate import write_rows
    from ufsbench.io import write_table

    columns = ("dataset", "params", "in_grid", "n_features", "acc", "seconds", "mixed")
    rows = [
        ("wine", "alpha=1,beta=0.1", True, 2, 0.1, 1e-20, 3),
        ("a\tb", 'q"uote', False, np.int64(40), np.float64(2 / 3), float("nan"), 0.25),
        ("new\nline", "", np.bool_(True), 7, -0.0, float("inf"), 1e16),
        ("é", " lead", False, 10**12, 123456789.0123, -float("inf"), -5),
    ]
    for table in (rows, rows[:1], []):
        write_rows(tmp_path / "ours.tsv", columns, table)
        write_table(tmp_path / "pandas.tsv", pd.DataFrame(table, columns=list(columns)))
        assert (tmp_path / "ours.tsv").read_bytes() == (tmp_path / "pandas.tsv").read_bytes()
    odd = [("x", None, 1), ("y", "z", True)]  # None, and bools mixed with integers
    write_rows(tmp_path / "ours.tsv", ("a", "b", "c"), odd)
    write_table(tmp_path / "pandas.tsv", pd.DataFrame(odd, columns=["a", "b", "c"]))
    assert (tmp_path / "ours.tsv").read_bytes() == (tmp_path / "pandas.tsv").read_bytes()
    with pytest.raises(ValueError, match="every row needs 2 values"):
        write_rows(tmp_path / "bad.tsv", ("a", "b"), [(1,)])
