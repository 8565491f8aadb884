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
come from the tie rule.
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


def scan(results: Path, count: int = 50) -> pd.DataFrame:
    """One row per (dataset, method, setting) of ``results`` (``results/<experiment>``):
    the cut used and how many of its top features come from the tie rule."""
    rows = []
    for path in sorted(results.glob("*/*/c*/selection.npz")):
        method, dataset = path.parts[-3], path.parts[-4]
        if method == "allfea":  # scored alike by design, and never cut: it keeps every feature
            continue
        for setting, selection in load_selections(path).items():
            if selection.subsets is not None:  # per-count subsets are not a tie-broken ranking
                continue
            cut = min(count, selection.n_features - 1)
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a run's results/<experiment> folder")
    parser.add_argument("--count", type=int, default=50, help="the cut (largest feature count)")
    parser.add_argument("--out", type=Path, help="also write the summary as a TSV")
    args = parser.parse_args(argv)
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
