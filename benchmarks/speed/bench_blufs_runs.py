"""CPU seconds of BLUFS jobs' runs, this checkout against another code tree.

    git worktree add /tmp/base <commit>
    python benchmarks/speed/bench_blufs_runs.py --compare /tmp/base/src
        [--datasets coil20 isolet pie] [--methods blufs blufs_case3] [--mirror PATH]
        [--repeats 3] [--out TSV]

A BLUFS job runs, in one process, a run per setting: fits at its budgets, then their
k-means evaluation (10 repeats of 10 starts, as ``config/experiments/blufs.yaml``).
``blufs``: six runs as a stage-2 job (``blufs_stage2``) makes them, one budget each
(``mu`` in {0.01, 1, 100} x ``lam`` in {0.1, 10}, budgets 20, 50 and 100).
``blufs_case3``: four settings as a select job of Case III makes them (``alpha`` in
{0.01, 1} x ``beta`` in {0.1, 10}, each at budgets 20, 50 and 100). Each code tree runs
in a fresh interpreter, the trees alternating; each keeps its least CPU time over
``--repeats`` (after one untimed run per tree, which compiles and caches its numba
kernels), the fits alone and the fits with their evaluations (data loading and imports
excluded). ``identical``: every run's ranking, scores, budget subsets and objective trace
are the same bytes under both trees (SHA-256). One BLAS thread.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

RUNS = {  # method: [(setting, budgets)]
    # stage 2 of BLUFS: one budget per run, the stage-1 setting at the defaults
    "blufs": [
        ({"mu": 0.01, "lam": 0.1}, [20]), ({"mu": 0.01, "lam": 10.0}, [50]),
        ({"mu": 1.0, "lam": 0.1}, [100]), ({"mu": 1.0, "lam": 10.0}, [20]),
        ({"mu": 100.0, "lam": 0.1}, [50]), ({"mu": 100.0, "lam": 10.0}, [100]),
    ],
    # a select job of Case III: each setting at several budgets
    "blufs_case3": [({"alpha": a, "beta": b}, [20, 50, 100]) for a in (0.01, 1.0)
                    for b in (0.1, 10.0)],
}  # fmt: skip
KMEANS = {"repeats": 10, "engine": "litekmeans", "n_init": 10, "max_iter": 50}


def child(dataset: str, method: str, mirror: Path) -> dict:
    """``RUNS[method]`` in this interpreter (``ufsbench`` from ``PYTHONPATH``): CPU s, digest."""
    import numpy as np

    from ufsbench import rank_features
    from ufsbench.evaluate import evaluate_selection

    X, y = _cli.load(dataset, mirror)
    n_clusters = len(np.unique(y))
    digest, fit, total = hashlib.sha256(), 0.0, 0.0
    with _cli.one_thread():
        for params, counts in RUNS[method]:
            start = time.process_time()
            sel = rank_features(X, method, n_clusters=n_clusters, random_state=7,
                                feature_counts=counts, **params)  # fmt: skip
            fit += time.process_time() - start
            evaluate_selection(X, y, sel, counts, n_clusters=n_clusters, seed_key=(dataset,),
                               **KMEANS)  # fmt: skip
            total += time.process_time() - start
            for part in (sel.ranking, sel.scores, sel.history, *sel.subsets.values()):
                digest.update(np.ascontiguousarray(part).tobytes())
    return {"fit": fit, "total": total, "digest": digest.hexdigest()}


def run_tree(src: Path, dataset: str, method: str, mirror: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, __file__, "--child", dataset, "--methods", method,
               "--mirror", str(mirror)]  # fmt: skip
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    p = _cli.parser(__doc__.splitlines()[0], ["coil20", "isolet", "pie"], repeats=3)
    p.add_argument("--compare", type=Path, help="the other tree's src/ (the 'before')")
    p.add_argument("--methods", nargs="+", choices=list(RUNS), default=list(RUNS))
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.methods[0], args.mirror)))
        return
    if args.compare is None:
        p.error("--compare SRC is required (the code tree to measure against)")
    here = _cli.ROOT / "src"
    trees = (("before", args.compare), ("after", here))
    for _, src in trees:  # untimed: a tree's first run compiles and caches its numba kernels
        run_tree(src, "jaffe", "blufs", args.mirror)
    rows = []
    for dataset, method in itertools.product(args.datasets, args.methods):
        best = {"before": None, "after": None}
        for _ in range(max(1, args.repeats)):
            for side, src in trees:
                result = run_tree(src, dataset, method, args.mirror)
                if best[side] is None or result["total"] < best[side]["total"]:
                    best[side] = result
        b, a = best["before"], best["after"]
        row = [b["fit"], a["fit"], b["fit"] / a["fit"], b["total"], a["total"]]
        rows.append([dataset, method, len(RUNS[method]), *row, b["total"] / a["total"],
                     b["digest"] == a["digest"]])  # fmt: skip
    columns = ["dataset", "method", "runs", "fit_before_s", "fit_after_s", "fit_ratio",
               "job_before_s", "job_after_s", "job_ratio", "identical"]  # fmt: skip
    _cli.write_tsv("blufs_runs", columns, rows, args.out)


if __name__ == "__main__":
    main()
