"""Published numbers as reference data, and our results set beside them.

A paper reproduction keeps the paper's tables in the repository as a tidy TSV (lines
starting with ``#`` are comments)::

    table   dataset  method  metric  mean   std   p     bold
    table2  wine     lsdcl   acc     87.47  4.14  1.00  true

``dataset``, ``method``, ``metric`` and ``mean`` are required; ``std``, ``p``, ``bold``
and ``table`` are optional. A column named ``paper_*`` (``paper_s``, ``paper_dataset``,
...) says more about the paper's cell and is carried along. Any other column
(``n_train``, ``n_features``, ``k``, ...) is a *key*: it must also be a column of our
results, and cells are matched on it; a key is unique within a table. Values are in the
paper's units (percentages, error ratios, fractions, seconds). A metric name of the
reference (e.g. ``nmi``) is mapped to one of ours (e.g. ``nmi_sqrt``) by ``metric_map``,
because papers name one NMI while we compute both normalisations.

The functions are paper-agnostic: the LSDCL, BLUFS, POCSS and SRSG reproductions all use

- :func:`load_reference` to read and check a reference file (``resources/reference/``);
- :func:`vs_paper` for the comparison table: ours, the paper's, the difference, and
  beside every cell the companions a paper asks for (the default-parameter result, a
  re-seeded winner, the random control), with a generated note;
- :func:`random_controls` for the RandomSubset control of every method: the oracle over
  as many random rankings as the method's grid has settings.

What differs between papers is data passed to these: which cells (``rows``), which
companions, which columns, the wording of the note.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from .aggregate import curves as protocol_curves
from .aggregate import summary as protocol_summary

REQUIRED = ("dataset", "method", "metric", "mean")
VALUE_COLUMNS = ("mean", "std", "p", "bold")
NON_KEY = ("table", *VALUE_COLUMNS, "note")
VS_PAPER_COLUMNS = (
    "table",
    "dataset",
    "method",
    "metric",
    "our_metric",
    "protocol",
    "ours",
    "ours_std",
    "paper",
    "paper_std",
    "diff",
    "paper_p",
    "default",
    "default_diff",
    "random_control",
    "random_draws",
    "ours_minus_random",
    "paper_minus_random",
    "note",
)
_SEED = re.compile(r"^seed=(\d+)$")


def load_reference(path) -> pd.DataFrame:
    """Read a reference TSV and check it.

    Returns
    -------
    pandas.DataFrame
        The file's rows with ``mean``, ``std`` and ``p`` as floats (NaN where empty),
        ``bold`` as bool (False where empty), ``table`` as text ("" when absent) and every
        key and ``paper_*`` column as read, as numbers when each of its values is one.
        The key columns are listed in ``frame.attrs["keys"]``.

    Notes
    -----
    Raises ``ValueError`` naming the file (and the line, counting comments) for a missing
    file or required column, an empty table, a non-numeric value, a row without a mean,
    or two rows of one table with the same key.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"reference {str(path)!r}: file not found")
    frame = pd.read_csv(path, sep="\t", comment="#", dtype=str, keep_default_na=False)
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise ValueError(f"reference {path.name!r}: missing columns {', '.join(missing)}")
    if frame.empty:
        raise ValueError(f"reference {path.name!r}: no rows")
    # The file's line of every row (comment and blank lines are skipped by the reader).
    lines = [
        number
        for number, text in enumerate(path.read_text().splitlines(), start=1)
        if text.strip() and not text.lstrip().startswith("#")
    ][1:]

    def where(row: int) -> str:
        return f"reference {path.name!r} line {lines[row] if row < len(lines) else row + 2}"

    for column in ("mean", "std", "p"):
        if column not in frame.columns:
            frame[column] = ""
        values = pd.to_numeric(frame[column].replace("", np.nan), errors="coerce")
        bad = values.isna() & (frame[column] != "")
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(
                f"{where(row)}: column {column!r} is not a number: {frame[column].iloc[row]!r}"
            )
        frame[column] = values.astype(float)
    if frame["mean"].isna().any():
        row = int(np.flatnonzero(frame["mean"].isna().to_numpy())[0])
        raise ValueError(f"{where(row)}: every row needs a mean")
    if "bold" not in frame.columns:
        frame["bold"] = ""
    frame["bold"] = frame["bold"].str.lower().eq("true")
    if "table" not in frame.columns:
        frame["table"] = ""
    keys = reference_keys(frame.columns)
    for column in frame.columns:
        if column in ("dataset", "method", "metric") or not (
            column in keys or column.startswith("paper_")
        ):
            continue
        values = frame[column].replace("", np.nan)
        numeric = pd.to_numeric(values, errors="coerce")
        if values.notna().any() and (numeric.notna() | values.isna()).all():
            whole = numeric.notna().all() and (numeric % 1 == 0).all()
            frame[column] = numeric.astype(int if whole else float)
    duplicated = frame.duplicated(subset=["table", *keys])
    if duplicated.any():
        row = int(np.flatnonzero(duplicated.to_numpy())[0])
        cell = frame.iloc[row]
        raise ValueError(
            f"{where(row)}: duplicate cell "
            + ", ".join(f"{k}={cell[k]}" for k in ["table", *keys] if k != "table" or cell[k])
        )
    frame.attrs["keys"] = keys
    return frame


