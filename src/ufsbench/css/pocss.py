"""POCSS: Pareto optimisation for column subset selection (Algorithm 1 of the paper).

C. Feng, C. Qian, K. Tang. Unsupervised Feature Selection by Pareto Optimization. AAAI-19.

A GSEMO-style archive over the pairs ``(f(s), |s|)``: each iteration picks a uniformly
random archive member, flips each of its ``n`` bits with probability ``1/n`` and keeps the
offspring unless a member strictly dominates it (then every member it weakly dominates
goes). Offspring with ``2k`` or more columns are dropped; the budget is
``T = round(2 e k^2 n)`` iterations, every iteration counted (also no-flip, excluded and
rank-deficient ones, spec 9 #9). The answer is the member with the smallest ``f`` among
those with at most ``k`` columns, i.e. the largest such member.

Evaluation is incremental in the Gram form with ``G2 = G G`` (spec 2.5): O(r^2) per
flipped bit. Every offspring is recomputed from scratch before it enters the archive
(``refresh=0``), so the archive compares exact residuals: on ill-conditioned data the
recursion alone can err by a factor of 2-5 while staying above the Eckart-Young floor
(Communities & Crime, k = 50; ``tests/test_pocss_drift.py``).
"""

from __future__ import annotations

import functools
import logging
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ._pocss_kernel import HAVE_NUMBA, SCREEN_MAX_FLIPS, make_kernel
from .objective import check_matrix, residual_sq
from .updates import TAU, exact_state

ENGINES = ("auto", "numba", "numpy")
log = logging.getLogger(__name__)
# A recursive residual this far (relative to ||A||_F^2) below the Eckart-Young floor is
# round-off (healthy updates err by ~1e-12 relative), so the offspring is recomputed.
FLOOR_SLACK = 1e-8


@dataclass(frozen=True)
class PocssResult:
    """What a POCSS run found.

    Attributes
    ----------
    subset : ndarray of int
        The answer: sorted column indices, at most ``k`` of them.
    f : float
        ``||X - S S^+ X||_F^2`` of ``subset``, recomputed directly (QR).
    archive : dict of int to ndarray
        The final archive: size -> sorted columns of the member of that size.
    archive_f : dict of int to float
        Exact ``f`` of every archive member (recomputed from scratch).
    trace : ndarray of shape (n_events, 4)
        Anytime log (spec 2.9): ``(iteration, evaluations, best feasible f, its size)``
        each time the best feasible member changes; row 0 is the empty set at iteration 0.
    iterations, evaluations : int
        Budget ``T`` and the number of offspring actually evaluated.
    engine : str
        ``numba`` or ``numpy``.
    seconds : float
    k : int
    extra : dict
        ``recorded_f``: size -> the ``f`` the archive compared for that member (exact up
        to the updates since its last recomputation; ``archive_f`` is the truth).
    """

    subset: np.ndarray
    f: float
    archive: dict
    archive_f: dict
    trace: np.ndarray
    iterations: int
    evaluations: int
    engine: str
    seconds: float = 0.0
    k: int = 0
    extra: dict = field(default_factory=dict)

    def subset_for(self, k: int) -> np.ndarray:
        """The archive member with the smallest ``f`` among those with at most ``k`` columns."""
        size = max(s for s in self.archive if s <= k)
        return self.archive[size]


def paper_budget(k: int, n_features: int) -> int:
    """``T = round(2 e k^2 n)``, the budget of the paper's experiments."""
    return int(round(2.0 * math.e * k * k * n_features))


def resolve_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "auto":
        return "numba" if HAVE_NUMBA else "numpy"
    return engine


@functools.cache
def _kernel(engine: str):
    return make_kernel(engine == "numba")


