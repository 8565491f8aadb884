"""The POCSS main loop (Algorithm 1) over a block of iterations, in the G^2 Gram form.

One body, two builds: :func:`make_kernel` compiles it with numba (loop helpers, ~5 us per
evaluation at k = 50) or returns it as plain Python over numpy slices (the fallback when
numba is missing; same arithmetic, same random stream, ~10x slower). Randomness comes
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
        Hy[:r, :r] = np.linalg.inv(Gcc)
        return trG - float(np.sum(Hy[:r, :r] * My[:r, :r]))

    def swap_delete(A, r, i):
        # Move row and column r-1 into position i; the order of columns is irrelevant.
        A[i, :r] = A[r - 1, :r]
        A[:r, i] = A[:r, r - 1]

    return {
        "matvec": matvec,
        "dot": dot,
        "rank1": rank1,
        "gather": gather,
        "copy_block": copy_block,
        "exact": exact,
        "swap_delete": swap_delete,
    }


def _numba_helpers() -> dict:
    jit = numba.njit(cache=True, nogil=True)

    @jit
    def matvec(A, r, v, out):
        for a in range(r):
            s = 0.0
            for b in range(r):
                s += A[a, b] * v[b]
            out[a] = s

    @jit
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
        Hinv = np.linalg.inv(Gcc)
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

    return {
        "matvec": matvec,
        "dot": dot,
        "rank1": rank1,
        "gather": gather,
        "copy_block": copy_block,
        "exact": exact,
        "swap_delete": swap_delete,
    }


# The loop body reads its helpers as module globals: numba's cache needs a module-level
# function, and the plain build is the same code object with the numpy helpers instead.
_HELPERS = _numba_helpers() if HAVE_NUMBA else _numpy_helpers()
matvec, dot, rank1, gather, copy_block, exact, swap_delete = (
    _HELPERS[name]
    for name in ("matvec", "dot", "rank1", "gather", "copy_block", "exact", "swap_delete")
)


def run_block(
    G, G2, trG, k, tau, refresh, floor, slack,
    present, fval, cols, H, M, age, plist, meta,
    cy, Hy, My, mask, chosen, vec1, vec2, vec3,
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