def reference_keys(columns) -> list[str]:
    """The key columns of a reference table: all but ``table``, the values, ``note`` and
    the ``paper_*`` columns (what the paper says about a cell, carried along)."""
    return [c for c in columns if c not in NON_KEY and not str(c).startswith("paper_")]


def grid_sizes(scores: pd.DataFrame) -> pd.Series:
    """Number of grid (``in_grid``) settings of every (dataset, method) in tidy scores."""
    grid = scores[scores["in_grid"].astype(bool)]
    return grid.groupby(["dataset", "method"], sort=False)["params"].nunique()


def random_controls(
    scores: pd.DataFrame,
    *,
    control: str = "random",
    exclude=("allfea",),
) -> pd.DataFrame:
    """The RandomSubset control of every method: an oracle over as many random draws.

    For every (dataset, method) other than ``control`` and ``exclude``, with ``N`` grid
    settings, the control is the oracle protocol applied to the first ``N`` random
    rankings (``seed=0 .. N-1`` of method ``control``): per feature count and metric the
    best of ``N`` random rankings, averaged over the grid. It shows how much of an oracle
    score the selection itself earns beyond picking the luckiest of ``N`` rankings.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``method``, ``metric``, ``random_control`` (mean over the
        feature grid, in %), ``random_draws`` (``N``, or fewer when fewer draws ran;
        0 and NaN when the control did not run).
    """
    columns = ["dataset", "method", "metric", "random_control", "random_draws"]
    sizes = grid_sizes(scores)
    randoms = scores[scores["method"] == control]
    seeds = randoms["params"].str.extract(_SEED, expand=False)
    if randoms.empty or seeds.isna().any():
        bad = randoms["params"][seeds.isna()]
        if len(bad):
            raise ValueError(
                f"random_controls: method {control!r} has a setting {bad.iloc[0]!r}; "
                f"expected seed=<int>"
            )
    randoms = randoms.assign(_seed=seeds.astype(float))
    excluded = {control, *exclude}
    rows = []
    cache: dict[tuple[str, int], pd.DataFrame] = {}
    for (dataset, method), size in sizes.items():
        if method in excluded:
            continue
        pool = randoms[randoms["dataset"] == dataset]
        available = int(pool["_seed"].nunique())
        draws = min(int(size), available)
        if draws == 0:
            for metric in ("acc", "nmi_max", "nmi_sqrt"):
                rows.append((dataset, method, metric, np.nan, 0))
            continue
        if (dataset, draws) not in cache:
            chosen = pool[pool["_seed"] < draws].drop(columns="_seed")
            # Seeds below N may be missing if the pool is not 0..K: take the N smallest.
            if chosen["params"].nunique() < draws:
                keep = np.sort(pool["_seed"].unique())[:draws]
                chosen = pool[pool["_seed"].isin(keep)].drop(columns="_seed")
            table = protocol_summary(protocol_curves(chosen, protocols=("oracle",)))
            cache[(dataset, draws)] = table
        for _, row in cache[(dataset, draws)].iterrows():
            rows.append((dataset, method, row["metric"], row["mean"], draws))
    return pd.DataFrame(rows, columns=columns)


