"""Which selections pick features by the tie rule, not by their scores.

A ranking sorts scores in decreasing order, ties by lower column index
(:meth:`ufsbench.methods.base.Selection.from_scores`). When a method's scores tie across
the cut at ``m`` features (a reweighted l2,1 solver that switched all but a few rows of
``W`` off gives them all a norm of exactly 0), the features past the last distinct score
enter in column order: on images, the top rows of pixels. A table cell built on them
measures the column order, not the method. This tool scans a run's selections:

    python -m ufsbench.tools.tied_rankings results/<experiment> [--count 50] [--out F.tsv]

and prints, per dataset and method, how many settings cut a tie at ``--count`` features
(or at ``n_features - 1`` where the data have fewer) and how many of the top features
come from the tie rule. ``--run-folder measured/<paper>/runs/<run>`` writes what
``ufsbench.tools.publish_run`` writes for each published run: that summary at each
dataset's largest feature count (``tie_settings.tsv``) and, per table cell, how many of
its feature counts take a setting whose top features come partly from the tie rule
(``tie_cells.tsv``): the cells the tie rule can have moved.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import load_selections, write_table


def tie_picks(scores, ranking, count: int) -> int:
    """How many of the first ``count`` ranked features tie with the first one left out.

    Those features are in the top by the tie rule (column order): 0 when the cut falls
    between two distinct scores.
    """
    scores = np.asarray(scores, dtype=np.float64)
    ranking = np.asarray(ranking)
    if not 1 <= count < len(ranking):
        raise ValueError(f"count must be in [1, {len(ranking) - 1}], got {count}")
    ranked = scores[ranking]
    boundary = ranked[count]
    return int(np.count_nonzero(ranked[:count] == boundary))


def scan(results: Path, count: int | dict = 50, *, datasets=None, cache=None) -> pd.DataFrame:
    """One row per (dataset, method, setting) of ``results`` (``results/<experiment>``):
    the cut used and how many of its top features come from the tie rule.

    ``count``: the cut, or a cut per dataset; ``datasets``: those scanned (all by default);
    ``cache``: selections already loaded (:func:`method_selections`), filled as it goes.
    """
    rows = []
    folders = sorted({path.parent.parent for path in results.glob("*/*/c*/selection.npz")})
    for folder in folders:
        method, dataset = folder.name, folder.parent.name
        if method == "allfea":  # scored alike by design, and never cut: it keeps every feature
            continue
        if datasets is not None and dataset not in datasets:
            continue
        wanted = count[dataset] if isinstance(count, dict) else count
        for setting, selection in method_selections(results, dataset, method, cache).items():
            if selection.subsets is not None:  # per-count subsets are not a tie-broken ranking
                continue
            cut = min(wanted, selection.n_features - 1)
            if cut < 1:
                continue
            picks = tie_picks(selection.scores, selection.ranking, cut)
            rows.append((dataset, method, setting, cut, picks))
    return pd.DataFrame(rows, columns=["dataset", "method", "setting", "cut", "tie_picks"])


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method): settings, settings cut inside a tie, and the range of picks."""
    keys = ["dataset", "method"]
    settings = table.groupby(keys).size().rename("settings")
    tied = table[table.tie_picks > 0].groupby(keys).tie_picks
    found = tied.agg(tied_settings="size", min_picks="min", max_picks="max")
    return found.join(settings)[["settings", *found.columns]].reset_index()


SETTINGS_COLUMNS = ["dataset", "method", "settings", "tied_settings", "min_picks", "max_picks"]
CELLS_COLUMNS = ["dataset", "method", "protocol", "metric", "counts", "tied_counts", "max_picks"]


def method_selections(results: Path, dataset: str, method: str, cache=None) -> dict:
    """Every setting's selection of one method on one dataset, over all its chunks
    (kept in ``cache``, a dict, when given: a run's files are read once)."""
    if cache is not None and (dataset, method) in cache:
        return cache[dataset, method]
    found = {}
    for path in sorted((results / dataset / method).glob("c*/selection.npz")):
        found.update(load_selections(path))
    if cache is not None:
        cache[dataset, method] = found
    return found


