"""Eigenpairs of a symmetric matrix by index range, whatever LAPACK's subset driver does.

``scipy.linalg.eigh(M, subset_by_index=[lo, hi])`` runs LAPACK's ``?syevr`` (or
``?syevx``), which can return fewer pairs than asked when eigenvalues cluster: on
ecoli343, a 30 x 30 FSPCA block with eigenvalue ~1 of multiplicity ~15 gave 6 of 8. Then,
and only then, the full decomposition is used, so every result the subset route already
gave is unchanged.
"""

from __future__ import annotations


def eigh_range(M, lo: int, hi: int, **kwargs):
    """``(values, vectors)``: the eigenpairs ``lo..hi`` (ascending, inclusive) of ``M``.

    ``kwargs`` go to the subset call (e.g. ``driver``).
    """
    from scipy.linalg import eigh

    values, vectors = eigh(M, subset_by_index=[lo, hi], **kwargs)
    if vectors.shape[1] != hi - lo + 1:
        values, vectors = eigh(M)
        values, vectors = values[lo : hi + 1], vectors[:, lo : hi + 1]
    return values, vectors
