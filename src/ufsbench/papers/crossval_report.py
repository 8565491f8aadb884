"""The cross-validation's tables (LSDCL paper, Tables 4-5) from its per-size summaries.

The workflow's table jobs render them here from one run's summary, and the publication
renders them here again from the summaries of runs over disjoint training sizes
(:func:`ufsbench.papers.merge.merge_crossval`): one renderer, so a merged publication
equals one run over all the sizes.
"""

from __future__ import annotations

import pandas as pd

from ..crossval import render_markdown
from ..reference import VS_PAPER_COLUMNS, vs_paper


def vs_paper_columns(companions=()) -> list[str]:
    """The columns of the comparison with the paper's Tables 4-5: those of
    :data:`ufsbench.reference.VS_PAPER_COLUMNS` without the default-setting companion
    (no such thing here), with each other selection's mean, std and difference."""
    columns = [c for c in VS_PAPER_COLUMNS if c not in ("default", "default_diff")]
    at = columns.index("paper_p") + 1
    columns[at:at] = [f"{c}{suffix}" for c in companions for suffix in ("", "_std", "_diff")]
    return columns


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
