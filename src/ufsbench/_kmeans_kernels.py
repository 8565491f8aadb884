"""Compiled steps of :func:`ufsbench.kmeans.litekmeans` (numba; imported only when used).

The two step kernels do, element by element, the arithmetic of the NumPy steps they
replace, in the same order, so labels and centres are bitwise the same
(tests/test_speed_pins.py):

* :func:`assign` takes ``G = X @ (-2 C)'`` from BLAS, as the NumPy route does, and forms
  ``max((x_sq + G) + c_sq, 0)`` per entry, keeping the first smallest per row
  (``np.argmin``'s tie rule);
* :func:`cluster_means` adds each cluster's samples one by one in sample order from 0.0,
  the order of the sparse indicator product ``E @ X`` (CSR rows in increasing column
  order, ``0 + 1.0 * x`` per entry), then divides by the count.

:func:`pruned_steps` runs consecutive Lloyd steps without forming most distances (see
"Exact pruning" below): each label it sets is provably the one the formed step would set,
and it hands a step back to the caller to be formed whole when it cannot prove one
(tests/test_kmeans.py, ``-k pruned``).

Importing this module imports numba (about 0.3 CPU s), hence the lazy import.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def assign(G, x_sq, c_sq, labels, own, counts, previous):  # pragma: no cover - compiled
    """Nearest centre per sample into ``labels``, its squared distance into ``own``.

    Returns ``(number of labels that differ from previous, number of empty clusters)``;
    ``previous`` of length 0 counts every sample as changed.
    """
    n, k = G.shape
    counts[:] = 0
    changed = 0
    for i in range(n):
        xi = x_sq[i]
        best = np.inf
        arg = 0
        for j in range(k):
            d = (xi + G[i, j]) + c_sq[j]
            if d < 0.0:
                d = 0.0
            if d < best:
                best = d
                arg = j
        labels[i] = arg
        own[i] = best
        counts[arg] += 1
        if previous.shape[0] == 0 or previous[i] != arg:
            changed += 1
    empty = 0
    for j in range(k):
        if counts[j] == 0:
            empty += 1
    return changed, empty


@numba.njit(cache=True, nogil=True)
def cluster_means(X, labels, counts, old_centers):  # pragma: no cover - compiled
    """Cluster means (an empty cluster keeps its old centre), the sums accumulated in
    sample order, then divided by the counts as ``sums / counts`` is."""
    n, d = X.shape
    k = old_centers.shape[0]
    sums = np.zeros((k, d))
    for i in range(n):
        j = labels[i]
        for t in range(d):
            sums[j, t] += X[i, t]
    for j in range(k):
        if counts[j] == 0:
            sums[j, :] = old_centers[j, :]
        else:
            c = np.float64(counts[j])
            for t in range(d):
                sums[j, t] = sums[j, t] / c
    return sums


# --- Exact pruning of the assignment (bounds on the true distances) --------------------
#
# The labels of a step are the row argmins of the rounded ``D`` above. Every entry of
# ``D`` is within ``E_i / 4`` of the true squared distance, where ``E_i = ecoef *
# (|x_i| + max_j |c_j|)^2`` and ``ecoef = 4 (d + 4) u`` (``u = 2^-53``): a dot product of
# ``d`` terms in any order errs by at most ``gamma_d |x| |2c|``, each squared norm by
# ``gamma_d`` of itself, the two additions by ``u`` each, about ``(d + 4) u (|x| + |c|)^2``
# in all; a distance summed directly as ``sum (x - c)^2`` (any order) errs by less. So if
# a sample's true squared distance to one centre is below all others by more than
# ``E_i / 2``, the rounded argmin is that centre, whatever rounding formed ``D``, and no
# tie arises. Elkan's bounds decide that without forming the row: per sample an upper
# bound on the distance to its centre and a lower bound on the distance to every centre,
# moved by the centres' shifts through the triangle inequality, plus half the distance
# between centres; every bound is rounded outward. The distances the bounds leave open are
# summed directly, and the sample's label is accepted only with a gap above ``2 E_i``;
# otherwise the step reports failure and the caller forms the whole step with BLAS.

_U = 2.0**-53
_UP = 1.0 + 4.0 * _U  # outward rounding of a bound (exact constants)
_DOWN = 1.0 - 4.0 * _U


# Reassociation and contraction let LLVM vectorise these sums; the bound of every pruning
# test holds for any summation order, and only these tests use their results.
@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _sq_dist(X, i, C, j):  # pragma: no cover - compiled
    """``sum_t (X[i, t] - C[j, t])^2`` in some order (error within ``gamma_d`` of it)."""
    s = 0.0
    for t in range(X.shape[1]):
        r = X[i, t] - C[j, t]
        s += r * r
    return s


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _dist(X, i, x_sq, C, j, c_sq):  # pragma: no cover - compiled
    """``max((x_sq[i] - 2 X[i] . C[j]) + c_sq[j], 0)``, the dot product in some order:
    within ``E_i / 4`` of the true squared distance, as the BLAS route's entry is."""
    s = 0.0
    for t in range(X.shape[1]):
        s += X[i, t] * C[j, t]
    d = (x_sq[i] - 2.0 * s) + c_sq[j]
    return d if d > 0.0 else 0.0


