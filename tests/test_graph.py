"""k-NN graphs, Laplacians and the spectral eigensolver."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import ArpackNoConvergence, eigsh
from sklearn.metrics import pairwise_distances

from ufsbench.graph import (
    check_graph,
    knn_graph,
    laplacian,
    pairwise_distance_scale,
    spectral_eigenpairs,
)
from ufsbench.sparse_graph.spectral import gaussian_affinity


@pytest.fixture
def points():
    return np.random.default_rng(3).normal(size=(40, 3))


def test_knn_graph_symmetric_without_self_loops(points):
    graph = knn_graph(points, 4)
    assert (graph != graph.T).nnz == 0
    assert graph.diagonal().sum() == 0
    assert set(np.unique(graph.data)) == {1.0}


def test_knn_graph_holds_exactly_the_k_nearest_before_symmetrisation(points):
    k = 4
    graph = knn_graph(points, k)
    dist = pairwise_distances(points)
    np.fill_diagonal(dist, np.inf)
    nearest = np.argsort(dist, axis=1)[:, :k]
    directed = np.zeros(dist.shape, dtype=bool)
    np.put_along_axis(directed, nearest, True, axis=1)
    assert np.array_equal(graph.toarray() > 0, directed | directed.T)
    assert (np.asarray((graph > 0).sum(axis=1)).ravel() >= k).all()


def test_heat_weights_follow_the_kernel(points):
    t = 0.7
    graph = knn_graph(points, 3, weight="heat", t=t).tocoo()
    sigma = t * np.median(pairwise_distances(points))
    dist = np.linalg.norm(points[graph.row] - points[graph.col], axis=1)
    np.testing.assert_allclose(graph.data, np.exp(-(dist**2) / (2 * sigma**2)))


def test_sigma0_mean_and_median(points):
    dist = pairwise_distances(points)
    assert pairwise_distance_scale(points, "median") == pytest.approx(np.median(dist))
    assert pairwise_distance_scale(points, "mean") == pytest.approx(dist.mean())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 40}, r"graph: k=40 must be < n_samples=40"),
        ({"k": 0}, r"graph: k=0 must be at least 1"),
        ({"k": 3, "weight": "cosine"}, r"graph: unknown weight 'cosine'"),
        ({"k": 3, "weight": "heat", "t": 0.0}, r"heat-kernel width t=0.0 must be positive"),
    ],
)
def test_knn_graph_rejects_bad_arguments(points, kwargs, message):
    with pytest.raises(ValueError, match=message):
        knn_graph(points, **kwargs)


def test_laplacians(points):
    graph = knn_graph(points, 3, weight="heat")
    S = graph.toarray()
    D = np.diag(S.sum(axis=1))
    np.testing.assert_allclose(laplacian(graph).toarray(), D - S)
    inv = np.diag(1 / np.sqrt(S.sum(axis=1)))
    np.testing.assert_allclose(laplacian(graph, normed=True).toarray(), np.eye(40) - inv @ S @ inv)


def test_check_graph_rejects_asymmetric_and_wrong_shape(points):
    graph = knn_graph(points, 3).tolil()
    graph[0, 1] = 5.0
    with pytest.raises(ValueError, match="not symmetric"):
        check_graph(graph.tocsr(), 40)
    with pytest.raises(ValueError, match=r"graph has shape \(40, 40\), expected \(39, 39\)"):
        check_graph(knn_graph(points, 3), 39)


@pytest.mark.parametrize("k", [2, 3, 6])  # fewer, as many, more vectors than components
def test_spectral_eigenpairs_resolve_repeated_eigenvalue_of_disconnected_graph(k):
    # Three far-apart blobs: eigenvalue 1 of D^-1/2 S D^-1/2 has multiplicity 3, which a
    # Krylov solver from a single start vector does not resolve.
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(size=(30, 4)) + 100.0 * shift for shift in range(3)])
    graph = knn_graph(X, 4, weight="heat")
    N = np.eye(len(X)) - laplacian(graph, normed=True).toarray()
    values, vectors = np.linalg.eigh(N)
    assert np.allclose(values[-3:], 1.0) and values[-7] < values[-6] - 1e-6
    mu, V = spectral_eigenpairs(graph, k, random_state=0)
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-10)
    np.testing.assert_allclose(N @ V, V * mu, atol=1e-8)
    np.testing.assert_allclose(mu, values[::-1][:k], atol=1e-8)
    trivial = np.sqrt(graph.sum(axis=1).A.ravel())
    np.testing.assert_allclose(np.abs(V[:, 0]), trivial / np.linalg.norm(trivial), atol=1e-12)


def test_spectral_eigenpairs_connected_graph_matches_dense(points):
    graph = knn_graph(points, 6, weight="heat")
    N = np.eye(len(points)) - laplacian(graph, normed=True).toarray()
    values = np.linalg.eigvalsh(N)[::-1]
    mu, V = spectral_eigenpairs(graph, 5, random_state=1)
    np.testing.assert_allclose(mu, values[:5], atol=1e-8)
    again = spectral_eigenpairs(graph, 5, random_state=1)[1]
    assert np.array_equal(V, again)


def test_stored_knn_table_gives_every_weighting(points, tmp_path):
    import scipy.sparse as sp

    from ufsbench.graph import SIGMA0, nearest_neighbours
    from ufsbench.io import knn_affinity, load_knn, save_knn

    neighbours, distances = nearest_neighbours(points, 4)
    scales = {name: pairwise_distance_scale(points, name) for name in SIGMA0}
    path = tmp_path / "knn4.npz"
    save_knn(path, neighbours, distances, scales)
    assert (sp.load_npz(path) != knn_graph(points, 4)).nnz == 0  # a plain scipy.sparse file
    knn = load_knn(path)
    for kwargs in (
        {"weight": "binary"},
        {"weight": "heat", "t": 0.5},
        {"weight": "heat", "t": 2.0, "sigma0": "mean"},
    ):
        expected = knn_graph(points, 4, **kwargs)
        np.testing.assert_allclose(knn_affinity(knn, **kwargs).toarray(), expected.toarray())


def test_spectral_eigenpairs_converge_where_default_lanczos_stalls():
    """60 tight clusters under a narrow Gaussian kernel: eight eigenvalues within 2e-6 of 1.
    ARPACK's default subspace gives up here; the retry with a larger one must not."""
    rng = np.random.default_rng(0)
    X = np.repeat(rng.normal(size=(60, 30)), 6, axis=0) + 0.3 * rng.normal(size=(360, 30))
    W = sp.csr_matrix(gaussian_affinity(X, sigma=0.2))
    d = np.asarray(W.sum(axis=1)).ravel()
    N = W.toarray() / np.sqrt(np.outer(d, d))
    with pytest.raises(ArpackNoConvergence):  # the case is hard: default Lanczos stalls
        eigsh(N - np.outer(np.sqrt(d), np.sqrt(d)) * 3 / d.sum(), k=7, which="LA",
              v0=np.random.default_rng(0).uniform(-1.0, 1.0, 360))  # fmt: skip
    mu, V = spectral_eigenpairs(W, 8, random_state=0)
    assert mu == pytest.approx(np.linalg.eigvalsh(N)[::-1][:8], abs=1e-10)
    assert np.abs(N @ V - V * mu).max() < 1e-8
    assert np.abs(V.T @ V - np.eye(8)).max() < 1e-10
