"""LapScore, SPEC, NDFS and UDFS against scikit-feature's: same data, same graph, one thread.

    PYTHONPATH=src /tmp/skfenv/bin/python benchmarks/speed/engines_vs_skfeature.py \
        [--datasets jaffe coil20] [--methods lapscore spec ndfs udfs] [--count 50] \
        [--repeats 3] [--mirror PATH] [--out TSV]

scikit-feature is not a dependency: run this under an interpreter that has it, e.g. a
throw-away venv (``python -m venv --system-site-packages /tmp/skfenv``, then
``/tmp/skfenv/bin/pip install --no-deps skfeature-chappers``), with ``PYTHONPATH=src``.
(MCFS has its own script, ``mcfs_vs_skfeature.py``.)

Per dataset: one heat-kernel 5-NN graph (``ufsbench.graph.knn_graph(X, 5,
weight="heat")``) built once and given to both sides; per method the best CPU time of
``--repeats`` (the sides alternating; NDFS and UDFS, whose peers run up to 1000
iterations, once). Ratio = theirs / ours (above 1: ours is faster). Each side is called
as a user calls it:

* LapScore: ``lap_score(X, W=graph, mode="index")`` vs ``lapscore.select(X, graph=graph)``.
* SPEC: ``spec(X, W=graph, style=0, mode="raw")`` (all eigenpairs but the trivial one,
  i.e. ``phi2``) vs ``spec.select(X, graph=graph, n_clusters=c)`` (``style="phi2"``, the
  default). Theirs forms the dense n x n Laplacian and its full ``eigh``; ours needs no
  eigenpair for ``phi2``.
* NDFS: ``ndfs(X, W=graph, n_clusters=c, alpha=1, beta=1, gamma=1e8)`` vs
  ``ndfs.select(X, graph=graph, n_clusters=c)`` (the same weights, our defaults), each
  with its own start: theirs k-means on ``X`` (a start ``F0`` cannot be given: with it
  scikit-feature's objective reads an unset ``n_clusters`` and fails), ours k-means on
  the spectral embedding. Ours runs its default 100 iterations on the normalised
  Laplacian; theirs uses ``L = D - S`` and stops when its objective moves by less than
  1e-3 (at most 1000 iterations). The iteration counts differ, so the per-iteration
  ratio is reported too (each side's start included in its whole time).
* UDFS: ``udfs(X, gamma=0.1, k=5, n_clusters=c)`` vs ``udfs.select(X, n_clusters=c,
  gamma=0.1, lam=0.1, k=5)``: scikit-feature uses ``gamma`` also as the ridge of the local
  Gram matrices, so ours is given ``lam = gamma`` for the same problem. Ours stops at
  ``tol = 1e-4`` relative (at most 20 iterations), theirs at 1e-3 absolute (at most
  1000); per-iteration ratio as for NDFS.

Agreement, column ``agreement``:

* LapScore and SPEC: ``ranking_same_first`` (how many leading places of the two full
  rankings are equal, of ``d``; constant features have no score, and scikit-feature's
  LapScore ranks them above the worst scored ones, ours last) and, for SPEC,
  ``score_max_rel_diff`` (their ``phi2`` against minus our score, features with a
  score on both sides). Their LapScore returns no scores, only the ranking.
* NDFS and UDFS: ``top_m_overlap`` (features shared by the two top ``--count``). They are
  not the same computation, so they are not expected to agree: NDFS's Laplacian
  (unnormalised there) and reweighting (``0.5 / ||w||`` and a 1e-6 ridge there), UDFS's
  local selection matrices (scikit-feature builds ``S_i`` from the neighbours of samples
  ``0..k``, not of sample ``i``) and both stopping rules differ.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

METHODS = ("lapscore", "spec", "ndfs", "udfs")
ITERATIVE = ("ndfs", "udfs")


def counted_iterations(function):
    """``function()``'s result and the number of objective lines it printed: a
    scikit-feature NDFS or UDFS call with ``verbose=True`` prints one per iteration and
    returns no count."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        result = function()
    return result, buffer.getvalue().count("obj at iter")


