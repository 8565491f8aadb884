"""SOGFS with d >> n: the cost of today's W-step and how far its ranking is determined.

    python benchmarks/speed/bench_sogfs.py [--mirror PATH] [--datasets glioma tox_171]
        [--subset 1200] [--out TSV]

Data from the mirror through the checked loader, standardised as SOGFS does, BLAS on one
thread unless a row says otherwise, CPU seconds (``process_time``).

1. ``eigh``: one W-step as ``_adaptive_graph.solve`` does it (``eigh`` of the (d, d)
   ``X^T L_S X + gamma Q``, the ``m = d // 3`` smallest pairs), on the full data, ``Q = I``
   (the first step) and a ``Q`` of a later step. A setting runs 30 of them.
2. ``determinacy``: SOGFS (defaults, ``gamma = 1``, 30 iterations) on the first
   ``--subset`` features of the first dataset (d >> n kept, a quick run), three times:
   one BLAS thread, two threads, and the features permuted (ranking mapped back). Rows
   give the top-50 overlap with the first run and the relative gap of the final
   objectives. The first W-step (``Q = I``) has the eigenvalue ``gamma`` with
   multiplicity >= d - n + 1 > m (``tests/test_speed_pins.py``), so LAPACK's rounding picks
   the basis, and the later iterates and the ranking follow it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy.linalg import eigh
from threadpoolctl import threadpool_limits

from ufsbench import rank_features
from ufsbench.data import load_dataset
from ufsbench.datasets import find_in_mirror, load_registry
from ufsbench.methods import _adaptive_graph
from ufsbench.methods.base import l21_weights
from ufsbench.methods.sogfs import standardize

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["glioma", "tox_171"])
    parser.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--subset", type=int, default=1200)
    parser.add_argument("--skip-eigh", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    registry = load_registry()
    data = {}
    for name in args.datasets:
        entry = registry[name]
        X, y, _ = load_dataset(entry, find_in_mirror(entry, args.mirror))
        data[name] = (X, len(np.unique(y)))
    rows = [("part", "dataset", "n x d", "what", "value")]
    if not args.skip_eigh:
        for name, (X, _) in data.items():
            for row in _eigh_cost(name, X):
                rows.append(row)
                print(*row, sep="\t", flush=True)
    name = args.datasets[0]
    X, c = data[name]
    for row in _determinacy(name, X[:, : args.subset], c):
        rows.append(row)
        print(*row, sep="\t", flush=True)
    if args.out:
        with args.out.open("w") as handle:
            for row in rows:
                print(*row, sep="\t", file=handle)


def _eigh_cost(name, X):
    X = standardize(X)
    n, d = X.shape
    m, shape = d // 3, f"{n} x {d}"
    S, _ = _adaptive_graph.adaptive_neighbours(X, 5)
    M = X.T @ (_adaptive_graph.graph_laplacian(S) @ X)
    M = 0.5 * (M + M.T)
    q = np.ones(d)
    with threadpool_limits(limits=1):
        for step in ("first (Q = I)", "second"):
            start = time.process_time()
            values, W = eigh(M + np.diag(q), subset_by_index=[0, m])
            seconds = time.process_time() - start
            gap = (values[m] - values[m - 1]) / abs(values[m - 1])
            yield ("eigh", name, shape, f"W-step {step}: CPU s", f"{seconds:.1f}")
            yield ("eigh", name, shape, f"W-step {step}: relative gap m, m+1", f"{gap:.2e}")
            q = l21_weights(W[:, :m])


def _determinacy(name, X, c):
    shape = f"{X.shape[0]} x {X.shape[1]}"
    perm = np.random.default_rng(0).permutation(X.shape[1])
    runs = {}
    for label, threads, columns in (
        ("1 thread", 1, None),
        ("2 threads", 2, None),
        ("1 thread, features permuted", 1, perm),
    ):
        Z = X if columns is None else X[:, columns]
        with threadpool_limits(limits=threads):
            start = time.process_time()
            sel = rank_features(Z, "sogfs", n_clusters=c, gamma=1.0)
            seconds = time.process_time() - start
        ranking = sel.ranking if columns is None else columns[sel.ranking]
        runs[label] = (ranking, sel.history[-1], seconds)
    ref_ranking, ref_objective, _ = runs["1 thread"]
    for label, (ranking, objective, seconds) in runs.items():
        shared = len(set(ranking[:50]) & set(ref_ranking[:50]))
        gap = abs(objective - ref_objective) / abs(ref_objective)
        yield ("determinacy", name, shape, f"{label}: top-50 shared with 1 thread", str(shared))
        yield ("determinacy", name, shape, f"{label}: final J relative gap", f"{gap:.2e}")
        yield ("determinacy", name, shape, f"{label}: CPU s (30 iterations)", f"{seconds:.1f}")


if __name__ == "__main__":
    main()
