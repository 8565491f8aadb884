"""Input checks shared by every feature-selection method.

:func:`ufsbench.rank_features` is the single dispatch point of every method (the
scikit-learn selector, the workflow's select script, tuning and cross-validation all call
it), and it runs these checks before any method sees the data. Each check refuses an
input on which the methods would otherwise disagree (some raising an obscure error deep
inside NumPy or scikit-learn, others returning all-zero scores or an arbitrary ranking)
with one clear message. They never change a valid input: the arrays handed to the
method are the ones the caller's data convert to, so rankings of valid input are the
same as without the checks.

Rules
-----
- **Sparse X** is refused with a ``TypeError`` (as scikit-learn's ``check_array`` does
  with ``accept_sparse=False``): the methods work on dense matrices, and densifying a
  large sparse matrix silently could exhaust memory. Pass ``X.toarray()``.
- **Non-finite X** (NaN, inf) is refused.
- **Overflowing X**: values so large that squared distances or Gram entries overflow
  float64 (``max|x| > sqrt(max_float / (4 n d))``, e.g. 1e200 for any shape) are
  refused, naming the largest magnitude; rescale the data (``normalize.scheme``).
- **All-constant X** (every feature constant, i.e. all samples identical) is refused:
  no ranking of such data means anything.
- **n_clusters** must be an integer (not a bool, not 2.7) in ``[1, n_samples)``.
- **A graph without any positive weight** (all-zero, or a heat kernel whose width ``t``
  underflows every weight to 0) is refused: graph-based scores would all be equal.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp

_MAX_FLOAT = float(np.finfo(np.float64).max)


def check_samples(X, *, name: str = "X") -> np.ndarray:
    """``X`` as a finite float64 matrix with at least 2 samples and 1 feature.

    Raises ``TypeError`` for a sparse matrix and ``ValueError`` for anything else that is
    not such a matrix.
    """
    if sp.issparse(X):
        raise TypeError(
            f"{name} is a SciPy sparse matrix, but the feature-selection methods need dense "
            f"data: pass {name}.toarray() (densify deliberately; the methods use dense "
            f"n_samples x n_features arrays anyway)"
        )
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} cannot be read as a float64 matrix: {exc}") from None
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be 2-dimensional (n_samples, n_features), got shape {X.shape}"
        )
    n, d = X.shape
    if n < 2 or d < 1:
        raise ValueError(f"{name} needs at least 2 samples and 1 feature, got shape {X.shape}")
    bad = int(np.count_nonzero(~np.isfinite(X)))
    if bad:
        raise ValueError(f"{name} has {bad} NaN or infinite values")
    return X


def magnitude_limit(n_samples: int, n_features: int) -> float:
    """Largest ``max|x|`` for which every squared distance and Gram entry is finite.

    A squared distance sums ``d`` terms of at most ``(2 max|x|)**2``, a Gram entry of a
    feature pair ``n`` terms of at most ``max|x|**2``: ``4 n d max|x|**2`` bounds both.
    """
    return float(np.sqrt(_MAX_FLOAT / (4.0 * n_samples * n_features)))


def check_method_input(X, *, name: str = "X") -> np.ndarray:
    """:func:`check_samples`, then refuse overflowing and all-constant data."""
    X = check_samples(X, name=name)
    n, d = X.shape
    largest = float(np.abs(X).max())
    limit = magnitude_limit(n, d)
    if largest > limit:
        raise ValueError(
            f"{name} has values up to {largest:.3g} in magnitude: squared distances and "
            f"Gram matrices of a {n} x {d} matrix overflow float64 beyond {limit:.3g}; "
            f"rescale the data (e.g. normalize.scheme: zscore)"
        )
    if not np.any(X != X[0]):
        raise ValueError(
            f"{name}: every feature is constant (all {n} samples are identical), so no "
            f"feature ranking is meaningful"
        )
    return X


def check_n_clusters(n_clusters, n_samples: int, method: str) -> int:
    """``n_clusters`` as an int in ``[1, n_samples)``; a float such as 2.7 is refused."""
    if n_clusters is None:
        raise ValueError(f"method {method!r} needs n_clusters")
    if isinstance(n_clusters, bool) or not isinstance(n_clusters, Integral):
        raise ValueError(
            f"n_clusters must be an integer, got {n_clusters!r} ({type(n_clusters).__name__})"
        )
    if not 1 <= n_clusters < n_samples:
        raise ValueError(f"n_clusters={n_clusters} must be in [1, n_samples={n_samples})")
    return int(n_clusters)


def check_graph_weights(graph, graph_params: dict | None = None):
    """Refuse a sample graph whose every weight is zero (it has no edge to score with)."""
    if graph.nnz == 0 or not np.any(graph.data > 0):
        hint = ""
        params = graph_params or {}
        if params.get("weight") == "heat":
            hint = (
                f" (heat-kernel width t={params.get('t')!r}: every weight exp(-d^2 / "
                f"(2 sigma^2)) underflows to 0; use a larger t)"
            )
        raise ValueError(f"graph has no edge with a positive weight{hint}")
    return graph