def sides(method, X, graph, c):
    """``{side: call}`` of one method; each call returns ``(ranking, extra, iterations)``."""
    from skfeature.function.similarity_based.lap_score import lap_score
    from skfeature.function.similarity_based.SPEC import spec as skf_spec
    from skfeature.function.sparse_learning_based.NDFS import ndfs as skf_ndfs
    from skfeature.function.sparse_learning_based.UDFS import udfs as skf_udfs

    from ufsbench.methods import lapscore, ndfs, spec, udfs

    def top_rows(W):  # scikit-feature's W (d, c) -> ranking by row norms, best first
        return np.argsort(-np.sqrt((W * W).sum(axis=1)), kind="stable")

    if method == "lapscore":
        return {
            "theirs": lambda: (np.asarray(lap_score(X, W=graph, mode="index")), None, 0),
            "ours": lambda: (lapscore.select(X, graph=graph).ranking, None, 0),
        }
    if method == "spec":

        def theirs():
            phi2 = skf_spec(X, W=graph, style=0, mode="raw")
            return np.argsort(phi2, kind="stable"), phi2, 0

        def ours():
            sel = spec.select(X, graph=graph, n_clusters=c)
            return sel.ranking, -sel.scores, 0

        return {"theirs": theirs, "ours": ours}
    if method == "ndfs":

        def theirs():
            W, iterations = counted_iterations(
                lambda: skf_ndfs(X, W=graph, n_clusters=c, alpha=1.0, beta=1.0, gamma=1e8,
                                 mode="raw", verbose=True)
            )  # fmt: skip
            return top_rows(W), None, iterations

        def ours():
            sel = ndfs.select(X, graph=graph, n_clusters=c, alpha=1.0, beta=1.0, gamma=1e8)
            return sel.ranking, None, sel.n_iter

        return {"theirs": theirs, "ours": ours}
    if method == "udfs":

        def theirs():
            W, iterations = counted_iterations(
                lambda: skf_udfs(X, gamma=0.1, k=5, n_clusters=c, mode="raw", verbose=True)
            )
            return top_rows(W), None, iterations

        def ours():
            sel = udfs.select(X, n_clusters=c, gamma=0.1, lam=0.1, k=5)
            return sel.ranking, None, sel.n_iter

        return {"theirs": theirs, "ours": ours}
    raise SystemExit(f"unknown method {method!r} (known: {', '.join(METHODS)})")


def agreement(method, out, m) -> str:
    (r_t, s_t, _), (r_o, s_o, _) = out["theirs"], out["ours"]
    if method in ITERATIVE:
        return f"top_m_overlap={len(set(r_t[:m]) & set(r_o[:m]))}"
    differ = np.flatnonzero(r_t != r_o)
    text = f"ranking_same_first={differ[0] if len(differ) else len(r_t)}/{len(r_t)}"
    if s_t is not None:
        both = (s_t < 1000) & np.isfinite(s_o)  # scikit-feature marks unscored features 1000
        diff = np.abs(s_t[both] - s_o[both]) / np.maximum(np.abs(s_t[both]), 1e-300)
        text += f";score_max_rel_diff={diff.max():.3g}"
    return text


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["jaffe", "coil20"], 3)
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    p.add_argument("--count", type=int, default=50, help="m of the top-m overlap")
    args = p.parse_args(argv)
    try:
        import skfeature  # noqa: F401
    except ImportError:
        raise SystemExit("scikit-feature is not importable: see this script's docstring") from None

    rows = []
    with _cli.one_thread():
        for name in args.datasets:
            X, y, c, graph = _cli.load_with_graph(name, args.mirror, weight="heat")
            for method in args.methods:
                calls = sides(method, X, graph, c)
                repeats = 1 if method in ITERATIVE else args.repeats
                best, out = dict.fromkeys(calls, np.inf), {}
                for _ in range(repeats):
                    for side, call in calls.items():
                        t, out[side] = _cli.best_time(call, 1)
                        best[side] = min(best[side], t)
                t, o = best["theirs"], best["ours"]
                it_t, it_o = out["theirs"][2], out["ours"][2]
                per_iteration = (t / it_t) / (o / it_o) if it_t and it_o else float("nan")
                rows.append((
                    name, f"{X.shape[0]}x{X.shape[1]}", method, t, o, t / o, it_t, it_o,
                    per_iteration, agreement(method, out, args.count),
                ))  # fmt: skip
    columns = (
        "dataset", "shape", "method", "skf_cpu_s", "ours_cpu_s", "ratio_skf_over_ours",
        "skf_iterations", "ours_iterations", "per_iteration_ratio", "agreement",
    )  # fmt: skip
    _cli.write_tsv("engines_vs_skfeature", columns, rows, args.out)


if __name__ == "__main__":
    main()
