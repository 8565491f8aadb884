"""Sparse k-nearest-neighbour graphs over samples, and their Laplacians.

A graph is a symmetric ``scipy.sparse.csr_matrix`` of shape (n_samples, n_samples)
with an empty diagonal; it is never formed densely.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

# scikit-learn, scipy.sparse.csgraph and scipy.sparse.linalg are imported where they are
# used: this module is imported by every job (through ufsbench.api and ufsbench.io), most
# of which never build a graph or solve an eigenproblem (issue 27: per-job overhead).

WEIGHTS = ("binary", "heat")
SIGMA0 = ("median", "mean")
# Heat-kernel width conventions: sigma = t * sigma0, or the FSASL framework's quirk of
# passing t * sigma0**2 as the width (LSDCL spec 10.3: it reproduces the paper's LapScore).
WIDTHS = ("sigma", "fsasl")
# sigma0 is a statistic of all pairwise distances; above this many samples it is
# estimated from a seeded subsample of rows so memory stays O(n).
_SIGMA0_MAX_ROWS = 3000


def knn_graph(X, k=5, *, weight="binary", t=1.0, sigma0="median"):
    """Symmetric k-NN affinity graph over the rows of ``X``.

    Each sample is joined to its ``k`` nearest other samples (Euclidean distance,
    itself excluded); the graph is then symmetrised with the element-wise maximum,
    so an edge exists when either end lists the other.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    k : int, default=5
        Number of neighbours; must be smaller than ``n_samples``.
    weight : {"binary", "heat"}, default="binary"
        0-1 weights, or heat-kernel weights ``exp(-d**2 / (2 * sigma**2))``.
    t : float, default=1.0
        Heat-kernel width as a multiple of ``sigma0``: ``sigma = t * sigma0``.
        Ignored for binary weights.
    sigma0 : {"median", "mean"}, default="median"
        Statistic of all pairwise distances (diagonal zeros included) that sets the
        scale of the heat kernel, so that ``t`` does not depend on the data's units.

    Returns
    -------
    graph : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    """
    neighbours, distances = nearest_neighbours(X, k)
    scale = pairwise_distance_scale(X, sigma0) if weight == "heat" else None
    return affinity(neighbours, distances, weight=weight, t=t, scale=scale)


def nearest_neighbours(X, k=5):
    """``(indices, distances)`` of shape (n_samples, k): each sample's k nearest others."""
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    k = int(k)
    if k < 1:
        raise ValueError(f"graph: k={k} must be at least 1")
    if k >= n:
        raise ValueError(f"graph: k={k} must be < n_samples={n}")
    from sklearn.neighbors import NearestNeighbors

    distances, indices = NearestNeighbors(n_neighbors=k).fit(X).kneighbors()
    return indices, distances


def affinity(neighbours, distances, *, weight="binary", t=1.0, scale=None, width="sigma"):
    """The symmetric sparse graph of a k-NN table, with 0-1 or heat-kernel weights.

    ``scale`` is ``sigma0`` (required for heat weights): ``sigma = t * scale``, or
    ``sigma = t * scale**2`` with ``width="fsasl"`` (the author framework's convention).
    """
    if weight not in WEIGHTS:
        raise ValueError(f"graph: unknown weight {weight!r} (known: {', '.join(WEIGHTS)})")
    n, k = neighbours.shape
    if weight == "binary":
        values = np.ones(n * k)
    else:
        if not t > 0:
            raise ValueError(f"graph: heat-kernel width t={t} must be positive")
        if width not in WIDTHS:
            raise ValueError(f"graph: unknown width {width!r} (known: {', '.join(WIDTHS)})")
        sigma = t * scale if width == "sigma" else t * scale**2
        values = np.exp(-(distances.ravel() ** 2) / (2.0 * sigma**2))
    rows = np.repeat(np.arange(n), k)
    directed = sp.csr_matrix((values, (rows, neighbours.ravel())), shape=(n, n))
    graph = directed.maximum(directed.T).tocsr()
    graph.setdiag(0)
    graph.eliminate_zeros()
    graph.sort_indices()
    return graph


def pairwise_distance_scale(X, statistic="median", *, random_state=0) -> float:
    """Median or mean of all pairwise Euclidean distances (diagonal zeros included)."""
    if statistic not in SIGMA0:
        raise ValueError(f"graph: unknown sigma0 {statistic!r} (known: {', '.join(SIGMA0)})")
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] > _SIGMA0_MAX_ROWS:
        rng = np.random.default_rng(random_state)
        X = X[rng.choice(X.shape[0], _SIGMA0_MAX_ROWS, replace=False)]
    from sklearn.metrics import pairwise_distances_chunked

    blocks = [block.ravel() for block in pairwise_distances_chunked(X, working_memory=64)]
    dist = np.concatenate(blocks)
    scale = float(np.median(dist) if statistic == "median" else dist.mean())
    if scale <= 0:
        distinct = len(np.unique(X, axis=0))
        if distinct == 1:
            raise ValueError("graph: all samples are identical, the heat-kernel scale is zero")
        raise ValueError(
            f"graph: the {statistic} pairwise distance is zero (only {distinct} distinct "
            f"samples among {X.shape[0]}: most pairs of samples coincide), so the heat-kernel "
            f"scale is zero; remove duplicate samples, use sigma0: mean or binary weights"
        )
    return scale


