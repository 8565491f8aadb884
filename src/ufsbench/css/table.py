"""Table 1 of the POCSS paper: our error ratios, the paper's, and the average ranks.

Per (dataset, method, k) the runs are summarised as mean and sample std (``ddof = 1``,
MATLAB's default, spec 5). Average ranks follow Demsar (2006): on each dataset the methods
are ranked by mean error ratio rounded to 3 decimals (1 = smallest; ties share the mean
rank), then averaged over datasets -- on the paper's own numbers this reproduces its
printed row exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..reference import add_notes, vs_paper

TOLERANCE = 0.005  # the fidelity target on an error ratio


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean, sample std and count of ``error_ratio`` per (dataset, method, k)."""
    grouped = runs.groupby(["dataset", "method", "k"], sort=True)["error_ratio"]
    out = grouped.agg(mean="mean", std=lambda v: v.std(ddof=1) if len(v) > 1 else np.nan)
    out["n_runs"] = grouped.size()
    return out.reset_index()


def average_ranks(means: pd.DataFrame, *, decimals: int = 3) -> pd.Series:
    """Average rank of each method over the datasets of ``means`` (columns dataset,
    method, mean); only datasets on which every method has a value count."""
    wide = means.pivot_table(index="dataset", columns="method", values="mean").dropna()
    if wide.empty:
        return pd.Series(dtype=float)
    ranks = wide.round(decimals).rank(axis=1, method="average")
    return ranks.mean(axis=0)


# pocss_vs_paper.tsv: the columns of :func:`ufsbench.reference.vs_paper` it keeps, in
# order, and the name each has in the file.
VS_PAPER_NAMES = {
    "dataset": "dataset",
    "method": "method",
    "k": "k",
    "ours": "ours_mean",
    "ours_std": "ours_std",
    "n_runs": "n_runs",
    "paper": "paper_mean",
    "paper_std": "paper_std",
    "diff": "difference",
}


def paper_comparison(summary: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """Ours vs the paper for every (dataset, method, k) both have, plus average-rank rows.

    ``reference``: :func:`ufsbench.reference.load_reference` of the paper's Table 1 (metric
    ``error_ratio``); the cells are :func:`ufsbench.reference.vs_paper`'s, in the paper's
    order. Columns: dataset, method, k, ours_mean, ours_std, n_runs, paper_mean,
    paper_std, difference (ours - paper), within_tolerance (``|difference| <= 0.005``).
    """
    table = vs_paper(
        reference,
        summary.assign(metric="error_ratio"),
        rows="both",
        companions=(),
        carry=("n_runs",),
        columns=VS_PAPER_NAMES,
    )
    table["within_tolerance"] = table["difference"].abs() <= TOLERANCE + 1e-12
    rows = []
    for k, part in table.groupby("k"):
        ours_rank = average_ranks(part.rename(columns={"ours_mean": "mean"}))
        paper_rank = average_ranks(part.rename(columns={"paper_mean": "mean"}))
        for method in ours_rank.index:
            rows.append(
                {
                    "dataset": "average_rank",
                    "method": method,
                    "k": k,
                    "ours_mean": ours_rank[method],
                    "paper_mean": paper_rank.get(method, np.nan),
                    "n_runs": part["dataset"].nunique(),
                }
            )
    ranks = pd.DataFrame(rows)
    if not ranks.empty:
        ranks["difference"] = ranks["ours_mean"] - ranks["paper_mean"]
        table = pd.concat([table, ranks], ignore_index=True)
    return table


METHOD_ORDER = ("two_stage", "aprx_svd", "greedy_css", "wastar", "iter_fs", "pocss")


def table1_wide(summary: pd.DataFrame, k: int, datasets) -> pd.DataFrame:
    """Table 1 layout: one row per dataset, one ``mean ± std`` cell per method, and the
    average-rank row (over the datasets where every listed method ran)."""
    part = summary[(summary["k"] == k) & summary["dataset"].isin(list(datasets))]
    methods = [m for m in METHOD_ORDER if m in set(part["method"])]
    methods += sorted(set(part["method"]) - set(methods))
    rows = []
    for dataset in datasets:
        cells = {"dataset": dataset}
        for method in methods:
            hit = part[(part["dataset"] == dataset) & (part["method"] == method)]
            if hit.empty:
                cells[method] = ""
                continue
            mean, std, n_runs = hit.iloc[0][["mean", "std", "n_runs"]]
            cells[method] = f"{mean:.3f}" if n_runs < 2 else f"{mean:.3f} ± {std:.3f}"
        rows.append(cells)
    ranks = average_ranks(part[part["method"].isin(methods)])
    rows.append({"dataset": "average rank", **{m: f"{ranks.get(m, np.nan):.2f}" for m in methods}})
    return pd.DataFrame(rows, columns=["dataset", *methods])


def render_markdown(wide: pd.DataFrame) -> str:
    head = "| " + " | ".join(wide.columns) + " |"
    rule = "|" + "|".join("---" for _ in wide.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in wide.itertuples(index=False)]
    return "\n".join([head, rule, *body]) + "\n"


def render_not_run(skipped: dict) -> str:
    """Markdown list of the datasets left out of the run, each with why (empty if none)."""
    if not skipped:
        return ""
    lines = [f"- {name}: {why}" for name, why in skipped.items()]
    return "## Not run\n\n" + "\n".join(lines) + "\n"


def comparison_with_skipped(
    comparison: pd.DataFrame,
    reference: pd.DataFrame,
    skipped: dict,
    notes: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The comparison plus one row per paper cell of a dataset we could not run, with
    the hand-written ``notes`` (:func:`ufsbench.reference.load_notes`: why a cell
    misses, e.g. a dataset whose copy differs from the authors') in ``note``."""
    rows = reference[reference["dataset"].isin(list(skipped))]
    if rows.empty:
        return add_notes(comparison, notes)
    extra = pd.DataFrame(
        {
            "dataset": rows["dataset"],
            "method": rows["method"],
            "k": rows["k"],
            "paper_mean": rows["mean"],
            "paper_std": rows["std"],
            "note": [f"not run: {skipped[d]}" for d in rows["dataset"]],
        }
    )
    return add_notes(pd.concat([comparison, extra], ignore_index=True), notes)