def cell_ties(curves: pd.DataFrame, results: Path, *, metrics=None, cache=None) -> pd.DataFrame:
    """Per table cell (dataset, method, protocol, metric) of ``curves`` (the run's
    ``tables/curves.tsv``: the setting each protocol took at each feature count): at how
    many of its counts that setting's top features come partly from the tie rule, and the
    most features it put there. Only the cells where it did are listed. ``cache``: as for
    :func:`scan`."""
    curves = curves[curves["method"] != "allfea"]
    if metrics is not None:
        curves = curves[curves["metric"].isin(list(metrics))]
    keys = ["dataset", "method", "protocol", "metric"]
    cache = {} if cache is None else cache
    rows = []
    for (dataset, method, protocol, metric), part in curves.groupby(keys, sort=False):
        selections = method_selections(results, dataset, method, cache)
        picks = []
        for count, setting in zip(part["n_features"], part["params"], strict=True):
            if setting not in selections:
                raise SystemExit(f"{results}/{dataset}/{method}: no selection of {setting!r}")
            selection = selections[setting]
            tied = selection.subsets is None and count < selection.n_features
            picks.append(tie_picks(selection.scores, selection.ranking, count) if tied else 0)
        picks = np.asarray(picks)
        if picks.any():
            tied_counts = int(np.count_nonzero(picks))
            rows.append((dataset, method, protocol, metric, len(picks), tied_counts, picks.max()))
    return pd.DataFrame(rows, columns=CELLS_COLUMNS)


def run_ties(results: Path, datasets, *, metrics=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tie summaries of a finished run over ``datasets``: per (dataset, method) at the
    dataset's largest feature count (:func:`summary`), and per table cell
    (:func:`cell_ties`)."""
    curves = pd.read_csv(results / "tables" / "curves.tsv", sep="\t")
    curves = curves[curves["dataset"].isin(list(datasets))]
    if curves.empty:
        raise SystemExit(f"{results}/tables/curves.tsv has no curves of {', '.join(datasets)}")
    cut = curves[curves["method"] != "allfea"].groupby("dataset")["n_features"].max()
    cache: dict = {}  # both scans read the same selections
    table = scan(results, cut.to_dict(), datasets=list(cut.index), cache=cache)
    settings = summary(table) if len(table) else pd.DataFrame(columns=SETTINGS_COLUMNS)
    return settings, cell_ties(curves, results, metrics=metrics, cache=cache)


def with_tie_counts(versus: pd.DataFrame, cells: pd.DataFrame, scanned) -> pd.DataFrame:
    """A comparison with the paper (``<paper>_vs_paper.tsv``) with two columns before its
    note: ``tied_counts``, at how many feature counts the setting its protocol took has
    top features completed by the tie rule (:func:`cell_ties`), and ``tie_picks_max``, the
    most such features; 0 for the other cells of the ``scanned`` datasets, empty for the
    datasets of runs never scanned."""
    found = {
        (r.dataset, r.method, r.protocol, r.metric): (r.tied_counts, r.max_picks)
        for r in cells.itertuples(index=False)
    }
    scanned = set(scanned)
    keys = versus[["dataset", "method", "protocol", "our_metric"]].itertuples(index=False)
    none = (pd.NA, pd.NA)
    rows = [found.get(tuple(key), (0, 0) if key[0] in scanned else none) for key in keys]
    out = versus.drop(columns=["tied_counts", "tie_picks_max"], errors="ignore")
    at = out.columns.get_loc("note") if "note" in out.columns else len(out.columns)
    out.insert(at, "tied_counts", pd.array([r[0] for r in rows], dtype="Int64"))
    out.insert(at + 1, "tie_picks_max", pd.array([r[1] for r in rows], dtype="Int64"))
    return out


def write_run_ties(folder: Path, settings: pd.DataFrame, cells: pd.DataFrame) -> None:
    write_table(folder / "tie_settings.tsv", settings)
    write_table(folder / "tie_cells.tsv", cells)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a run's results/<experiment> folder")
    parser.add_argument("--count", type=int, default=50, help="the cut (largest feature count)")
    parser.add_argument("--out", type=Path, help="also write the summary as a TSV")
    parser.add_argument(
        "--run-folder",
        type=Path,
        help="write tie_settings.tsv and tie_cells.tsv of --datasets into this published run",
    )
    parser.add_argument("--datasets", nargs="+", help="the published run's datasets")
    parser.add_argument(
        "--metrics", nargs="+", default=["acc", "nmi_sqrt"], help="the tables' metrics"
    )
    args = parser.parse_args(argv)
    if args.run_folder is not None:
        if not args.datasets:
            parser.error("--run-folder needs --datasets")
        ties = run_ties(args.results, args.datasets, metrics=args.metrics)
        write_run_ties(args.run_folder, *ties)
        print(f"wrote {args.run_folder}/tie_settings.tsv and tie_cells.tsv")
        return
    table = scan(args.results, args.count)
    if table.empty:
        raise SystemExit(f"no selections under {args.results}/<dataset>/<method>/c*/")
    found = summary(table)
    if args.out is not None:
        write_table(args.out, found)
    if found.empty:
        print(f"no setting of {len(table)} cuts a tie at {args.count} features")
    else:
        print(found.to_string(index=False))


if __name__ == "__main__":
    main()
