"""MCFS against scikit-feature's MCFS: same data, same graph, one thread, one run.

    /tmp/skfenv/bin/python benchmarks/speed/mcfs_vs_skfeature.py [--datasets jaffe coil20]
        [--count 50] [--repeats 3] [--mirror PATH]

scikit-feature is not a dependency: run this under an interpreter that has it, e.g. a
throw-away venv (``python -m venv --system-site-packages /tmp/skfenv``, then
``/tmp/skfenv/bin/pip install --no-deps skfeature-chappers``), with ``PYTHONPATH=src``.

Per dataset (binary 5-NN graph built once, ``K = n_clusters`` eigenvectors, one
cardinality ``m = --count``), best CPU time of ``--repeats``, the sides alternating:

* ``full``: ``skfeature...MCFS.mcfs(X, n_selected_features=m, W=graph, n_clusters=K)``
  against ``ufsbench.methods.mcfs.select(X, graph=graph, n_clusters=K,
  feature_counts=[m])`` (our defaults). Their spectral step is a dense ``eigh`` of the
  n x n normalised affinity; ours a sparse ``eigsh``.
* ``regression``: the regressions alone on the same eigenvectors ``Y`` (ours): their
  step (``sklearn.linear_model.Lars(n_nonzero_coefs=m).fit(X, y)`` per column, as
  scikit-feature calls it) against ours (``mcfs._lasso_paths``, our defaults).
* ``compiled``: both again with our ``solver="compiled"`` (:mod:`ufsbench.lars`): the
  whole method ``select(..., solver="compiled")``, and the regressions alone
  ``lars.lasso_paths(X'X, X'Y, m, n)`` (the Gram matrix included: it is part of the
  solver's input). ``compiled_first_call_cpu_s``: the first, untimed-elsewhere call of
  the regressions in this process, i.e. numba's import and the load of its on-disk
  cache (or the compilation, when there is no cache yet): what one workflow job pays
  once on top of the timed cost.

Agreement (the outputs are not the same method, so what agrees is checked, and how the
rest differs is counted):

* ``lar_max_abs_diff``: scikit-feature's regression is plain LAR (no lasso modification)
  with an intercept, stopped at ``m`` nonzeros. ``lars_path(method="lar")`` on the centred
  ``X`` with the same ``Y`` gives the same coefficients; the column is the largest
  difference.
* ``graph_components``: why their full function's coefficients are not compared column
  by column with ours: with ``c`` connected components the eigenvalue 1 of the
  normalised affinity has multiplicity ``c``, so ``c - 1`` of the ``K`` eigenvectors are
  any basis of that eigenspace (their dense ``eigh`` and our ``eigsh`` pick different
  ones), and LAR is not linear in ``y``.
* ``lar_steps`` (``m * K``), ``lasso_steps`` (our paths' steps to ``m`` nonzeros: the
  lasso drops variables, so it needs more) and ``lasso_steps_computed`` (what our step
  budgets ran, restarts included); ``first_drop``: the earliest step at which one of our
  (centred) lasso paths leaves LAR's.
* ``compiled_path_max_abs_diff``: the largest difference between the compiled and the
  default paths (same eigenvectors), over the steps both have (``compiled_steps`` and
  ``lasso_steps`` can differ: ``lars_path`` leaves a dropped coefficient at a rounding
  residue for one step, which counts as nonzero and can end its path one step early) and
  ``compiled_top_m_overlap_with_default``: features shared by the two solvers' top-``m``.
* ``top_m_overlap``: features shared by the two top-``m`` lists. They differ by design:
  ours is the lasso path, unscaled ``X`` and unit-norm ``|a_k|`` (module docstring of
  ``ufsbench.methods.mcfs``); scikit-feature scores ``max_k a_kj`` without the absolute
  value, so a feature with only negative coefficients ranks last.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402


def first_drop(Xc, Gram, y, m, lars_path) -> int:
    """The first step at which the lasso path's active set differs from LAR's (or m)."""
    kw = dict(Xy=Xc.T @ y, Gram=Gram, max_iter=m)
    _, lar_active, _ = lars_path(Xc, y, method="lar", **kw)
    _, _, coefs = lars_path(Xc, y, method="lasso", **kw)
    for step in range(1, coefs.shape[1]):
        if set(np.flatnonzero(coefs[:, step])) != set(lar_active[:step]):
            return step
    return m


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["jaffe", "coil20"], 3)
    p.add_argument("--count", type=int, default=50, help="the cardinality m")
    args = p.parse_args(argv)
    try:
        from skfeature.function.sparse_learning_based.MCFS import mcfs as skf_mcfs
    except ImportError:
        raise SystemExit("scikit-feature is not importable: see this script's docstring") from None
    from scipy.sparse.csgraph import connected_components
    from sklearn.linear_model import Lars, lars_path

    from ufsbench import lars
    from ufsbench.methods import mcfs

    tally = {"steps": 0}

    def counting_lars_path(*a, **kw):
        result = lars_path(*a, **kw)
        tally["steps"] += result[2].shape[1] - 1
        return result

    def measure(name):
        X, y, k, graph = _cli.load_with_graph(name, args.mirror)
        Y = mcfs._spectral_embedding(graph, k, 0)
        Gram = X.T @ X if X.shape[1] <= X.shape[0] else None
        n = X.shape[0]
        first_call, _ = _cli.best_time(lambda: lars.lasso_paths(X.T @ X, X.T @ Y, m, n), 1)
        sides = {
            "theirs_full": lambda: skf_mcfs(
                X, n_selected_features=m, W=graph, n_clusters=k, mode="raw"
            ),
            "ours_full": lambda: mcfs.select(X, graph=graph, n_clusters=k, feature_counts=[m]),
            "theirs_regression": lambda: [Lars(n_nonzero_coefs=m).fit(X, col).coef_ for col in Y.T],
            "ours_regression": lambda: mcfs._lasso_paths(X, Gram, Y, m),
            "compiled_full": lambda: mcfs.select(
                X, graph=graph, n_clusters=k, feature_counts=[m], solver="compiled"
            ),
            "compiled_regression": lambda: lars.lasso_paths(X.T @ X, X.T @ Y, m, n),
        }
        best, out = dict.fromkeys(sides, np.inf), {}
        for _ in range(args.repeats):
            for side, function in sides.items():
                t, out[side] = _cli.best_time(function, 1)
                best[side] = min(best[side], t)

        # Agreement and step counts, untimed.
        W_theirs = out["theirs_full"]
        Xc = X - X.mean(axis=0)
        Gc = Xc.T @ Xc if Gram is not None else None
        lar = [lars_path(Xc, c, Xy=Xc.T @ c, Gram=Gc, method="lar", max_iter=m)[2][:, -1]
               for c in Y.T]  # fmt: skip
        pairs = zip(lar, out["theirs_regression"], strict=True)
        lar_diff = max(float(np.abs(a - b).max()) for a, b in pairs)
        components = connected_components(graph)[0]
        tally["steps"] = 0
        mcfs.lars_path = counting_lars_path
        try:
            paths = mcfs._lasso_paths(X, Gram, Y, m)
        finally:
            mcfs.lars_path = lars_path
        drop = min(first_drop(Xc, Gc, c, m, lars_path) for c in Y.T)
        theirs_top = np.argsort(W_theirs.max(axis=1))[::-1][:m]
        overlap = len(set(theirs_top) & set(out["ours_full"].subsets[m]))
        fast_paths = out["compiled_regression"]
        path_diff = max(
            float(np.abs(a[:, : b.shape[1]] - b[:, : a.shape[1]]).max())
            for a, b in zip(paths, fast_paths, strict=True)
        )
        fast_overlap = len(set(out["compiled_full"].subsets[m]) & set(out["ours_full"].subsets[m]))
        tf, of = best["theirs_full"], best["ours_full"]
        tr, our = best["theirs_regression"], best["ours_regression"]
        cf, cr = best["compiled_full"], best["compiled_regression"]
        return (
            name, f"{X.shape[0]}x{X.shape[1]}", k, m, tf, of, tf / of, tr, our, tr / our,
            cf, tf / cf, cr, tr / cr, first_call,
            lar_diff, components, m * k, sum(p.shape[1] - 1 for p in paths), tally["steps"], drop,
            sum(p.shape[1] - 1 for p in fast_paths), path_diff, fast_overlap, overlap,
        )  # fmt: skip

    m = args.count
    with _cli.one_thread():
        rows = [measure(name) for name in args.datasets]
    columns = (
        "dataset", "shape", "n_eigen", "m", "skf_full_cpu_s", "ours_full_cpu_s",
        "full_ratio_skf_over_ours", "skf_regression_cpu_s", "ours_regression_cpu_s",
        "regression_ratio_skf_over_ours", "compiled_full_cpu_s",
        "full_ratio_skf_over_compiled", "compiled_regression_cpu_s",
        "regression_ratio_skf_over_compiled", "compiled_first_call_cpu_s", "lar_max_abs_diff",
        "graph_components", "lar_steps", "lasso_steps", "lasso_steps_computed", "first_drop",
        "compiled_steps", "compiled_path_max_abs_diff", "compiled_top_m_overlap_with_default",
        "top_m_overlap",
    )  # fmt: skip
    _cli.write_tsv("mcfs_vs_skfeature", columns, rows, args.out)


if __name__ == "__main__":
    main()
