"""Shared solver of SOGFS and ULAP: a projection ``W`` and an adaptive-neighbour graph ``S``.

With ``X`` (n, d) (one row per sample), ``W`` (d, m) with ``W^T W = I``, ``S`` (n, n) whose
rows lie on the probability simplex with ``s_ii = 0``, and (SOGFS only) ``F`` (n, c) with
``F^T F = I``, the solver minimises

    J = sum_ij s_ij ||W^T x_i - W^T x_j||^2 + sum_i alpha_i ||s_i||^2
        + 2 gamma ||W||_{2,1} + lambda sum_ij s_ij ||f_i - f_j||^2,

the last term being ``2 lambda tr(F^T L_S F)`` with ``L_S = D - (S + S^T) / 2``: the
relaxation of the rank constraint ``rank(L_S) = n - c`` (``lambda = 0`` for ULAP). One
iteration is

1. W-step: ``W`` = the ``m`` eigenvectors of ``X^T L_S X + gamma Q`` with the smallest
   eigenvalues, ``Q = diag(1 / (2 ||w_j|| + eps))`` from the previous ``W`` (``Q = I`` at the
   start); ``w_inner`` such reweighted steps per iteration (the reference code iterates to
   convergence, up to 100). This is the W-step of the SOGFS paper and of the spec
   (``X L_S X^T + gamma D``, ``lsdcl.md`` §4) and of the authors' code, whose W-subproblem
   is ``tr(W^T X^T L_S X W) + gamma ||W||_{2,1}``. Since
   ``sum_ij s_ij ||W^T(x_i - x_j)||^2 = 2 tr(W^T X^T L_S X W)``, the objective of which it is
   the exact reweighted block minimiser carries ``2 gamma ||W||_{2,1}``, as ``J`` above does
   (the grids ``10^p`` of both papers are grids of this ``gamma``; before 2026-11-24 the
   W-step used ``gamma / 2``, i.e. it searched ``gamma = 10^p / 2`` of the code).
2. F-step: ``F`` = the ``c`` eigenvectors of ``L_S`` with the smallest eigenvalues.
3. S-step, row by row: ``s_i`` = the Euclidean projection of ``-e_i / (2 alpha_i)`` onto the
   simplex, ``e_ij = ||W^T x_i - W^T x_j||^2 + lambda ||f_i - f_j||^2``. ``e_ij`` is a squared
   distance between rows of ``[X W, sqrt(lambda) F]``, so the support is found by a k-NN
   search and ``S`` stays sparse; no n x n matrix is formed.
4. (SOGFS) ``lambda`` is doubled when ``S`` has fewer than ``c`` connected components
   (``L_S`` has fewer than ``c`` zero eigenvalues) and halved when it has more.

``alpha`` follows the adaptive-neighbour rule (Nie, Wang, Huang, KDD 2014) with ``k``
neighbours: ``alpha_i = (k e_i,(k+1) - sum_{j<=k} e_i,(j)) / 2`` over the sorted distances of
row ``i``, which gives row ``i`` exactly ``k`` neighbours. ``alpha_rule="mean"`` (default)
fixes one ``alpha`` = the mean of the ``alpha_i`` of the first S-step, as the CAN code does,
and then projects each row exactly onto the whole simplex (its support may differ from
``k``); the objective is then one fixed function. ``"row"`` recomputes every ``alpha_i`` at
every S-step, which changes the objective between iterations (on raw JAFFE the recorded
``J`` of ULAP fell for 4 iterations and then rose fourfold; with ``"mean"`` it fell
monotonically). ``"input"`` fixes ``alpha`` = the mean of the ``alpha_i`` of the input data
(the ``r`` of the SOGFS authors' code, which also starts ``lambda`` at it: ``lambda0=None``).
``S0`` is the adaptive-neighbour graph of the input data (k neighbours each).

Readings of the authors' SOGFS code (two public copies agree; ``lsdcl.md`` §4 links it):
``support="knn"`` projects row ``i`` onto the simplex of its ``k`` nearest neighbours only
(default ``"simplex"``: the whole simplex, the exact S-step of ``J``); ``w_inner`` > 1 runs
more reweighted eigen-steps per W-step (the code: up to 100); ``stop="components"`` stops
once ``S`` has exactly ``c`` components (the code's rule, with at most 50 iterations).

Monotonicity: with ``lambda`` fixed (``lambda_update="fixed"``, or ULAP) and ``alpha`` fixed
(``alpha_rule="mean"``) every step is an exact block minimisation (the W-step of the
reweighted majoriser), so the recorded ``J`` never increases (up to the ``eps`` of ``Q``).
SOGFS's default adapts ``lambda`` (and ``"row"`` adapts ``alpha_i``), which changes the
objective between iterations: ``J`` is then recorded but not guaranteed to decrease.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import LinearOperator, eigsh, splu
from sklearn.neighbors import NearestNeighbors

from ._eigen import eigh_range
from ._graded_eigen import bottom_eigenvectors
from ._low_rank import psd_factor, smallest_eigenvectors_lowrank
from ._spectral_projector import bottom_projection
from .base import EPSILON, l21_weights, row_norms

# Up to this many samples the bottom eigenvectors of L_S come from a dense eigh; above it
# from a shift-invert Lanczos on the sparse L_S.
_DENSE_EIGH_MAX = 600


@dataclass(frozen=True)
class AdaptiveGraphResult:
    W: np.ndarray | None  # (d, m) orthonormal projection; None if the projector route set it
    scores: np.ndarray  # (d,) row norms ||w_j|| of W
    S: sp.csr_matrix  # (n, n) learned similarity, rows on the simplex
    history: np.ndarray  # (n_iter,) objective after each iteration
    lambdas: np.ndarray  # (n_iter,) rank-constraint weight used in each iteration


def check_sizes(method, X, *, k, n_components, n_clusters):
    """Raise a clear error for neighbour, projection and cluster counts the data cannot hold."""
    n, d = X.shape
    if k >= n - 1:
        raise ValueError(f"method {method!r}: k={k} must be < n_samples - 1 = {n - 1}")
    if not 1 <= n_components <= d:
        raise ValueError(
            f"method {method!r}: n_components={n_components} must be in [1, n_features={d}]"
        )
    if n_clusters is not None and not 1 <= n_clusters < n:
        raise ValueError(f"method {method!r}: n_clusters={n_clusters} must be < n_samples={n}")


def solve(
    X,
    *,
    n_components,
    gamma,
    k,
    n_clusters=None,
    lambda0=1.0,
    lambda_update="adapt",
    alpha_rule="mean",
    support="simplex",
    w_inner=1,
    stop="max_iter",
    max_iter=30,
    tol=0.0,
    random_state=0,
    eig_solver="dense",
) -> AdaptiveGraphResult:
    """Alternate the W-, F- and S-steps; ``n_clusters=None`` drops the rank term (ULAP).

    ``lambda0=None`` starts ``lambda`` at the fixed ``alpha`` (``alpha_rule="input"`` only,
    the reference code's start). ``stop="components"`` (SOGFS) also stops after the second
    iteration once ``S`` has exactly ``c`` connected components. ``eig_solver="lowrank"``
    (``gamma > 0``) takes the W-step's eigenvectors by subspace iteration on the Woodbury
    inverse of ``gamma Q + B B^T``, ``X^T L_S X = B B^T`` (:mod:`._low_rank`), instead of a
    dense ``eigh`` of the (d, d) matrix: O(n^2 d) instead of O(d^3) when ``n << d``.
    ``eig_solver="projector"`` (``gamma > 0``) takes from the same factors only what the
    solver reads of ``W``, its row norms and ``X W W^T X^T``, as rational functions of the
    matrix (:mod:`._spectral_projector`); a W-step whose m-th and (m+1)-th eigenvalues
    coincide (the first, ``Q = I``, when ``d - n >= m``) keeps the dense ``eigh``.
    ``eig_solver="schur"`` eliminates the rows whose weight ``gamma q_j`` has grown far above
    the spectrum (switched off) before the dense ``eigh`` (:mod:`._graded_eigen`): the same
    step as ``"dense"``, which it equals bit for bit while no row is switched off, to the
    accuracy a dense ``eigh`` of the (d, d) matrix loses once one is.
    """
    ranked = n_clusters is not None
    n, d = X.shape
    S, alphas0 = adaptive_neighbours(X, k)
    alpha = None  # fixed alpha of the "mean" rule, set by the first S-step
    if alpha_rule == "input":
        alpha = float(np.mean(alphas0))
    if lambda0 is None:
        if alpha is None:
            raise ValueError("lambda0=None (lambda0 = alpha) needs alpha_rule='input'")
        lambda0 = alpha
    lam = float(lambda0) if ranked else 0.0
    q = np.ones(d)  # Q = I before the first W-step
    history, lambdas = [], []
    for iteration in range(max_iter):
        L = graph_laplacian(S)
        M = None
        if eig_solver in ("lowrank", "projector"):
            B = X.T @ psd_factor(L)  # (d, r), X^T L_S X = B B^T
        else:
            M = _gram(X, L)
        for _ in range(w_inner):  # reweighted eigen-steps, each a majorise-minimise step
            projection = None
            if eig_solver == "projector":
                projection = bottom_projection(gamma * q, B, X, n_components)
            if projection is not None:
                W = None
                norms = np.sqrt(projection.squared_row_norms)
                q = l21_weights(norms[:, None])  # the row norms of a column are its entries
                continue
            if eig_solver == "lowrank":
                W = smallest_eigenvectors_lowrank(gamma * q, B, n_components)
            elif eig_solver == "schur":
                M = _gram(X, L) if M is None else M
                W = bottom_eigenvectors(M, gamma * q, n_components)
            else:
                M = _gram(X, L) if M is None else M
                _, W = eigh_range(M + np.diag(gamma * q), 0, n_components - 1)
            norms = row_norms(W)
            q = l21_weights(W)
        # The S-step reads W only through distances between rows of X W.
        XW = X @ W if W is not None else _factor(projection.gram)
        if ranked:
            _, F = laplacian_bottom(L, n_clusters, random_state)
            embedding = np.hstack([XW, np.sqrt(lam) * F])
        else:
            embedding = XW
        if alpha_rule == "mean" and alpha is None:
            _, alphas = adaptive_neighbours(embedding, k)
            alpha = float(np.mean(alphas))
        if support == "knn":
            S, alphas = knn_simplex(embedding, k, alpha)
        else:
            S, alphas = adaptive_neighbours(embedding, k, alpha=alpha)
        history.append(objective(S, alphas, embedding, 2.0 * gamma * norms.sum()))
        lambdas.append(lam)
        if ranked and (lambda_update == "adapt" or stop == "components"):
            n_components_S = connected_components(S, directed=False)[0]
            if lambda_update == "adapt" and n_components_S < n_clusters:
                lam *= 2.0
            elif lambda_update == "adapt" and n_components_S > n_clusters:
                lam /= 2.0
            elif stop == "components" and n_components_S == n_clusters and iteration > 0:
                break
        if (
            tol > 0
            and len(history) > 1
            and abs(history[-2] - history[-1]) <= tol * abs(history[-2])
        ):
            break
    return AdaptiveGraphResult(
        W=W, scores=norms, S=S, history=np.asarray(history), lambdas=np.asarray(lambdas)
    )


def _gram(X, L):
    """``X^T L_S X`` (d, d), symmetrised."""
    M = X.T @ (L @ X)
    return 0.5 * (M + M.T)


def _factor(gram):
    """``E`` (n, n) with ``E E^T = gram`` (PSD up to rounding): the same row distances."""
    values, vectors = np.linalg.eigh(gram)
    return vectors * np.sqrt(np.maximum(values, 0.0))


def objective(S, alphas, embedding, l21_term) -> float:
    """``sum_ij s_ij ||e_i - e_j||^2 + sum_i alpha_i ||s_i||^2 + l21_term`` on the edges of S."""
    rows, cols = S.nonzero()
    values = np.asarray(S[rows, cols]).ravel()
    diff = embedding[rows] - embedding[cols]
    pairwise = values @ np.einsum("ij,ij->i", diff, diff)
    squares = np.asarray(S.multiply(S).sum(axis=1)).ravel()
    return float(pairwise + alphas @ squares + l21_term)


def graph_laplacian(S) -> sp.csr_matrix:
    """``L_S = D - (S + S^T) / 2`` (sparse), ``D`` the degrees of the symmetrised ``S``."""
    sym = 0.5 * (S + S.T)
    return (sp.diags(np.asarray(sym.sum(axis=1)).ravel()) - sym).tocsr()


def adaptive_neighbours(E, k, *, alpha=None):
    """Rows of ``S`` minimising ``sum_j s_ij ||e_i - e_j||^2 + alpha_i s_ij^2`` on the simplex.

    ``alpha=None``: each row's ``alpha_i`` by the adaptive-neighbour rule (exactly ``k``
    neighbours, closed form). A number: that ``alpha`` for every row, and the exact
    projection onto the whole simplex (the support is grown until it is certain).

    Returns ``(S, alphas)``: ``S`` a csr matrix (n, n) with an empty diagonal, ``alphas`` (n,).
    """
    n = E.shape[0]
    search = NearestNeighbors().fit(E)
    if alpha is None:
        dist, idx = search.kneighbors(n_neighbors=k + 1)
        dist = dist**2  # (n, k+1) ascending
        gaps = dist[:, k : k + 1] - dist[:, :k]  # (n, k) >= 0
        total = gaps.sum(axis=1, keepdims=True)
        flat = total[:, 0] <= EPSILON * np.maximum(dist[:, k], 1.0)
        # All k+1 candidates equidistant: the rule is 0/0; every neighbour weighs 1/k.
        values = np.where(flat[:, None], 1.0 / k, gaps / np.where(flat[:, None], 1.0, total))
        alphas = 0.5 * total[:, 0]
        return _sparse_rows(values, idx[:, :k], n), alphas

    alpha = max(float(alpha), EPSILON)
    todo = np.arange(n)
    width = min(k + 1, n - 1)
    out_values, out_idx = [None] * n, [None] * n
    while todo.size:
        probe = min(width + 1, n - 1)  # one extra candidate certifies the support
        dist, idx = search.kneighbors(E[todo], n_neighbors=probe + 1)
        dist, idx = _without_self(dist, idx, todo, probe)
        scaled = -(dist**2 - dist[:, :1] ** 2) / (2.0 * alpha)  # descending, from 0
        values, theta = _simplex_projection(scaled[:, :width])
        if probe == width:  # every other sample is a candidate
            certain = np.ones(len(todo), dtype=bool)
        else:
            certain = scaled[:, width] <= theta
        for row, value, index in zip(
            todo[certain], values[certain], idx[certain, :width], strict=True
        ):
            out_values[row], out_idx[row] = value, index
        todo = todo[~certain]
        width = min(2 * width, n - 1)
    lengths = np.array([len(v) for v in out_values])
    rows = np.repeat(np.arange(n), lengths)
    S = sp.csr_matrix((np.concatenate(out_values), (rows, np.concatenate(out_idx))), shape=(n, n))
    S.eliminate_zeros()
    return S, np.full(n, alpha)


def knn_simplex(E, k, alpha):
    """Rows ``s_i`` on the simplex restricted to the ``k`` nearest neighbours of ``e_i``.

    Row ``i`` minimises ``sum_j s_ij ||e_i - e_j||^2 + alpha s_ij^2`` over the simplex of
    its ``k`` nearest neighbours in ``E`` (the SOGFS reference code's S-step: it projects
    ``-d_i / (2 alpha)`` over those ``k`` entries only). Returns ``(S, alphas)`` as
    :func:`adaptive_neighbours`.
    """
    n = E.shape[0]
    alpha = max(float(alpha), EPSILON)
    dist, idx = NearestNeighbors().fit(E).kneighbors(n_neighbors=k)  # without self, ascending
    values, _ = _simplex_projection(-(dist**2 - dist[:, :1] ** 2) / (2.0 * alpha))
    return _sparse_rows(values, idx, n), np.full(n, alpha)


def _without_self(dist, idx, rows, keep):
    """The first ``keep`` neighbours of each row other than the row itself."""
    is_self = idx == rows[:, None]
    # Rows that did not list themselves (duplicates) drop their last candidate instead.
    missing = ~is_self.any(axis=1)
    is_self[missing, -1] = True
    mask = ~is_self
    return dist[mask].reshape(len(rows), -1)[:, :keep], idx[mask].reshape(len(rows), -1)[:, :keep]


def _simplex_projection(V):
    """Row-wise Euclidean projection onto the probability simplex of rows sorted descending.

    Returns ``(P, theta)`` with ``P = max(V - theta, 0)``, ``theta`` for the shifted rows
    ``V - V[:, :1]``.
    """
    m = V.shape[1]
    # The projection is invariant to shifting a row; shifting its largest entry to 0 keeps
    # huge magnitudes (a tiny alpha) from absorbing the 1 of the simplex constraint.
    V = V - V[:, :1]
    cumulative = np.cumsum(V, axis=1) - 1.0
    ranks = np.arange(1, m + 1)
    support = V - cumulative / ranks > 0  # a prefix of every row
    rho = support.sum(axis=1)  # >= 1: the first entry always qualifies
    theta = cumulative[np.arange(len(V)), rho - 1] / rho
    return np.maximum(V - theta[:, None], 0.0), theta


def _sparse_rows(values, idx, n):
    rows = np.repeat(np.arange(n), idx.shape[1])
    S = sp.csr_matrix((values.ravel(), (rows, idx.ravel())), shape=(n, n))
    S.eliminate_zeros()
    return S


def seed_free(n_samples: int) -> bool:
    """Whether ``random_state`` cannot change a solve on ``n_samples`` samples: it only
    starts the Lanczos solver of :func:`laplacian_bottom`, which larger graphs use."""
    return n_samples <= _DENSE_EIGH_MAX


def laplacian_bottom(L, c, random_state=0):
    """The ``c`` smallest eigenpairs ``(values, vectors)`` of a sparse graph Laplacian.

    Zero eigenvalues are exact: their eigenspace is spanned by the indicators of the
    connected components (largest first), which are returned for them; a Krylov solver
    started from one vector would miss repeated eigenvalues. The others come from a dense
    ``eigh`` for small graphs and from shift-invert Lanczos on the deflated sparse ``L``.
    """
    n = L.shape[0]
    n_comp, labels = connected_components(L, directed=False)
    sizes = np.bincount(labels)
    order = np.argsort(-sizes, kind="stable")
    indicators = (labels[:, None] == order[None, :]).astype(np.float64)
    indicators /= np.sqrt(sizes[order])[None, :]
    if n_comp >= c:
        return np.zeros(c), indicators[:, :c]
    if n <= _DENSE_EIGH_MAX:
        values, vectors = eigh_range(L.toarray(), 0, c - 1)
        # Replace the numerically zero block by the exact component basis.
        return np.concatenate([np.zeros(n_comp), values[n_comp:]]), np.hstack(
            [indicators, vectors[:, n_comp:]]
        )
    shift = 1e-6 * max(L.diagonal().mean(), EPSILON)
    lu = splu((L + shift * sp.identity(n)).tocsc())

    def deflate(v):
        return v - indicators @ (indicators.T @ v)

    inverse = LinearOperator((n, n), matvec=lambda v: deflate(lu.solve(deflate(np.ravel(v)))))
    v0 = deflate(np.random.default_rng(random_state).uniform(-1.0, 1.0, n))
    values, vectors = eigsh(L, k=c - n_comp, sigma=-shift, which="LM", OPinv=inverse, v0=v0)
    order = np.argsort(values)
    return np.concatenate([np.zeros(n_comp), values[order]]), np.hstack(
        [indicators, vectors[:, order]]
    )
