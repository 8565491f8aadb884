"""Speed of POCSS: seconds per 10^6 evaluations (and iterations) on sonar and madelon.

    python benchmarks/speed/bench_pocss.py [--datasets sonar_scale madelon] [--mirror PATH]
        [--fraction 1.0] [--numpy-iterations 200000] [--compare-screen]
        [--compare-refresh 64] [--out TSV]

Runs the compiled kernel at ``fraction`` of the paper's budget 2ek^2n (k = 50; 1.0 = the
full run, whose wall time is the issue's "madelon under 60 s" target) and the plain-numpy
build on a fixed number of iterations. ``--compare-screen`` also runs the compiled kernel
with the multi-flip screen off (every offspring's state built, as before the screen) and
prints the speed-up of the screen, measured in the same run. ``--compare-refresh R``
also runs the compiled kernel with a refresh only every ``R`` updates (the spec's 64,
the default before verified acceptance) and prints what verifying every accepted
offspring costs, measured in the same run. Compilation is done (or
loaded from numba's cache) before timing. Data: registry datasets through the checked
loader, unit-norm columns, mean imputation (as the CSS branch); one BLAS thread. Wall and
CPU (process) time are both reported: on a shared machine the CPU time is the steadier
figure.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

import ufsbench.css.pocss as pocss_module  # noqa: E402
from ufsbench.css.objective import svd_tails  # noqa: E402
from ufsbench.css.pocss import gram_pair, paper_budget, pocss  # noqa: E402
from ufsbench.data import normalize  # noqa: E402

HAVE_NUMBA = importlib.util.find_spec("numba") is not None


def load(name, mirror):
    X, _ = _cli.load(name, mirror)
    return normalize(X, "unit_column", impute="mean")[0]


def timed(X, gram, k, iterations, engine, screen=True, refresh=0):
    screen_flips = pocss_module.SCREEN_MAX_FLIPS
    pocss_module.SCREEN_MAX_FLIPS = screen_flips if screen else 0
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        result = pocss(
            X, k, iterations=iterations, seed=0, engine=engine, gram=gram, refresh=refresh
        )
        return result, time.perf_counter() - wall, time.process_time() - cpu
    finally:
        pocss_module.SCREEN_MAX_FLIPS = screen_flips


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["sonar_scale", "madelon"], repeats=1)
    p.add_argument("--k", type=int, default=50)
    p.add_argument("--fraction", type=float, default=1.0)
    p.add_argument("--numpy-iterations", type=int, default=200_000)
    p.add_argument("--compare-screen", action="store_true")
    p.add_argument("--compare-refresh", type=int, default=None, metavar="R")
    args = p.parse_args(argv)
    runs = [("numba", True, 0)] if HAVE_NUMBA else []
    runs += [("numba", False, 0)] if HAVE_NUMBA and args.compare_screen else []
    if HAVE_NUMBA and args.compare_refresh is not None:
        runs += [("numba", True, args.compare_refresh)]
    runs += [("numpy", True, 0)]
    columns = ["dataset", "engine", "screen", "refresh", "iterations", "paper_budget",
               "evaluations", "wall_s", "cpu_s", "cpu_s_per_1e6_eval", "cpu_s_per_1e6_iter",
               "ER"]  # fmt: skip
    rows = []
    with _cli.one_thread():
        if HAVE_NUMBA:  # compile (or load the cache) outside the timings
            pocss(load(args.datasets[0], args.mirror), 2, iterations=100, engine="numba")
        for name in args.datasets:
            X = load(name, args.mirror)
            gram = gram_pair(X)
            tail = svd_tails(X)[args.k]
            budget = paper_budget(args.k, X.shape[1])
            cpu_of = {}
            for engine, screen, refresh in runs:
                T = int(budget * args.fraction) if engine == "numba" else args.numpy_iterations
                result, wall, cpu = timed(X, gram, args.k, T, engine, screen, refresh)
                cpu_of[engine, screen, refresh] = cpu
                rows.append((name, engine, "on" if screen else "off", refresh, T, budget,
                             result.evaluations, wall, cpu, cpu / result.evaluations * 1e6,
                             cpu / T * 1e6, result.f / tail))  # fmt: skip
            if ("numba", False, 0) in cpu_of:
                ratio = cpu_of["numba", False, 0] / cpu_of["numba", True, 0]
                print(f"{name}: the screen makes the compiled kernel {ratio:.2f}x faster (CPU)")
            periodic = ("numba", True, args.compare_refresh)
            if args.compare_refresh is not None and periodic in cpu_of:
                ratio = cpu_of["numba", True, 0] / cpu_of[periodic]
                print(f"{name}: verified acceptance costs {ratio:.2f}x the CPU of refresh "
                      f"every {args.compare_refresh}")  # fmt: skip
    _cli.write_tsv("pocss", columns, rows, args.out)


if __name__ == "__main__":
    main()
