"""The figures of a paper reproduction: ablation curves, parameter sensitivity, convergence.

Data preparation (pure pandas, tested) is separate from drawing (matplotlib).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from ..plots import METRIC_LABELS, plt
from ..reference import parse_setting


def mean_scores(scores: pd.DataFrame, dataset: str, method: str, metric: str = "acc"):
    """Mean over repeats (in %) of every grid setting at every feature count."""
    part = scores[
        (scores["dataset"] == dataset)
        & (scores["method"] == method)
        & scores["in_grid"].astype(bool)
    ]
    if part.empty:
        raise ValueError(f"no scores of method {method!r} on dataset {dataset!r}")
    return (
        part.groupby(["params", "n_features"], sort=False)[metric].mean().mul(100).rename("value")
    )


def best_average_setting(scores: pd.DataFrame, dataset: str, method: str, metric="acc") -> str:
    """The grid setting with the best mean score over the feature-count grid."""
    means = mean_scores(scores, dataset, method, metric).groupby(level="params", sort=False)
    return str(means.mean().idxmax())


def sensitivity(
    scores: pd.DataFrame, dataset: str, method: str, param: str, metric: str = "acc"
) -> pd.DataFrame:
    """Score against one hyper-parameter and the feature count, the others held fixed.

    The other hyper-parameters are held at the setting with the best mean score over the
    feature grid (spec section 8, Figs. 3, 5 and 6).

    Returns
    -------
    pandas.DataFrame
        Index: the parameter's values (sorted), columns: feature counts, values: mean
        score over repeats in %. Raises ``ValueError`` when the parameter is not in the
        method's settings.
    """
    values = mean_scores(scores, dataset, method, metric).reset_index()
    params = values["params"].map(parse_setting)
    if not params.map(lambda p: param in p).all():
        raise ValueError(f"sensitivity: method {method!r} has no parameter {param!r}")
    best = parse_setting(best_average_setting(scores, dataset, method, metric))
    others = {k: v for k, v in best.items() if k != param}
    same = params.map(lambda p: all(p.get(k) == v for k, v in others.items()))
    part = values[same.to_numpy()].copy()
    part[param] = params[same].map(lambda p: p[param]).to_numpy()
    return part.pivot_table(index=param, columns="n_features", values="value").sort_index()


def plot_ablation(curves, dataset, methods, *, metric="acc", protocol="oracle", labels=None):
    """One line per method: score against the number of selected features."""
    labels = labels or {}
    data = curves[
        (curves["dataset"] == dataset)
        & (curves["metric"] == metric)
        & (curves["protocol"] == protocol)
    ]
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    drawn = 0
    for method in methods:
        line = data[data["method"] == method].sort_values("n_features")
        if line.empty:
            continue
        ax.plot(
            line["n_features"], line["value"], marker="o", ms=3, label=labels.get(method, method)
        )
        drawn += 1
    if not drawn:
        raise ValueError(f"ablation figure: none of {list(methods)} has curves on {dataset!r}")
    ax.set_title(f"{dataset}: {protocol} protocol")
    ax.set_xlabel("number of selected features")
    ax.set_ylabel(METRIC_LABELS.get(metric, metric))
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def plot_sensitivity(tables: dict, dataset: str, *, metric="acc"):
    """One heat-map per hyper-parameter: parameter value × feature count, on one colour
    scale (one colour bar) so the panels compare directly."""
    values = [t.to_numpy(dtype=float) for t in tables.values()]
    finite = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.array([])
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    fig, axes = plt.subplots(
        1, len(tables), squeeze=False, figsize=(4.2 * len(tables) + 1.0, 3.6), layout="constrained"
    )
    image = None
    for ax, (param, table) in zip(axes[0], tables.items(), strict=True):
        image = ax.imshow(
            table.to_numpy(dtype=float),
            aspect="auto",
            origin="lower",
            cmap="viridis",
            vmin=vmin,
            vmax=vmax,
        )
        ax.set_yticks(range(len(table.index)), [f"{v:g}" for v in table.index])
        ax.set_xticks(range(len(table.columns)), [str(c) for c in table.columns])
        ax.set_xlabel("number of selected features")
        ax.set_ylabel(param)
        ax.set_title(f"{dataset}: sensitivity to {param}", fontsize="medium")
    if image is not None:
        fig.colorbar(image, ax=list(axes[0]), shrink=0.85, label=METRIC_LABELS.get(metric, metric))
    return fig


def best_traces(traces: pd.DataFrame, scores: pd.DataFrame, method: str, datasets) -> pd.DataFrame:
    """The objective trace of ``method`` at its best-average setting on each dataset.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``params``, ``iteration``, ``objective``: the convergence
        figure's data, in the order of ``datasets``.
    """
    parts = []
    for dataset in datasets:
        setting = best_average_setting(scores, dataset, method)
        trace = traces[
            (traces["dataset"] == dataset)
            & (traces["method"] == method)
            & (traces["params"] == setting)
        ].sort_values("iteration")
        parts.append(trace[["dataset", "params", "iteration", "objective"]])
    return pd.concat(parts, ignore_index=True)


def trace_panels(best: pd.DataFrame) -> dict:
    """``{dataset: (setting, trace)}`` for :func:`plot_traces` from :func:`best_traces`."""
    return {
        dataset: (str(part["params"].iloc[0]), part)
        for dataset, part in best.groupby("dataset", sort=False)
    }


def setting_label(setting_id: str, parameters=None) -> str:
    """A setting id cut to the named parameters (all of them when ``parameters`` is None)."""
    if not parameters:
        return setting_id
    parts = [p for p in setting_id.split(",") if p.partition("=")[0] in set(parameters)]
    return ",".join(parts) or setting_id


def plot_traces(traces: dict, method: str, parameters=None):
    """Objective per iteration, one panel per dataset (``{dataset: (setting, frame)}``).

    Each panel names its setting by ``parameters`` only (e.g. the grid's), else in full.
    """
    fig, axes = plt.subplots(
        1, max(1, len(traces)), squeeze=False, figsize=(4.2 * len(traces), 3.3)
    )
    for ax, (dataset, (setting, trace)) in zip(axes[0], traces.items(), strict=True):
        ax.plot(trace["iteration"], trace["objective"], color="C0")
        positive = (trace["objective"] > 0).all()
        ax.set_yscale("log" if positive else "symlog")
        ax.set_title(f"{dataset}: {method}", fontsize="medium")
        ax.set_xlabel("iteration")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("objective")
        label = setting_label(setting, parameters)
        ax.text(0.98, 0.95, label, transform=ax.transAxes, ha="right", va="top", fontsize=6)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def monotone_share(trace: pd.Series) -> float:
    """Fraction of iterations whose objective did not increase (1.0 = monotone)."""
    values = np.asarray(trace, dtype=float)
    if len(values) < 2:
        return 1.0
    return float(np.mean(np.diff(values) <= 1e-12 * np.abs(values[:-1]).clip(min=1.0)))
