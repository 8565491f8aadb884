"""The POCSS main loop (Algorithm 1) over a block of iterations, in the G^2 Gram form.

One body, two builds: :func:`make_kernel` compiles it with numba (loop helpers, ~2 us per
evaluation at k = 50) or returns it as plain Python over numpy slices (the fallback when
numba is missing; same arithmetic, same random stream, ~50x slower). Randomness comes
in as arrays drawn by the caller, so both builds consume the identical stream.

Archive layout (spec 2.3): slot ``s`` holds the unique member of size ``s`` when
``present[s]``: its value ``fval[s]``, columns ``cols[s, :s]``, ``H[s, :s, :s] = G_cc^{-1}``,
``M[s, :s, :s] = G2_cc`` and ``age[s]``, the rank-1 updates since its last exact refresh.
``meta`` = [number present, evaluations, position-stream pointer, log length].

``floor[s]`` is the Eckart-Young bound ``||A - A_s||_F^2`` that no set of ``s`` columns
can beat. A recursive value below it (minus ``slack``) is round-off, not a discovery:
with nearly dependent columns the rank-1 updates amplify it by ``cond(G_cc)^2`` and can
even drive ``f`` negative, which would let a wrong member dominate and empty the archive.
Such an offspring is recomputed from scratch, and rejected if even that stays below.
Drift that stays above the floor is no safer (it let falsely low members evict good ones
on Communities & Crime), so by default (``refresh = 0``) every offspring the archive
would accept is recomputed from scratch first and decided on its exact ``f``.

Most offspring are dominated and rejected, so their state is never built:
- a one-flip offspring's ``f`` comes from the parent's state (Lemmas 1-4 read-only) and is
  remembered in ``cache[parent size, column]`` for the member's lifetime;
- an offspring of 2..``SCREEN_MAX_FLIPS`` flips is screened by the block forms of the same
  lemmas (deleting a set I: ``+ tr(H_II^-1 H_I: M H_:I)``; inserting a set J into what is
  left: ``- tr(S^-1 Z)`` with the Schur complement ``S`` of ``G_JJ``), read-only, and
  rejected when a member dominates it by more than ``slack``. Otherwise the sequential
  updates build its state and decide exactly as without the screen (a test checks the
  runs are the same). Measured: ``benchmarks/speed/bench_pocss.py --compare-screen``.
"""

from __future__ import annotations

import types

import numpy as np

try:  # numba is optional (extra "fast"); without it the plain build runs
    import numba
except ImportError:  # pragma: no cover - exercised on installs without numba
    numba = None

HAVE_NUMBA = numba is not None


def _numpy_helpers() -> dict:
    def matvec(A, r, v, out):
        out[:r] = A[:r, :r] @ v[:r]

    def dot(a, b, r):
        return float(a[:r] @ b[:r])

    def rank1(A, r, u, scale):
        A[:r, :r] += scale * np.outer(u[:r], u[:r])

    def gather(G, j, idx, r, out):
        out[:r] = G[j, idx[:r]]

    def copy_block(src, dst, r):
        dst[:r, :r] = src[:r, :r]

    def exact(G, idx, r, Hy, My, trG):
        sub = idx[:r]
        Gcc = G[np.ix_(sub, sub)]
        try:
            Hy[:r, :r] = np.linalg.inv(Gcc)
        except np.linalg.LinAlgError:
            return np.inf  # exactly singular: rejected like any rank-deficient offspring
        return trG - float(np.sum(Hy[:r, :r] * My[:r, :r]))

    def swap_delete(A, r, i):
        # Move row and column r-1 into position i; the order of columns is irrelevant.
        A[i, :r] = A[r - 1, :r]
        A[:r, i] = A[:r, r - 1]

    def screen(G, G2, Hp, Mp, cols, p, fp, tau, dpos, nd, jins, ni, blk, small):
        H, M, c = Hp[:p, :p], Mp[:p, :p], cols[:p]
        dp, js = dpos[:nd], jins[:ni]
        f = fp
        B = H[:, dp]  # H_{:,I}
        keep = np.ones(p, dtype=bool)
        keep[dp] = False
        if nd:
            Hii = B[dp, :]
            if not _spd_ok(Hii, np.zeros(nd)):
                return np.nan
            X = np.linalg.inv(Hii)
            f += float(np.sum((B.T @ M @ B) * X))  # + tr(H_II^-1 B^T M B)
        if ni:
            bj = G[np.ix_(c, js)] * keep[:, None]  # G_{R,J}, zero on the deleted rows
            u = H @ bj
            if nd:
                u -= B @ (X @ u[dp, :])  # G_RR^-1 = H_RR - H_RI H_II^-1 H_IR
            u[~keep] = 0.0
            S = G[np.ix_(js, js)] - bj.T @ u
            if not _spd_ok(S, tau * G[js, js]):
                return np.nan
            g2 = G2[np.ix_(c, js)].T @ u
            Z = G2[np.ix_(js, js)] - g2 - g2.T + u.T @ M @ u
            f -= float(np.sum(np.linalg.inv(S) * Z))  # - tr(S^-1 Z)
        return f

    return {
        "matvec": matvec,
        "dot": dot,
        "rank1": rank1,
        "gather": gather,
        "copy_block": copy_block,
        "exact": exact,
        "swap_delete": swap_delete,
        "screen": screen,
    }


