"""The bottom-``m`` eigenprojector of ``diag(e) + U U^T`` without a dense eigensolver.

SOGFS's W-step needs the ``m`` eigenvectors of ``A = gamma Q + X^T L_S X`` (d, d) with the
smallest eigenvalues, ``m = d / 3``. When the features outnumber the samples
(TOX-171: d = 5748, n = 171) ``X^T L_S X = U U^T`` has rank ``r < n`` and ``gamma Q`` is
diagonal, yet a dense ``eigh`` costs O(d^3). The solver only ever uses the projector
``P = W W^T`` (the eigenvectors are not unique, ``P`` is when the m-th and (m+1)-th
eigenvalues differ), and only two views of it: its diagonal (the squared row norms of
``W``, which give the next ``Q``, the l2,1 term and the ranking) and ``X P X^T`` (the
Gram matrix of the embedding ``X W`` the S-step reads). Both come here in O(d n^2) per
pole of a rational function of ``A``:

1. Slice the spectrum: the number of eigenvalues below ``s`` is, by Haynsworth's inertia
   additivity on ``[[diag(e) - s, U], [U^T, -I]]``,
   ``#(e < s) - #(eigenvalues of I + U^T (diag(e) - s)^-1 U below 0)``, an (r, r)
   problem. Bisection brackets the m-th and (m+1)-th eigenvalues, so the spectrum lies in
   ``[lo, below] U [above, hi]`` with a known gap ``(below, above)``.
2. A Moebius map ``T`` sends those two intervals to ``[-1, -delta] U [delta, 1]``, where
   Zolotarev's rational function ``z(x) = sum_j a_j x / (x^2 + b_j^2)`` is the best
   approximation of ``sign(x)`` (error ``epsilon``). ``P = (I - z(T(A))) / 2`` up to
   ``epsilon``, and each term is a resolvent ``(A - t)^-1`` at a complex ``t``, which
   Woodbury reduces to the (r, r) core ``I + U^T (diag(e) - t)^-1 U``.
3. The diagonal is split as ``step(e) + (P - step(diag(e)))``: the second part is a sum of
   ``(diag(e) - t)^-1 U core^-1 U^T (diag(e) - t)^-1`` terms, so a row far above the gap
   (huge ``e_j``, a feature the l2,1 weights have switched off) gets its tiny squared norm
   with relative, not absolute, accuracy, as a dense ``eigh`` gives it.

With no gap (the first W-step, ``Q = I``, when ``d - r > m``: the eigenvalue ``gamma``
repeats and any ``m`` of its eigenvectors solve the step) :func:`bottom_projection`
returns None and the caller keeps the dense ``eigh``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Accuracy of the rational approximation of the step function (absolute, on the spectrum).
FILTER_TOL = 1e-13
# A gap narrower than this, relative to the eigenvalues around it, counts as none.
MIN_RELATIVE_GAP = 1e-10


@dataclass(frozen=True)
class Projection:
    """What the W-step needs of ``P = W W^T``."""

    squared_row_norms: np.ndarray  # (d,) diag(P) = ||w_j||^2
    gram: np.ndarray  # (n, n) X P X^T = (X W)(X W)^T


def count_below(e, U, s) -> int:
    """How many eigenvalues of ``diag(e) + U U^T`` lie below ``s`` (``s`` not in ``e``)."""
    shifted = e - s
    if not shifted.all():  # s hit a diagonal entry: the count just above it
        shifted = e - np.nextafter(s, np.inf)
    core = np.eye(U.shape[1]) + U.T @ (U / shifted[:, None])
    return int(np.count_nonzero(shifted < 0) - np.count_nonzero(np.linalg.eigvalsh(core) < 0))


def spectral_gap(e, U, m, *, max_steps=200):
    """``(lo, below, above, hi)``: every eigenvalue of ``diag(e) + U U^T`` (``e > 0``) lies
    in ``[lo, below]`` (the ``m`` smallest) or ``[above, hi]``; None when the m-th and
    (m+1)-th eigenvalues are closer than :data:`MIN_RELATIVE_GAP` (no unique projector)."""
    lo = float(e.min())  # A >= diag(e)
    hi = float(e.max() + np.einsum("ij,ij->", U, U))  # ||U U^T|| <= ||U||_F^2
    lo_probe, hi_probe = lo * (1 - 1e-12), hi * (1 + 1e-12)  # counts 0 and d
    # Find a point with exactly m eigenvalues below, bisecting in log scale.
    inside = None
    for _ in range(max_steps):
        mid = float(np.sqrt(lo_probe * hi_probe))
        if not lo_probe < mid < hi_probe or hi_probe - lo_probe <= MIN_RELATIVE_GAP * mid:
            return None
        count = count_below(e, U, mid)
        if count < m:
            lo_probe = mid
        elif count > m:
            hi_probe = mid
        else:
            inside = mid
            break
    if inside is None:
        return None
    # Narrow the brackets of the m-th eigenvalue (lo_probe, below] and of the (m+1)-th
    # (above, hi_probe] until each is small beside the certified gap (below, above).
    below = above = inside
    for _ in range(max_steps):
        gap = above - below
        if below - lo_probe > gap / 8:
            mid = 0.5 * (lo_probe + below)
            if count_below(e, U, mid) >= m:
                below = mid
            else:
                lo_probe = mid
        elif hi_probe - above > gap / 8:
            mid = 0.5 * (above + hi_probe)
            if count_below(e, U, mid) > m:
                hi_probe = mid
            else:
                above = mid
        else:
            break
    if above - below <= MIN_RELATIVE_GAP * above:
        return None
    return lo, below, above, hi


def zolotarev_sign(delta, tol=FILTER_TOL, max_terms=120):
    """``(a, b)``: ``z(x) = sum_j a_j x / (x^2 + b_j^2)`` within ``tol`` of ``sign(x)`` on
    ``delta <= |x| <= 1``, the fewest terms of Zolotarev's best approximation that do it.

    The best approximation of degree ``(2n - 1, 2n)`` is ``D x prod_l (x^2 + c_2l) /
    prod_l (x^2 + c_2l-1)`` with ``c_l = delta^2 sc^2(l K' / 2n; k')``, ``k'^2 = 1 - delta^2``;
    its error falls like ``4 exp(-pi^2 n / log(4 / delta))``. The search starts where that
    estimate puts ``n`` (within one term of the answer from ``delta = 0.5`` to ``1e-11``)
    and walks to the fewest terms that meet ``tol``: each trial costs a grid evaluation,
    and the W-step calls this once per iteration.
    """
    grid = np.concatenate([np.geomspace(delta, 1.0, 4000), [delta, 1.0]])
    estimate = np.log(4.0 / tol) * np.log(4.0 / delta) / np.pi**2
    terms = int(min(max(estimate - 1, 1), max_terms))
    found = _zolotarev(delta, terms, grid, tol)
    if found is not None:  # walk down while fewer terms still do
        while terms > 1 and (fewer := _zolotarev(delta, terms - 1, grid, tol)) is not None:
            terms, found = terms - 1, fewer
        return found
    for more in range(terms + 1, max_terms + 1):
        found = _zolotarev(delta, more, grid, tol)
        if found is not None:
            return found
    raise ArithmeticError(f"no rational approximation within {tol} for delta={delta:.3g}")


def _zolotarev(delta, terms, grid, tol):
    """:func:`zolotarev_sign`'s ``(a, b)`` with ``terms`` terms, or None if not within ``tol``."""
    c = delta**2 * _sc_complementary(np.arange(1, 2 * terms), 2 * terms, delta) ** 2
    poles, zeros = c[0::2], c[1::2]  # interlaced: poles[j] < zeros[j] < poles[j + 1]
    weights = np.empty(terms)
    for j, pole in enumerate(poles):
        # prod(zeros - pole) / prod(other poles - pole), paired factor by factor (each
        # ratio is moderate; the products alone overflow for many terms).
        others = np.delete(poles, j)
        weights[j] = np.prod((zeros - pole) / (others - pole))
    values = grid * (weights / (grid[:, None] ** 2 + poles)).sum(axis=1)
    top, bottom = values.max(), values.min()
    if (top - bottom) / (top + bottom) > tol:
        return None
    return weights * 2.0 / (top + bottom), np.sqrt(poles)