@numba.njit(cache=True, nogil=True)
def init_bounds(
    G, x_sq, c_sq, labels, x_norm, cmax, ecoef, upper, lower, lmin
):  # pragma: no cover - compiled
    """Bounds from a formed step (``G`` of :func:`assign`) for the given ``labels``:
    ``upper[i] >= |x_i - c_labels[i]|``, ``lower[i, j] <= |x_i - c_j|`` and ``lmin[i]``
    the least ``lower[i, j]`` over ``j != labels[i]``."""
    n, k = G.shape
    for i in range(n):
        lmin[i] = np.inf
        r = x_norm[i] + cmax
        e = ecoef * r * r
        xi = x_sq[i]
        for j in range(k):
            d = (xi + G[i, j]) + c_sq[j]
            if d < 0.0:
                d = 0.0
            lower[i, j] = np.sqrt(max(d - e, 0.0)) * _DOWN
            if j == labels[i]:
                upper[i] = np.sqrt(d + e) * _UP
            elif lower[i, j] < lmin[i]:
                lmin[i] = lower[i, j]


@numba.njit(cache=True, nogil=True)
def pruned_assign(
    X,
    x_sq,
    x_norm,
    centers,
    c_sq,
    cmax,
    half,
    least,
    ecoef,
    labels,
    previous,
    upper,
    lower,
    lmin,
    counts,
):  # pragma: no cover - compiled
    """One step's labels into ``labels`` (holding the previous ones) from the bounds.

    ``half[a, j]``: a lower bound on half the distance between centres ``a`` and ``j``
    (``half[a, a]`` is infinite), ``least[a]`` the least of ``half[a, :]``. Returns
    ``(ok, labels changed, empty clusters)``; ``ok`` is False when a sample's two nearest
    centres are too close to call, and the arrays are then partly updated (the caller
    forms the step whole).

    Centre ``j`` cannot take sample ``i`` from its centre ``a`` when ``|x_i - c_j|`` is
    provably above ``thr = sqrt(upper^2 + E_i)``, rounded up: when ``lower[i, j] > thr``,
    or when ``half[a, j] > (thr + upper) / 2`` (``|x_i - c_j| >= |c_a - c_j| - upper``).
    """
    n = X.shape[0]
    k = centers.shape[0]
    for i in range(n):
        a = labels[i]
        r = x_norm[i] + cmax
        e = ecoef * r * r
        up = upper[i]
        lo = lmin[i]
        if lo * lo > (up * up + e) * _UP:  # lo > thr below, without the square root
            continue
        thr = np.sqrt(up * up + e) * _UP
        hthr = 0.5 * (thr + up) * _UP
        if least[a] > hthr:
            continue
        decided = True
        for j in range(k):
            if not (lower[i, j] > thr or half[a, j] > hthr):
                decided = False
                break
        if decided:
            continue
        # Tighten: the distance to the own centre, then each centre the bounds leave open.
        own = _dist(X, i, x_sq, centers, a, c_sq)
        lower[i, a] = np.sqrt(max(own - e, 0.0)) * _DOWN
        up = np.sqrt(own + e) * _UP
        # Beyond thr, a centre is farther than the own one by more than 2 E_i.
        thr = np.sqrt(own + 2.0 * e) * _UP
        hthr = 0.5 * (thr + up) * _UP
        best, arg = own, a
        second = np.inf
        for j in range(k):
            if lower[i, j] > thr or half[a, j] > hthr:
                continue
            d = _dist(X, i, x_sq, centers, j, c_sq)
            lower[i, j] = np.sqrt(max(d - e, 0.0)) * _DOWN
            if d < best:
                second = best
                best, arg = d, j
            elif d < second:
                second = d
        if not second - best > 2.0 * e:  # (NaN, from overflow, fails too)
            return False, 0, 0
        labels[i] = arg
        upper[i] = np.sqrt(best + e) * _UP
        least_lower = np.inf
        for j in range(k):
            if j != arg and lower[i, j] < least_lower:
                least_lower = lower[i, j]
        lmin[i] = least_lower
    changed, empty = _tally(labels, previous, counts)
    return True, changed, empty


