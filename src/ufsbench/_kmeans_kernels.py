"""Compiled steps of :func:`ufsbench.kmeans.litekmeans` (numba; imported only when used).

Both kernels do, element by element, the arithmetic of the NumPy steps they replace, in
the same order, so labels and centres are bitwise the same (tests/test_speed_pins.py):

* :func:`assign` takes ``G = X @ (-2 C)'`` from BLAS, as the NumPy route does, and forms
  ``max((x_sq + G) + c_sq, 0)`` per entry, keeping the first smallest per row
  (``np.argmin``'s tie rule);
* :func:`cluster_means` adds each cluster's samples one by one in sample order from 0.0,
  the order of the sparse indicator product ``E @ X`` (CSR rows in increasing column
  order, ``0 + 1.0 * x`` per entry), then divides by the count.

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
