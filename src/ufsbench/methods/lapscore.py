"""Laplacian Score: features that respect the sample graph's locality rank first.

X. He, D. Cai, P. Niyogi. Laplacian Score for Feature Selection. NIPS 2005.

With the affinity ``S`` of a heat-kernel k-NN graph, ``D = diag(S 1)`` and ``L = D - S``,
each feature column ``f`` is centred by its ``D``-weighted mean,

    f~ = f - (f^T D 1 / 1^T D 1) 1,

and scored by

    LS(f) = f~^T L f~ / f~^T D f~ = sum_ij S_ij (f_i - f_j)^2 / (2 sum_i D_ii f~_i^2),

the graph smoothness of ``f`` relative to its weighted variance. Smaller is better; the
returned score is ``-LS``. Because ``D - S`` and ``D + S`` are both positive semi-definite,
``0 <= LS <= 2``. A feature with ``f~^T D f~ = 0`` (constant, or varying only on isolated
samples) has no score; it gets a score below every other feature.
"""

from __future__ import annotations

import numpy as np

from ..graph import degrees, laplacian
from .base import EPSILON, Selection
from .params import WIDTH, Declaration


def select(X, *, graph, n_clusters=None, random_state=0, feature_counts=None) -> Selection:
    """Score every feature by minus its Laplacian score on ``graph``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated data.
    graph : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric sample affinity ``S`` with an empty diagonal.
    n_clusters, random_state, feature_counts : Ignored
        Accepted for the common method signature.

    Returns
    -------
    Selection
        ``scores = -LS`` (higher is better); features without a score (see the module
        docstring) get ``min(scores) - 1``.

    Notes
    -----
    All features are scored at once with two sparse products, ``L @ F`` and ``D F``;
    no dense ``n x n`` matrix is formed.
    """
    n_samples = X.shape[0]
    deg = degrees(graph)  # (n,) the diagonal of D
    L = laplacian(graph)  # (n, n) sparse D - S
    weighted_mean = (deg @ X) / max(deg.sum(), EPSILON)  # (d,)
    F = X - weighted_mean  # (n, d) the centred f~ of every feature
    fLf = np.einsum("ij,ij->j", F, L @ F)
    fDf = deg @ F**2
    # A constant column is centred to round-off, not to 0: compare with its raw energy.
    flat = (np.ptp(X, axis=0) == 0) | (fDf <= (n_samples * EPSILON) ** 2 * (deg @ X**2))
    scores = np.zeros(X.shape[1])
    scores[~flat] = -fLf[~flat] / fDf[~flat]
    scores[flat] = scores[~flat].min(initial=0.0) - 1.0
    return Selection.from_scores(scores)


METHODS = {
    "lapscore": Declaration(
        title="LapScore",
        params={
            "t": WIDTH,
        },
        grid={
            "t": [1.0],
        },
        graph="heat",
        references=("X. He, D. Cai, P. Niyogi. Laplacian Score for Feature Selection. NIPS 2005.",),
    ),
}
