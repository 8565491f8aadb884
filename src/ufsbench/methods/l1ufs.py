"""L1UFS: self-representation feature selection with an l1-norm graph regulariser.

Identified by ``shared/specs/lsdcl.md`` §4 as C. Tang, X. Zhu, J. Chen, P. Wang, X. Liu,
J. Tian. Robust graph regularized unsupervised feature selection. Expert Systems with
Applications 96, 2018 [inferred]; the formulation is the one written (commented out) in
the LSDCL paper's LaTeX source. With the paper's ``X`` (d, n) = our ``X.T``:

    min_W  ||X - W^T X||_{2,1} + lambda1 ||Lambda^1/2 Phi^T X^T W||_1 + lambda2 ||W||_{2,1},

``W`` (d, d) the self-representation, ``L = Phi Lambda Phi^T`` the eigendecomposition of the
Laplacian ``D - A`` of the sample graph. ``||Lambda^1/2 Phi^T X^T W||_F^2 = tr(W^T X L X^T W)``
is the usual squared graph term; its l1 version is robust to badly smoothed entries. In our
layout the residual is ``R = X - X W`` (n, d) and the first norm sums its column norms (one
per feature, ``residual="features"``, as printed); ``residual="samples"`` sums its row norms
(the usual self-representation reading, robust to outlying samples).

Solver [proposal, lsdcl.md §4] -- ADMM on ``E = P W``, ``P = Lambda^1/2 Phi^T X`` (n, d),
multiplier ``Y``, penalty ``mu``:

* W-step: the l2,1 terms reweighted from the current ``W``
  (``a_j = 1 / (2 ||r_j||)``, ``Q = diag(1 / (2 ||w_i||))``), then the exact minimiser of
  ``sum_j a_j ||x_j - X w_j||^2 + lambda2 tr(W^T Q W) + (mu / 2) ||P W - E + Y / mu||^2``:
  per column ``(a_j B + C) w_j = a_j B e_j + (mu / 2) (P^T Z)_j`` with ``B = X^T X``,
  ``C = lambda2 Q + (mu / 2) X^T L X`` and ``Z = E - Y / mu``. One generalised eigen-
  decomposition ``B V = C V diag(theta)``, ``V^T C V = I`` solves all ``d`` columns at once:
  ``(a_j B + C)^-1 = V diag(1 / (a_j theta + 1)) V^T`` -- O(d^3) per iteration, not the O(d^4)
  of ``d`` separate solves. When ``d > n`` (or with ``linear_solver="lowrank"``) ``B`` has
  rank ``n``, and with ``L = S S^T`` (``S = Phi Lambda^1/2``, so ``P = S^T X``) every system
  reads ``(diag(e) + X^T M X) w = X^T m``: ``e = lambda2 q``, ``M = a_j I + (mu / 2) L`` and
  ``m = a_j x_j + (mu / 2) S z_j``. The thin QR ``diag(e)^-1/2 X^T = U R`` (``U`` (d, n)
  orthonormal) turns it into ``w = diag(e)^-1/2 U (I + R M R^T)^-1 R m``: an (n, n) system,
  and for all ``d`` columns one generalised eigendecomposition of ``(R R^T, I + (mu / 2)
  R L R^T)``, O(n^2 d) per iteration. The low-rank route keeps ``W`` as its factors
  (:class:`LowRankMatrix`, (d, n) and (n, d)) and never forms a (d, d) matrix. The diagonal
  scaling and the orthonormal ``U`` keep this as accurate as a dense solve. A Woodbury
  form ``E^-1 - E^-1 X^T (...)^-1 X E^-1``, used before 2026-11-25, subtracts two nearly
  equal terms when ``lambda2`` is small: it diverged on GLIOMA at ``lambda2 = 1e-5`` and
  left backward errors of 1e-7 on ORL and JAFFE (1e-13 now).
  (``residual="samples"``: one system with ``M = diag(a) + (mu / 2) L``; the dense route
  solves the (d, d) system itself.)
* E-step: ``E = soft(P W + Y / mu, lambda1 / mu)``.
* ``Y <- Y + mu (P W - E)``; ``mu <- min(rho mu, 1e10)``.

Start: ``W0 = (B + lambda1 X^T L X + lambda2 I)^-1 B``, the minimiser of the all-squared
version of the objective (in the low-rank route, ``e = lambda2``, ``M = I + lambda1 L``,
``m = x_j``); ``mu0 = lambda1 / mean |P W0|``, the curvature of the l1 term's reweighting at
a typical entry. Features are ranked by ``||w_i||`` (rows of ``W``).

Notes
-----
Inexact ADMM with reweighting does not decrease the objective monotonically; the recorded
objective (the one above, at each iterate ``W``) is logged, and the guarantee tested is
that each W-step solves its linear system and the E-step its proximal problem. Memory
and time: ``Phi`` is a dense (n, n) eigenbasis, computed once (O(n^3)); in the dense route
``W`` is (d, d) and each iteration costs O(d^3 + n d^2), in the low-rank one O(n^2 d)
with O(n d) memory (``benchmarks/speed/bench_lowrank.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.linalg import LinAlgError, eigh, solve_triangular

from ..graph import laplacian
from . import _memo
from ._low_rank import low_rank_pays
from .base import EPSILON, Selection, l21_weights, row_norms
from .params import ITERATIONS, NON_NEGATIVE, POSITIVE, Declaration, Param, decades

_MU_MAX = 1e10
_JITTER = 1e-12


def select(
    X,
    *,
    graph,
    n_clusters=None,
    random_state=0,
    feature_counts=None,
    lambda1=1.0,
    lambda2=1.0,
    residual="features",
    rho=1.1,
    max_iter=50,
    tol=0.0,
    linear_solver="auto",
) -> Selection:
    """Rank features by the row norms of the L1UFS self-representation ``W``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data.
    graph : sparse matrix of shape (n_samples, n_samples)
        Symmetric sample affinity (0-1 k-NN by default); its Laplacian ``D - A`` is used.
    n_clusters : Ignored
    random_state : int, default=0
        Accepted for the common signature; L1UFS is deterministic.
    feature_counts : Ignored
    lambda1 : float, default=1.0
        Weight of the l1 graph term (>= 0).
    lambda2 : float, default=1.0
        Weight of ``||W||_{2,1}`` (> 0).
    residual : {"features", "samples"}, default="features"
        Which norms of the residual ``X - X W`` the l2,1 term sums (see the module notes).
    rho : float, default=1.1
        Growth factor of the ADMM penalty per iteration (>= 1).
    max_iter : int, default=50
        Number of iterations.
    tol : float, default=0.0
        Stop when ``|J_prev - J| <= tol * |J_prev|``; 0 runs every iteration.
    linear_solver : {"auto", "dense", "lowrank"}, default="auto"
        How the (d, d) systems of ``W0`` and of every W-step are solved: ``"dense"`` forms
        the (d, d) ``W`` (and, when ``d <= n``, factorises the (d, d) matrices);
        ``"lowrank"`` keeps ``W`` factored and solves (n, n) systems in the basis of a
        thin QR of the scaled data, exact as well (the routes differ by rounding).
        ``"auto"`` picks ``"lowrank"`` when ``4 n <= d``.

    Returns
    -------
    Selection
        ``scores`` are ``||w_i||``; ``history`` is the objective after each iteration.
    """
    n, d = X.shape
    if linear_solver == "auto":
        linear_solver = "lowrank" if low_rank_pays(n, d) else "dense"
    result = solve(
        X,
        graph,
        lambda1=lambda1,
        lambda2=lambda2,
        residual=residual,
        rho=rho,
        max_iter=max_iter,
        tol=tol,
        lowrank=linear_solver == "lowrank",
    )
    return Selection.from_scores(row_norms(rows(result.W)), history=result.history)


@dataclass(frozen=True)
class L1UFSResult:
    W: np.ndarray | LowRankMatrix  # (d, d) self-representation (factored: low-rank route)
    history: np.ndarray  # (n_iter,) objective after each iteration


@dataclass(frozen=True)
class LowRankMatrix:
    """``W = left @ right`` kept as its factors, ``left`` (d, r) and ``right`` (r, d).

    ``M @ W`` multiplies through the factors (O(r d) per row of ``M``).
    """

    left: np.ndarray
    right: np.ndarray
    __array_ufunc__ = None  # ndarray @ LowRankMatrix defers to __rmatmul__

    def __rmatmul__(self, M):
        return (M @ self.left) @ self.right

    @cached_property  # the W-step's weights and the objective both read it
    def gram_factor(self) -> np.ndarray:
        """``G`` (d, r) with ``G G^T = W W^T``: the rows of ``W`` up to a rotation.

        From ``right^T = Q R`` (thin QR, ``Q`` orthonormal): ``W = left R^T Q^T``, so
        ``G = left R^T`` has the row norms and inner products of ``W``, each computed as
        accurately as from ``W`` itself (no squared Gram matrix).
        """
        return self.left @ np.linalg.qr(self.right.T, mode="r").T

    def toarray(self) -> np.ndarray:
        return self.left @ self.right


def rows(W) -> np.ndarray:
    """A matrix with the row norms of ``W`` (``W`` itself, or a factored ``W``'s Gram factor)."""
    return W.gram_factor if isinstance(W, LowRankMatrix) else W


def solve(
    X, graph, *, lambda1, lambda2, residual, rho, max_iter, tol, lowrank=False
) -> L1UFSResult:
    """The ADMM iterations of the module docstring, from ``W0``.

    ``lowrank``: solve in the thin-QR basis of the module notes, with ``W`` factored;
    ``W``, ``B`` and ``X^T L X`` are then never formed.
    """
    # P = S^T X (n, d), L = S S^T; setting-independent: computed once per process
    P, S = _memo.memoized(
        "l1ufs_graph_factors", _memo.fingerprint(X, graph), lambda: graph_factors(X, graph)
    )
    d = X.shape[1]
    if lowrank:
        B = BL = None
        F = np.hstack([np.eye(len(S)), np.sqrt(lambda1) * S])  # F F^T = I + lambda1 L
        W = solve_through_range(X, np.full(d, float(lambda2)), F, X)
    else:
        B = X.T @ X  # (d, d)
        BL = P.T @ P  # X^T L X
        W = np.linalg.solve(B + lambda1 * BL + lambda2 * np.eye(d), B)
    PW = P @ W
    R = X - X @ W  # the residual, shared by each objective and the next W-step (O(n d^2))
    mu = max(lambda1, EPSILON) / max(np.abs(PW).mean(), EPSILON)
    E = PW.copy()
    Y = np.zeros_like(E)
    history = []
    for _ in range(max_iter):
        W = update_w(
            X,
            B,
            BL,
            P,
            W,
            E - Y / mu,
            lambda2=lambda2,
            mu=mu,
            residual=residual,
            root=S,
            lowrank=lowrank,
            R=R,
        )
        PW = P @ W
        R = X - X @ W
        E = soft_threshold(PW + Y / mu, lambda1 / mu)
        Y += mu * (PW - E)
        mu = min(rho * mu, _MU_MAX)
        history.append(objective(X, W, PW, lambda1, lambda2, residual, R=R))
        if (
            tol > 0
            and len(history) > 1
            and abs(history[-2] - history[-1]) <= tol * abs(history[-2])
        ):
            break
    return L1UFSResult(W=W, history=np.asarray(history))


def graph_factors(X, graph) -> tuple[np.ndarray, np.ndarray]:
    """``(P, S)`` from the eigendecomposition ``D - A = Phi Lambda Phi^T`` of the Laplacian.

    ``P = Lambda^1/2 Phi^T X`` (n, d), so that ``P^T P = X^T L X``, and the square root
    ``S = Phi Lambda^1/2`` (n, n) with ``S S^T = L`` and ``P = S^T X`` (negative rounding in
    ``Lambda`` clipped to 0). ``P^T P`` is the same for any eigenbasis, but ``||P W||_1``
    depends on the basis chosen inside a repeated eigenvalue: the formulation itself is
    ambiguous there.
    """
    eigenvalues, Phi = eigh(laplacian(graph).toarray())  # dense: the eigenbasis is needed
    root = np.sqrt(np.maximum(eigenvalues, 0.0))
    return root[:, None] * (Phi.T @ X), Phi * root


def update_w(X, B, BL, P, W, Z, *, root, lambda2, mu, residual, lowrank=False, R=None):
    """Exact minimiser of the reweighted W-subproblem (weights from the current ``W``).

    ``root``: the Laplacian's square root ``S`` (:func:`graph_factors`). ``lowrank``: the
    new ``W`` is returned factored and ``B`` and ``BL`` may be None; otherwise it is a (d, d)
    array, and when ``d <= n`` (or ``residual="samples"``) ``C = lambda2 Q + (mu / 2) X^T L X``
    is formed and factorised. ``R``: the residual ``X - X W`` if already computed.
    """
    if R is None:
        R = X - X @ W
    q = l21_weights(rows(W))
    half_mu = 0.5 * mu
    if lowrank or (residual == "features" and X.shape[1] > X.shape[0]):
        factored = _update_through_range(X, root, R, Z, lambda2 * q, half_mu, residual)
        return factored if lowrank else factored.toarray()
    C = lambda2 * np.diag(q) + half_mu * BL
    if residual == "samples":
        a = l21_weights(R)  # one weight per sample
        Ba = X.T @ (a[:, None] * X)
        return np.linalg.solve(Ba + C, Ba + half_mu * (P.T @ Z))
    a = l21_weights(R.T)  # one weight per feature (column of R)
    theta, V = eigh_with_ridge(B, C)  # B V = C V diag(theta), V^T C V = I
    # Column j: (a_j B + C)^-1 (a_j B e_j + rhs_j) = V diag(1 / (a_j theta + 1)) V^T (...).
    M = V.T @ (B * a[None, :] + half_mu * (P.T @ Z))
    M /= np.outer(theta, a) + 1.0
    return V @ M


def _update_through_range(X, root, R, Z, e, half_mu, residual) -> LowRankMatrix:
    """The W-step in the basis of the thin QR of ``diag(e)^-1/2 X^T`` (module notes)."""
    SZ = half_mu * (root @ Z)  # (mu / 2) P^T Z = X^T (mu / 2) S Z
    if residual == "samples":
        a = l21_weights(R)  # one weight per sample
        F = np.hstack([np.diag(np.sqrt(a)), np.sqrt(half_mu) * root])  # F F^T = M
        return solve_through_range(X, e, F, a[:, None] * X + SZ)
    a = l21_weights(R.T)  # one weight per feature (column of R)
    return _columns_through_range(X, e, np.sqrt(half_mu) * root, a, X * a[None, :] + SZ)


def _scaled_range(X, e):
    """``(diag(e)^-1/2 U, R)`` from the thin QR ``diag(e)^-1/2 X^T = U R``."""
    scale = 1.0 / np.sqrt(e)
    U, R = np.linalg.qr(scale[:, None] * X.T)
    return scale[:, None] * U, R


def solve_through_range(X, e, F, N) -> LowRankMatrix:
    """``(diag(e) + X^T F F^T X)^-1 X^T N``, factored, for ``e > 0`` and ``F`` (n, k).

    With ``diag(e)^-1/2 X^T = U R`` the system is ``diag(e)^1/2 (I + U R F F^T R^T U^T)
    diag(e)^1/2 w = diag(e)^1/2 U R N``, whose solution is
    ``diag(e)^-1/2 U (I + R F F^T R^T)^-1 R N``: an (m, m) core, ``m = min(n, d)``.
    """
    left, R = _scaled_range(X, e)
    core = _identity_plus_gram_factor(R @ F)
    inner = solve_triangular(core, solve_triangular(core, R @ N, trans="T"))
    return LowRankMatrix(left, inner)


def _columns_through_range(X, e, G, a, N) -> LowRankMatrix:
    """Column ``j`` of ``(diag(e) + X^T (a_j I + G G^T) X)^-1 X^T N``, all at once, factored.

    In the basis of :func:`solve_through_range` column ``j`` needs ``(a_j K + C)^-1`` with
    ``K = R R^T`` and ``C = I + R G G^T R^T = T^T T``. The SVD ``T^-T R = V' diag(s) ...``
    gives the generalised eigenvectors ``V = T^-1 V'`` (``K V = C V diag(s^2)``,
    ``V^T C V = I``), so ``(a_j K + C)^-1 = V diag(1 / (a_j s^2 + 1)) V^T``.
    """
    left, R = _scaled_range(X, e)
    core = _identity_plus_gram_factor(R @ G)
    V, s, _ = np.linalg.svd(solve_triangular(core, R, trans="T"), full_matrices=False)
    V = solve_triangular(core, V)
    T = V.T @ (R @ N)
    T /= np.outer(s**2, a) + 1.0
    return LowRankMatrix(left @ V, T)


def _identity_plus_gram_factor(F):
    """Upper triangular ``T`` with ``T^T T = I + F F^T``, from the QR of ``[I; F^T]``.

    ``F F^T`` is never formed: its entries can be so large that the identity is lost in
    rounding (GLIOMA, ``lambda2 = 1e-5``), while the QR keeps ``T``'s accuracy.
    """
    return np.linalg.qr(np.vstack([np.eye(len(F)), F.T]), mode="r")


def eigh_with_ridge(B, C):
    """``eigh(B, C)`` for ``C = lambda2 Q + (mu / 2) X^T L X``, made numerically definite.

    ``C`` is positive definite in exact arithmetic, but a tiny ``lambda2 Q`` next to the
    singular ``X^T L X`` of raw data can leave its smallest eigenvalue below rounding; a
    ridge of ``1e-12 max(diag C)`` is then added (the subproblem is that ill-posed). The
    test is ``eigh``'s own Cholesky factorisation, so ``C`` is factorised once.
    """
    try:
        return eigh(B, C)
    except LinAlgError:
        return eigh(B, C + _JITTER * np.abs(C.diagonal()).max() * np.eye(len(C)))


def soft_threshold(M, threshold):
    return np.sign(M) * np.maximum(np.abs(M) - threshold, 0.0)


def objective(X, W, PW, lambda1, lambda2, residual, R=None) -> float:
    if R is None:
        R = X - X @ W
    fit = row_norms(R).sum() if residual == "samples" else row_norms(R.T).sum()
    return float(fit + lambda1 * np.abs(PW).sum() + lambda2 * row_norms(rows(W)).sum())


METHODS = {
    "l1ufs": Declaration(
        title="L1UFS",
        params={
            "lambda1": NON_NEGATIVE,
            "lambda2": POSITIVE,
            "residual": Param(str, options=("features", "samples")),
            "rho": Param(float, low=1.0),
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
            "linear_solver": Param(str, options=("auto", "dense", "lowrank")),
        },
        grid={
            "lambda1": decades(-5, 5),
            "lambda2": decades(-5, 5),
        },
        graph="binary",
        iterative=True,
        references=(
            (
                "C. Tang, X. Zhu, J. Chen, P. Wang, X. Liu, J. Tian. Robust graph regularized "
                "unsupervised feature selection. Expert Systems with Applications 2018 "
                "(identification inferred by the spec)."
            ),
            "Baseline of the LSDCL paper: shared/specs/lsdcl.md, sections 4 and 6.3.",
        ),
    ),
}
