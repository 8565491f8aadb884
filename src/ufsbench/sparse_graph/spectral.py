"""Spectral clustering on a sample graph (Ng-Jordan-Weiss) and the two feature baselines.

The paper does not name its spectral-clustering variant; the introduction cites
Ng, Jordan & Weiss (2001), so every graph column (SC, l1-graph, SMCE, LR-l1, SRSG) uses
NJW [inferred]: ``M = D^-1/2 W D^-1/2``, the eigenvectors of its ``c`` largest
eigenvalues, rows scaled to unit length, k-means.
"""

from __future__ import annotations

import logging

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances

from ..graph import spectral_eigenpairs
from ..kmeans import cluster
from ._common import check_int, check_samples, unit_rows

log = logging.getLogger(__name__)


def _check_affinity(W, n=None):
    if not sp.issparse(W):
        W = sp.csr_matrix(np.asarray(W, dtype=np.float64))
    W = W.tocsr().astype(np.float64)
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"affinity must be square, got shape {W.shape}")
    if n is not None and W.shape[0] != n:
        raise ValueError(f"affinity has {W.shape[0]} rows, expected {n}")
    if W.nnz and (W.data.min() < 0 or not np.isfinite(W.data).all()):
        raise ValueError("affinity must be finite and non-negative")
    if W.nnz and abs(W - W.T).max() > 1e-10 * max(1.0, abs(W).max()):
        raise ValueError("affinity is not symmetric")
    return W


def spectral_embedding_njw(W, n_clusters, *, random_state=0):
    """Row-normalised eigenvectors of the ``n_clusters`` largest eigenvalues of ``D^-1/2 W D^-1/2``.

    Isolated samples (zero degree) get zero rows. ``c`` must be below ``n``.
    Returns ``(embedding (n, c), n_isolated)``.
    """
    W = _check_affinity(W)
    n = W.shape[0]
    c = check_int("n_clusters", n_clusters, 1, n - 1)
    deg = np.asarray(W.sum(axis=1)).ravel()
    n_isolated = int(np.count_nonzero(deg <= 0))
    # Lanczos with the connected components' eigenvalue-1 space built exactly (a dense
    # eigh of n x n costs seconds to minutes at n ~ 1500-2500 on a loaded 2-core machine).
    _, V = spectral_eigenpairs(W, c, random_state=random_state)
    norms = np.linalg.norm(V, axis=1)
    return V / np.where(norms > 0, norms, 1.0)[:, None], n_isolated


def njw_spectral_clustering(W, n_clusters, *, random_state=0, n_init=10, engine="sklearn"):
    """Cluster labels from NJW spectral clustering of a symmetric non-negative affinity.

    k-means on the embedding: ``engine`` (sklearn: k-means++, ``n_init`` starts) seeded
    with ``random_state``.
    """
    E, n_isolated = spectral_embedding_njw(W, n_clusters, random_state=random_state)
    if n_isolated:
        log.info("spectral clustering: %d isolated samples", n_isolated)
    init = "k-means++" if engine == "sklearn" else "random"
    return cluster(
        E, n_clusters, engine=engine, n_init=n_init, init=init, random_state=random_state
    )


def median_distance(D) -> float:
    """The median off-diagonal entry of a pairwise distance matrix: SC's default width."""
    return float(np.median(D[np.triu_indices_from(D, k=1)]))


def gaussian_affinity(X, *, sigma="median", normalize=True):
    """Dense Gaussian-kernel graph ``exp(-||x_i - x_j||^2 / (2 sigma^2))``, zero diagonal.

    The SC baseline; ``sigma="median"`` is the median pairwise distance (off-diagonal)
    of the (unit-norm) samples [inferred: the paper gives no width]. Dense by nature
    (the baseline is the fully connected kernel graph), n x n.
    """
    X = unit_rows(X) if normalize else check_samples(X)
    D = pairwise_distances(X)
    return gaussian_kernel(D, median_distance(D) if sigma == "median" else sigma)


def gaussian_kernel(D, sigma) -> np.ndarray:
    """``exp(-D^2 / (2 sigma^2))`` of a pairwise distance matrix, zero diagonal."""
    sigma = float(sigma)
    if not sigma > 0:
        raise ValueError("gaussian_affinity: the kernel width is zero (identical samples?)")
    W = np.exp(-(D**2) / (2.0 * sigma**2))
    np.fill_diagonal(W, 0.0)
    return W


def kmeans_labels(X, n_clusters, *, random_state=0, n_init=1, engine="sklearn"):
    """The KM baseline: k-means on the raw features (no normalisation) [verified on WDBC]."""
    X = check_samples(X)
    init = "k-means++" if engine == "sklearn" else "random"
    return cluster(
        X, n_clusters, engine=engine, n_init=n_init, init=init, random_state=random_state
    )
