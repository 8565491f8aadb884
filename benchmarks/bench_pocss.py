"""Speed of POCSS: seconds per 10^6 evaluations (and iterations) on sonar and madelon.

Usage:
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_pocss.py \
        [--mirror ../shared/datasets] [--fraction 1.0] [--numpy-iterations 200000]

Runs the compiled kernel at ``fraction`` of the paper's budget 2ek^2n (k = 50; 1.0 = the
full run, whose wall time is the issue's "madelon under 60 s" target) and the plain-numpy
build on a fixed number of iterations. ``--compare-screen`` also runs the compiled kernel
with the multi-flip screen off (every offspring's state built, as before the screen) and
prints the speed-up of the screen, measured in the same run. Compilation is done (or
loaded from numba's cache) before timing. Wall and CPU (process) time are both printed:
on a shared machine the CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import ufsbench.css.pocss as pocss_module
from ufsbench.css._pocss_kernel import HAVE_NUMBA
from ufsbench.css.objective import svd_tails
from ufsbench.css.pocss import gram_pair, paper_budget, pocss
from ufsbench.data import load_dataset, normalize
from ufsbench.datasets import load_registry

ROOT = Path(__file__).resolve().parents[1]


def load(name, mirror):
    entry = load_registry(ROOT / "config" / "datasets.yaml")[name]
    X, _, _ = load_dataset(entry, Path(mirror) / entry.file_entry.file)
    return normalize(X, "unit_column", impute="mean")[0]


def timed(X, gram, k, iterations, engine, screen=True):
    screen_flips = pocss_module.SCREEN_MAX_FLIPS
    pocss_module.SCREEN_MAX_FLIPS = screen_flips if screen else 0
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        result = pocss(X, k, iterations=iterations, seed=0, engine=engine, gram=gram)
        return result, time.perf_counter() - wall, time.process_time() - cpu
    finally:
        pocss_module.SCREEN_MAX_FLIPS = screen_flips


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--datasets", nargs="+", default=["sonar_scale", "madelon"])
    parser.add_argument("--k", type=int, default=50)
    parser.add_argument("--fraction", type=float, default=1.0)
    parser.add_argument("--numpy-iterations", type=int, default=200_000)
    parser.add_argument("--compare-screen", action="store_true")
    args = parser.parse_args(argv)
    runs = [("numba", True)] if HAVE_NUMBA else []
    runs += [("numba", False)] if HAVE_NUMBA and args.compare_screen else []
    runs += [("numpy", True)]
    if HAVE_NUMBA:  # compile (or load the cache) outside the timings
        warm = load(args.datasets[0], args.mirror)
        pocss(warm, 2, iterations=100, engine="numba")
    header = f"{'dataset':<12} {'engine':<6} {'screen':<6} {'iterations':>11} {'evaluations':>11} "
    header += f"{'wall s':>8} {'cpu s':>8} {'s/1e6 eval':>10} {'s/1e6 iter':>10} {'ER':>7}"
    print(header)
    for name in args.datasets:
        X = load(name, args.mirror)
        gram = gram_pair(X)
        tail = svd_tails(X)[args.k]
        budget = paper_budget(args.k, X.shape[1])
        cpu_of = {}
        for engine, screen in runs:
            T = int(budget * args.fraction) if engine == "numba" else args.numpy_iterations
            result, wall, cpu = timed(X, gram, args.k, T, engine, screen)
            cpu_of[engine, screen] = cpu
            print(
                f"{name:<12} {engine:<6} {'on' if screen else 'off':<6} {T:>11d} "
                f"{result.evaluations:>11d} {wall:>8.2f} "
                f"{cpu:>8.2f} {cpu / result.evaluations * 1e6:>10.2f} {cpu / T * 1e6:>10.2f} "
                f"{result.f / tail:>7.4f}"
            )
        print(f"{name}: paper budget T = 2ek^2n = {budget} iterations (k = {args.k})")
        if ("numba", False) in cpu_of:
            ratio = cpu_of["numba", False] / cpu_of["numba", True]
            print(f"{name}: the screen makes the compiled kernel {ratio:.2f}x faster (CPU time)")


if __name__ == "__main__":
    main()
