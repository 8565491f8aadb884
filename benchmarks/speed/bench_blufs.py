"""Seconds per BLUFS sweep against the cost estimate of spec blufs.md §2.9.

    python benchmarks/speed/bench_blufs.py [--datasets coil20 isolet] [--mirror PATH]
        [--budget 50] [--out TSV]

One BLUFS run (default parameters, seed 0, one BLAS thread, CPU seconds) on COIL20
(1440 x 1024, 20 clusters) and Isolet (1560 x 617, 26 clusters) through the checked
loader (clusters: the classes). Per data set: graph/set-up time, sweeps, seconds
per sweep (whole run and per block), and the §2.9 multiply-add count per sweep in GFLOP
(1 MAC = 2 flops) with the achieved GFLOP/s. ``P_objective``: the share of P columns,
over all sweeps, where the default ``p_rule="guarded"`` rejected the "distance" column
(it would have raised f) and took the "objective" one. Near 1, nearly every column
needs both partitions, so restricting the second to the rejected columns saves nothing.
``P_in_P0``: the share of the last P's non-zeros inside the support of ``P^0`` (the k-NN
graph): how far the learned graph moved.
Block times come from wrapping the block functions of ``ufsbench.methods._blufs_steps``
during the run: the per-block solver has no public API, so it is imported from its
modules (the code under test).
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench.methods import _blufs_pam as pam  # noqa: E402
from ufsbench.methods import _blufs_steps as steps  # noqa: E402


def estimate_mac(n, d, c, nnz_p, nnz_s, y_steps) -> dict[str, float]:
    """Multiply-adds of one sweep (spec §2.9, sparse P), by block."""
    return {
        "W": d * nnz_p + d * d * n + d**3 / 3 + 2 * d * d * c + 3 * d * n * c + 2 * n * n * c,
        "P": d * n * c + n * n * c,
        "Y": y_steps * (nnz_s * c + 5 * n * c * c),
    }


def timed(block, function, clock):
    def wrapper(*args, **kwargs):
        start = time.process_time()
        out = function(*args, **kwargs)
        clock[block] += time.process_time() - start
        return out

    return wrapper


def guarded_share(function, counts, last, p_step):
    """``function`` (the timed P step), counting the columns where "guarded" differs from
    "distance" (those from the untimed ``p_step``); ``last["P"]``: its latest output."""

    def wrapper(Z, P_prev, **kwargs):
        out = function(Z, P_prev, **kwargs)
        last["P"] = out
        if kwargs.get("rule") == "guarded":
            distance = p_step(Z, P_prev, **{**kwargs, "rule": "distance"})
            differs = np.asarray(abs(out - distance).sum(axis=0)).ravel() > 0
            counts["objective"] += int(differs.sum())
            counts["columns"] += differs.size
        return out

    return wrapper


def bench(X, n_clusters, budget):
    start = time.process_time()
    problem = pam.prepare(X, n_clusters, k=10)
    setup = time.process_time() - start
    cfg = pam.Config(alpha=1.0, beta=1.0, lam=1.0, mu=1.0)
    clock, counts, last = defaultdict(float), defaultdict(int), {}
    originals = (steps.WOperator, steps.WSystem, steps.p_step, steps.pencf)
    steps.WOperator = timed("W", steps.WOperator, clock)  # A and its factorisation
    steps.WSystem = timed("W", steps.WSystem, clock)
    steps.p_step = guarded_share(timed("P", steps.p_step, clock), counts, last, steps.p_step)
    steps.pencf = timed("Y", steps.pencf, clock)
    try:
        start = time.process_time()
        run = pam.solve(problem, cfg, budget, 0)
        total = time.process_time() - start
    finally:
        steps.WOperator, steps.WSystem, steps.p_step, steps.pencf = originals
    sweeps = len(run.history)
    n, d = X.shape
    y_steps = float(np.mean(run.log["y_steps"]))
    nnz_p = 10 * n  # at most p_support non-zeros per column
    mac = estimate_mac(n, d, n_clusters, nnz_p, problem.Sh.nnz, y_steps)
    share = counts["objective"] / max(counts["columns"], 1)
    P = last["P"]
    in_p0 = P.multiply(problem.P0 > 0).count_nonzero() / P.nnz
    return setup, sweeps, total, clock, mac, y_steps, share, in_p0


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["coil20", "isolet"], repeats=1)
    p.add_argument("--budget", type=int, default=50)
    args = p.parse_args(argv)
    columns = ["dataset", "n x d", "c", "budget", "setup_s", "sweeps", "s_per_sweep",
               "W_s", "P_s", "Y_s", "Y_iter", "est_gflop", "gflops", "est_W", "est_P",
               "est_Y", "P_objective", "P_in_P0"]  # fmt: skip
    rows = []
    with _cli.one_thread():
        for name in args.datasets:
            X, y = _cli.load(name, args.mirror)
            c = len(np.unique(y))
            setup, sweeps, total, clock, mac, y_steps, share, in_p0 = bench(X, c, args.budget)
            per = {block: clock[block] / sweeps for block in "WPY"}
            gflop = 2 * sum(mac.values()) / 1e9
            est = [2 * mac[b] / 1e9 for b in "WPY"]
            rows.append((name, f"{X.shape[0]}x{X.shape[1]}", c, args.budget, setup, sweeps,
                         total / sweeps, per["W"], per["P"], per["Y"], y_steps, gflop,
                         gflop * sweeps / total, *est, share, in_p0))  # fmt: skip
    _cli.write_tsv("blufs", columns, rows, args.out)


if __name__ == "__main__":
    main()