def vs_paper(
    reference: pd.DataFrame,
    ours: pd.DataFrame,
    *,
    metric_map: dict | None = None,
    protocol: str = "oracle",
    controls: pd.DataFrame | None = None,
    notes: pd.DataFrame | None = None,
    rows: str = "reference",
    companions=("default",),
    carry=(),
    columns=VS_PAPER_COLUMNS,
    describe=None,
) -> pd.DataFrame:
    """Reference cells with our value, the difference and the companions beside them.

    Parameters
    ----------
    reference : pandas.DataFrame
        As returned by :func:`load_reference` (a row subset of it will do).
    ours : pandas.DataFrame
        Our results with the reference's key columns (``metric`` in our names), a
        ``protocol`` column when it has several protocols, and ``mean`` (and ``std``),
        e.g. :func:`ufsbench.aggregate.summary`.
    metric_map : dict, optional
        Reference metric name -> our metric name (``{"nmi": "nmi_sqrt"}``); unmapped
        names are used as they are.
    protocol : str, default="oracle"
        Our protocol compared with the paper (the papers' is the oracle).
    controls : pandas.DataFrame, optional
        The random control: columns ``dataset``, ``metric``, ``random_control``,
        optionally ``method`` (else one control serves every method of a dataset) and
        ``random_draws``; e.g. :func:`random_controls`.
    notes : pandas.DataFrame, optional
        Hand-written explanations: columns ``dataset``, ``method``, ``note`` (and
        optionally ``metric``); appended to the generated note.
    rows : {"reference", "ours", "both"}, default="reference"
        Which cells: every reference cell in the reference's order (a cell we did not
        run has NaN values and the note ``not run``); every cell of ours at
        ``protocol``, in our order (NaN paper values where the paper has none); or the
        cells of both, in the reference's order.
    companions : sequence of str, default=("default",)
        Further protocols of ``ours`` set beside each cell: for a protocol ``c`` the
        columns ``c`` (its mean), ``c_std`` and ``c_diff`` (``c - paper``); NaN where
        ``ours`` has no such rows.
    carry : sequence of str, default=()
        Further columns of ``ours`` (e.g. ``n_features``, ``params``) kept: under their
        own name for ``protocol``, as ``c_<column>`` for a companion ``c``.
    columns : sequence of str, dict or None, default=VS_PAPER_COLUMNS
        The output's columns in order (those it has); any key column not listed follows
        ``metric``. A dict also renames them (column -> name in the output file).
        ``None`` keeps every column.
    describe : callable, optional
        ``row -> str``, the generated note of a cell; by default :func:`numbers_note`.

    Returns
    -------
    pandas.DataFrame
        One row per cell. ``diff = ours - paper``; ``ours_minus_random`` and
        ``paper_minus_random`` set both beside the random control.
    """
    if rows not in ("reference", "ours", "both"):
        raise ValueError(f"vs_paper: rows must be 'reference', 'ours' or 'both', not {rows!r}")
    metric_map = dict(metric_map or {})
    keys = list(reference.attrs.get("keys") or reference_keys(reference.columns))
    missing = [k for k in keys if k not in ours.columns]
    if missing:
        raise ValueError(f"vs_paper: our results lack the reference key columns {missing}")
    clash = [c for c in carry if c in keys or c in reference.columns]
    if clash:
        raise ValueError(f"vs_paper: carried columns {clash} are also reference columns")
    ref = reference.copy()
    ref["our_metric"] = ref["metric"].map(lambda m: metric_map.get(m, m))
    extra = [k for k in keys if k not in ("dataset", "method", "metric")]
    on = ["dataset", "method", *extra, "our_metric"]

    ours = ours.copy()
    if "protocol" not in ours.columns:
        ours["protocol"] = protocol
    for column in ("std", *carry):
        if column not in ours.columns:
            ours[column] = np.nan
    for column in extra:
        ours[column] = ours[column].astype(ref[column].dtype)
    ours = ours.rename(columns={"metric": "our_metric"})

    def cells(name: str, prefix: str) -> pd.DataFrame:
        part = ours[ours["protocol"] == name][[*on, "mean", "std", *carry]]
        return part.rename(
            columns={"mean": prefix, "std": f"{prefix}_std"}
            | ({c: f"{prefix}_{c}" for c in carry} if prefix != "ours" else {})
        )

    main = cells(protocol, "ours")
    if rows == "ours":
        out = main.merge(ref, on=on, how="left", sort=False)
        out["metric"] = out["metric"].fillna(out["our_metric"])
    else:
        out = ref.merge(main, on=on, how="inner" if rows == "both" else "left", sort=False)
    for name in companions:
        beside = cells(name, name) if name != protocol else pd.DataFrame()
        if len(beside):
            out = out.merge(beside, on=on, how="left", sort=False)
        else:
            for column in (name, f"{name}_std", *(f"{name}_{c}" for c in carry)):
                out[column] = np.nan
    if controls is not None and len(controls):
        ctrl = controls.rename(columns={"metric": "our_metric"})
        if "random_draws" not in ctrl.columns:
            ctrl = ctrl.assign(random_draws=np.nan)
        by = ["dataset", *(["method"] if "method" in ctrl.columns else []), "our_metric"]
        out = out.merge(
            ctrl[[*by, "random_control", "random_draws"]], on=by, how="left", sort=False
        )
    else:
        out["random_control"] = np.nan
        out["random_draws"] = np.nan
    out = out.rename(columns={"mean": "paper", "std": "paper_std", "p": "paper_p"})
    out["protocol"] = protocol
    out["diff"] = out["ours"] - out["paper"]
    for name in companions:
        out[f"{name}_diff"] = out[name] - out["paper"]
    out["ours_minus_random"] = out["ours"] - out["random_control"]
    out["paper_minus_random"] = out["paper"] - out["random_control"]
    describe = describe or numbers_note
    out["note"] = [describe(row) for _, row in out.iterrows()]
    out = add_notes(out, notes)
    out = out.reset_index(drop=True)
    if columns is None:
        return out
    chosen = [c for c in columns if c in out.columns]
    at = chosen.index("metric") + 1 if "metric" in chosen else 0
    chosen[at:at] = [k for k in extra if k not in chosen]
    return out[chosen].rename(columns=columns if isinstance(columns, dict) else {})


