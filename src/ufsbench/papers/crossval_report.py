"""The cross-validation's tables (LSDCL paper, Tables 4-5) from its per-size summaries.

The workflow's table jobs render them here from one run's summary, and the publication
renders them here again from the summaries of runs over disjoint training sizes
(:func:`ufsbench.papers.merge.merge_crossval`): one renderer, so a merged publication
equals one run over all the sizes.
"""

from __future__ import annotations

import pandas as pd

from ..crossval import render_markdown, vs_paper_columns
from ..reference import vs_paper


def crossval_markdown(summary: pd.DataFrame) -> str:
    """Per selection, test then train, ACC then NMI: one table of sizes x counts each."""
    blocks = [
        render_markdown(summary, metric, split_name, protocol=protocol)
        for protocol in pd.unique(summary["protocol"])
        for split_name in ("test", "train")
        for metric in ("acc", "nmi_sqrt")
    ]
    return "\n".join(blocks)


def crossval_versus(
    summary: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    selections,
    metric_map: dict | None = None,
    notes: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The test scores beside the paper's: the first of ``selections`` is compared, the
    others stand beside it (:func:`ufsbench.reference.vs_paper`)."""
    ours = summary[summary["split"] == "test"].drop(columns="split")
    primary, *others = selections
    return vs_paper(
        reference,
        ours,
        metric_map=metric_map,
        protocol=primary,
        companions=others,
        notes=notes,
        columns=vs_paper_columns(others),
    )
