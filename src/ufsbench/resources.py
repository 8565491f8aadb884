"""Memory and runtime requests of workflow jobs, sized from the data and the chunk.

The constants come from measured runs (``results/benchmarks/`` of the workflow and
``benchmarks/speed/bench_methods.py``): a job's peak memory is the Python stack (~170 MB)
plus a few copies of the data and of the d x d / n x c matrices the methods form;
selection time is dominated by the iterative methods' per-iteration products and
evaluation time by k-means on n x m matrices. Requests are generous upper bounds: a
cluster job that asks for too little is killed, one that asks for a little more waits a
little longer.
"""

from __future__ import annotations

import math

_BASE_MB = 400
_BYTES = 8


def select_mem_mb(n_samples: int, n_features: int, n_clusters: int = 2, k: int = 10) -> int:
    """Peak memory of a selection job: data copies, a d x d system, graph, factors."""
    n, d = n_samples, n_features
    floats = 8 * n * d + 6 * d * d + 6 * n * k + 10 * (n + d) * max(n_clusters, 1)
    return _BASE_MB + math.ceil(floats * _BYTES / 1e6)


def select_runtime(n_samples: int, n_features: int, n_settings: int, iterative: bool) -> int:
    """Minutes for a chunk of settings. An iterative setting costs ~100 iterations of
    products of size n*d*c plus d^3 factorisations; measured at well under a minute per
    setting on COIL20 (1440 x 1024) with one thread, so this keeps a 10x margin."""
    scale = n_samples * n_features / 1.5e6 + (n_features / 1000) ** 3
    per_setting = (5.0 if iterative else 0.5) * max(scale, 0.1)
    return 10 + math.ceil(n_settings * per_setting)


def evaluate_mem_mb(n_samples: int, n_features: int) -> int:
    return _BASE_MB + math.ceil(3 * n_samples * n_features * _BYTES / 1e6)


def evaluate_runtime(
    n_samples: int, n_settings: int, n_counts: int, repeats: int, n_init: int, n_clusters: int
) -> int:
    """Minutes for the k-means runs of a chunk: litekmeans takes ~20 ms for 1440 samples,
    50 features and 20 clusters (one thread); this assumes 10x that, per 1440*20."""
    runs = n_settings * n_counts * repeats * n_init
    seconds = runs * 0.2 * (n_samples * max(n_clusters, 2)) / (1440 * 20)
    return 10 + math.ceil(seconds / 60)


def cluster_mem_mb(n_samples: int, n_features: int) -> int:
    """Peak memory of a clustering job (graph or scores): dense n x n matrices dominate.

    The Gram matrix of the sparse-graph methods, SC's distance and kernel matrices and the
    batched LR-l1 codes are n x n float64 (1.07 GB for CMU PIE's 11554 samples, srsg.md
    §10); five of them plus a few copies of the data bound every method.
    """
    n, d = n_samples, n_features
    return _BASE_MB + math.ceil((5 * n * n + 4 * n * d) * _BYTES / 1e6)


def cluster_runtime(n_samples: int) -> int:
    """Minutes for a clustering job. srsg.md §10 estimates the l1 initialisation at about
    an hour on 2 cores for CMU PIE (n = 11554) and 5-10 min for COIL-100 (n = 7200); this
    allows 4x the hour (LR-l1 solves three rounds), scaled by n^2, and at least 30 min."""
    return 30 + math.ceil(240 * (n_samples / 11554) ** 2)