def _sc_complementary(index, parts, k):
    """``sc(index K' / parts; k')`` for the modulus ``k' = sqrt(1 - k^2)`` close to 1.

    SciPy's ``ellipj`` loses accuracy as ``k'`` nears 1, so this takes the Jacobi imaginary
    transformation ``sc(u; k') = -i sn(i u; k)`` and the theta series of ``sn`` with
    the small modulus ``k``, whose nome ``q = exp(-pi K' / K)`` is about ``k^2 / 16``.
    """
    from scipy.special import ellipk, ellipkm1

    K, Kp = ellipk(k**2), ellipkm1(k**2)  # K(k), K(k')
    q = np.exp(-np.pi * Kp / K)
    v = np.pi * (np.asarray(index, dtype=float) * Kp / parts) / (2.0 * K)
    terms = np.arange(6)[:, None]
    sign = (-1.0) ** terms
    theta1 = 2.0 * (sign * q ** ((terms + 0.5) ** 2) * np.sinh((2 * terms + 1) * v)).sum(axis=0)
    theta4 = 1.0 + 2.0 * (sign[1:] * q ** (terms[1:] ** 2) * np.cosh(2 * terms[1:] * v)).sum(axis=0)
    return theta1 / (np.sqrt(k) * theta4)


def moebius(lo, below, above, hi):
    """``(p, q, s, delta)``: ``T(x) = (p x + q) / (x + s)`` maps ``lo, below, above, hi``
    to ``-1, -delta, delta, 1`` (increasing on ``[lo, hi]``)."""
    # Cross-ratios are invariant: (above-lo)(hi-below) / ((above-below)(hi-lo)) equals
    # (1 + delta)^2 / (4 delta) for the image.
    ratio = ((above - lo) / (above - below)) * ((hi - below) / (hi - lo))
    t = 2.0 * ratio - 1.0
    delta = 1.0 / (t + np.sqrt((t - 1.0) * (t + 1.0)))
    scale = below  # solve in units of `below`: the endpoints span many decades
    x = np.array([lo, below, hi]) / scale
    w = np.array([-1.0, -delta, 1.0])
    # T(x)(x + s) = p x + q  ->  p x + q - w s = w x
    p, q, s = np.linalg.solve(np.column_stack([x, np.ones(3), -w]), w * x)
    return p, q * scale, s * scale, delta


