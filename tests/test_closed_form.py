"""Closed-form methods against brute-force dense references on tiny graphs."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp

from ufsbench import rank_features
from ufsbench.graph import knn_graph
from ufsbench.methods import get_method, mcfs


@pytest.fixture
def tiny():
    """(X, graph): 12 samples, 5 features, a connected weighted graph with a ring inside."""
    rng = np.random.default_rng(0)
    n = 12
    X = rng.normal(size=(n, 5)) * [1.0, 2.0, 0.5, 3.0, 1.0]
    W = np.zeros((n, n))
    ring = np.arange(n)
    W[ring, (ring + 1) % n] = rng.uniform(0.2, 1.0, n)
    extra = rng.uniform(size=(n, n)) < 0.2
    W[extra] = rng.uniform(0.1, 1.0, extra.sum())
    W = np.maximum(W, W.T)
    np.fill_diagonal(W, 0.0)
    return X, sp.csr_matrix(W)


def _dense_laplacian_score(X, S):
    D = np.diag(S.sum(axis=1))
    L = D - S
    one = np.ones(len(S))
    scores = []
    for f in X.T:
        f_tilde = f - (f @ D @ one) / (one @ D @ one) * one
        scores.append((f_tilde @ L @ f_tilde) / (f_tilde @ D @ f_tilde))
    return np.array(scores)


def _dense_spec(X, S, style, n_spectrum):
    deg = S.sum(axis=1)
    D_half, D_inv_half = np.diag(np.sqrt(deg)), np.diag(1.0 / np.sqrt(deg))
    L = np.eye(len(S)) - D_inv_half @ S @ D_inv_half
    lam, Xi = np.linalg.eigh(L)  # ascending; Xi[:, 0] is the trivial eigenvector
    scores = []
    for f in X.T:
        f_hat = D_half @ f / np.linalg.norm(D_half @ f)
        phi1 = f_hat @ L @ f_hat
        if style == "phi1":
            scores.append(-phi1)
        elif style == "phi2":
            scores.append(-phi1 / (1.0 - (f_hat @ Xi[:, 0]) ** 2))
        else:
            alpha = Xi[:, 1:n_spectrum].T @ f_hat
            scores.append(np.sum((2.0 - lam[1:n_spectrum]) * alpha**2))
    return np.array(scores)


def test_lapscore_matches_dense_loop(tiny):
    X, graph = tiny
    selection = rank_features(X, "lapscore", graph=graph)
    expected = -_dense_laplacian_score(X, graph.toarray())
    np.testing.assert_allclose(selection.scores, expected, rtol=0, atol=1e-10)


def test_lapscore_constant_and_zero_features_rank_last(planted_data):
    X, _, informative = planted_data
    X = np.hstack([np.full((len(X), 1), 3.7), X, np.zeros((len(X), 1))])
    selection = rank_features(X, "lapscore")
    assert np.all(np.isfinite(selection.scores))
    assert set(selection.ranking[-2:].tolist()) == {0, X.shape[1] - 1}
    assert selection.scores[0] < selection.scores[1:-1].min()
    assert set(selection.ranking[:4].tolist()) == set((informative + 1).tolist())


@pytest.mark.parametrize(("style", "n_spectrum"), [("phi1", None), ("phi2", None), ("phi3", 4)])
def test_spec_matches_dense_eigh(tiny, style, n_spectrum):
    X, graph = tiny
    selection = rank_features(
        X, "spec", graph=graph, n_clusters=3, style=style, n_spectrum=n_spectrum
    )
    expected = _dense_spec(X, graph.toarray(), style, n_spectrum)
    np.testing.assert_allclose(selection.scores, expected, rtol=0, atol=1e-10)


def test_spec_phi3_defaults_to_n_clusters_eigenpairs(tiny):
    X, graph = tiny
    selection = rank_features(X, "spec", graph=graph, n_clusters=3, style="phi3")
    expected = _dense_spec(X, graph.toarray(), "phi3", 3)
    np.testing.assert_allclose(selection.scores, expected, rtol=0, atol=1e-10)


def test_spec_phi2_equals_laplacian_score(planted_data):
    X, _, _ = planted_data
    graph = knn_graph(X, 5, weight="heat")
    spec = rank_features(X, "spec", graph=graph, n_clusters=3, style="phi2")
    lapscore = rank_features(X, "lapscore", graph=graph)
    np.testing.assert_allclose(spec.scores, lapscore.scores, rtol=0, atol=1e-12)


@pytest.mark.parametrize("style", ["phi1", "phi2", "phi3"])
def test_spec_constant_and_zero_features_rank_last(planted_data, style):
    X, _, informative = planted_data
    X = np.hstack([np.full((len(X), 1), 3.7), X, np.zeros((len(X), 1))])
    selection = rank_features(X, "spec", n_clusters=3, style=style)
    assert np.all(np.isfinite(selection.scores))
    assert set(selection.ranking[-2:].tolist()) == {0, X.shape[1] - 1}
    assert set(selection.ranking[:4].tolist()) == set((informative + 1).tolist())


def test_spec_phi3_rejects_single_eigenpair(tiny):
    X, graph = tiny
    msg = re.escape("method 'spec': style 'phi3' needs 2 <= n_spectrum")
    with pytest.raises(ValueError, match=msg):
        rank_features(X, "spec", graph=graph, n_clusters=3, style="phi3", n_spectrum=1)


def test_maxvariance_equals_numpy_variance(planted_data):
    X, _, _ = planted_data
    selection = rank_features(X, "maxvariance")
    np.testing.assert_allclose(selection.scores, np.var(X, axis=0), rtol=1e-12)
    np.testing.assert_array_equal(selection.ranking, np.argsort(-np.var(X, axis=0), kind="stable"))


def test_allfea_ranking_is_identity(planted_data):
    X, _, _ = planted_data
    np.testing.assert_array_equal(rank_features(X, "allfea").ranking, np.arange(X.shape[1]))


@pytest.mark.parametrize("weight", ["binary", "heat"])
def test_mcfs_planted_subsets_informative(planted_data, weight):
    X, _, informative = planted_data
    # n_eigen = 2: the two eigenvectors three clusters span (see PLANTED_PARAMS in
    # test_methods.py for why the default third one adds noise features).
    selection = rank_features(
        X, "mcfs", n_clusters=3, weight=weight, n_eigen=2, feature_counts=[2, 4, 10]
    )
    assert set(selection.subsets[2].tolist()) <= set(informative.tolist())
    assert set(selection.subsets[4].tolist()) == set(informative.tolist())
    np.testing.assert_array_equal(selection.ranking[:10], selection.subsets[10])


def test_mcfs_subsets_are_filled_when_paths_end_early():
    # With 10 samples X has rank 10 (9 when centred), so no LARS path passes 10 active
    # features: the larger subsets must be completed to their full size.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 30))
    counts = [3, 12, 30]
    for scale in ("none", "center"):
        selection = rank_features(
            X, "mcfs", n_clusters=3, n_neighbors=3, feature_counts=counts, scale=scale
        )
        for m in counts:
            assert len(np.unique(selection.subsets[m])) == m
        assert np.all(np.diff(selection.scores[selection.ranking]) <= 0)


def test_mcfs_defaults_are_the_authors_code_reading():
    # MCFS_p.m -> SR.m: raw columns (no RemoveMean), each a_k normalised per cardinality.
    defaults = get_method("mcfs").check_params({})
    assert (defaults["scale"], defaults["coefficients"]) == ("none", "unit_norm")


def test_mcfs_rejects_too_many_eigenvectors(tiny):
    X, graph = tiny
    msg = re.escape("method 'mcfs': n_eigen=11 must be in [1, n_samples - 2 = 10]")
    with pytest.raises(ValueError, match=msg):
        rank_features(X, "mcfs", graph=graph, n_clusters=3, n_eigen=11)


def test_mcfs_standardize_ignores_units_and_center_does_not(planted_data):
    # Rescaling one informative column (e.g. grams -> milligrams) leaves the graph and the
    # eigenvectors unchanged; only standardised covariates keep its LARS coefficient.
    X, _, informative = planted_data
    graph = knn_graph(X, 5)
    Xs = X.copy()
    Xs[:, informative[0]] *= 1000.0
    counts = [4]

    def top(data, scale):
        sel = rank_features(
            data, "mcfs", graph=graph, n_clusters=3, n_eigen=2, scale=scale, feature_counts=counts
        )
        return set(sel.subsets[4].tolist())

    assert top(Xs, "standardize") == top(X, "standardize") == set(informative.tolist())
    assert top(Xs, "center") != top(X, "center")


def test_mcfs_none_regresses_on_the_raw_columns(tiny):
    X, graph = tiny
    shifted = X + 50.0  # an intercept-free regression sees the shift; centring removes it

    def scores(data, scale):
        return rank_features(data, "mcfs", graph=graph, n_clusters=3, scale=scale).scores

    np.testing.assert_allclose(scores(X, "center"), scores(shifted, "center"), atol=1e-10)
    assert not np.allclose(scores(X, "none"), scores(shifted, "none"), atol=1e-3)
    with pytest.raises(ValueError, match="parameter 'scale' must be one of"):
        rank_features(X, "mcfs", graph=graph, n_clusters=3, scale="unit")


def test_mcfs_unit_norm_coefficients_weigh_every_eigenvector_alike():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 6))
    graph = knn_graph(X, 5)
    raw = rank_features(X, "mcfs", graph=graph, n_clusters=4, coefficients="raw")
    unit = rank_features(X, "mcfs", graph=graph, n_clusters=4, coefficients="unit_norm")
    # Brute force: refit the four eigenvectors' paths and normalise each by hand.
    Y = mcfs._spectral_embedding(graph, 4, 0)
    ends = np.array([mcfs._lasso_path(X, X.T @ X, y, 6)[:, -1] for y in Y.T])
    np.testing.assert_allclose(raw.scores, np.abs(ends).max(axis=0), atol=1e-12)
    expected = (np.abs(ends) / np.linalg.norm(ends, axis=1, keepdims=True)).max(axis=0)
    np.testing.assert_allclose(unit.scores, expected, atol=1e-12)
    assert not np.allclose(raw.scores, unit.scores)
