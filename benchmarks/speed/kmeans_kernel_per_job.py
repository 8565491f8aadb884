"""The k-means kernel per evaluation job: NumPy throughout vs "auto" turning to numba.

    python benchmarks/speed/kmeans_kernel_per_job.py [--datasets ...] [--settings 25]
        [--seeds 100] [--repeats 2] [--crossval-settings 8]

``litekmeans(kernel="auto")`` used NumPy below ``AUTO_NUMBA_SIZE`` whatever the number of
fits, to spare numba's import (~0.3 CPU s); now it turns to numba once a process has run
``AUTO_NUMBA_FITS`` fits. Per dataset of the LSDCL paper (its feature counts, k = its
classes):

* ``same_runs``: seeds ``0..--seeds-1`` at every feature count, the top-m columns of a
  LapScore ranking, ``kernel="numpy"`` against ``kernel="numba"``: runs whose labels,
  centres, inertia, iteration count and start are bitwise equal (of ``runs``);
* ``numpy_ms`` / ``numba_ms``: CPU milliseconds per fit on the top-50 (or all) columns;
* ``job_before_s`` / ``job_after_s``: a fresh interpreter imports the evaluation code and
  scores ``--settings`` seeded random rankings at every count x 20 repeats with
  :func:`ufsbench.evaluate.evaluate_selection` (one shared cache: an evaluate job's work
  on a chunk), timed whole (CPU seconds of the process, imports included), with
  ``AUTO_NUMBA_FITS`` set to infinity (the rule before) and as shipped; the sides
  alternate, the best of ``--repeats`` is kept; ``ratio`` = before / after.

The ``crossval`` row: one draw of the LSDCL cross-validation on USPS49 (``n_train`` 700,
the first ``--crossval-settings`` settings of a coarse grid), the same two sides.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

DATASETS = ("housing", "wine", "zoo", "ecoli343", "jaffe", "orl", "tox_171", "glioma")
BEFORE = "import ufsbench.kmeans as _k; _k.AUTO_NUMBA_FITS = float('inf')\n"

JOB = """
import numpy as np
from ufsbench.evaluate import evaluate_selection
from ufsbench.methods.base import Selection
from ufsbench.seeding import derive_seed
data = np.load({data!r})
X, y = data["X"], data["y"]
rng = np.random.default_rng(0)
cache = {{}}
for s in range({settings}):
    sel = Selection.from_scores(rng.random(X.shape[1]))
    evaluate_selection(X, y, sel, {counts!r}, n_clusters={k}, seed_key=({name!r},),
                       cache=cache, as_frame=False)
"""

CROSSVAL = """
import itertools
import numpy as np
from ufsbench.crossval import cross_validate
data = np.load({data!r})
grid = [1e-5, 1e-2, 1.0, 1e2, 1e5]
settings = [dict(id=f"{{a}}_{{b}}_{{g}}", hyper=dict(lambda1=a, lambda2=b, gamma=g),
                 graph=dict(weight="binary"))
            for a, b, g in itertools.product(grid, grid, (1.0, 8.0))][:{settings}]
cross_validate(data["X"], data["y"], "lsdcl", settings, n_train=700, draws=[0],
               feature_counts={counts!r}, n_clusters=2, k=5, repeats=20,
               seed_key=("usps49", "lsdcl"))
"""


def child_cpu(code: str) -> float:
    """CPU seconds (user + system) of a fresh interpreter running ``code``, imports included."""
    env = dict(os.environ, PYTHONPATH=str(_cli.ROOT / "src"))
    return _cli.child_cpu([sys.executable, "-c", code], env=env)


def both_sides(code: str, repeats: int) -> tuple[float, float]:
    """Best CPU seconds of ``code`` with the rule before and as shipped, alternating."""
    before, after = np.inf, np.inf
    for _ in range(max(1, repeats)):
        before = min(before, child_cpu(BEFORE + code))
        after = min(after, child_cpu(code))
    return before, after


def same_runs(X, ranking, counts, k, seeds):
    """``(equal, runs)``: fits bitwise equal under both kernels, of all compared."""
    from ufsbench.kmeans import litekmeans

    equal = runs = 0
    for m in counts:
        Xm = np.ascontiguousarray(X[:, ranking[:m]])
        for seed in range(seeds):
            a = litekmeans(Xm, k, random_state=seed, kernel="numpy")
            b = litekmeans(Xm, k, random_state=seed, kernel="numba")
            runs += 1
            equal += bool(
                np.array_equal(a.labels, b.labels)
                and np.array_equal(a.centers, b.centers)
                and a.inertia == b.inertia
                and a.n_iter == b.n_iter
                and np.array_equal(a.init, b.init)
            )
    return equal, runs


def per_fit_ms(X, k, kernel, fits=100):
    from ufsbench.kmeans import litekmeans

    litekmeans(X, k, random_state=0, kernel=kernel)  # compile or load the cache first
    seconds, _ = _cli.best_time(
        lambda: [litekmeans(X, k, random_state=s, kernel=kernel) for s in range(fits)], 2
    )
    return 1e3 * seconds / fits


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], DATASETS, 2)
    p.add_argument("--settings", type=int, default=25, help="rankings per evaluate job")
    p.add_argument("--seeds", type=int, default=100, help="seeds per count (exactness)")
    p.add_argument("--crossval-settings", type=int, default=8, help="0: no crossval row")
    p.add_argument("--tmp", type=Path, default=Path("/tmp"), help="where the data go")
    args = p.parse_args(argv)
    from ufsbench.api import rank_features
    from ufsbench.graph import knn_graph

    rows = []
    with _cli.one_thread():
        for name in args.datasets:
            X, y = _cli.load(name, args.mirror)
            entry = _cli.registry_entry(name)
            counts = [m for m in entry.feature_counts if m <= X.shape[1]]
            k = len(np.unique(y))
            ranking = rank_features(X, "lapscore", graph=knn_graph(X, 5)).ranking
            equal, runs = same_runs(X, ranking, counts, k, args.seeds)
            top = np.ascontiguousarray(X[:, ranking[: max(counts)]])
            data = args.tmp / f"kernel_per_job_{name}.npz"
            np.savez(data, X=X, y=y)
            job = JOB.format(data=str(data), settings=args.settings, counts=counts, k=k, name=name)
            before, after = both_sides(job, args.repeats)
            numpy_ms, numba_ms = per_fit_ms(top, k, "numpy"), per_fit_ms(top, k, "numba")
            row = (name, "evaluate", X.shape[0], max(counts), k, equal, runs)
            rows.append((*row, numpy_ms, numba_ms, before, after, before / after))
            data.unlink()
        if args.crossval_settings:
            X, y = _cli.load("usps49", args.mirror)
            data = args.tmp / "kernel_per_job_usps49.npz"
            np.savez(data, X=X, y=y)
            counts = list(range(5, 55, 5))
            code = CROSSVAL.format(data=str(data), settings=args.crossval_settings, counts=counts)
            before, after = both_sides(code, args.repeats)
            nan = float("nan")
            rows.append(("usps49", "crossval", 700, 50, 2, "", "", nan, nan, before, after,
                         before / after))  # fmt: skip
            data.unlink()
    columns = ("dataset", "job", "n", "max_count", "k", "same_runs", "runs", "numpy_ms",
               "numba_ms", "job_before_s", "job_after_s", "ratio")  # fmt: skip
    _cli.write_tsv("kmeans_kernel_per_job", columns, rows, args.out)


if __name__ == "__main__":
    main()
