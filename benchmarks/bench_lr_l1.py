"""Seconds per LR-l1 FISTA step: the fused sparse kernel against the dense numpy step.

    python benchmarks/bench_lr_l1.py [--dataset yaleb] [--mirror PATH] [--steps 20] [--warm 10]

Both steps run in one process on the same iterate (``--warm`` plain proximal steps from
the l1 codes at lambda = 0.1 of the unit-norm samples, lam = gamma_l2 = 0.1, the
Laplacian of the l1 affinity; the solver's iterates fill in the same way), one BLAS
thread, alternating so that machine load hits both alike. Prints seconds per step, the
ratio, and the largest difference of the two results (they agree up to round-off).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from ufsbench.graph import laplacian
from ufsbench.sparse_graph._common import codes_affinity, gram, unit_rows
from ufsbench.sparse_graph._lr_l1_step import HAVE_NUMBA, prox_step_dense, prox_step_sparse
from ufsbench.sparse_graph.l1graph import l1_codes

ROOT = Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="yaleb")
    parser.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warm", type=int, default=10, help="steps before timing")
    args = parser.parse_args()
    if not HAVE_NUMBA:
        raise SystemExit("bench_lr_l1: numba is not installed; the fused step needs it")
    X = np.asarray(scipy.io.loadmat(args.mirror / f"{args.dataset}.mat")["X"], float)
    with threadpool_limits(1):
        Xn = unit_rows(X)
        G = gram(Xn)
        Y = sp.csr_matrix(l1_codes(Xn, 0.1, normalize=False, G=G))
        L_A = laplacian(codes_affinity(Y))
        step, lam, gamma = 1.0 / (2.0 * np.linalg.norm(Xn, 2) ** 2), 0.1, 0.1
        for _ in range(args.warm):  # a mid-solve iterate (also compiles outside the clock)
            Y = prox_step_sparse(Y, G, L_A, step, lam, gamma)
        seconds = {"fused": 0.0, "dense": 0.0}
        for _ in range(args.steps):
            t0 = time.perf_counter()
            fused = prox_step_sparse(Y, G, L_A, step, lam, gamma)
            seconds["fused"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            dense = prox_step_dense(Y, G, L_A, step, lam, gamma)
            seconds["dense"] += time.perf_counter() - t0
    n = X.shape[0]
    print(f"{args.dataset}: n = {n}, iterate nnz/row {Y.nnz / n:.1f}, {args.steps} steps each")
    for name, total in seconds.items():
        print(f"{name:6s} {total / args.steps:8.4f} s/step")
    print(f"ratio dense/fused {seconds['dense'] / seconds['fused']:.2f}")
    print(f"max |fused - dense| {abs(fused.toarray() - dense).max():.3g}")


if __name__ == "__main__":
    main()