def degrees(graph) -> np.ndarray:
    return np.asarray(graph.sum(axis=1)).ravel()


def laplacian(graph, *, normed=False):
    """``L = D - S``, or ``I - D^-1/2 S D^-1/2`` when ``normed`` (isolated nodes kept at 0)."""
    d = degrees(graph)
    if not normed:
        return (sp.diags(d) - graph).tocsr()
    # Isolated samples get degree 1 so the scaling leaves their (empty) rows alone.
    inv_sqrt = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
    scaled = sp.diags(inv_sqrt) @ graph @ sp.diags(inv_sqrt)
    return (sp.identity(graph.shape[0], format="csr") - scaled).tocsr()


def check_graph(graph, n_samples: int):
    """Validate a user-supplied graph: square, matching, symmetric, non-negative."""
    if not sp.issparse(graph):
        graph = sp.csr_matrix(np.asarray(graph, dtype=np.float64))
    graph = graph.tocsr().astype(np.float64)
    if graph.shape != (n_samples, n_samples):
        raise ValueError(
            f"graph has shape {graph.shape}, expected ({n_samples}, {n_samples}) for X "
            f"with {n_samples} samples"
        )
    if graph.nnz and graph.data.min() < 0:
        raise ValueError("graph has negative weights")
    if abs(graph - graph.T).max() > 1e-10 * max(1.0, abs(graph).max()):
        raise ValueError("graph is not symmetric")
    return graph


def spectral_eigenpairs(graph, k, random_state=0):
    """The ``k`` largest eigenpairs of ``N = D^-1/2 S D^-1/2`` (smallest of ``L = I - N``).

    Returns ``(mu, V)``, eigenvalues in decreasing order and orthonormal ``V`` (n, k).
    ``V[:, 0]`` is the trivial eigenvector ``D^1/2 1 / ||D^1/2 1||``. A graph with ``C``
    connected components has eigenvalue 1 with multiplicity ``C``; a Krylov solver started
    from one vector finds a single vector of a repeated eigenvalue, so that eigenspace is
    built exactly from the components' ``D^1/2 1_C`` (the trivial vector first, the rest
    orthogonalised against it) and deflated before ``eigsh`` seeks the others.
    ``random_state`` seeds the solver's start vector.
    """
    n = graph.shape[0]
    if not 1 <= k < n:
        raise ValueError(f"spectral_eigenpairs: k={k} must be in [1, n_samples={n})")
    sqrt_deg = np.sqrt(degrees(graph))
    from scipy.sparse.csgraph import connected_components

    _, component = connected_components(graph, directed=False)
    mass = np.bincount(component, weights=sqrt_deg**2)
    big = np.argsort(-mass, kind="stable")[: np.count_nonzero(mass)]
    indicators = np.where(component[:, None] == big, sqrt_deg[:, None], 0.0)
    # QR of [D^1/2 1, indicators]: an orthonormal basis of the eigenvalue-1 space whose
    # first vector is the trivial one (the first C columns span it exactly).
    Q, _ = np.linalg.qr(np.hstack([sqrt_deg[:, None], indicators]))
    U = Q[:, : min(len(big), k)]
    U *= np.sign(U[np.abs(U).argmax(axis=0), np.arange(U.shape[1])])
    if U.shape[1] == k:
        return np.ones(k), U
    inv_sqrt = 1.0 / np.where(sqrt_deg > 0, sqrt_deg, 1.0)
    N = sp.diags(inv_sqrt) @ graph @ sp.diags(inv_sqrt)
    basis = Q[:, : len(big)]

    def matvec(v):  # N - 3 P: the known eigenvalue-1 space moves to -2, below [-1, 1]
        v = np.ravel(v)
        return N @ v - 3.0 * (basis @ (basis.T @ v))

    from scipy.sparse.linalg import LinearOperator

    operator = LinearOperator((n, n), matvec=matvec, dtype=np.float64)
    v0 = np.random.default_rng(random_state).uniform(-1.0, 1.0, n)
    mu, V = _largest_eigenpairs(operator, k - U.shape[1], v0)
    order = np.argsort(-mu)
    return np.concatenate([np.ones(U.shape[1]), mu[order]]), np.hstack([U, V[:, order]])


# Near-disconnected graphs (e.g. a narrow Gaussian kernel) crowd many eigenvalues just
# below 1, where Lanczos with ARPACK's default subspace (2k + 1 vectors) can stall.
RETRY_NCV = 64


def _largest_eigenpairs(operator, k, v0):
    """``eigsh(which="LA")``; if ARPACK does not converge, once more with a larger
    Krylov subspace (``max(4k, RETRY_NCV)`` vectors) and ten times the iterations."""
    from scipy.sparse.linalg import ArpackNoConvergence, eigsh

    try:
        return eigsh(operator, k=k, which="LA", v0=v0)
    except ArpackNoConvergence:
        n = operator.shape[0]
        ncv = min(n, max(4 * k, RETRY_NCV))
        try:
            return eigsh(operator, k=k, which="LA", v0=v0, ncv=ncv, maxiter=100 * n)
        except ArpackNoConvergence as err:
            raise ArpackNoConvergence(
                f"spectral_eigenpairs: the {k} largest eigenpairs did not converge, even "
                f"with {ncv} Lanczos vectors (a graph with many nearly disconnected parts?)",
                err.eigenvalues,
                err.eigenvectors,
            ) from err