def _spd_ok(A, floors) -> bool:
    """Whether every pivot of the Cholesky-order elimination of ``A`` exceeds ``floors``:
    the same test the sequential updates apply to each flip in turn."""
    A = np.array(A, dtype=float)
    for t in range(A.shape[0]):
        if not A[t, t] > floors[t]:
            return False
        A[t + 1 :, t + 1 :] -= np.outer(A[t + 1 :, t], A[t, t + 1 :]) / A[t, t]
    return True


def _numba_helpers() -> dict:
    jit = numba.njit(cache=True, nogil=True)

    # The reductions may be reordered (SIMD): the same run gives the same result on one
    # machine; across CPUs they differ by round-off, as the BLAS-made Gram matrix does.
    fast = numba.njit(cache=True, nogil=True, fastmath=True)

    @fast
    def matvec(A, r, v, out):
        for a in range(r):
            s = 0.0
            for b in range(r):
                s += A[a, b] * v[b]
            out[a] = s

    @fast
    def dot(a, b, r):
        s = 0.0
        for i in range(r):
            s += a[i] * b[i]
        return s

    @jit
    def rank1(A, r, u, scale):
        for a in range(r):
            ua = scale * u[a]
            for b in range(r):
                A[a, b] += ua * u[b]

    @jit
    def gather(G, j, idx, r, out):
        for a in range(r):
            out[a] = G[j, idx[a]]

    @jit
    def copy_block(src, dst, r):
        for a in range(r):
            for b in range(r):
                dst[a, b] = src[a, b]

    @jit
    def exact(G, idx, r, Hy, My, trG):
        Gcc = np.empty((r, r))
        for a in range(r):
            for b in range(r):
                Gcc[a, b] = G[idx[a], idx[b]]
        try:
            Hinv = np.linalg.inv(Gcc)
        except Exception:  # numba catches only by the base class
            return np.inf  # exactly singular: rejected like any rank-deficient offspring
        s = 0.0
        for a in range(r):
            for b in range(r):
                Hy[a, b] = Hinv[a, b]
                s += Hinv[a, b] * My[a, b]
        return trG - s

    @jit
    def swap_delete(A, r, i):
        last = r - 1
        for b in range(r):
            A[i, b] = A[last, b]
        for a in range(r):
            A[a, i] = A[a, last]

    @jit
    def invert_spd(A, m, floors, out):
        # Gauss-Jordan without pivoting, valid for SPD A; its pivots are the Schur
        # complements in order, checked like the sequential updates check each flip.
        for a in range(m):
            for b in range(m):
                out[a, b] = A[a, b]
        for t in range(m):
            piv = out[t, t]
            if not piv > floors[t]:
                return False
            inv = 1.0 / piv
            out[t, t] = 1.0
            for b in range(m):
                out[t, b] *= inv
            for a in range(m):
                if a != t:
                    fac = out[a, t]
                    out[a, t] = 0.0
                    for b in range(m):
                        out[a, b] -= fac * out[t, b]
        return True

    @jit
    def screen(G, G2, Hp, Mp, cols, p, fp, tau, dpos, nd, jins, ni, blk, small):
        # One tight matvec per flipped column and matrix (the loop helpers above).
        B, MB, U, MU, BJ = blk[0], blk[1], blk[2], blk[3], blk[4]
        A, X, floors = small[0], small[1], small[2, 0]
        f = fp
        if nd > 0:
            for q in range(nd):
                for a in range(p):
                    B[q, a] = Hp[dpos[q], a]  # row = column: H is symmetric
                matvec(Mp, p, B[q], MB[q])
            for q in range(nd):
                floors[q] = 0.0
                for r in range(nd):
                    A[q, r] = B[q, dpos[r]]
            if not invert_spd(A, nd, floors, X):
                return np.nan
            for q in range(nd):  # + tr(H_II^-1 B^T M B)
                for r in range(nd):
                    f += X[r, q] * dot(B[q], MB[r], p)
        if ni > 0:
            for t in range(ni):
                gather(G, jins[t], cols, p, BJ[t])
                for q in range(nd):
                    BJ[t, dpos[q]] = 0.0  # G_{R,J}: the deleted rows are gone
                matvec(Hp, p, BJ[t], U[t])
                if nd > 0:  # G_RR^-1 = H_RR - H_RI H_II^-1 H_IR
                    for q in range(nd):
                        w = 0.0
                        for r in range(nd):
                            w += X[q, r] * U[t, dpos[r]]
                        for a in range(p):
                            U[t, a] -= B[q, a] * w
                    for q in range(nd):
                        U[t, dpos[q]] = 0.0
            for t in range(ni):
                floors[t] = tau * G[jins[t], jins[t]]
                for r in range(ni):
                    A[t, r] = G[jins[t], jins[r]] - dot(BJ[t], U[r], p)
            if not invert_spd(A, ni, floors, X):
                return np.nan
            for t in range(ni):
                matvec(Mp, p, U[t], MU[t])
                gather(G2, jins[t], cols, p, BJ[t])  # G2_{R,j}; u is 0 on deleted rows
            for t in range(ni):  # - tr(S^-1 Z)
                for r in range(ni):
                    z = G2[jins[t], jins[r]] + dot(U[t], MU[r], p)
                    z -= dot(BJ[t], U[r], p) + dot(BJ[r], U[t], p)
                    f -= X[r, t] * z
        return f

    return {
        "matvec": matvec,
        "dot": dot,
        "rank1": rank1,
        "gather": gather,
        "copy_block": copy_block,
        "exact": exact,
        "swap_delete": swap_delete,
        "screen": screen,
    }


