"""Seconds per LR-l1 FISTA step: the fused sparse kernel against the dense numpy step.

    python benchmarks/speed/bench_lr_l1.py [--datasets yaleb] [--mirror PATH] [--steps 20]
        [--warm 10] [--out TSV]

Both steps run in one process on the same iterate (``--warm`` plain proximal steps from
the l1 codes at lambda = 0.1 of the unit-norm samples, lam = gamma_l2 = 0.1, the
Laplacian of the l1 affinity; the solver's iterates fill in the same way), one BLAS
thread, alternating so that machine load hits both alike. Reports CPU seconds per step,
the ratio, and the largest difference of the two results (they agree up to round-off).
The step itself has no public API: it is imported from its module
(``ufsbench.sparse_graph._lr_l1_step``), the kernel under test.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench.graph import laplacian  # noqa: E402
from ufsbench.sparse_graph import codes_affinity, gram, l1_codes, unit_rows  # noqa: E402
from ufsbench.sparse_graph._lr_l1_step import prox_step_dense, prox_step_sparse  # noqa: E402


def step_seconds(X, steps, warm):
    """CPU seconds per step of each route, the iterate's nnz per row, the largest gap."""
    Xn = unit_rows(X)
    G = gram(Xn)
    Y = sp.csr_matrix(l1_codes(Xn, 0.1, normalize=False, G=G))
    L_A = laplacian(codes_affinity(Y))
    step, lam, gamma = 1.0 / (2.0 * np.linalg.norm(Xn, 2) ** 2), 0.1, 0.1
    for _ in range(warm):  # a mid-solve iterate (also compiles outside the clock)
        Y = prox_step_sparse(Y, G, L_A, step, lam, gamma)
    seconds = {"fused": 0.0, "dense": 0.0}
    for _ in range(steps):
        t0 = time.process_time()
        fused = prox_step_sparse(Y, G, L_A, step, lam, gamma)
        seconds["fused"] += time.process_time() - t0
        t0 = time.process_time()
        dense = prox_step_dense(Y, G, L_A, step, lam, gamma)
        seconds["dense"] += time.process_time() - t0
    gap = float(abs(fused.toarray() - dense).max())
    return seconds["fused"] / steps, seconds["dense"] / steps, Y.nnz / X.shape[0], gap


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["yaleb"], repeats=1)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warm", type=int, default=10, help="steps before timing")
    args = p.parse_args(argv)
    if importlib.util.find_spec("numba") is None:
        raise SystemExit("bench_lr_l1: numba is not installed; the fused step needs it")
    columns = ["dataset", "n", "nnz_per_row", "fused_s_per_step", "dense_s_per_step",
               "dense/fused", "max_abs_diff"]  # fmt: skip
    rows = []
    with _cli.one_thread():
        for name in args.datasets:
            X, _ = _cli.load(name, args.mirror)
            fused, dense, nnz, gap = step_seconds(X, args.steps, args.warm)
            rows.append((name, X.shape[0], nnz, fused, dense, dense / fused, gap))
    _cli.write_tsv("lr_l1", columns, rows, args.out)


if __name__ == "__main__":
    main()
