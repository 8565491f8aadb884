"""LARS with the lasso modification, stopped at a cardinality, on a precomputed Gram matrix.

B. Efron, T. Hastie, I. Johnstone, R. Tibshirani. Least Angle Regression. Annals of
Statistics 32(2), 2004 (sections 2 and 3.1).

For ``min ||y - X b||^2 + beta |b|_1`` over every ``beta`` at once, given only
``G = X'X`` and ``X'y``. The correlations ``c = X'(y - X b)`` are kept up to date; the
active set ``A`` holds the columns whose ``|c_j|`` equals the largest, ``C``, with signs
``s_A``. Each step:

1. **Join.** Unless the last step dropped a column, the inactive column with the largest
   ``|c_j|`` joins ``A``. The Cholesky factor ``L`` of ``G_AA`` grows by one row
   (``L z = G_Aj``, pivot ``sqrt(G_jj - z'z)``): no refactorisation.
2. **Equiangular direction.** ``w = a G_AA^-1 s_A`` with ``a = (s_A' G_AA^-1 s_A)^-1/2``
   (two triangular solves), so that every active correlation falls at rate ``a``;
   ``u = G_:A w`` is the rate of every correlation.
3. **Step length.** The smallest positive ``gamma`` at which an inactive column's
   correlation reaches ``+-(C - gamma a)``: ``(C - c_j) / (a - u_j)`` or
   ``(C + c_j) / (a + u_j)``, capped at ``C / a`` (the least-squares fit of ``A``).
4. **Lasso modification.** If an active coefficient reaches zero first
   (``gamma_t = -b_t / w_t``, the smallest positive one below ``gamma``), the step ends
   there, that coefficient is set to exactly 0 and its column leaves ``A``: ``L`` loses a
   row and column by Givens rotations (no refactorisation), and the column's correlation
   is recomputed from ``X'y - G b``. No column joins at the next step.

The path is the coefficients after each step (row 0: all zero), stopped after the first
step with ``target`` nonzero coefficients, or where LARS ends: no correlation left
(``C / n_samples`` at or below float32's eps, scikit-learn's test at ``alpha_min = 0``),
``C`` growing (rounding has taken over; scikit-learn stops there too), every column
active or excluded, or ``n_samples`` columns active (the rank of ``X'X`` is at most
``n_samples``, so a further column could only be degenerate; this also bounds the
Cholesky factor's size when ``n_features`` is large).

Ties and degeneracy:

* a joining tie (equal ``|c_j|``, exactly) goes to the lowest column index;
* coefficients reaching zero at exactly the same ``gamma`` leave together;
* a column dropped at the last step has ``|c_j| = C`` to rounding; of its two roots in
  step 3, the one of its current sign (``gamma = 0`` in exact arithmetic) is skipped, the
  other counts, so rounding cannot bring it straight back;
* a joining column whose squared pivot is at most ``1e-10 G_jj`` (or with ``G_jj = 0``)
  lies, to rounding, in the span of the active columns; it is excluded for the rest of the
  path, and the step is taken without it. (scikit-learn instead zeroes its correlation
  and joins the next column at once, with a pivot test at ``1e-7`` absolute.)

Agreement with ``sklearn.linear_model.lars_path(method="lasso")`` is to rounding (tested
to 1e-10 at every step, drops included); the sums run in a different order, so a near
tie can be resolved differently, which is why :mod:`ufsbench.methods.mcfs` offers this
solver as a named option (``solver="compiled"``) and keeps scikit-learn's as its default.
The loop is compiled with numba (:mod:`ufsbench._lars_kernels`, imported on first use).
"""

from __future__ import annotations

import numpy as np


def _kernels():
    try:
        from . import _lars_kernels
    except ImportError:
        raise ImportError("ufsbench.lars needs numba (extra 'fast')") from None
    return _lars_kernels


def lasso_paths(gram, xty, target, n_samples) -> list[np.ndarray]:
    """LARS-lasso paths of every column of ``xty`` (``X'Y``), each cut at ``target`` nonzeros.

    Parameters
    ----------
    gram : ndarray of shape (n_features, n_features)
        ``X'X``, symmetric.
    xty : ndarray of shape (n_features,) or (n_features, n_targets)
        ``X'y`` of each response.
    target : int
        The cardinality in ``1..n_features`` at which each path stops (module docstring).
    n_samples : int
        Rows of ``X``; scales the end-of-path test ``C / n_samples <= eps``.

    Returns
    -------
    list of ndarray of shape (n_features, n_steps + 1)
        One path per response, the coefficients after each step in columns (the layout of
        ``lars_path``'s ``coefs``), column 0 all zero.
    """
    G = np.ascontiguousarray(gram, dtype=np.float64)
    B = np.asarray(xty, dtype=np.float64)
    if B.ndim == 1:
        B = B[:, None]
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"lasso_paths: gram must be square, got shape {G.shape}")
    d = G.shape[0]
    if B.ndim != 2 or B.shape[0] != d:
        raise ValueError(
            f"lasso_paths: xty must have {d} rows (one per feature), got shape {B.shape}"
        )
    if isinstance(target, bool) or not isinstance(target, (int, np.integer)):
        raise ValueError(f"lasso_paths: target must be an int, got {target!r}")
    if not 1 <= target <= d:
        raise ValueError(f"lasso_paths: target={target} must be in [1, n_features = {d}]")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)):
        raise ValueError(f"lasso_paths: n_samples must be an int, got {n_samples!r}")
    if n_samples < 1:
        raise ValueError(f"lasso_paths: n_samples={n_samples} must be at least 1")
    if not (np.isfinite(G).all() and np.isfinite(B).all()):
        raise ValueError("lasso_paths: gram and xty must be finite")
    kernels = _kernels()
    return [
        kernels.lasso_path(G, np.ascontiguousarray(b), int(target), int(n_samples)).T for b in B.T
    ]
