"""Does forming ``F = X X^T`` pay in LSDCL's solver? Both routes of one setting, alternately.

    python benchmarks/speed/bench_lsdcl_gram.py [--datasets coil20 usps49] [--mirror PATH]
        [--repeats 3] [--out TSV]

LSDCL's multiplicative rules apply ``F = X X^T`` (n, n) to skinny matrices twice per
iteration. The solver forms ``F`` only where ``n <= d`` (``Options.gram="auto"``); elsewhere
it applies ``X (X^T Y)``. Forming it on COIL20 (1440 x 1024) would cut those products'
flops by ~30 %, but changes their summation order, hence the numbers: worth a planned
re-publish only if it pays (issue 27, item 6). This script times one LSDCL setting per
route (the solver's own ``"auto"`` and ``"always"``, forced through the solver class that
the method builds, as the code under test) on one BLAS thread, best of ``--repeats``
alternating runs, after a warm-up that fills the per-process memo of the k-means starts,
and compares the rankings: ``ratio`` = auto / always CPU seconds (above 1: forming pays).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench import rank_features  # noqa: E402
from ufsbench.methods import _dual_concept_setup  # noqa: E402

SETTINGS = [{"lambda1": 1.0, "lambda2": 1.0, "gamma": g} for g in (1.0, 4.0)]
ROUTES = ("auto", "always")


@contextmanager
def gram_route(route: str):
    """LSDCL's solver with ``Options.gram`` set to ``route`` inside the block."""
    original = _dual_concept_setup.Solver

    class Routed(original):
        def __init__(self, X, graph, U, S, V, options):
            super().__init__(X, graph, U, S, V, dataclasses.replace(options, gram=route))

    _dual_concept_setup.Solver = Routed
    try:
        yield
    finally:
        _dual_concept_setup.Solver = original


def run(X, graph, c, setting, route):
    with gram_route(route):
        start = time.process_time()
        selection = rank_features(X, "lsdcl", graph=graph, n_clusters=c, **setting)
        return time.process_time() - start, selection


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["coil20", "usps49"], repeats=3)
    args = p.parse_args(argv)
    rows = []
    with _cli.one_thread():
        for dataset in args.datasets:
            X, _, c, graph = _cli.load_with_graph(dataset, args.mirror)
            run(X, graph, c, SETTINGS[0], "auto")  # warm-up: the memo's k-means starts
            for setting in SETTINGS:
                best = {route: float("inf") for route in ROUTES}
                selections = {}
                for _ in range(args.repeats):
                    for route in ROUTES:
                        seconds, selections[route] = run(X, graph, c, setting, route)
                        best[route] = min(best[route], seconds)
                auto, always = selections["auto"], selections["always"]
                top = set(auto.ranking[:50].tolist()) & set(always.ranking[:50].tolist())
                label = ",".join(f"{k}={v:g}" for k, v in setting.items())
                rows.append((dataset, f"{X.shape[0]}x{X.shape[1]}", label, best["auto"],
                             best["always"], best["auto"] / best["always"], len(top),
                             bool((auto.ranking == always.ranking).all()),
                             len(auto.history), len(always.history)))  # fmt: skip
                print(*rows[-1], sep="\t", flush=True)
    header = ("dataset", "shape", "setting", "auto_cpu_s", "always_cpu_s", "ratio",
              "top50_shared", "ranking_identical", "iterations_auto",
              "iterations_always")  # fmt: skip
    _cli.write_tsv("lsdcl_gram", header, rows, args.out)


if __name__ == "__main__":
    main()