def numbers_note(row) -> str:
    """The generated note of a :func:`vs_paper` cell: the numbers in words."""
    if np.isnan(row["ours"]):
        return "not run"
    if np.isnan(row["paper"]):
        return "no paper value"
    parts = [f"ours {row['ours']:.2f} vs paper {row['paper']:.2f} ({row['diff']:+.2f})"]
    if not np.isnan(row.get("default", np.nan)):
        parts.append(f"default setting {row['default']:.2f}")
    if not np.isnan(row.get("random_control", np.nan)):
        draws = row.get("random_draws", np.nan)
        over = "random rankings" if np.isnan(draws) else f"{int(draws)} random rankings"
        parts.append(
            f"oracle over {over} {row['random_control']:.2f}"
            f" (ours {row['ours_minus_random']:+.2f}, paper {row['paper_minus_random']:+.2f})"
        )
    tied = row.get("tied_counts", np.nan)
    if not pd.isna(tied) and tied > 0:  # ufsbench.tools.tied_rankings
        parts.append(
            f"tie rule: column order completes the top features at {int(tied)} counts"
            f" (up to {int(row['tie_picks_max'])})"
        )
    return "; ".join(parts)


def add_notes(table: pd.DataFrame, notes: pd.DataFrame | None, *, column="note") -> pd.DataFrame:
    """Append hand-written notes to the ``column`` column of a comparison table.

    ``notes`` (see :func:`load_notes`) has columns ``dataset``, ``method``, ``note`` and
    optionally ``metric``. A note applies to the table's rows of its dataset and method;
    ``*`` as the dataset or the method means every one, and an empty ``metric`` every
    metric. The broader notes come first; several are joined by ``". "`` after any note
    the row already has (a missing note counts as empty).
    """
    out = table.copy()
    out[column] = out[column].fillna("").astype(str) if column in out.columns else ""
    if notes is None or not len(notes):
        return out
    missing = [c for c in ("dataset", "method", "note") if c not in notes.columns]
    if missing:
        raise ValueError(f"notes lack columns {missing}")
    text = out[column].to_numpy(dtype=object)
    breadth = notes["dataset"].eq("*").astype(int) + notes["method"].eq("*").astype(int)
    for _, row in (
        notes.assign(_breadth=breadth)
        .sort_values("_breadth", ascending=False, kind="stable")
        .iterrows()
    ):
        hit = np.ones(len(out), dtype=bool)
        for key in ("dataset", "method"):
            if row[key] != "*":
                hit &= out[key].eq(row[key]).to_numpy()
        metric = row.get("metric", "")
        if isinstance(metric, str) and metric and "metric" in out.columns:
            hit &= out["metric"].eq(metric).to_numpy()
        for i in np.flatnonzero(hit):
            text[i] = f"{text[i]}. {row['note']}" if text[i] else row["note"]
    out[column] = text
    return out


def load_notes(path) -> pd.DataFrame:
    """Hand-written notes (TSV: ``dataset``, ``method``, optional ``metric``, ``note``)."""
    frame = pd.read_csv(path, sep="\t", comment="#", dtype=str, keep_default_na=False)
    missing = [c for c in ("dataset", "method", "note") if c not in frame.columns]
    if missing:
        raise ValueError(f"notes {str(path)!r}: missing columns {', '.join(missing)}")
    return frame