def pocss(
    X,
    k: int,
    *,
    iterations: int | None = None,
    seed: int = 0,
    engine: str = "auto",
    tau: float = TAU,
    refresh: int = 0,
    gram=None,
    block: int = 1 << 15,
) -> PocssResult:
    """Run POCSS on ``X`` (rows = samples, columns = the candidate columns).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The matrix ``A`` of the paper (unit-norm columns in its experiments).
    k : int
        Column budget, ``1 <= k <= n_features``.
    iterations : int, default=None
        Number of iterations ``T``; None means the paper's ``round(2 e k^2 n)``.
    seed : int, default=0
    engine : {"auto", "numba", "numpy"}, default="auto"
        The compiled kernel, or the plain-numpy build of the same loop.
    tau : float, default=1e-10
        A column whose residual is at most ``tau G_jj`` is dependent: the offspring is
        rejected (spec 2.6).
    refresh : int, default=0
        An offspring's state is recomputed from scratch before it enters the archive when
        it is more than ``refresh`` rank-1 updates away from an exact computation. 0
        verifies every accepted offspring; the spec's suggested 64 (``pocss.md`` §2.6) let
        drift evict good members on Communities & Crime (see the module docstring).
    gram : tuple (G, G2), default=None
        Precomputed ``X^T X`` and its square, to share between runs.
    block : int, default=32768
        Iterations per kernel call (random numbers are drawn per block).
    """
    X = check_matrix(X)
    n = X.shape[1]
    k = int(k)
    if not 1 <= k <= n:
        raise ValueError(f"k={k} must lie in [1, n_features={n}]")
    T = paper_budget(k, n) if iterations is None else int(iterations)
    if T < 0:
        raise ValueError(f"iterations must be >= 0, got {T}")
    if refresh < 0:
        raise ValueError(f"refresh must be >= 0, got {refresh}")
    engine = resolve_engine(engine)
    start = time.perf_counter()
    G, G2 = gram if gram is not None else gram_pair(X)
    trG = float(np.trace(G))

    K = min(2 * k, n + 1)  # slots 0..K-1: sizes >= 2k are excluded
    floor, slack = residual_floor(G, K), FLOOR_SLACK * trG
    present = np.zeros(K, dtype=np.bool_)
    fval = np.full(K, np.inf)
    cols = np.zeros((K, K), dtype=np.int64)
    H = np.zeros((K, K, K))
    M = np.zeros((K, K, K))
    age = np.zeros(K, dtype=np.int64)
    plist = np.zeros(K, dtype=np.int64)
    present[0], fval[0] = True, trG  # the empty set, f = ||A||_F^2 (spec 9 #20)
    meta = np.array([1, 0, 0, 1], dtype=np.int64)
    scratch = (
        np.zeros(K + 1, dtype=np.int64),
        np.zeros((K + 1, K + 1)),
        np.zeros((K + 1, K + 1)),
        np.zeros(n, dtype=np.bool_),
        np.zeros(n, dtype=np.int64),
        np.zeros(K + 1),
        np.zeros(K + 1),
        np.zeros(K + 1),
        np.zeros((5, SCREEN_MAX_FLIPS, K + 1)),  # block screen: H_:I, M H_:I, U, M U, G_RJ
        np.zeros((3, SCREEN_MAX_FLIPS, SCREEN_MAX_FLIPS)),
        np.zeros((2, SCREEN_MAX_FLIPS), dtype=np.int64),  # deleted positions, inserted columns
        np.full((K, n), np.nan),  # one-flip offspring values of every member, met so far
    )
    # anytime log: iteration, evaluations, best feasible f, its size
    events = [np.zeros(1024, dtype=dt) for dt in (np.int64, np.int64, np.float64, np.int64)]
    events[2][0] = trG

    kernel = _kernel(engine)
    rng = np.random.default_rng(seed)
    done = 0
    while done < T:
        size = min(block, T - done)
        nflip = rng.binomial(n, 1.0 / n, size=size).astype(np.int64)
        upar = rng.random(size)
        pos = rng.integers(0, n, size=2 * size + 64, dtype=np.int64)
        meta[2] = 0
        offset = 0
        while offset < size:
            ran = kernel(
                G, G2, trG, k, tau, refresh, floor, slack,
                present, fval, cols, H, M, age, plist, meta, *scratch,
                nflip[offset:], upar[offset:], pos, *events, done + offset,
            )  # fmt: skip
            offset += ran
            if offset < size:
                if meta[3] >= events[0].shape[0]:
                    events = [np.concatenate([a, np.zeros_like(a)]) for a in events]
                else:  # position stream exhausted: draw more
                    pos = rng.integers(0, n, size=2 * (size - offset) + 64, dtype=np.int64)
                    meta[2] = 0
        done += size
        if done * 10 // max(T, 1) > (done - size) * 10 // max(T, 1) or done == T:
            n_log = int(meta[3])
            log.info(
                "pocss k=%d: iteration %d/%d, %d evaluations, best f %.10g (%d columns), "
                "archive %d members",
                k, done, T, meta[1], events[2][n_log - 1], events[3][n_log - 1],
                meta[0],
            )  # fmt: skip

    n_log = int(meta[3])
    trace = np.column_stack([a[:n_log] for a in events])
    archive = {int(s): np.sort(cols[s, :s].copy()) for s in np.flatnonzero(present)}
    archive_f = {}
    for s, members in archive.items():
        try:
            archive_f[s] = exact_state(G, members)[1]
        except np.linalg.LinAlgError:
            archive_f[s] = residual_sq(X, members)
    best = max(s for s in archive if s <= k)
    subset = archive[best]
    return PocssResult(
        subset=subset,
        f=residual_sq(X, subset),
        archive=archive,
        archive_f=archive_f,
        trace=trace,
        iterations=T,
        evaluations=int(meta[1]),
        engine=engine,
        seconds=time.perf_counter() - start,
        k=k,
        # the values the archive compared, to check against ``archive_f``
        extra={"recorded_f": {int(s): float(fval[s]) for s in archive}},
    )


def residual_floor(G, sizes: int) -> np.ndarray:
    """``floor[s] = ||A - A_s||_F^2`` for ``s < sizes``: the sum of the eigenvalues of
    ``G = A^T A`` beyond the ``s`` largest, a lower bound on the residual of any ``s``
    columns (Eckart-Young)."""
    eigenvalues = np.clip(np.linalg.eigvalsh(G)[::-1], 0.0, None)
    tail = np.concatenate([np.cumsum(eigenvalues[::-1])[::-1], [0.0]])
    return np.ascontiguousarray(tail[:sizes])


def gram_pair(X) -> tuple[np.ndarray, np.ndarray]:
    """``G = X^T X`` and ``G2 = G G``, C-contiguous (computed once per data set)."""
    X = check_matrix(X)
    G = np.ascontiguousarray(X.T @ X)
    G = (G + G.T) / 2.0
    G2 = np.ascontiguousarray(G @ G)
    return G, (G2 + G2.T) / 2.0
