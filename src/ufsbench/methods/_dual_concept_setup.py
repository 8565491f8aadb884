"""Data preparation, initialisation and the driver shared by LSDCL and M1-M3.

Reading options (lsdcl.md §2.5, §2.6, §9, §10), each a hyper-parameter of the methods:

* ``scale`` — preprocessing inside the method only (§10.2: it moves the oracle ACC by up
  to 12 points): ``"none"`` (raw data, the paper's reading, §6.1), ``"minmax"`` (every
  feature to [0, 1]; constant features to 0) or ``"unit_norm"`` (every feature to unit
  Euclidean norm). The sample graph is used as given (built on the raw data).
* ``mixed_sign`` — what to do when ``X`` has negative values: ``"split"`` runs the
  general path with the ``X = X+ - X-`` split of the ``n x n`` / ``d x d`` products
  (a deviation, see :mod:`._dual_concept`), ``"raise"`` refuses such data.
* ``init`` — ``"kmeans"`` (§2.5 proposal: k-means, 10 restarts, seeded, on the samples
  for ``U`` and on the features for ``V``; one-hot + 0.2), ``"spectral"`` (the commented-
  out draft of Algorithm 1: k-means on the row-normalised leading eigenvectors of
  ``D^-1/2 A D^-1/2``, and of a 5-NN 0-1 graph over features for ``V``) or ``"random"``
  (uniform on [0.2, 1.2)).
* ``s_init`` — ``"identity"`` (the paper; ``S`` then stays diagonal, §9.12) or
  ``"identity_plus"`` (``I + 0.2``, a deviation).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

from ..graph import knn_graph
from . import _memo
from ._dual_concept import Options, Solver
from .base import Selection, row_norms

SCALES = ("none", "minmax", "unit_norm")
MIXED_SIGN = ("split", "raise")
INITS = ("kmeans", "spectral", "random")
S_INITS = ("identity", "identity_plus")
INIT_OFFSET = 0.2  # keeps every entry of the one-hot starts movable (zeros are absorbing)


def prepare_data(X, *, method, scale="none", mixed_sign="split"):
    """``X`` after the in-method preprocessing, checked for sign as ``mixed_sign`` asks."""
    X = np.asarray(X, dtype=np.float64)
    if scale == "minmax":
        low, span = X.min(axis=0), np.ptp(X, axis=0)
        X = (X - low) / np.where(span > 0, span, 1.0)
    elif scale == "unit_norm":
        norms = np.sqrt(np.einsum("ij,ij->j", X, X))
        X = X / np.where(norms > 0, norms, 1.0)
    elif scale != "none":
        raise ValueError(f"method {method!r}: unknown scale {scale!r} (known: {SCALES})")
    negative = int(np.count_nonzero(X < 0))
    if negative and mixed_sign == "raise":
        raise ValueError(
            f"method {method!r}: X has {negative} negative values (min {X.min():.3g}); the "
            "multiplicative updates of the paper need X >= 0 (use scale='minmax', shift "
            "the data, or mixed_sign='split' for the general path)"
        )
    return X


def _one_hot(points, n_clusters, random_state):
    labels = _memo.kmeans_labels(points, n_clusters, random_state)  # KMeans, 10 restarts
    return np.eye(n_clusters)[labels] + INIT_OFFSET


def _spectral_embedding(graph, n_vectors, random_state):
    """Row-normalised leading eigenvectors of ``D^-1/2 A D^-1/2`` (n, n_vectors)."""
    deg = np.asarray(graph.sum(axis=1)).ravel()
    inv_sqrt = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
    N = sp.diags(inv_sqrt) @ graph @ sp.diags(inv_sqrt)
    v0 = np.random.default_rng(random_state).uniform(-1.0, 1.0, graph.shape[0])
    _, vectors = eigsh(N, k=n_vectors, which="LA", v0=v0)
    norms = row_norms(vectors)
    return vectors / np.where(norms > 0, norms, 1.0)[:, None]


def initial_factors(X, graph, k, r, *, dual, init, s_init, random_state, method):
    """``(U0, S0, V0)``: U (n, k), S (k, r) or None, V (d, r) (lsdcl.md §2.5)."""
    n, d = X.shape
    if not 1 <= k < n:
        raise ValueError(f"method {method!r}: {k} sample concepts must be in [1, n_samples={n})")
    if not 1 <= r <= d:
        raise ValueError(f"method {method!r}: {r} feature concepts must be in [1, n_features={d}]")
    if init == "kmeans":
        U, V = _one_hot(X, k, random_state), _one_hot(X.T, r, random_state)
    elif init == "spectral":
        if r >= d:
            raise ValueError(
                f"method {method!r}: init='spectral' needs fewer feature concepts than "
                f"features, got {r} concepts for {d} features"
            )
        U = _one_hot(_spectral_embedding(graph, k, random_state), k, random_state)
        feature_graph = knn_graph(X.T, min(5, d - 1))
        V = _one_hot(_spectral_embedding(feature_graph, r, random_state), r, random_state)
    elif init == "random":
        rng = np.random.default_rng(random_state)
        U, V = INIT_OFFSET + rng.random((n, k)), INIT_OFFSET + rng.random((d, r))
    else:
        raise ValueError(f"method {method!r}: unknown init {init!r} (known: {INITS})")
    if not dual:
        return U, None, V
    S = np.eye(k, r)
    if s_init == "identity_plus":
        S += INIT_OFFSET
    elif s_init != "identity":
        raise ValueError(f"method {method!r}: unknown s_init {s_init!r} (known: {S_INITS})")
    return U, S, V


def run(solver: Solver, max_iter, tol):
    """Iterate ``solver``; stop after ``max_iter`` or when ``|J_{t-1} - J_t| <= tol |J_{t-1}|``
    (checked from ``t >= 2``, lsdcl.md §2.6). Returns the objective after each iteration."""
    history = []
    for _ in range(max_iter):
        solver.iterate()
        history.append(solver.objective())
        if len(history) > 1 and abs(history[-2] - history[-1]) <= tol * abs(history[-2]):
            break
    return np.asarray(history)


def fit_select(
    X,
    graph,
    *,
    method,
    options: Options,
    n_sample_concepts,
    n_feature_concepts,
    random_state,
    max_iter,
    tol,
    scale,
    mixed_sign,
    init,
    s_init="identity",
) -> Selection:
    """Prepare, initialise, iterate, and rank features by ``||V_j||`` (lsdcl.md §2.7)."""
    X = prepare_data(X, method=method, scale=scale, mixed_sign=mixed_sign)
    U, S, V = initial_factors(
        X,
        graph,
        n_sample_concepts,
        n_feature_concepts,
        dual=options.dual,
        init=init,
        s_init=s_init,
        random_state=random_state,
        method=method,
    )
    solver = Solver(X, graph, U, S, V, options)
    history = run(solver, max_iter, tol)
    return Selection.from_scores(row_norms(solver.V), history=history)