@numba.njit(cache=True, nogil=True)
def _tally(labels, previous, counts):  # pragma: no cover - compiled
    """Cluster sizes of ``labels`` into ``counts``; returns ``(labels that differ from
    previous, empty clusters)``."""
    counts[:] = 0
    changed = 0
    for i in range(labels.shape[0]):
        counts[labels[i]] += 1
        if labels[i] != previous[i]:
            changed += 1
    empty = 0
    for j in range(counts.shape[0]):
        if counts[j] == 0:
            empty += 1
    return changed, empty


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _row_dot(X, i, w):  # pragma: no cover - compiled
    """``X[i] . w`` in some order."""
    s = 0.0
    for t in range(X.shape[1]):
        s += X[i, t] * w[t]
    return s


@numba.njit(cache=True, nogil=True)
def _two_assign(
    X, x_norm, centers, c_sq, cmax, ecoef, labels, previous, counts
):  # pragma: no cover
    """:func:`full_assign` for two centres by one dot product per sample: the difference
    of the squared distances ``D_0 - D_1 = 2 x . (c_1 - c_0) + (c_sq_0 - c_sq_1)``,
    formed so, errs by at most ``2 (d + 3) u (|x| + max |c|)^2 < E_i / 2``, and the BLAS
    route's difference by about as much; beyond ``2 E_i`` both have the same sign."""
    n = X.shape[0]
    w = centers[1] - centers[0]
    offset = c_sq[0] - c_sq[1]
    for i in range(n):
        r = x_norm[i] + cmax
        e = ecoef * r * r
        diff = 2.0 * _row_dot(X, i, w) + offset
        if not abs(diff) > 2.0 * e:  # (NaN, from overflow, fails too)
            return False, 0, 0
        labels[i] = 1 if diff > 0.0 else 0
    changed, empty = _tally(labels, previous, counts)
    return True, changed, empty


@numba.njit(cache=True, nogil=True)
def full_assign(
    X, x_sq, x_norm, centers, c_sq, cmax, ecoef, labels, previous, counts
):  # pragma: no cover
    """:func:`pruned_assign` without bounds (for few centres, where they save little):
    every distance is formed by :func:`_dist` and each label accepted past the rounding.
    Returns ``(ok, labels changed, empty clusters)``."""
    n = X.shape[0]
    k = centers.shape[0]
    if k == 2:
        return _two_assign(X, x_norm, centers, c_sq, cmax, ecoef, labels, previous, counts)
    for i in range(n):
        r = x_norm[i] + cmax
        e = ecoef * r * r
        best, arg, second = np.inf, 0, np.inf
        for j in range(k):
            d = _dist(X, i, x_sq, centers, j, c_sq)
            if d < best:
                second = best
                best, arg = d, j
            elif d < second:
                second = d
        if not second - best > 2.0 * e:  # (NaN, from overflow, fails too)
            return False, 0, 0
        labels[i] = arg
    changed, empty = _tally(labels, previous, counts)
    return True, changed, empty


@numba.njit(cache=True, nogil=True)
def move_bounds(
    old_centers, centers, labels, upper, lower, lmin, half, least
):  # pragma: no cover - compiled
    """Bounds after the centres moved from ``old_centers`` (``upper`` grows by the shift
    of the sample's centre, ``lower[:, j]`` shrinks by centre ``j``'s), and ``half`` and
    ``least`` for the new centres (see :func:`pruned_assign`); only the centres that
    moved are visited (``half`` starts as zeros, a valid bound)."""
    k, dim = centers.shape
    grow = 1.0 + 2.0 * (dim + 8) * _U  # covers the rounding of a norm
    shrink = 1.0 - 2.0 * (dim + 8) * _U
    shift = np.empty(k)
    moved = np.empty(k, dtype=np.intp)
    n_moved = 0
    for j in range(k):
        shift[j] = np.sqrt(_sq_dist(centers, j, old_centers, j)) * grow * _UP
        if shift[j] > 0.0:
            moved[n_moved] = j
            n_moved += 1
    if n_moved == 0:
        return
    moved = moved[:n_moved]
    for i in range(labels.shape[0]):
        a = labels[i]
        upper[i] = (upper[i] + shift[a]) * _UP
        least_lower = lmin[i]
        for j in moved:
            lo = max(lower[i, j] * _DOWN - shift[j], 0.0)
            lower[i, j] = lo
            if j != a and lo < least_lower:
                least_lower = lo
        lmin[i] = least_lower
    for a in moved:
        for j in range(k):
            if j != a:
                h = 0.5 * np.sqrt(_sq_dist(centers, a, centers, j)) * shrink * _DOWN
                half[a, j] = h
                half[j, a] = h
    for a in range(k):
        half[a, a] = np.inf
        least_half = np.inf
        for j in range(k):
            least_half = min(least_half, half[a, j])
        least[a] = least_half


