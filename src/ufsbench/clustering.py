"""The clustering task (the SRSG paper's protocol) as a run plan and result tables.

No Snakemake and no numerics here: :class:`ClusterPlan` turns the config's
``clustering`` section into datasets, methods and settings (one graph file and one
score file each), and :func:`summarize` / :func:`compare_with_paper` turn the score
files into the paper's Tables 1-3 and the ours-vs-paper table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .names import check_name
from .plan import expand_grid, format_value, setting_id
from .reference import add_notes, vs_paper

# The graph builders (``.sparse_graph.builders``) are imported where they are used: they
# load scikit-learn, ~1 CPU s that a run without clustering jobs (and each cluster job's
# own planning) would otherwise pay in every ``snakemake`` command.

TASKS = ("selection", "clustering")
METHOD_ORDER = ["km", "sc", "l1graph", "smce", "lr_l1graph", "srsg", "knn"]
PAPER_LABELS = {
    "km": "KM",
    "sc": "SC",
    "l1graph": "l1-graph",
    "smce": "SMCE",
    "lr_l1graph": "LR-l1-graph",
    "srsg": "SRSG",
    "knn": "kNN",
}


@dataclass(frozen=True)
class ClusterSetting:
    """One setting of one clustering method: ``id`` names its files, ``params`` is complete."""

    id: str
    params: dict


def tasks(config: dict) -> list[str]:
    return list(config["tasks"])


class ClusterPlan:
    """Datasets, methods and settings of the clustering task.

    ``config["clustering"]``: ``datasets`` (default: the top-level ``datasets``),
    ``methods`` (name -> grid; lists expand), ``seeds`` (k-means seeds 0..seeds-1).
    Setting ids list only the parameters the grid sets (``default`` when none), so
    file names stay short; every parameter, defaults included, reaches the job.
    """

    def __init__(self, config: dict, registry: dict):
        section = config["clustering"]  # validated: the schema filled its defaults
        self.enabled = "clustering" in tasks(config)
        self.datasets = list(section.get("datasets") or config["datasets"])
        for name in self.datasets:
            if name not in registry:
                raise ValueError(f"config 'clustering.datasets': unknown dataset {name!r}")
            if registry[name].n_classes is None:
                raise ValueError(
                    f"config 'clustering.datasets': dataset {name!r} has no class labels"
                )
        self.registry = registry
        self.seeds = list(range(int(section["seeds"])))
        self.settings: dict[str, list[ClusterSetting]] = {}
        # A task that does not run plans no settings: no job reads them (the schema has
        # checked the method names; parameters are checked once the task is enabled).
        if self.enabled:
            self._expand(section.get("methods") or {})
        self.skipped: dict[str, str] = {}

    def _expand(self, methods: dict) -> None:
        """Fill ``settings`` from the section's grids, checking every parameter."""
        from .sparse_graph.builders import CLUSTER_METHODS, check_params

        for method, grid in methods.items():
            if method not in CLUSTER_METHODS:
                raise ValueError(
                    f"config 'clustering.methods': unknown method {method!r} "
                    f"(known: {', '.join(CLUSTER_METHODS)})"
                )
            settings, seen = [], set()
            for explicit in expand_grid(method, grid or {}):
                try:
                    params = check_params(method, explicit)
                except ValueError as err:
                    raise ValueError(f"config 'clustering.methods.{method}': {err}") from None
                sid = check_name(
                    "setting", setting_id(explicit), where=f"config 'clustering.methods.{method}'"
                )
                if sid not in seen:
                    seen.add(sid)
                    settings.append(ClusterSetting(sid, params))
            self.settings[method] = settings

    def skip(self, dataset: str, reason: str):
        """Leave a dataset out of the run (e.g. its file is not in the mirror)."""
        if dataset in self.datasets:
            self.datasets.remove(dataset)
            self.skipped[dataset] = reason

    @property
    def methods(self) -> list[str]:
        return list(self.settings)

    def params(self, method: str, sid: str) -> dict:
        for s in self.settings.get(method, []):
            if s.id == sid:
                return s.params
        raise ValueError(f"clustering: no setting {sid!r} of method {method!r}")

    def score_files(self) -> list[str]:
        return [
            score_path(dataset, method, s.id)
            for dataset in self.datasets
            for method in self.methods
            for s in self.settings[method]
        ]