# The loop body reads its helpers as module globals: numba's cache needs a module-level
# function, and the plain build is the same code object with the numpy helpers instead.
_HELPERS = _numba_helpers() if HAVE_NUMBA else _numpy_helpers()
HELPER_NAMES = ("matvec", "dot", "rank1", "gather", "copy_block", "exact", "swap_delete", "screen")
matvec, dot, rank1, gather, copy_block, exact, swap_delete, screen = (
    _HELPERS[name] for name in HELPER_NAMES
)
# Offspring with up to this many flips are screened read-only before their state is built.
SCREEN_MAX_FLIPS = 4


def run_block(
    G, G2, trG, k, tau, refresh, floor, slack,
    present, fval, cols, H, M, age, plist, meta,
    cy, Hy, My, mask, chosen, vec1, vec2, vec3, blk, small, flips, cache,
    nflip, upar, pos, log_t, log_e, log_f, log_s, t0,
):  # fmt: skip
    """Run iterations ``t0 .. t0 + len(nflip) - 1``; return how many were completed.

    Stops early (returning the count done) when the position stream or the log
    buffer runs out; the caller refills it and continues from there.
    """
    K = present.shape[0]
    n_pos = pos.shape[0]
    for b in range(nflip.shape[0]):
        n_flip = nflip[b]
        if n_flip == 0:
            continue  # y == s: nothing to evaluate, the iteration still counts
        if meta[3] >= log_t.shape[0]:
            return b
        # distinct flip positions by rejection from the stream
        ptr = meta[2]
        ok = True
        for q in range(n_flip):
            while True:
                if ptr >= n_pos:
                    ok = False
                    break
                j = pos[ptr]
                ptr += 1
                dup = False
                for q2 in range(q):
                    if chosen[q2] == j:
                        dup = True
                        break
                if not dup:
                    chosen[q] = j
                    break
            if not ok:
                break
        if not ok:
            return b
        meta[2] = ptr
        p = plist[int(upar[b] * meta[0])]
        for a in range(p):
            mask[cols[p, a]] = True
        n_del = 0
        for q in range(n_flip):
            if mask[chosen[q]]:
                n_del += 1
        c = p - n_del + (n_flip - n_del)
        if c >= K:  # the 2k exclusion: dropped, but counted as an iteration
            for a in range(p):
                mask[cols[p, a]] = False
            continue
        meta[1] += 1
        if n_flip == 1:
            # Fast path of the common one-bit offspring: its f from the parent's state,
            # and the state itself is only built if the archive would accept it.
            j = chosen[0]
            Hp = H[p]
            Mp = M[p]
            f1 = cache[p, j]  # NaN until this member has met this flip
            if f1 != f1:  # the parent's state gives it, read-only
                if mask[j]:
                    i = 0
                    while cols[p, i] != j:
                        i += 1
                    for a in range(p):
                        vec1[a] = Hp[a, i]
                    hi = vec1[i]
                    if hi <= 0.0:
                        f1 = np.inf
                    else:
                        matvec(Mp, p, vec1, vec2)
                        f1 = fval[p] + dot(vec1, vec2, p) / hi
                else:
                    gjj = G[j, j]
                    gather(G, j, cols[p], p, vec1)
                    matvec(Hp, p, vec1, vec2)
                    d = gjj - dot(vec1, vec2, p)
                    if gjj <= 0.0 or d <= tau * gjj:
                        f1 = np.inf
                    else:
                        gather(G2, j, cols[p], p, vec1)
                        matvec(Mp, p, vec2, vec3)
                        gain = G2[j, j] - 2.0 * dot(vec2, vec1, p) + dot(vec2, vec3, p)
                        f1 = fval[p] - gain / d
                cache[p, j] = f1
            rejected = not f1 < np.inf
            if not rejected:
                z = c - 1
                while z >= 0 and not present[z]:
                    z -= 1
                rejected = (z >= 0 and fval[z] <= f1) or (present[c] and fval[c] < f1)
            if rejected:
                for a in range(p):
                    mask[cols[p, a]] = False
                continue
        elif n_flip <= flips.shape[1]:
            # A few flips: f from the parent's state by block formulas, read-only; the
            # offspring's own state is only built when no member clearly dominates it.
            nd = 0
            ni = 0
            for q in range(n_flip):
                j = chosen[q]
                if mask[j]:
                    i = 0
                    while cols[p, i] != j:
                        i += 1
                    flips[0, nd] = i
                    nd += 1
                else:
                    flips[1, ni] = j
                    ni += 1
            fs = screen(
                G, G2, H[p], M[p], cols[p], p, fval[p], tau,
                flips[0], nd, flips[1], ni, blk, small,
            )  # fmt: skip
            # ``slack`` absorbs the round-off between this and the sequential updates
            z = c - 1
            while z >= 0 and not present[z]:
                z -= 1
            if (z >= 0 and fval[z] <= fs - slack) or (present[c] and fval[c] < fs - slack):
                for a in range(p):
                    mask[cols[p, a]] = False
                continue
        for a in range(p):
            cy[a] = cols[p, a]
        copy_block(H[p], Hy, p)
        copy_block(M[p], My, p)
        f = fval[p]
        r = p
        ok = True
        # deletions first (Lemmas 1 and 3, Gram form) ...
        for q in range(n_flip):
            j = chosen[q]
            if not mask[j]:
                continue
            i = 0
            while cy[i] != j:
                i += 1
            for a in range(r):
                vec1[a] = Hy[a, i]
            hi = vec1[i]
            if hi <= 0.0:
                ok = False
                break
            matvec(My, r, vec1, vec2)
            f += dot(vec1, vec2, r) / hi
            rank1(Hy, r, vec1, -1.0 / hi)
            cy[i] = cy[r - 1]
            swap_delete(Hy, r, i)
            swap_delete(My, r, i)
            r -= 1
        # ... then insertions (Lemmas 2 and 4)
        if ok:
            for q in range(n_flip):
                j = chosen[q]
                if mask[j]:
                    continue
                gjj = G[j, j]
                gather(G, j, cy, r, vec1)  # b = G_cj
                matvec(Hy, r, vec1, vec2)  # u = H b
                d = gjj - dot(vec1, vec2, r)
                if gjj <= 0.0 or d <= tau * gjj:
                    ok = False
                    break
                gather(G2, j, cy, r, vec1)  # G2_cj
                matvec(My, r, vec2, vec3)  # G2_cc u
                gain = G2[j, j] - 2.0 * dot(vec2, vec1, r) + dot(vec2, vec3, r)
                f -= gain / d
                rank1(Hy, r, vec2, 1.0 / d)
                for a in range(r):
                    Hy[a, r] = -vec2[a] / d
                    Hy[r, a] = -vec2[a] / d
                    My[a, r] = vec1[a]
                    My[r, a] = vec1[a]
                Hy[r, r] = 1.0 / d
                My[r, r] = G2[j, j]
                cy[r] = j
                r += 1
        for a in range(p):
            mask[cols[p, a]] = False
        if not ok:
            continue  # rank-deficient offspring: rejected (spec 2.6)
        # acceptance: no member strictly dominates y (two passes if y is refreshed)
        y_age = age[p] + n_flip
        if f < floor[c] - slack:
            y_age = refresh + 1  # impossible value: recompute y from scratch first
        accept = False
        for attempt in range(2):
            z = c - 1
            while z >= 0 and not present[z]:
                z -= 1
            if z >= 0 and fval[z] <= f:
                break
            if present[c] and fval[c] < f:
                break
            if y_age <= refresh or attempt == 1:
                accept = True
                break
            f = exact(G, cy, c, Hy, My, trG)  # drift control: recompute from scratch
            y_age = 0
            for a in range(c):
                if Hy[a, a] <= 0.0:
                    f = np.inf
            if f < floor[c] - slack:
                f = np.inf  # G_cc too ill-conditioned even for the direct inverse
        if not accept or not f < np.inf:
            continue
        for z in range(c + 1, K):
            if present[z] and fval[z] >= f:
                present[z] = False
        present[c] = True
        fval[c] = f
        for a in range(cache.shape[1]):
            cache[c, a] = np.nan  # a new member of this size: its one-flip values are unknown
        age[c] = y_age
        for a in range(c):
            cols[c, a] = cy[a]
        copy_block(Hy, H[c], c)
        copy_block(My, M[c], c)
        n_present = 0
        for z in range(K):
            if present[z]:
                plist[n_present] = z
                n_present += 1
        meta[0] = n_present
        # anytime log: the best feasible member is the largest present size <= k
        s = min(k, K - 1)
        while not present[s]:
            s -= 1
        last = meta[3] - 1
        # f* never grows; skip round-off-level changes (a re-accepted equal set)
        if s != log_s[last] or fval[s] < log_f[last] - 1e-12 * abs(log_f[last]):
            log_t[meta[3]] = t0 + b + 1
            log_e[meta[3]] = meta[1]
            log_f[meta[3]] = fval[s]
            log_s[meta[3]] = s
            meta[3] += 1
    return nflip.shape[0]


def make_kernel(jit: bool):
    """The block kernel, compiled with numba when ``jit`` (numba must be installed)."""
    if jit:
        if not HAVE_NUMBA:
            raise RuntimeError(
                "engine 'numba' requested but numba is not installed (pip install numba)"
            )
        return numba.njit(cache=True, nogil=True)(run_block)
    plain_globals = {**globals(), **_numpy_helpers()}
    return types.FunctionType(run_block.__code__, plain_globals, "run_block_numpy")