@numba.njit(cache=True, nogil=True)
def moved_means(X, labels, previous, counts, centers):  # pragma: no cover - compiled
    """:func:`cluster_means` for ``labels`` when ``centers`` are the means of
    ``previous``: the clusters no sample left or joined keep their centre (the same
    samples in the same order give the same sum), the others are summed anew as there."""
    n, dim = X.shape
    k = centers.shape[0]
    touched = np.zeros(k, dtype=np.bool_)
    for i in range(n):
        if labels[i] != previous[i]:
            touched[labels[i]] = True
            touched[previous[i]] = True
    out = centers.copy()
    for j in range(k):
        if touched[j] and counts[j] > 0:
            out[j, :] = 0.0
    for i in range(n):
        j = labels[i]
        if touched[j] and counts[j] > 0:
            for t in range(dim):
                out[j, t] += X[i, t]
    for j in range(k):
        if touched[j] and counts[j] > 0:
            c = np.float64(counts[j])
            for t in range(dim):
                out[j, t] = out[j, t] / c
    return out


@numba.njit(cache=True, nogil=True)
def pruned_steps(
    X,
    x_sq,
    x_norm,
    centers,
    labels,
    upper,
    lower,
    lmin,
    half,
    least,
    counts,
    ecoef,
    n_iter,
    max_iter,
    first,
    full,
):  # pragma: no cover - compiled
    """Lloyd steps by :func:`pruned_assign` from ``labels`` (the last step's, with the
    centres already moved to their means and the bounds moved with them).

    Returns ``(status, n_iter, labels, centers)``: status 0 when the labels stopped
    changing (at step ``n_iter``), 1 when ``max_iter`` steps were made, 2 when step
    ``n_iter + 1`` must be formed whole (the returned labels and centres are then those it
    starts from; with ``first``, 3 instead when that is the first step).

    ``first``: the run's first step, from no labels (``labels`` all 0, ``upper`` infinite,
    ``lower``, ``lmin``, ``half`` and ``least`` 0 but ``half``'s diagonal infinite), so
    that every distance is formed and each label is accepted only past the rounding.
    ``full``: every step by :func:`full_assign` (the bounds are then neither read nor
    kept).
    """
    new_labels = labels.copy()
    none = np.full(labels.shape[0], -1, dtype=labels.dtype)
    c_sq = np.empty(centers.shape[0])
    while n_iter < max_iter:
        cmax = 0.0
        for j in range(centers.shape[0]):
            s = 0.0
            for t in range(centers.shape[1]):
                s += centers[j, t] * centers[j, t]
            c_sq[j] = s
            cmax = max(cmax, s)
        cmax = np.sqrt(cmax)
        new_labels[:] = labels
        previous = none if first else labels
        if full:
            ok, changed, empty = full_assign(
                X, x_sq, x_norm, centers, c_sq, cmax, ecoef, new_labels, previous, counts
            )
        else:
            ok, changed, empty = pruned_assign(
                X, x_sq, x_norm, centers, c_sq, cmax, half, least, ecoef, new_labels,
                previous, upper, lower, lmin, counts
            )  # fmt: skip
        if not ok or empty > 0:
            return 3 if first else 2, n_iter, labels, centers
        n_iter += 1
        if changed == 0:
            return 0, n_iter, labels, centers
        old = centers
        if first:
            centers = cluster_means(X, new_labels, counts, centers)
        else:
            centers = moved_means(X, new_labels, labels, counts, centers)
        first = False
        labels, new_labels = new_labels, labels
        if not full:
            move_bounds(old, centers, labels, upper, lower, lmin, half, least)
    return 1, n_iter, labels, centers
