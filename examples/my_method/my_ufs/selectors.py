"""Graph smoothness: a feature that varies little between neighbouring samples ranks first."""

import numpy as np


def graph_smoothness(X, *, graph, alpha=1.0):
    """Score of feature f: -(f^T L f) / (f^T f)^alpha, f centred, L the graph Laplacian.

    ``graph`` is the symmetric sample affinity ufsbench builds (k-NN, config ``graph``);
    ``alpha`` (a hyper-parameter, default 1) trades smoothness against spread.
    """
    F = X - X.mean(axis=0)
    degree = np.asarray(graph.sum(axis=1)).ravel()
    roughness = degree @ F**2 - np.einsum("ij,ij->j", F, graph @ F)  # f^T (D - S) f
    spread = (F**2).sum(axis=0) + 1e-12
    return -roughness / spread**alpha