def fidelity_summary(table: pd.DataFrame, *, within: float = 2.0, cell_limit: float = 3.5):
    """Per (table, method): the mean difference over the cells we ran and the worst cell.

    Returns
    -------
    pandas.DataFrame
        Columns ``table``, ``method``, ``metric``, ``cells`` (run), ``missing``,
        ``mean_diff``, ``max_abs_diff``, ``within_target`` (``|mean_diff| <= within``
        and every ``|diff| <= cell_limit``).
    """
    rows = []
    for (tab, method, metric), part in table.groupby(["table", "method", "metric"], sort=False):
        ran = part.dropna(subset=["ours"])
        if ran.empty:
            rows.append((tab, method, metric, 0, len(part), np.nan, np.nan, False))
            continue
        mean_diff = float(ran["diff"].mean())
        worst = float(ran["diff"].abs().max())
        ok = abs(mean_diff) <= within and worst <= cell_limit
        rows.append((tab, method, metric, len(ran), len(part) - len(ran), mean_diff, worst, ok))
    return pd.DataFrame(
        rows,
        columns=[
            "table",
            "method",
            "metric",
            "cells",
            "missing",
            "mean_diff",
            "max_abs_diff",
            "within_target",
        ],
    )


def parse_setting(setting_id: str) -> dict:
    """``"gamma=1,lambda1=1e-05"`` -> ``{"gamma": 1.0, "lambda1": 1e-05}`` (text kept)."""
    if setting_id == "default":
        return {}
    params = {}
    for part in setting_id.split(","):
        name, _, value = part.partition("=")
        try:
            params[name] = float(value)
        except ValueError:
            params[name] = value
    return params


def readings_table(
    scores: pd.DataFrame,
    method: str,
    readings,
    *,
    defaults: dict | None = None,
    metrics=("acc", "nmi_sqrt"),
) -> pd.DataFrame:
    """Oracle score of each *reading* of a method: how much an interpretation matters.

    A reading is a value of the options in ``readings`` (e.g. ``z_split``, ``scale``);
    settings that share it form one group, and the oracle protocol runs inside each group
    (over the group's other hyper-parameters, e.g. the λ grid).

    Parameters
    ----------
    scores : pandas.DataFrame
        Tidy scores (``params`` are setting ids ``name=value,...``).
    method : str
    readings : sequence of str
        Option names that define a reading.
    defaults : dict, optional
        The spec-default value of each option; the group with these values is the
        baseline of ``diff`` (by default the first group listed).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``reading`` (the options that differ from the defaults, or
        ``spec default``), ``metric``, ``mean`` (oracle mean over the feature grid, %),
        ``diff`` (vs the default reading on that dataset and metric), ``settings``.
    """
    part = scores[(scores["method"] == method) & scores["in_grid"].astype(bool)]
    if part.empty:
        raise ValueError(f"readings_table: no grid scores of method {method!r}")
    readings = list(readings)
    params = part["params"].map(parse_setting)
    absent = [r for r in readings if not params.map(lambda p, r=r: r in p).all()]
    if absent:
        raise ValueError(f"readings_table: settings of {method!r} lack options {absent}")
    keys = params.map(lambda p: tuple(p[r] for r in readings))
    order = list(dict.fromkeys(keys))
    base = order[0] if defaults is None else tuple(defaults[r] for r in readings)

    def label(key):
        changed = [
            f"{r}={v:g}" if isinstance(v, float) else f"{r}={v}"
            for r, v, b in zip(readings, key, base, strict=True)
            if v != b
        ]
        return ", ".join(changed) or "spec default"

    rows = []
    for key in order:
        group = part[(keys == key).to_numpy()]
        table = protocol_summary(protocol_curves(group, protocols=("oracle",)))
        for row in table[table["metric"].isin(metrics)].itertuples():
            rows.append(
                (
                    row.dataset,
                    label(key),
                    key == base,
                    row.metric,
                    row.mean,
                    group["params"].nunique(),
                )
            )
    out = pd.DataFrame(rows, columns=["dataset", "reading", "_base", "metric", "mean", "settings"])
    reference_means = out[out["_base"]].set_index(["dataset", "metric"])["mean"]
    out["diff"] = [
        row.mean - reference_means.get((row.dataset, row.metric), np.nan)
        for row in out.itertuples()
    ]
    return out.drop(columns="_base")[["dataset", "reading", "metric", "mean", "diff", "settings"]]
