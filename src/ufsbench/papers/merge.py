"""The paper outputs of runs over disjoint dataset subsets, merged into one set.

A reproduction too large for one machine or one sitting can run as several runs of the
same config, each on some of its datasets (``--config datasets=[...]``): setting ids and
seeds derive from (dataset, method, params, feature count, repeat), so a dataset's numbers
do not depend on which other datasets share its run. Every paper output is per dataset
but for three parts, which are recomputed here from the merged rows: the ``Average`` rows
of Tables 2-3, the fidelity summary of the comparison with the paper, and the
convergence figure, whose panels span datasets. The merged tables equal those of one run
over all the datasets (tested); the hand-written notes are applied afresh, so a note
edited after a run reaches its cells.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..reference import add_notes, fidelity_summary, numbers_note
from .tables import with_averages


def concat_disjoint(tables: Sequence[pd.DataFrame], *, order=None, what="table") -> pd.DataFrame:
    """Row-bind per-run tables whose ``dataset`` values do not overlap.

    Parameters
    ----------
    tables : sequence of pandas.DataFrame
        One table per run, each with a ``dataset`` column (``Average`` rows are dropped).
    order : sequence of str, optional
        The datasets' order in the result (e.g. the config's); datasets it lacks follow in
        the order met. Rows keep their order within a dataset.
    what : str
        Names the tables in the error message.

    Raises
    ------
    ValueError
        If no table is given or a dataset occurs in two runs.
    """
    if not tables:
        raise ValueError(f"merge: no {what} to merge")
    owner: dict[str, int] = {}
    parts = []
    for i, table in enumerate(tables):
        table = table[table["dataset"] != "Average"]
        for dataset in pd.unique(table["dataset"]):
            if dataset in owner:
                raise ValueError(
                    f"merge: dataset {dataset!r} is in {what} {owner[dataset] + 1} and"
                    f" {i + 1}; each dataset must come from one run"
                )
            owner[dataset] = i
        parts.append(table)
    merged = pd.concat(parts, ignore_index=True)
    ranks = {d: r for r, d in enumerate(order or [])}
    met = {d: len(ranks) + r for r, d in enumerate(pd.unique(merged["dataset"]))}
    key = merged["dataset"].map(lambda d: ranks.get(d, met[d]))
    return merged.iloc[key.argsort(kind="stable")].reset_index(drop=True)


def merge_paper_tables(
    tables: Sequence[pd.DataFrame], *, methods=None, order=None, no_test=("allfea",)
) -> pd.DataFrame:
    """One :func:`~ufsbench.papers.tables.paper_table` from those of disjoint runs.

    The p-values are per dataset (each method against that dataset's best), so the
    dataset rows carry over; the ``Average`` rows are recomputed over all the datasets.
    ``methods`` fixes the columns' order (default: the order met).
    """
    merged = concat_disjoint(tables, order=order, what="paper table")
    present = list(pd.unique(merged["method"]))
    methods = present if methods is None else [m for m in methods if m in present]
    return with_averages(merged, methods, no_test)


def merge_vs_paper(
    tables: Sequence[pd.DataFrame],
    *,
    notes: pd.DataFrame | None = None,
    order=None,
    reference: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The comparison with the paper over disjoint runs, and its fidelity summary.

    Each cell's note is generated again from its numbers and the current hand-written
    ``notes`` are appended (:func:`~ufsbench.reference.add_notes`). With ``reference`` (the
    cells one run over the config would compare, :func:`~ufsbench.reference.load_reference`),
    the cells no run has answered yet are listed too, as ``not run``, and every cell is in
    the reference's order, as one run would write them; the fidelity summary then counts
    them as ``missing``.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The merged :func:`~ufsbench.reference.vs_paper` table and its
        :func:`~ufsbench.reference.fidelity_summary`.
    """
    merged = concat_disjoint(tables, order=order, what="comparison table")
    if reference is not None:
        merged = _with_unrun_cells(merged, reference)
    merged = renote(merged, notes)
    return merged, fidelity_summary(merged)


def renote(table: pd.DataFrame, notes: pd.DataFrame | None) -> pd.DataFrame:
    """A comparison table with each note generated again from its numbers and the current
    hand-written ``notes`` appended, so a published table never keeps a stale note."""
    out = table.copy()
    out["note"] = [numbers_note(row) for _, row in out.iterrows()]
    return add_notes(out, notes)


def _with_unrun_cells(merged: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    keys = ["table", *(reference.attrs.get("keys") or ("dataset", "method", "metric"))]
    position = {cell: i for i, cell in enumerate(reference[keys].itertuples(index=False))}
    ran = set(merged[keys].itertuples(index=False))
    unrun = reference[[cell not in ran for cell in reference[keys].itertuples(index=False)]]
    unrun = unrun[keys].assign(paper=unrun["mean"], paper_std=unrun["std"], paper_p=unrun["p"])
    out = pd.concat([merged, unrun], ignore_index=True)
    rank = [position.get(cell, len(position)) for cell in out[keys].itertuples(index=False)]
    return out.iloc[pd.Series(rank).argsort(kind="stable").to_numpy()].reset_index(drop=True)


def merge_crossval(summaries: Sequence[pd.DataFrame], selections=None) -> pd.DataFrame:
    """One cross-validation summary (:func:`ufsbench.crossval.summarize`) from those of
    runs over disjoint (selection, training size) pairs.

    A training size's cells depend on its draws only (each split and seed derives from
    the size and the draw), so runs over some sizes each merge into the summary one run
    over all of them writes: selections in the order of ``selections`` (then as met),
    split, metric, size and count as :func:`~ufsbench.crossval.summarize` orders them.

    Raises
    ------
    ValueError
        If no summary is given or a (selection, size) pair is in two of them.
    """
    from ..crossval import METRICS

    if not summaries:
        raise ValueError("merge: no cross-validation summary to merge")
    owner: dict[tuple, int] = {}
    for i, table in enumerate(summaries):
        for key in table[["protocol", "n_train"]].drop_duplicates().itertuples(index=False):
            key = (key.protocol, int(key.n_train))
            if owner.setdefault(key, i) != i:
                raise ValueError(
                    f"merge: selection {key[0]!r} at n_train={key[1]} is in cross-validation"
                    f" summaries {owner[key] + 1} and {i + 1}; each must come from one run"
                )
    merged = pd.concat(summaries, ignore_index=True)
    known = list(selections or [])
    protocols = known + [p for p in pd.unique(merged["protocol"]) if p not in known]
    rank = {
        "protocol": {p: r for r, p in enumerate(protocols)},
        "split": {"train": 0, "test": 1},
        "metric": {m: r for r, m in enumerate(METRICS)},
    }
    order = merged.assign(**{k: merged[k].map(v) for k, v in rank.items()})
    keys = ["protocol", "split", "metric", "n_train", "n_features"]
    return merged.loc[order.sort_values(keys, kind="stable").index].reset_index(drop=True)
