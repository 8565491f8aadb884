"""Figures 1 and 2 of the POCSS paper: error ratio against k, and POCSS's anytime curve."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from ..plots import plt

TITLES = {
    "two_stage": "Two-stage",
    "aprx_svd": "Aprx SVD",
    "greedy_css": "Greedy",
    "wastar": "WA*",
    "iter_fs": "Iter FS",
    "pocss": "POCSS",
}


MARKERS = "os^vDP*X"


def plot_error_vs_k(summary: pd.DataFrame, dataset: str):
    """Mean error ratio (over seeds) against k, one line per method (Figure 1).

    A randomized method (more than one run) has a band of ± one standard deviation over
    its seeds; each method has its own marker; the legend sits right of the axes, off the
    data; k ticks are integers.
    """
    data = summary[summary["dataset"] == dataset]
    if data.empty:
        raise ValueError(f"figure: no CSS results for dataset {dataset!r}")
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for i, (method, line) in enumerate(data.groupby("method", sort=False)):
        line = line.sort_values("k")
        colour = f"C{i % 10}"
        label = TITLES.get(method, method)
        if "std" in line and line["std"].notna().any():
            std = line["std"].fillna(0.0)
            ax.fill_between(
                line["k"], line["mean"] - std, line["mean"] + std, color=colour, alpha=0.2, lw=0
            )
            label += " (± std over seeds)"
        ax.plot(
            line["k"], line["mean"], marker=MARKERS[i % len(MARKERS)], ms=4, color=colour,
            label=label,
        )  # fmt: skip
    ax.set_title(dataset)
    ax.set_xlabel("k (number of selected columns)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("error ratio")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def step_mean(traces: pd.DataFrame, grid: np.ndarray) -> np.ndarray:
    """Mean over seeds of each seed's best-so-far error ratio, read on ``grid`` (x values)."""
    curves = []
    for _, trace in traces.groupby("seed"):
        trace = trace.sort_values("x")
        idx = np.searchsorted(trace["x"].to_numpy(), grid, side="right") - 1
        curves.append(trace["error_ratio"].to_numpy()[np.clip(idx, 0, None)])
    return np.mean(curves, axis=0)


def plot_anytime(traces: pd.DataFrame, runs: pd.DataFrame, dataset: str, k: int):
    """POCSS's best feasible error ratio against iterations / (k n), with Greedy and
    Iter FS as horizontal lines (Figure 2). The run ends at 2ek (about 271.8 for k = 50)."""
    part = traces[(traces["dataset"] == dataset) & (traces["k"] == k)]
    if part.empty:
        raise ValueError(f"figure: no POCSS trace for dataset {dataset!r}, k={k}")
    end = 2.0 * np.e * k
    grid = np.linspace(0.0, end, 1089)
    mean = step_mean(part, grid)
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    ax.plot(grid, mean, color="C3", label=f"POCSS (mean of {part['seed'].nunique()} runs)")
    for method, color in (("greedy_css", "C0"), ("iter_fs", "C2")):
        rows = runs[(runs["dataset"] == dataset) & (runs["method"] == method) & (runs["k"] == k)]
        if not rows.empty:
            ax.axhline(rows["error_ratio"].mean(), color=color, ls="--", label=TITLES[method])
    finite = mean[np.isfinite(mean)]
    top = max(finite[grid >= min(5.0, end)].max() if finite.size else 1.0, 1.0)
    low = min(finite.min(), runs[runs["dataset"] == dataset]["error_ratio"].min())
    ax.set_ylim(low - 0.02 * (top - low + 1e-9), top + 0.05 * (top - low + 1e-9))
    ax.set_xlim(0.0, end)
    ax.set_title(f"{dataset}, k = {k}")
    ax.set_xlabel("iterations / (k n)")
    ax.set_ylabel("error ratio")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="upper right", framealpha=0.9)
    fig.tight_layout()
    return fig
