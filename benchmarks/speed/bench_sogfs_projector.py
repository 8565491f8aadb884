"""SOGFS with d >> n: the projector W-step against the dense ``eigh``, cost and accuracy.

    python benchmarks/speed/bench_sogfs_projector.py [--mirror PATH]
        [--datasets glioma tox_171 warpar10p] [--gammas 1] [--subset 1200] [--out TSV]

Data from the mirror through the checked loader, BLAS on one thread, CPU seconds
(``process_time``); every ratio is measured within one run.

1. ``cost``: one whole SOGFS setting (defaults: ``k = 5``, 30 iterations, ``m = d // 3``)
   per dataset and ``gamma``, ``eig_solver="dense"`` and ``"projector"``: CPU seconds, their
   ratio, the top-50 shared and the final objectives' relative gap.
2. ``accuracy``: on the first ``--subset`` features of the first dataset, the dense
   route's trajectory; at each iteration the W-step from that state by both routes,
   against a reference that is accurate there: the rows whose l2,1 weight exceeds 1e6
   (switched off) are eliminated to first order in ``1 / e_j`` and the remaining block,
   whose entries are moderate, goes to a dense ``eigh``. Columns: the largest l2,1 weight
   and each route's largest error in ``||w_j||^2``. While no weight exceeds 1e6 the
   reference is the dense ``eigh`` itself, so the dense error there is 0 by construction.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy.linalg import eigh
from threadpoolctl import threadpool_limits

from ufsbench.data import load_dataset
from ufsbench.datasets import find_in_mirror, load_registry
from ufsbench.methods import _adaptive_graph, _spectral_projector, sogfs
from ufsbench.methods._eigen import eigh_range
from ufsbench.methods._low_rank import psd_factor
from ufsbench.methods.base import l21_weights

ROOT = Path(__file__).resolve().parents[2]
SWITCHED_OFF = 1e6  # l2,1 weights above this: rows the reference eliminates


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["glioma", "tox_171", "warpar10p"])
    parser.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--gammas", nargs="+", type=float, default=[1.0])
    parser.add_argument("--subset", type=int, default=1200)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--skip-cost", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    registry = load_registry()
    data = {}
    for name in args.datasets:
        entry = registry[name]
        X, y, _ = load_dataset(entry, find_in_mirror(entry, args.mirror))
        data[name] = (X, len(np.unique(y)))
    rows = [("part", "dataset", "n x d", "gamma", "what", "value")]

    def emit(row):
        rows.append(row)
        print(*row, sep="\t", flush=True)

    with threadpool_limits(limits=1):
        name = args.datasets[0]
        X, c = data[name]
        for row in _accuracy(name, X[:, : args.subset], c, args.iterations):
            emit(row)
        if not args.skip_cost:
            for name, (X, c) in data.items():
                for gamma in args.gammas:
                    for row in _cost(name, X, c, gamma, args.iterations):
                        emit(row)
    if args.out:
        with args.out.open("w") as handle:
            for row in rows:
                print(*row, sep="\t", file=handle)


def _cost(name, X, c, gamma, iterations):
    shape = f"{X.shape[0]} x {X.shape[1]}"
    runs = {}
    for route in ("dense", "projector"):
        start = time.process_time()
        sel = sogfs.select(X, n_clusters=c, gamma=gamma, max_iter=iterations, eig_solver=route)
        runs[route] = (sel, time.process_time() - start)
    (dense, dense_s), (fast, fast_s) = runs["dense"], runs["projector"]
    shared = len(set(dense.ranking[:50]) & set(fast.ranking[:50]))
    gap = abs(dense.history[-1] - fast.history[-1]) / abs(dense.history[-1])
    for what, value in (
        ("dense: CPU s", f"{dense_s:.1f}"),
        ("projector: CPU s", f"{fast_s:.1f}"),
        ("ratio dense / projector", f"{dense_s / fast_s:.1f}"),
        ("top-50 shared", str(shared)),
        ("final J relative gap", f"{gap:.2e}"),
    ):
        yield ("cost", name, shape, f"{gamma:g}", what, value)


def _accuracy(name, X, c, iterations, gamma=1.0, k=5):
    """The dense route's trajectory; per iteration both routes' W-step against the reference."""
    X = sogfs.standardize(X)
    n, d = X.shape
    m, shape = d // 3, f"{n} x {d}"
    S, _ = _adaptive_graph.adaptive_neighbours(X, k)
    q, alpha = np.ones(d), None
    for iteration in range(iterations):
        L = _adaptive_graph.graph_laplacian(S)
        B = X.T @ psd_factor(L)
        e = gamma * q
        A = np.diag(e) + B @ B.T  # the (d, d) matrix of the W-step (X^T L_S X = B B^T)
        _, W = eigh_range(0.5 * (A + A.T), 0, m - 1)
        projection = _spectral_projector.bottom_projection(e, B, X, m)
        if projection is not None:
            reference = _deflated_reference(A, e, m)
            dense_error = np.abs((W**2).sum(axis=1) - reference).max()
            fast_error = np.abs(projection.squared_row_norms - reference).max()
            for what, value in (
                ("largest l2,1 weight", f"{q.max():.2e}"),
                ("dense: max error in ||w_j||^2", f"{dense_error:.2e}"),
                ("projector: max error in ||w_j||^2", f"{fast_error:.2e}"),
            ):
                label = f"iteration {iteration + 1}: {what}"
                yield ("accuracy", name, shape, f"{gamma:g}", label, value)
        q = l21_weights(W)
        _, F = _adaptive_graph.laplacian_bottom(L, c)
        embedding = np.hstack([X @ W, F])  # lambda starts at 1 and the trajectory is a probe
        if alpha is None:
            _, alphas = _adaptive_graph.adaptive_neighbours(embedding, k)
            alpha = float(np.mean(alphas))
        S, _ = _adaptive_graph.adaptive_neighbours(embedding, k, alpha=alpha)


def _deflated_reference(A, e, m):
    """``||w_j||^2`` of the bottom-``m`` eigenvectors, switched-off rows eliminated."""
    off = e > SWITCHED_OFF
    on = ~off
    block = A[np.ix_(on, on)] - A[np.ix_(on, off)] @ (A[np.ix_(off, on)] / e[off, None])
    _, vectors = eigh(block, subset_by_index=[0, m - 1])
    reference = np.zeros(e.size)
    reference[on] = (vectors**2).sum(axis=1)
    return reference


if __name__ == "__main__":
    main()