def graph_path(dataset: str, method: str, sid: str) -> str:
    """A stored graph's path inside the run's results folder."""
    from .sparse_graph.builders import STORED_GRAPHS

    if method not in STORED_GRAPHS:
        raise ValueError(f"clustering: method {method!r} stores no graph")
    return f"{dataset}/clustering/graph/{method}/{sid}.npz"


def score_path(dataset: str, method: str, sid: str) -> str:
    """A clustering setting's scores path inside the run's results folder."""
    return f"{dataset}/clustering/scores/{method}/{sid}.tsv"


def fs_graph_setting(source: str, explicit: dict) -> tuple[str, str, dict] | None:
    """``(method, setting id, params)`` of the sparse graph the feature selectors use.

    ``source`` (config ``graph.source``) names a stored graph builder (``l1graph``,
    ``srsg``, ...) and ``explicit`` (``graph.params``) its parameters; ``None`` for the
    shared k-NN graph (``knn``).
    """
    if source == "knn":
        return None
    from .sparse_graph.builders import STORED_GRAPHS, check_params

    if source not in STORED_GRAPHS:
        raise ValueError(
            f"config 'graph.source': unknown graph {source!r} (known: {', '.join(STORED_GRAPHS)})"
        )
    explicit = dict(explicit or {})
    try:
        params = check_params(source, explicit)
    except ValueError as err:
        raise ValueError(f"config 'graph.params': {err}") from None
    return source, setting_id(explicit), params


# -- tables ---------------------------------------------------------------------------------


def is_default_setting(method: str, sid: str) -> bool:
    """Whether setting id ``sid`` of ``method`` is the method's default setting.

    Ids list only the parameters a grid sets (:class:`ClusterPlan`), so the id is the
    default when each of its ``name=value`` pairs gives the parameter's default value.
    """
    if sid == "default":
        return True
    from .sparse_graph.builders import CLUSTER_METHODS, check_params

    defaults = check_params(method, {}) if method in CLUSTER_METHODS else {}
    pairs = [item.split("=", 1) for item in sid.split(",")]
    return all(
        len(pair) == 2 and pair[0] in defaults and format_value(defaults[pair[0]]) == pair[1]
        for pair in pairs
    )


METRICS = ["acc", "nmi_max", "nmi_sqrt"]