def bottom_projection(e, U, X, m) -> Projection | None:
    """:class:`Projection` of the bottom-``m`` eigenprojector of ``diag(e) + U U^T``.

    Parameters
    ----------
    e : ndarray of shape (d,)
        Positive diagonal (``gamma`` times the l2,1 weights).
    U : ndarray of shape (d, r)
        ``X^T F`` with ``F F^T = L_S``.
    X : ndarray of shape (n, d)
        The data, whose Gram matrix under ``P`` is returned.
    m : int
        Rank of the projector.

    Returns
    -------
    Projection or None
        None when the m-th and (m+1)-th eigenvalues coincide (no unique projector).
    """
    if np.ptp(e) == 0 and e.size - U.shape[1] > m:
        return None  # diag(e) = e_0 I: e_0 repeats d - rank(U) > m times, at the bottom
    bounds = spectral_gap(e, U, m)
    if bounds is None:
        return None
    p, q, s, delta = moebius(*bounds)
    a, b = zolotarev_sign(delta)
    below, above = bounds[1], bounds[2]
    # P = (I - z(T(A))) / 2 and z(T(A)) = sum_j a_j Re[(T(A) - i b_j)^-1], with
    # (T(A) - i b)^-1 = (I + (t + s) (A - t)^-1) / (p - i b), t = -(q - i b s) / (p - i b).
    t = -(q - 1j * b * s) / (p - 1j * b)
    coefficient = a * (t + s) / (p - 1j * b)
    # The part of P that diag(e) alone gives: the exact step where e_j lies on the
    # spectrum's two intervals (the filter is within FILTER_TOL of it there), the same
    # rational function of the scalar e_j inside the gap.
    step = (e < below).astype(float)
    in_gap = (e > below) & (e < above)
    if in_gap.any():
        scalar = (a / (p - 1j * b)).sum() + (coefficient / (e[in_gap, None] - t)).sum(axis=1)
        step[in_gap] = 0.5 * (1.0 - scalar.real)
    diagonal = step.copy()
    gram = (X * step) @ X.T
    n_rank = U.shape[1]
    eye = np.eye(n_rank)
    for c, pole in zip(coefficient, t, strict=True):
        # (A - t)^-1 - (diag(e) - t)^-1 = -(E_t U) K^-1 (E_t U)^T, E_t = (diag(e) - t)^-1.
        inv = 1.0 / (e - pole)
        core_inv = np.linalg.inv(eye + _real_times(U.T, U, inv))
        weighted = _real_times(U, core_inv)  # (d, r)
        # P gains -(1/2) Re[c (resolvent difference)] = +(1/2) Re[c E_t U K^-1 U^T E_t].
        diagonal += 0.5 * (c * inv**2 * np.einsum("ij,ij->i", weighted, U)).real
        XEU = _real_times(X, U, inv)  # (n, r)
        gram += 0.5 * (c * (XEU @ core_inv @ XEU.T)).real
    return Projection(squared_row_norms=np.maximum(diagonal, 0.0), gram=0.5 * (gram + gram.T))


def _real_times(left, right, middle=None):
    """``left @ right`` (or ``left @ diag(middle) @ right``) with real ``left`` and a complex
    factor, as two real products: half the work of the complex product NumPy would form."""
    if middle is None:
        return left @ right.real + 1j * (left @ right.imag)
    return (left * middle.real) @ right + 1j * ((left * middle.imag) @ right)
