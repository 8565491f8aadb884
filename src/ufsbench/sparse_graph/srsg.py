"""SRSG: the support regularized sparse graph, solved by FPGD-SP (paper Alg. 1 and 2).

Objective (paper eq. (3)-(4), row layout, ``codes[i]`` = code of sample ``i``)::

    L(Z) = sum_i ||x_i - codes[i] X||^2 + gamma * sum_ij S_ij d(codes[i], codes[j])

``S`` is the directed binary K-NN graph and ``d`` counts the atoms (other than ``i`` and
``j``) that exactly one of the two codes uses. Coordinate descent over samples updates
one code at a time; its subproblem (eq. (7)) is a least-squares loss plus a weighted
l0 penalty on the "penalised" atoms ``c_t > 0`` and is solved by FPGD-SP: accelerated
proximal gradient with hard thresholding and a support projection of the auxiliary
sequence.

Speed (spec §10): the support of the penalised atoms can only shrink, so every iterate
of sample ``i`` lives on the fixed active set ``A_i`` = (start support & penalised) |
free atoms, minus ``i``; FPGD-SP runs in ``|A_i|`` dimensions on ``G[A_i, A_i]``. Samples
that are not adjacent in ``S + S^T`` do not interact, so a greedy colouring of that graph
gives batches solved together as padded tensor operations with exact Gauss-Seidel
semantics (``schedule="colored"``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigvalsh

from ..graph import nearest_neighbours
from ._common import check_int, check_positive, check_samples, codes_affinity, gram, unit_rows
from .l1graph import l1_codes

log = logging.getLogger(__name__)

C_FORMULAS = ("paper", "exact")
SCHEDULES = ("colored", "sequential", "jacobi")
STEPS = ("global", "local")
# Padded batch tensors (b, a, a) are kept below this many bytes by splitting a batch.
_BATCH_BYTES = 64 * 2**20


# -- building blocks ------------------------------------------------------------------------


def knn_adjacency(X, K=5) -> sp.csr_matrix:
    """Directed binary K-NN graph ``S``: ``S[i, j] = 1`` iff ``x_j`` is a K-NN of ``x_i``."""
    neighbours, _ = nearest_neighbours(X, K)
    n = neighbours.shape[0]
    rows = np.repeat(np.arange(n), neighbours.shape[1])
    S = sp.csr_matrix((np.ones(rows.size), (rows, neighbours.ravel())), shape=(n, n))
    S.sort_indices()
    return S


def support(codes) -> sp.csr_matrix:
    """Sparse 0/1 support indicator ``B[i, t] = 1`` iff sample ``i`` uses atom ``t``."""
    B = sp.csr_matrix(np.asarray(codes) != 0, dtype=np.float64)
    B.eliminate_zeros()
    return B


def penalty_coefficients(S, B, rows, c_formula="paper") -> np.ndarray:
    """``Cpen[b, t] = c_{t, rows[b]}`` of eq. (6) for the samples ``rows``.

    ``"paper"``: ``c = deg_i - 2 (S B)_{it}`` with directed ``S`` (eq. (6) as printed).
    ``"exact"``: the exact block-coordinate coefficients of (3), where code ``i`` enters
    through both ``S_ij`` and ``S_ji`` and position ``m = j`` is excluded:
    ``S' = S + S^T``, ``c = deg'_i - 2 (S' B)_{it} - S'_{it}``.
    """
    if c_formula not in C_FORMULAS:
        raise ValueError(f"srsg: unknown c_formula {c_formula!r} (known: {', '.join(C_FORMULAS)})")
    if c_formula == "exact":
        S = (S + S.T).tocsr()
    Srows = S[rows]
    deg = np.asarray(Srows.sum(axis=1))
    C = deg - 2.0 * (Srows @ B).toarray()
    if c_formula == "exact":
        C -= Srows.toarray()
    return C


def hard_threshold(u, cpen, s, gamma, self_index=None) -> np.ndarray:
    """The proximal map of ``s * gamma * sum_{t: c_t > 0} c_t 1[v_t != 0]`` (eq. (8)).

    ``[T(u)]_t = 0`` if ``c_t > 0`` and ``|u_t| <= sqrt(2 s gamma c_t)``, or ``t`` is the
    sample's own index; ``u_t`` otherwise. Free atoms (``c_t <= 0``) are never thresholded.
    """
    u = np.asarray(u, dtype=np.float64)
    cpen = np.asarray(cpen, dtype=np.float64)
    thr = np.sqrt(2.0 * s * gamma * np.clip(cpen, 0.0, None))
    out = np.where((cpen > 0) & (np.abs(u) <= thr), 0.0, u)
    if self_index is not None:
        out[..., self_index] = 0.0
    return out


def greedy_coloring(S) -> np.ndarray:
    """Colour of every sample such that no two samples adjacent in ``S + S^T`` share one."""
    A = (S + S.T).tocsr()
    n = A.shape[0]
    colour = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        used = set(colour[A.indices[A.indptr[i] : A.indptr[i + 1]]].tolist())
        c = 0
        while c in used:
            c += 1
        colour[i] = c
    return colour


def schedule_batches(S, schedule="colored") -> list[np.ndarray]:
    """Index batches of one coordinate-descent sweep, solved in order."""
    if schedule not in SCHEDULES:
        raise ValueError(f"srsg: unknown schedule {schedule!r} (known: {', '.join(SCHEDULES)})")
    n = S.shape[0]
    if schedule == "sequential":
        return [np.array([i]) for i in range(n)]
    if schedule == "jacobi":
        return [np.arange(n)]
    colour = greedy_coloring(S)
    return [np.flatnonzero(colour == c) for c in range(colour.max() + 1)]


def srsg_objective(X, codes, S, gamma) -> tuple[float, float]:
    """``(reconstruction, support term)`` of eq. (3); ``L = rec + gamma * support``.

    ``d(i, j) = nnz_i + nnz_j - 2 |supp_i & supp_j| - B_ij - B_ji`` on the K-NN pairs.
    """
    Z = sp.csr_matrix(codes)
    rec = float(((X - Z @ X) ** 2).sum())
    B = support(Z.toarray() if not sp.issparse(codes) else codes.toarray())
    nnz = np.asarray(B.sum(axis=1)).ravel()
    Sc = S.tocoo()
    overlap = np.asarray((B[Sc.row].multiply(B[Sc.col])).sum(axis=1)).ravel()
    Bd = B.tocsr()
    b_ij = np.asarray(Bd[Sc.row, Sc.col]).ravel()
    b_ji = np.asarray(Bd[Sc.col, Sc.row]).ravel()
    dist = nnz[Sc.row] + nnz[Sc.col] - 2.0 * overlap - b_ij - b_ji
    return rec, float((Sc.data * dist).sum())


# -- FPGD-SP on a batch ---------------------------------------------------------------------


@dataclass
class BatchStats:
    iterations: int = 0
    safeguard_hits: int = 0
    rejected: int = 0


def _active_sets(Z0, Cpen, rows):
    penalised = Cpen > 0
    act = (penalised & (Z0 != 0)) | ~penalised
    act[np.arange(len(rows)), rows] = False  # never the sample itself (spec erratum #4)
    a = max(int(act.sum(axis=1).max()), 1)
    order = np.argsort(~act, axis=1, kind="stable")[:, :a]
    mask = np.take_along_axis(act, order, axis=1)
    return order, mask


def fpgd_sp_batch(
    G,
    rows,
    Z0,
    Cpen,
    *,
    gamma,
    s,
    eta_ratio=0.5,
    step="global",
    step_scale=0.99,
    max_iter=100,
    tol=1e-10,
    monotone=False,
    stats: BatchStats | None = None,
):
    """Algorithm 1 (FPGD-SP) for every sample of ``rows`` at once, on active sets.

    ``rows`` must be an independent set of ``S + S^T`` (or the caller accepts Jacobi
    semantics). ``Z0`` (b, n) holds the start codes, ``Cpen`` (b, n) the coefficients
    ``c_{t, rows[b]}``. ``s`` is the global step (ignored for ``step="local"``, which
    uses ``step_scale / (2 lambda_max(G[A, A]))`` per sample); ``lambda_k = eta k`` with
    ``eta = eta_ratio * s``; ``alpha_k = 2 / (k + 1)``. With ``monotone`` a sample keeps
    its start code when FPGD-SP ends at a higher subproblem objective (5) (an [inferred]
    safeguard, off by default). Returns the new codes (b, n).
    """
    stats = stats if stats is not None else BatchStats()
    rows = np.asarray(rows)
    b, n = Z0.shape
    idx, mask = _active_sets(Z0, Cpen, rows)
    pair = mask[:, :, None] & mask[:, None, :]
    Gs = np.where(pair, G[idx[:, :, None], idx[:, None, :]], 0.0)  # (b, a, a)
    g = np.where(mask, G[idx, rows[:, None]], 0.0)  # (b, a)
    cc = np.take_along_axis(Cpen, idx, axis=1)
    pen = (cc > 0) & mask
    if step == "local":
        s = step_scale / (2.0 * np.maximum(np.linalg.eigvalsh(Gs)[:, -1], 1e-12))
        s = s[:, None]
    elif step != "global":
        raise ValueError(f"srsg: unknown step {step!r} (known: {', '.join(STEPS)})")
    eta = eta_ratio * s
    thr = np.where(pen, np.sqrt(2.0 * s * gamma * np.clip(cc, 0.0, None)), 0.0)
    z0 = np.where(mask, np.take_along_axis(Z0, idx, axis=1), 0.0)
    z = z0.copy()
    v = z0.copy()
    k = 0
    for k in range(1, max_iter + 1):
        alpha = 2.0 / (k + 1)
        m = (1.0 - alpha) * z + alpha * v  # (9)
        grad = 2.0 * (np.matmul(Gs, m[:, :, None])[:, :, 0] - g)
        u = m - s * grad
        keep = mask & (~pen | (np.abs(u) > thr))  # (10): hard threshold
        entering = keep & pen & (z == 0)  # a pruned penalised atom may not come back
        stats.safeguard_hits += int(entering.sum())
        keep &= ~entering
        z_new = np.where(keep, u, 0.0)
        # (11)-(12): support projection, the sample's own index excluded (it is not in A)
        v = np.where(mask & ~(pen & (z_new == 0)), v - (eta * k) * grad, 0.0)
        done = np.abs(z_new - z).max() <= tol
        z = z_new
        if done:
            break
    stats.iterations += k
    if monotone:
        worse = _subproblem_value(Gs, g, cc, z, gamma) > _subproblem_value(Gs, g, cc, z0, gamma)
        z[worse] = z0[worse]
        stats.rejected += int(worse.sum())
    out = np.zeros_like(Z0)
    bi = np.repeat(np.arange(b), idx.shape[1]).reshape(idx.shape)
    out[bi[mask], idx[mask]] = z[mask]
    return out


def _subproblem_value(Gs, g, cc, z, gamma):
    """Eq. (5)-(6) up to a constant: ``z^T G z - 2 g^T z + gamma sum_t c_t 1[z_t != 0]``."""
    quad = np.einsum("bi,bij,bj->b", z, Gs, z) - 2.0 * np.einsum("bi,bi->b", g, z)
    return quad + gamma * np.where(z != 0, cc, 0.0).sum(axis=1)


# -- the outer loop -------------------------------------------------------------------------


@dataclass
class SRSGResult:
    """Codes, affinity and diagnostics of one SRSG run."""

    codes: sp.csr_matrix
    affinity: sp.csr_matrix
    history: list = field(default_factory=list)  # L(Z) after init and after every sweep
    n_sweeps: int = 0
    converged: bool = False
    safeguard_hits: int = 0
    rejected: int = 0
    inner_iterations: int = 0
    step: float = 0.0
    lambda_max: float = 0.0
    n_colours: int = 0
    nnz_init: float = 0.0
    nnz_final: float = 0.0
    seconds: dict = field(default_factory=dict)


def srsg(
    X,
    *,
    K=5,
    gamma=0.1,
    lam_init=0.1,
    max_sweeps=100,
    max_inner=100,
    tol=1e-5,
    inner_tol=1e-10,
    step="global",
    step_scale=0.99,
    eta_ratio=0.5,
    c_formula="paper",
    schedule="colored",
    monotone=False,
    init_codes=None,
    n_jobs=1,
) -> SRSGResult:
    """Support regularized sparse graph of the samples of ``X`` (paper Algorithm 2).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Scaled to unit-norm rows first (the paper's preprocessing).
    K : int, default=5
        Neighbours of the directed binary K-NN graph ``S`` of the support term [paper].
    gamma : float, default=0.1
        Weight of the support term [paper].
    lam_init : float, default=0.1
        l1 weight of the l1-graph codes that initialise SRSG [paper].
    max_sweeps, max_inner : int, default=100
        ``M_c`` coordinate-descent sweeps and ``M_p`` FPGD-SP iterations (the paper's
        single "M = 100" read as both) [inferred].
    tol : float, default=1e-5
        Stop when ``|L(Z_r) - L(Z_{r-1})| < tol`` (absolute, as in the paper).
    inner_tol : float, default=1e-10
        FPGD-SP stops early once no code entry moves by more than this [inferred].
    step : {"global", "local"}, default="global"
        ``s = step_scale / L_f`` with ``L_f = 2 lambda_max(G)`` [inferred from Thm 3.2],
        or a per-sample ``L_f`` on the active set (a faster variant, not the paper's).
    step_scale : float, default=0.99
    eta_ratio : float, default=0.5
        ``lambda_k = eta k`` with ``eta = eta_ratio * s`` (so ``lambda_k alpha_k <= s``) [inferred].
    c_formula : {"paper", "exact"}, default="paper"
        Penalty coefficients of eq. (6) as printed, or the exact block-coordinate ones.
    schedule : {"colored", "sequential", "jacobi"}, default="colored"
        Sweep order: colour batches of ``S + S^T`` (exact Gauss-Seidel), one sample at a
        time in index order, or all samples at once (not a descent method).
    monotone : bool, default=False
        Keep a sample's previous code when FPGD-SP would raise its subproblem
        objective [inferred safeguard; with ``c_formula="exact"`` it makes L monotone].
    init_codes : array-like of shape (n_samples, n_samples), optional
        Precomputed l1 codes (of the unit-norm rows with ``lam_init``).
    n_jobs : int, default=1
        Worker processes of the l1 initialisation.
    """
    K = check_int("K", K, 1)
    gamma = check_positive("gamma", gamma, allow_zero=True)
    max_sweeps = check_int("max_sweeps", max_sweeps, 1)
    max_inner = check_int("max_inner", max_inner, 1)
    tol = check_positive("tol", tol, allow_zero=True)
    step_scale = check_positive("step_scale", step_scale)
    eta_ratio = check_positive("eta_ratio", eta_ratio)
    if step not in STEPS:
        raise ValueError(f"srsg: unknown step {step!r} (known: {', '.join(STEPS)})")
    if c_formula not in C_FORMULAS:
        raise ValueError(f"srsg: unknown c_formula {c_formula!r} (known: {', '.join(C_FORMULAS)})")
    Xn = unit_rows(check_samples(X))
    n = Xn.shape[0]
    if K >= n:
        raise ValueError(f"srsg: K={K} must be < n_samples={n}")
    seconds = {}
    t0 = time.perf_counter()
    G = gram(Xn)
    lam_max = float(eigvalsh(G, subset_by_index=[n - 1, n - 1])[0])
    s = step_scale / (2.0 * lam_max)
    S = knn_adjacency(Xn, K)
    seconds["gram"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if init_codes is None:
        codes = l1_codes(Xn, lam_init, n_jobs=n_jobs, normalize=False, G=G)
    else:
        codes = (
            sp.csr_matrix(init_codes).toarray()
            if sp.issparse(init_codes)
            else np.array(init_codes, dtype=np.float64)
        )
        if codes.shape != (n, n):
            raise ValueError(f"srsg: init_codes has shape {codes.shape}, expected ({n}, {n})")
        np.fill_diagonal(codes, 0.0)
    seconds["init"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    batches = schedule_batches(S, schedule)
    rec, supp = srsg_objective(Xn, codes, S, gamma)
    history = [rec + gamma * supp]
    stats = BatchStats()
    nnz_init = float(np.count_nonzero(codes) / n)
    log.info(
        "srsg: n=%d K=%d gamma=%g lambda_max(G)=%.6g s=%.6g, %d batches per sweep (%s), "
        "L0=%.10g (rec %.6g, support %.0f), nnz/row %.2f",
        n,
        K,
        gamma,
        lam_max,
        s,
        len(batches),
        schedule,
        history[0],
        rec,
        supp,
        nnz_init,
    )
    converged = False
    sweep = 0
    for sweep in range(1, max_sweeps + 1):
        for rows in batches:
            B = support(codes)
            Cpen = penalty_coefficients(S, B, rows, c_formula)
            for part in _split(rows, Cpen, codes):
                codes[rows[part]] = fpgd_sp_batch(
                    G,
                    rows[part],
                    codes[rows[part]],
                    Cpen[part],
                    gamma=gamma,
                    s=s,
                    eta_ratio=eta_ratio,
                    step=step,
                    step_scale=step_scale,
                    max_iter=max_inner,
                    tol=inner_tol,
                    monotone=monotone,
                    stats=stats,
                )
        rec, supp = srsg_objective(Xn, codes, S, gamma)
        history.append(rec + gamma * supp)
        if not np.isfinite(history[-1]):  # a step far beyond 1/L_f overshoots without bound
            raise FloatingPointError(
                f"srsg diverged in sweep {sweep} (objective {history[-1]}): the step "
                f"s = step_scale / L_f = {s:.3g} is too large; Theorem 3.2 takes "
                f"step_scale < 1 (got {step_scale:g})"
            )
        change = abs(history[-1] - history[-2])
        log.info(
            "srsg sweep %d: L=%.10g (rec %.6g, support %.0f) |dL|=%.3g |dL|/L=%.3g nnz/row %.2f",
            sweep,
            history[-1],
            rec,
            supp,
            change,
            change / max(abs(history[-1]), 1e-300),
            np.count_nonzero(codes) / n,
        )
        if change < tol:
            converged = True
            break
    seconds["srsg"] = time.perf_counter() - t0
    if stats.safeguard_hits:
        log.warning("srsg: support-shrinkage safeguard fired %d times", stats.safeguard_hits)
    Z = sp.csr_matrix(codes)
    return SRSGResult(
        codes=Z,
        affinity=codes_affinity(Z),
        history=history,
        n_sweeps=sweep,
        converged=converged,
        safeguard_hits=stats.safeguard_hits,
        rejected=stats.rejected,
        inner_iterations=stats.iterations,
        step=s,
        lambda_max=lam_max,
        n_colours=len(batches) if schedule == "colored" else 0,
        nnz_init=nnz_init,
        nnz_final=float(Z.nnz / n),
        seconds=seconds,
    )


def _split(rows, Cpen, codes):
    """Slices of ``rows`` whose padded (b, a, a) tensors stay below ``_BATCH_BYTES``."""
    free = (Cpen <= 0).sum(axis=1)
    kept = ((Cpen > 0) & (codes[rows] != 0)).sum(axis=1)
    a = int((free + kept).max()) + 1
    per = max(1, _BATCH_BYTES // (8 * a * a))
    return [slice(i, i + per) for i in range(0, len(rows), per)]
