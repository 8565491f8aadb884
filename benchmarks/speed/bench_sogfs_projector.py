"""SOGFS with d >> n: the projector W-step against the dense ``eigh``, cost and accuracy.

    python benchmarks/speed/bench_sogfs_projector.py [--mirror PATH]
        [--datasets glioma tox_171 warpar10p] [--gammas 1] [--subset 1200] [--out TSV]

Data from the mirror through the checked loader, BLAS on one thread, CPU seconds
(``process_time``); every ratio is measured within one run (``_cli``).

1. ``cost``: one whole SOGFS setting (defaults: ``k = 5``, 30 iterations, ``m = d // 3``)
   per dataset and ``gamma``, ``eig_solver="dense"`` and ``"projector"``: CPU seconds, their
   ratio, the top-50 shared and the final objectives' relative gap.
2. ``accuracy``: on the first ``--subset`` features of the first dataset, the dense
   route's trajectory; at each iteration the W-step from that state by each route (dense,
   projector, and the Schur route that ``auto`` takes where ``4 n > d``),
   against a reference that is accurate there: the rows whose l2,1 weight exceeds 1e6
   (switched off) are eliminated to first order in ``1 / e_j`` and the remaining block,
   whose entries are moderate, goes to a dense ``eigh``. Columns: the largest l2,1 weight
   and each route's largest error in ``||w_j||^2``. While no weight exceeds 1e6 the
   reference is the dense ``eigh`` itself, so the dense error there is 0 by construction.
3. ``routes`` (``--routes-datasets``, e.g. JAFFE, where ``auto`` keeps the dense route):
   both routes over the LSDCL grid ``gamma = 10^-5..10^5``: CPU seconds, top-50 shared,
   the mean ACC over ``--counts`` (20 litekmeans runs each, the same seeds for both
   routes), and the oracle (best ``gamma`` per count, averaged over counts).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from scipy.linalg import eigh

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench.evaluate import evaluate_selection  # noqa: E402
from ufsbench.methods import _adaptive_graph, _graded_eigen, _spectral_projector, sogfs  # noqa: E402
from ufsbench.methods._eigen import eigh_range  # noqa: E402
from ufsbench.methods._low_rank import psd_factor  # noqa: E402
from ufsbench.methods.base import l21_weights  # noqa: E402

SWITCHED_OFF = 1e6  # l2,1 weights above this: rows the reference eliminates


def main(argv=None):
    parser = _cli.parser(__doc__.splitlines()[0], ["glioma", "tox_171", "warpar10p"], 1)
    parser.add_argument("--gammas", nargs="+", type=float, default=[1.0])
    parser.add_argument("--subset", type=int, default=1200)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--skip-cost", action="store_true")
    parser.add_argument("--routes-datasets", nargs="*", default=[])
    parser.add_argument("--counts", nargs="+", type=int, default=list(range(5, 55, 5)))
    args = parser.parse_args(argv)
    rows = []
    with _cli.one_thread():
        data = {}
        for name in args.datasets:
            X, y = _cli.load(name, args.mirror)
            data[name] = (X, len(np.unique(y)))
        name = args.datasets[0]
        X, c = data[name]
        _collect(rows, _accuracy(name, X[:, : args.subset], c, args.iterations))
        if not args.skip_cost:
            for name, (X, c) in data.items():
                for gamma in args.gammas:
                    _collect(rows, _cost(name, X, c, gamma, args.iterations))
        for name in args.routes_datasets:
            X, y = _cli.load(name, args.mirror)
            _collect(rows, _routes(name, X, y, args.counts))
    columns = ("part", "dataset", "n x d", "gamma", "what", "value")
    _cli.write_tsv("sogfs_projector", columns, rows, args.out)


def _collect(rows, found):
    """Append each row of ``found`` to ``rows`` and print it as it comes (runs are long)."""
    for row in found:
        rows.append(row)
        print(*row, sep="\t", flush=True)


def _cost(name, X, c, gamma, iterations):
    """One whole setting by each route: CPU seconds, ratio, agreement."""
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


def _routes(name, X, y, counts):
    """Both routes over the LSDCL grid of gamma: cost, agreement, ACC, oracle ACC."""
    shape, c = f"{X.shape[0]} x {X.shape[1]}", len(np.unique(y))
    acc = {"dense": {}, "projector": {}}
    for gamma in 10.0 ** np.arange(-5, 6):
        found = {}
        for route in acc:
            start = time.process_time()
            sel = sogfs.select(X, n_clusters=c, gamma=gamma, eig_solver=route)
            found[route] = (sel, time.process_time() - start)
            runs = evaluate_selection(X, y, sel, counts, n_clusters=c, seed_key=(name, gamma))
            acc[route][gamma] = 100 * runs.groupby("n_features")["acc"].mean()
        (dense, dense_s), (fast, fast_s) = found["dense"], found["projector"]
        for what, value in (
            ("CPU s dense / projector", f"{dense_s:.1f} / {fast_s:.1f}"),
            ("top-50 shared", str(len(set(dense.ranking[:50]) & set(fast.ranking[:50])))),
            (
                "mean ACC over counts, dense / projector",
                f"{acc['dense'][gamma].mean():.2f} / {acc['projector'][gamma].mean():.2f}",
            ),
        ):
            yield ("routes", name, shape, f"{gamma:g}", what, value)
    for route, by_gamma in acc.items():
        oracle = np.mean([max(curve[m] for curve in by_gamma.values()) for m in counts])
        yield ("routes", name, shape, "best per count", f"{route}: oracle ACC", f"{oracle:.2f}")


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
            schur = _graded_eigen.bottom_eigenvectors(B @ B.T, e, m)
            schur_error = np.abs((schur**2).sum(axis=1) - reference).max()
            for what, value in (
                ("largest l2,1 weight", f"{q.max():.2e}"),
                ("dense: max error in ||w_j||^2", f"{dense_error:.2e}"),
                ("projector: max error in ||w_j||^2", f"{fast_error:.2e}"),
                ("schur: max error in ||w_j||^2", f"{schur_error:.2e}"),
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
