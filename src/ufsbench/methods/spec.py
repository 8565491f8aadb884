"""SPEC: spectral feature selection with the normalized graph Laplacian.

Z. Zhao, H. Liu. Spectral Feature Selection for Supervised and Unsupervised Learning.
ICML 2007.

With the affinity ``S`` of a heat-kernel k-NN graph, ``D = diag(S 1)`` and the normalized
Laplacian ``L = I - D^-1/2 S D^-1/2`` (eigenpairs ``(lambda_j, xi_j)``, ascending; the
trivial ``xi_1 = D^1/2 1 / ||D^1/2 1||`` has ``lambda_1 = 0``), every feature ``f`` is
normalized as ``f^ = D^1/2 f / ||D^1/2 f||`` and scored by one of

* ``phi1 = f^T L f^`` -- smaller is better;
* ``phi2 = f^T L f^ / (1 - (f^T xi_1)^2)`` -- smaller is better; removes the trivial
  component that makes a constant feature look perfect under ``phi1``. It is computed as
  the Rayleigh quotient of ``D^1/2 f~`` with ``f~`` the ``D``-weighted centred feature
  (equal because ``L xi_1 = 0``), i.e. it equals the Laplacian score;
* ``phi3 = sum_{j=2}^{n_spectrum} (2 - lambda_j) (f^T xi_j)^2`` -- larger is better: the
  energy of ``f^`` in the leading nontrivial eigenvectors, weighted towards smooth ones.

No spectrum modification ``gamma(.)`` is applied (the paper's default identity). The
returned score is ``-phi1``, ``-phi2`` or ``phi3``. Constant and zero features carry no
information (``phi2`` is 0/0 for them, and ``phi1 = 0`` would rank a constant first); under
every style they get a score below every other feature.
"""

from __future__ import annotations

import numpy as np

from ..graph import degrees, laplacian, spectral_eigenpairs
from .base import EPSILON, Selection
from .params import COMPONENTS, WIDTH, Declaration, Param


def select(
    X,
    *,
    graph,
    n_clusters,
    random_state=0,
    feature_counts=None,
    style="phi2",
    n_spectrum=None,
) -> Selection:
    """Score every feature with SPEC's ``phi1``, ``phi2`` or ``phi3``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated data.
    graph : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric sample affinity ``S`` with an empty diagonal.
    n_clusters : int
        Default of ``n_spectrum``.
    random_state : int, default=0
        Seeds the start vector of the eigensolver (``phi3`` only).
    feature_counts : Ignored
        Accepted for the common method signature.
    style : {"phi1", "phi2", "phi3"}, default="phi2"
        Which SPEC score to use (see the module docstring).
    n_spectrum : int, default=None
        ``phi3`` sums over the eigenpairs ``2..n_spectrum``; None means ``n_clusters``.

    Returns
    -------
    Selection
        ``scores`` = ``-phi1``, ``-phi2`` or ``phi3`` (higher is better).

    Notes
    -----
    Raises ``ValueError`` when ``phi3`` would use no eigenpair (``n_spectrum < 2``) or more
    than the eigensolver can return (``n_spectrum > n_samples - 1``). ``phi3`` computes only
    ``n_spectrum - 1`` eigenvectors with ``eigsh``; no dense ``n x n`` matrix is formed.
    """
    n_samples = X.shape[0]
    deg = degrees(graph)
    sqrt_deg = np.sqrt(deg)
    L = laplacian(graph, normed=True)  # (n, n) sparse I - D^-1/2 S D^-1/2
    G = sqrt_deg[:, None] * X  # (n, d) D^1/2 f for every feature
    GG = np.einsum("ij,ij->j", G, G)
    # D^1/2 f~: the part of D^1/2 f orthogonal to xi_1.
    G_perp = sqrt_deg[:, None] * (X - (deg @ X) / max(deg.sum(), EPSILON))
    GG_perp = np.einsum("ij,ij->j", G_perp, G_perp)
    # A constant column is centred to round-off, not to 0: compare with its raw energy.
    flat = (np.ptp(X, axis=0) == 0) | (GG_perp <= (n_samples * EPSILON) ** 2 * GG)
    keep = ~flat

    scores = np.zeros(X.shape[1])
    if style == "phi1":
        scores[keep] = -np.einsum("ij,ij->j", G, L @ G)[keep] / GG[keep]
    elif style == "phi2":
        scores[keep] = -np.einsum("ij,ij->j", G_perp, L @ G_perp)[keep] / GG_perp[keep]
    else:
        n_spectrum = n_clusters if n_spectrum is None else n_spectrum
        if not 2 <= n_spectrum <= n_samples - 1:
            raise ValueError(
                f"method 'spec': style 'phi3' needs 2 <= n_spectrum <= n_samples - 1 = "
                f"{n_samples - 1}, got n_spectrum={n_spectrum}"
            )
        mu, Xi = spectral_eigenpairs(graph, n_spectrum, random_state)
        mu, Xi = mu[1:], Xi[:, 1:]  # drop the trivial eigenpair
        lam = 1.0 - mu  # eigenvalues of L
        alpha = Xi.T @ G[:, keep] / np.sqrt(GG[keep])  # (n_spectrum - 1, kept features)
        scores[keep] = (2.0 - lam) @ alpha**2
    scores[flat] = scores[keep].min(initial=0.0) - 1.0
    return Selection.from_scores(scores)


METHODS = {
    "spec": Declaration(
        title="SPEC",
        params={
            "t": WIDTH,
            "style": Param(str, options=("phi1", "phi2", "phi3")),
            "n_spectrum": COMPONENTS,
        },
        grid={
            "t": [1.0],
            "style": ["phi2"],
        },
        graph="heat",
        needs_n_clusters=True,
        references=(
            (
                "Z. Zhao, H. Liu. Spectral Feature Selection for Supervised and Unsupervised "
                "Learning. ICML 2007."
            ),
        ),
    ),
}
