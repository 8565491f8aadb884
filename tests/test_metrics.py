"""ACC against brute force, NMI against scikit-learn, and the degenerate cases."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from sklearn.metrics import normalized_mutual_info_score

from ufsbench.metrics import clustering_accuracy, clustering_scores, contingency, nmi


def brute_force_accuracy(y_true, y_pred) -> float:
    """Best one-to-one relabelling of the clusters, by trying every permutation.

    Clusters and classes are padded to a common size L with labels that never match, so a
    permutation of range(L) covers every partial one-to-one map when the counts differ.
    """
    classes = np.unique(y_true)
    clusters = np.unique(y_pred)
    true_idx = np.searchsorted(classes, y_true)
    pred_idx = np.searchsorted(clusters, y_pred)
    size = max(len(classes), len(clusters))
    best = 0
    for perm in permutations(range(size)):
        mapped = np.asarray(perm)[pred_idx]
        best = max(best, int(np.sum(mapped == true_idx)))
    return best / len(y_true)


def random_labelings(n_cases=400, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n = int(rng.integers(1, 9))
        n_classes = int(rng.integers(1, 5))
        n_clusters = int(rng.integers(1, 5))
        # Arbitrary label values, so nothing relies on labels being 0..c-1.
        y_true = rng.choice([3, 7, 11, 20], size=n_classes, replace=False)[
            rng.integers(0, n_classes, size=n)
        ]
        y_pred = rng.integers(0, n_clusters, size=n) * 5 - 2
        yield y_true, y_pred


def test_accuracy_matches_brute_force_over_all_permutations():
    n_differing = 0
    for y_true, y_pred in random_labelings():
        n_differing += len(np.unique(y_true)) != len(np.unique(y_pred))
        assert clustering_accuracy(y_true, y_pred) == pytest.approx(
            brute_force_accuracy(y_true, y_pred)
        ), (y_true, y_pred)
    assert n_differing > 100  # the cases really cover unequal numbers of clusters/classes


def test_accuracy_is_label_permutation_invariant():
    y = np.array([0, 0, 1, 1, 2, 2, 2])
    assert clustering_accuracy(y, np.array([2, 2, 0, 0, 1, 1, 1])) == 1.0
    assert clustering_accuracy([0, 0, 1, 1, 2], [5, 5, 3, 3, 3]) == pytest.approx(0.8)


def test_accuracy_more_clusters_than_classes():
    # Two classes, four singleton-ish clusters: only two clusters can be matched.
    assert clustering_accuracy([0, 0, 1, 1], [0, 1, 2, 3]) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("normalization", "average_method"), [("max", "max"), ("sqrt", "geometric")]
)
def test_nmi_matches_sklearn(normalization, average_method):
    rng = np.random.default_rng(1)
    for _ in range(300):
        n = int(rng.integers(2, 60))
        y_true = rng.integers(0, int(rng.integers(1, 6)), size=n)
        y_pred = rng.integers(0, int(rng.integers(1, 6)), size=n)
        expected = normalized_mutual_info_score(y_true, y_pred, average_method=average_method)
        assert nmi(y_true, y_pred, normalization) == pytest.approx(expected, abs=1e-12)


def test_nmi_max_below_sqrt():
    y_true = [0, 0, 0, 1, 1, 1, 2, 2]
    y_pred = [0, 0, 1, 1, 1, 1, 1, 1]
    assert nmi(y_true, y_pred, "max") < nmi(y_true, y_pred, "sqrt")


def test_nmi_identical_partitions_is_one():
    y = [4, 4, 9, 9, 1]
    assert nmi(y, [0, 0, 1, 1, 2], "max") == pytest.approx(1.0)
    assert nmi(y, [0, 0, 1, 1, 2], "sqrt") == pytest.approx(1.0)


@pytest.mark.parametrize("normalization", ["max", "sqrt"])
def test_nmi_degenerate_cases(normalization):
    # Both trivial: a perfect match.
    assert nmi([1, 1, 1], [0, 0, 0], normalization) == 1.0
    # One trivial: no information.
    assert nmi([0, 1, 2], [0, 0, 0], normalization) == 0.0
    assert nmi([5, 5, 5, 5], [0, 1, 0, 1], normalization) == 0.0
    # A single sample is a trivial partition on both sides.
    assert nmi([3], [8], normalization) == 1.0


def test_nmi_independent_partitions_is_zero():
    assert nmi([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(0.0, abs=1e-15)


def test_nmi_rejects_unknown_normalization():
    with pytest.raises(ValueError, match="normalization must be one of 'max', 'sqrt', got 'arith'"):
        nmi([0, 1], [0, 1], "arith")


def test_metrics_reject_length_mismatch():
    with pytest.raises(ValueError, match=r"same length, got 3 \(y_true\) and 2 \(y_pred\)"):
        clustering_accuracy([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="labels are empty"):
        nmi([], [])


def test_contingency_counts():
    C = contingency(["a", "a", "b", "b", "b"], [1, 2, 2, 2, 1])
    assert C.tolist() == [[1, 1], [1, 2]]


def sorting_contingency(y_true, y_pred) -> np.ndarray:
    """The table by sorting every labeling (the code before counting): the reference."""
    classes, class_idx = np.unique(np.asarray(y_true), return_inverse=True)
    clusters, cluster_idx = np.unique(np.asarray(y_pred), return_inverse=True)
    C = np.zeros((len(classes), len(clusters)), dtype=np.int64)
    np.add.at(C, (class_idx.ravel(), cluster_idx.ravel()), 1)
    return C


def label_kinds(rng, n):
    """Labelings of every kind the counting path or its fallback meets."""
    k = int(rng.integers(1, 12))
    yield rng.integers(0, k, size=n)  # k-means labels, some clusters maybe empty
    yield rng.integers(0, k, size=n).astype(np.uint8)
    yield rng.integers(0, k, size=n).astype(np.uint64)
    yield rng.integers(0, k, size=n) * 97 + 3  # gaps between the values
    yield rng.integers(-3, k, size=n)  # negatives: sorted by unique
    yield rng.integers(0, 2, size=n) * (10 * n + 5000)  # too sparse to count
    yield rng.integers(0, k, size=n).astype(float) / 2
    yield np.array(list("abcdefghijk"))[rng.integers(0, k, size=n)]
    yield rng.integers(0, 2, size=n).astype(bool)


def test_counted_contingency_equals_the_sorted_one():
    from ufsbench.metrics import _label_codes

    rng = np.random.default_rng(7)
    for _ in range(60):
        n = int(rng.integers(1, 300))
        kinds = list(label_kinds(rng, n))
        for y_true in kinds:
            for y_pred in kinds:
                true_idx, n_classes = _label_codes(y_true)
                pred_idx, n_clusters = _label_codes(y_pred)
                C = np.zeros((n_classes, n_clusters), dtype=np.int64)
                np.add.at(C, (true_idx, pred_idx), 1)
                assert np.array_equal(C, contingency(y_true, y_pred))
                assert np.array_equal(C, sorting_contingency(y_true, y_pred))


def test_clustering_scores_are_the_single_metrics_bit_for_bit():
    rng = np.random.default_rng(3)
    cases = list(random_labelings(200, seed=4))
    for _ in range(100):
        n = int(rng.integers(2, 400))
        cases.append((rng.integers(0, 10, size=n), rng.integers(0, 10, size=n)))
    kinds = list(label_kinds(rng, 50))
    cases += [(a, b) for a in kinds for b in kinds]
    for y_true, y_pred in cases:
        acc, nmi_max, nmi_sqrt = clustering_scores(y_true, y_pred)
        assert acc == clustering_accuracy(y_true, y_pred)
        assert nmi_max == nmi(y_true, y_pred, "max")
        assert nmi_sqrt == nmi(y_true, y_pred, "sqrt")
        if y_true.dtype.kind in "iu" and y_pred.dtype.kind in "iu":
            reference = normalized_mutual_info_score(y_true, y_pred, average_method="max")
            assert np.isclose(nmi_max, reference, rtol=0, atol=1e-12)


def test_assignment_is_scipys_without_importing_scipy_optimize():
    """ACC's assignment is SciPy's compiled solver, loaded without ``scipy.optimize``'s
    ``__init__`` (issue 27, per-job overhead): the same assignments on square and
    rectangular integer tables, maximised and minimised."""
    from scipy.optimize import linear_sum_assignment

    from ufsbench.metrics import _linear_sum_assignment

    rng = np.random.default_rng(7)
    for shape in [(1, 1), (3, 3), (4, 6), (6, 4), (20, 20), (40, 37)]:
        C = rng.integers(0, 12, size=shape)
        for maximize in (True, False):
            ours = _linear_sum_assignment()(C, maximize=maximize)
            theirs = linear_sum_assignment(C, maximize=maximize)
            assert [a.tolist() for a in ours] == [a.tolist() for a in theirs]
