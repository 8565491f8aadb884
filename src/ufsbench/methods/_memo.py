"""Process-local memo of setting-independent products (one dataset, many settings).

A selection job ranks one dataset under a chunk of settings in one process
(``workflow/scripts/select.py``, up to 50 settings). Some solvers start from products that depend
on the data, the graph and the seed but on no hyper-parameter of the grid: the k-means
starts of RUFS and LSDCL (10 restarts each: a third to a half of a COIL20 setting), RUFS's
local-learning matrix and L1UFS's Laplacian eigenbasis. :func:`memoized` computes each
once per process and returns the stored value afterwards: the same arrays, so rankings
are byte-identical with or without the memo.

Keys hold a digest of the input arrays' bytes (BLAKE2b), their shapes and dtypes, so a
changed input never hits a stale entry. Stored ndarrays are made read-only; a caller
that needs to write copies first. Only the last ``_MAX_ENTRIES`` values are kept. The key
does not hold the thread count: a process that changes it between calls (k-means sums in
OpenMP chunks) should :func:`clear` the memo if it wants each setting's own rounding.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from numbers import Integral

import numpy as np
import scipy.sparse as sp

_MAX_ENTRIES = 8
_store: OrderedDict = OrderedDict()


def fingerprint(*values) -> tuple:
    """A hashable key of arrays (dense or sparse) and plain scalars, by content."""
    key = []
    for value in values:
        if sp.issparse(value):
            csr = sp.csr_matrix(value)
            key.append(("sparse", csr.shape, fingerprint(csr.data, csr.indices, csr.indptr)))
        elif isinstance(value, np.ndarray):
            digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16)
            key.append(("array", value.shape, value.dtype.str, digest.hexdigest()))
        else:
            key.append(value)
    return tuple(key)


def seeded(random_state) -> bool:
    """Whether ``random_state`` fixes the result: an int (a generator or None does not)."""
    return isinstance(random_state, Integral) and not isinstance(random_state, bool)


def memoized(kind: str, key: tuple, compute):
    """``compute()``, stored under ``(kind, key)``; a later call with that key returns it."""
    full = (kind, key)
    if full in _store:
        _store.move_to_end(full)
        return _store[full]
    value = compute()
    for part in value if isinstance(value, tuple) else (value,):
        if isinstance(part, np.ndarray):
            part.flags.writeable = False
    _store[full] = value
    while len(_store) > _MAX_ENTRIES:
        _store.popitem(last=False)
    return value


def clear() -> None:
    """Forget every stored value (tests; a process that wants its memory back)."""
    _store.clear()


def kmeans_labels(points, n_clusters, random_state):
    """Labels of ``KMeans(n_clusters, n_init=10, random_state)`` on ``points``, memoized when
    the seed is an int (the starts of RUFS and LSDCL, shared by every setting of a grid)."""
    from sklearn.cluster import KMeans

    def compute():
        return KMeans(n_clusters, n_init=10, random_state=random_state).fit_predict(points)

    if not seeded(random_state):
        return compute()
    return memoized("kmeans_labels", fingerprint(points, n_clusters, random_state), compute)
