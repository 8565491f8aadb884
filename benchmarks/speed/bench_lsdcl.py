"""Seconds per LSDCL iteration on COIL20, and the GFLOP/s it reaches against plain GEMM.

    python benchmarks/speed/bench_lsdcl.py [--datasets coil20] [--mirror PATH]
        [--iterations N] [--repeats R] [--out TSV]

Data: COIL20 (1440 x 1024, nonnegative, 20 clusters) through the checked loader; the 5-NN
0-1 graph of :func:`ufsbench.graph.knn_graph`; ``k = r = c`` = the number of classes;
the default LSDCL options; BLAS on one thread; CPU seconds. The per-iteration solver has
no public API: it is imported from ``ufsbench.methods._dual_concept`` (the code under
test).

The k-means start is built once, outside the timing. Each repeat copies it into a fresh
solver and times ``--iterations`` iterations (Algorithm 1 steps plus the recorded
objective, as in :func:`ufsbench.methods._dual_concept_setup.run`); the best repeat is
reported. The flop count of one iteration is the sum of ``2 m k n`` over its dense
products, listed in :func:`iteration_flops` for the nonnegative path the solver takes on
COIL20 (no ``n x n`` Gram since ``n > d``); sparse products and element-wise work are
left out (they are O(nnz r) and O(n c)).

The reference is the same thread's rate on plain products of the same shapes: the
skinny ``(n x d) @ (d x c)`` and ``(d x n) @ (n x c)`` that dominate an iteration, and a
square ``d x d x d`` product for the machine's peak.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench.graph import knn_graph  # noqa: E402
from ufsbench.methods._dual_concept import Options, Solver  # noqa: E402
from ufsbench.methods._dual_concept_setup import initial_factors  # noqa: E402

N_NEIGHBORS, SEED = 5, 0


def iteration_flops(n, d, c):
    """Dense flops of one LSDCL iteration plus its objective, nonnegative path, no Gram."""
    skinny = 7 * 2 * n * d * c  # U: X (X^T U); V: X^T [.], X^T [.]; a = X V; F a = X (X^T a)
    small = 13 * 2 * n * c * c  # the n x c by c x c products and c x c Gram matrices
    return skinny + small


def gemm_rate(m, k, n, repeats):
    """Best GFLOP/s of ``(m x k) @ (k x n)`` over ``repeats`` runs."""
    rng = np.random.default_rng(0)
    A, B = rng.random((m, k)), rng.random((k, n))
    best, _ = _cli.best_time(lambda: A @ B, repeats)
    return 2 * m * k * n / best / 1e9


def measure(X, c, iterations, repeats):
    """One row of the table: LSDCL's seconds per iteration and rates beside plain GEMM."""
    n, d = X.shape
    graph = knn_graph(X, N_NEIGHBORS)
    start = time.process_time()
    U, S, V = initial_factors(
        X, graph, c, c, dual=True, init="kmeans", s_init="identity",
        random_state=SEED, method="lsdcl",
    )  # fmt: skip
    init_seconds = time.process_time() - start
    options = Options(dual=True, graph_term="cim")

    def run():
        solver = Solver(X, graph, U, S, V, options)
        for _ in range(iterations):
            solver.iterate()
            solver.objective()
        return solver

    best, solver = _cli.best_time(run, repeats)
    per_iter = best / iterations
    skinny_nd, skinny_dn = gemm_rate(n, d, c, 20), gemm_rate(d, n, c, 20)
    square = gemm_rate(d, d, d, 3)
    achieved = iteration_flops(n, d, c) / per_iter / 1e9
    return (f"{n}x{d}", c, graph.nnz, solver.F is not None, init_seconds, per_iter,
            iteration_flops(n, d, c) / 1e6, achieved, skinny_nd, skinny_dn, square,
            100 * achieved / min(skinny_nd, skinny_dn), 100 * achieved / square)  # fmt: skip


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["coil20"], repeats=3)
    p.add_argument("--iterations", type=int, default=20)
    args = p.parse_args(argv)
    columns = ["dataset", "n x d", "c", "graph_nnz", "gram_formed", "init_s", "s_per_iter",
               "mflop_per_iter", "gflops", "gemm_nd_gflops", "gemm_dn_gflops",
               "gemm_square_gflops", "pct_of_skinny", "pct_of_square"]  # fmt: skip
    rows = []
    with _cli.one_thread():
        for name in args.datasets:
            X, y = _cli.load(name, args.mirror)
            c = len(np.unique(y))
            rows.append((name, *measure(X, c, args.iterations, args.repeats)))
    _cli.write_tsv("lsdcl", columns, rows, args.out)


if __name__ == "__main__":
    main()