def per_setting(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, method, setting) of the per-seed ``scores``: for each metric
    its mean and std over the seeds and the seed-0 value, ``n_seeds``, and ``default``:
    whether the setting is the method's default. Every setting, none chosen: a method's
    sensitivity to its parameters (``tables/clustering_settings.tsv``)."""
    grouped = scores.groupby(["dataset", "method", "setting"])
    table = grouped[METRICS].agg(["mean", "std"])
    table.columns = [f"{m}_{stat}" for m, stat in table.columns]
    table["n_seeds"] = grouped["seed"].nunique()
    seed0 = scores[scores["seed"] == scores["seed"].min()].set_index(
        ["dataset", "method", "setting"]
    )[METRICS]
    table = table.join(seed0.add_suffix("_seed0")).reset_index()
    table["default"] = [
        is_default_setting(method, sid)
        for method, sid in zip(table["method"], table["setting"], strict=True)
    ]
    return table


def summarize(scores: pd.DataFrame, select: str = "acc", settings=None) -> pd.DataFrame:
    """Best setting per (dataset, method), chosen by the mean over seeds of ``select``.

    This is the paper's protocol for the tuned baselines (best over the grid with the
    labels: an oracle choice, labelled ``protocol = oracle`` when a method has more
    than one setting). Columns: dataset, method, setting, n_settings, protocol,
    n_seeds, and for each metric its mean, std over seeds, the seed-0 value and
    ``<metric>_default``: the mean of the method's default setting (NaN when the grid
    does not hold it), the companion of an oracle cell. ``settings``: ``per_setting(scores)``
    when the caller has it already.
    """
    settings = per_setting(scores) if settings is None else settings
    rows = []
    for _, group in settings.groupby(["dataset", "method"], sort=False):
        best = group.sort_values([f"{select}_mean", "setting"], ascending=[False, True]).iloc[0]
        row = best.drop("default").to_dict()
        default = group[group["default"]]
        for m in METRICS:
            row[f"{m}_default"] = default[f"{m}_mean"].iloc[0] if len(default) else np.nan
        row["n_settings"] = len(group)
        row["protocol"] = "oracle" if len(group) > 1 else "fixed"
        rows.append(row)
    out = pd.DataFrame(rows)
    order = {m: i for i, m in enumerate(METHOD_ORDER)}
    out["_o"] = out["method"].map(order)
    out = out.sort_values(["dataset", "_o"]).drop(columns="_o")
    head = ["dataset", "method", "setting", "n_settings", "protocol", "n_seeds"]
    return out[head + [c for c in out.columns if c not in head]].reset_index(drop=True)


# srsg_vs_paper.tsv: the columns of :func:`ufsbench.reference.vs_paper` it keeps, in
# order, and the name each has in the file (``selection`` is the summary's protocol).
VS_PAPER_NAMES = {
    "table": "table",
    "dataset": "dataset",
    "paper_dataset": "paper_dataset",
    "method": "method",
    "metric": "metric",
    "ours": "ours",
    "ours_std": "ours_std",
    "seed0": "ours_seed0",
    "paper": "paper",
    "diff": "difference",
    "ours_se": "ours_se",
    "default": "ours_default",
    "setting": "setting",
    "selection": "protocol",
}


# The fidelity target: every cell within this of the paper's (accuracy scale).
FIDELITY_TARGET = 0.02


def compare_with_paper(
    summary: pd.DataFrame,
    reference: pd.DataFrame,
    skipped: dict | None = None,
    notes: pd.DataFrame | None = None,
    *,
    target: float = FIDELITY_TARGET,
) -> pd.DataFrame:
    """Ours (mean over seeds, seed 0, the default setting) next to the paper's value, per cell.

    ``reference``: :func:`ufsbench.reference.load_reference` of the paper's table; the
    comparison is :func:`ufsbench.reference.vs_paper` over every reference cell, rounded
    to 4 decimals like the paper. A cell we ran has ``status = run``; every other cell
    keeps an empty ``ours`` and ``status = not run``, its ``note`` giving the reason for
    a dataset in ``skipped`` (dataset -> why, e.g. its file is not in the mirror), else
    saying that the run had no score of it (dataset or method not configured). The
    hand-written ``notes`` (:func:`ufsbench.reference.load_notes`: why a cell misses)
    are appended to the cells we ran.

    ``fidelity`` sorts every cell we ran: ``within target`` when ``|difference| <=
    target``; else ``within seed noise`` when it is at most twice ``ours_se`` (the
    standard error of our mean over the summary's ``n_seeds``; the paper's own mean
    is as noisy, so this is a lower bound on the noise of the difference); else
    ``miss``.
    """
    skipped = skipped or {}
    metrics = list(dict.fromkeys(reference["metric"]))
    n_seeds = summary["n_seeds"] if "n_seeds" in summary else np.nan  # older summaries
    ours = pd.concat(
        [
            summary[["dataset", "method", "setting", "protocol"]].assign(
                metric=metric,
                mean=summary[f"{metric}_mean"],
                std=summary[f"{metric}_std"],
                seed0=summary[f"{metric}_seed0"],
                ours_se=summary[f"{metric}_std"] / np.sqrt(n_seeds),
                default=summary.get(f"{metric}_default", np.nan),  # older summaries: NaN
            )
            for metric in metrics
        ],
        ignore_index=True,
    ).rename(columns={"protocol": "selection"})
    table = vs_paper(
        reference,
        ours,
        rows="reference",
        companions=(),
        carry=("seed0", "ours_se", "default", "setting", "selection"),
        columns=VS_PAPER_NAMES,
    )
    rounded = ["ours", "ours_std", "ours_seed0", "difference", "ours_se", "ours_default"]
    table[rounded] = table[rounded].round(4)
    ran = table["ours"].notna()
    gap = table["difference"].abs()
    verdict = np.where(gap <= target, "within target", "miss")
    verdict = np.where((gap > target) & (gap <= 2 * table["ours_se"]), "within seed noise", verdict)
    table.insert(table.columns.get_loc("ours_se") + 1, "fidelity", np.where(ran, verdict, ""))
    table["status"] = np.where(ran, "run", "not run")
    absent = "not in this run's clustering datasets or methods"
    why = table["dataset"].map(lambda d: f"skipped: {skipped[d]}" if d in skipped else absent)
    table["note"] = np.where(ran, "", why)
    explained = add_notes(table[ran], notes)
    table.loc[ran, "note"] = explained["note"]
    return table


def paper_table_markdown(comparison: pd.DataFrame, table: str) -> str:
    """One of the paper's tables in its layout: rows dataset x measure, columns methods,
    each cell ``ours (paper)``; the datasets not run are listed below it with the reason."""
    part = comparison[comparison["table"] == table]
    title = {
        "1": "Table 1: COIL-20 and COIL-100 (first c classes)",
        "2": "Table 2: face datasets",
        "3": "Table 3: UCI datasets",
    }.get(table, f"Table {table}")
    lines = [f"# {title}", "", "Each cell: ours, mean over k-means seeds (paper's value).", ""]
    ran = part[part["status"] == "run"] if "status" in part else part
    if ran.empty:
        lines.append("No dataset of this table was run.")
    else:
        methods = [m for m in METHOD_ORDER if m in set(ran["method"])]
        lines.append(
            "| Data set | Measure | " + " | ".join(PAPER_LABELS[m] for m in methods) + " |"
        )
        lines.append("|---|---|" + "---|" * len(methods))
        for dataset in dict.fromkeys(ran["paper_dataset"]):
            for metric, label in (("acc", "AC"), ("nmi_max", "NMI")):
                cells = []
                for m in methods:
                    hit = ran[
                        (ran["paper_dataset"] == dataset)
                        & (ran["method"] == m)
                        & (ran["metric"] == metric)
                    ]
                    cells.append(
                        "–"
                        if hit.empty
                        else f"{hit['ours'].iloc[0]:.4f} ({hit['paper'].iloc[0]:.4f})"
                    )
                lines.append(f"| {dataset} | {label} | " + " | ".join(cells) + " |")
        if "fidelity" in ran:
            counts = ran.loc[ran["metric"] == "acc", "fidelity"].value_counts()
            lines += [
                "",
                "AC cells against the paper's (`fidelity` in srsg_vs_paper.tsv): "
                + ", ".join(
                    f"{counts.get(v, 0)} {v}"
                    for v in ("within target", "within seed noise", "miss")
                )
                + f" (target ±{FIDELITY_TARGET}).",
            ]
    skipped = part[part["note"].str.startswith("skipped: ")] if "note" in part else part[:0]
    if not skipped.empty:
        lines += ["", "Not run (the paper's values stay in the reference table):", ""]
        for dataset, group in skipped.groupby("paper_dataset", sort=False):
            lines.append(f"- {dataset}: {group['note'].iloc[0]}")
    return "\n".join(lines) + "\n"


def read_scores(paths) -> pd.DataFrame:
    """The per-seed scores of every clustering job (an empty file: a job with no rows);
    a file cut short raises :class:`ufsbench.integrity.DamagedIntermediate`."""
    from .integrity import read_tsv

    frames = [read_tsv(p) for p in paths if Path(p).stat().st_size]
    return pd.concat(frames, ignore_index=True)
