"""Profile a setting of RUFS, L1UFS, LSDCL and its ablations on COIL20; time a chunk's memo.

    python benchmarks/speed/bench_profile_methods.py [--methods rufs l1ufs lsdcl]
        [--datasets coil20] [--mirror PATH] [--profile] [--top N] [--chunk N] [--out TSV]

COIL20 (1440 x 1024, 20 clusters) through the checked loader from the mirror, the LSDCL
config's graph (5-NN, 0-1 weights), BLAS on one thread, CPU seconds (``process_time``).

``--profile``: each method's default setting (the middle of its grid, every weight 1)
runs once under cProfile (CPU-time clock) and the ``--top`` functions by internal time are
printed. The profiles (issue 27 item 4): RUFS 3.8 CPU s, of which its k-means start
(10 restarts) ~1.1 s and its local-learning matrix ~0.2 s; LSDCL 5.6 s, of which its two
k-means starts (samples and features) about half; L1UFS 33 s, of which the generalised
``eigh`` 55 %, GEMMs 40 %, the Laplacian eigenbasis 6 %. Those starts depend on the data,
graph and seed only, so ``methods/_memo.py`` now computes them once per process.

``--chunk N`` (default 3; 0 skips): the first ``N`` settings of each method's chunk below
run in one process, as a selection job runs its chunk, alternately with a cold memo
(cleared before the setting: what every setting cost before the memo) and a warm one
(kept: the memo's cost). Rows give both CPU times, their ratio (measured in this one run)
and whether the two rankings are byte-identical (SHA-256 of the ranking). The memo has no
public API: it is cleared through ``ufsbench.methods._memo``, the code under test.
"""

from __future__ import annotations

import cProfile
import hashlib
import io
import pstats
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench import rank_features  # noqa: E402
from ufsbench.methods import _memo  # noqa: E402

CHUNKS = {  # a few settings of each grid, as one job's chunk
    "rufs": [{"nu": 1.0, "alpha": a, "beta": 1.0} for a in (1.0, 0.1, 10.0)],
    "l1ufs": [{"lambda1": 1.0, "lambda2": b} for b in (1.0, 0.1, 10.0)],
    "lsdcl": [{"lambda1": 1.0, "lambda2": 1.0, "gamma": g} for g in (1.0, 2.0, 4.0)],
    # the ablations share LSDCL's starts (the same memo)
    "lsdcl_m1": [{"lambda1": 1.0, "lambda2": b} for b in (1.0, 0.1, 10.0)],
    "lsdcl_m2": [{"lambda1": 1.0, "lambda2": b} for b in (1.0, 0.1, 10.0)],
    "lsdcl_m3": [{"lambda1": 1.0, "lambda2": 1.0, "gamma": g} for g in (1.0, 2.0, 4.0)],
}
SETTINGS = {
    "rufs": {"nu": 1.0, "alpha": 1.0, "beta": 1.0},
    "l1ufs": {"lambda1": 1.0, "lambda2": 1.0},
    "lsdcl": {"lambda1": 1.0, "lambda2": 1.0, "gamma": 1.0},
    "lsdcl_m1": {"lambda1": 1.0, "lambda2": 1.0},
    "lsdcl_m2": {"lambda1": 1.0, "lambda2": 1.0},
    "lsdcl_m3": {"lambda1": 1.0, "lambda2": 1.0, "gamma": 1.0},
}


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["coil20"], repeats=1)
    p.add_argument("--methods", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    p.add_argument("--profile", action="store_true")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--chunk", type=int, default=3, help="settings per chunk (0: none)")
    args = p.parse_args(argv)
    rows = []
    with _cli.one_thread():
        for dataset in args.datasets:
            X, y, c, graph = _cli.load_with_graph(dataset, args.mirror)
            for method in args.methods:
                if args.profile:
                    _profile(X, method, graph, c, args.top)
                for setting in CHUNKS[method][: args.chunk]:
                    cold, cold_hash = _timed(X, method, graph, c, setting, clear=True)
                    warm, warm_hash = _timed(X, method, graph, c, setting, clear=False)
                    label = ",".join(f"{k}={v:g}" for k, v in setting.items())
                    rows.append((dataset, method, label, cold, warm, cold / warm,
                                 cold_hash == warm_hash))  # fmt: skip
    header = ("dataset", "method", "setting", "cold_cpu_s", "warm_cpu_s", "ratio",
              "ranking_identical")  # fmt: skip
    _cli.write_tsv("profile_methods", header, rows, args.out)


def _timed(X, method, graph, c, setting, *, clear):
    """CPU seconds of one setting and the SHA-256 of its ranking (memo cleared first if asked)."""
    if clear:
        _memo.clear()
    start = time.process_time()
    sel = rank_features(X, method, graph=graph, n_clusters=c, **setting)
    seconds = time.process_time() - start
    return seconds, hashlib.sha256(np.asarray(sel.ranking, dtype=np.int64).tobytes()).hexdigest()


def _profile(X, method, graph, c, top):
    _memo.clear()
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    rank_features(X, method, graph=graph, n_clusters=c, **SETTINGS[method])
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(top)
    print(f"# profile of {method} {SETTINGS[method]}", text.getvalue(), sep="\n", flush=True)


if __name__ == "__main__":
    main()
