"""Matplotlib figures of the benchmark: scores against feature counts, and convergence."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # jobs run without a display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .io import atomic_path  # noqa: E402

METRIC_LABELS = {
    "acc": "ACC (%)",
    "nmi_max": "NMI, max-normalised (%)",
    "nmi_sqrt": "NMI, sqrt-normalised (%)",
}


def plot_curves(curves, dataset, *, metrics=("acc", "nmi_sqrt")):
    """One panel per (protocol, metric): each method's score against the feature count.

    A method evaluated on all features only (AllFea) is drawn as a horizontal line.
    """
    data = curves[curves["dataset"] == dataset]
    if data.empty:
        raise ValueError(f"figure: no curves for dataset {dataset!r}")
    protocols = list(dict.fromkeys(data["protocol"]))
    fig, axes = plt.subplots(
        len(protocols),
        len(metrics),
        squeeze=False,
        figsize=(5.2 * len(metrics), 3.6 * len(protocols)),
    )
    counts = np.sort(data["n_features"].unique())
    for row, protocol in enumerate(protocols):
        for col, metric in enumerate(metrics):
            ax = axes[row, col]
            part = data[(data["protocol"] == protocol) & (data["metric"] == metric)]
            for method, line in part.groupby("method", sort=False):
                line = line.sort_values("n_features")
                if line["n_features"].nunique() == 1 and len(counts) > 1:
                    ax.axhline(line["value"].iloc[0], color="k", ls="--", lw=1, label=method)
                else:
                    ax.plot(line["n_features"], line["value"], marker="o", ms=3, label=method)
            ax.set_title(f"{dataset}: {protocol} protocol")
            ax.set_xlabel("number of selected features")
            ax.set_ylabel(METRIC_LABELS.get(metric, metric))
            ax.grid(alpha=0.3)
    axes[0, -1].legend(fontsize="small", loc="best")
    fig.tight_layout()
    return fig


def plot_convergence(traces, dataset, *, max_traces=20):
    """Objective per iteration of each iterative method; the default setting in bold."""
    data = traces[traces["dataset"] == dataset]
    methods = list(dict.fromkeys(data["method"]))
    fig, axes = plt.subplots(
        1, max(1, len(methods)), squeeze=False, figsize=(4.5 * max(1, len(methods)), 3.4)
    )
    if not methods:
        axes[0, 0].text(0.5, 0.5, "no iterative method ran", ha="center", va="center")
        axes[0, 0].set_axis_off()
    for ax, method in zip(axes[0], methods, strict=False):
        part = data[data["method"] == method]
        for i, (_params, trace) in enumerate(part.groupby("params", sort=False)):
            default = bool(trace["is_default"].iloc[0])
            if not default and i >= max_traces:
                continue
            ax.plot(
                trace["iteration"],
                trace["objective"],
                color="C0" if default else "0.7",
                lw=2 if default else 0.8,
                zorder=3 if default else 1,
                label="default setting" if default else None,
            )
        ax.set_yscale("symlog" if (part["objective"] <= 0).any() else "log")
        ax.set_title(f"{dataset}: {method}")
        ax.set_xlabel("iteration")
        ax.set_ylabel("objective")
        ax.grid(alpha=0.3)
        if part["is_default"].any():
            ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


# Metadata that would record when a figure was drawn, left out so that the same figure
# is the same bytes whenever it is made (PNG records only the constant Software key; SVG
# ids are random unless salted).
_NO_DATE = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}


def save_figure(fig, *paths):
    """Write the figure to each path (format from the extension), atomically.

    Every figure of the workflow is written here, without a creation date: two runs of
    the same configuration give byte-identical PNG, PDF and SVG files.
    """
    for path in paths:
        suffix = str(path).rsplit(".", 1)[-1].lower()
        with atomic_path(path) as tmp, plt.rc_context({"svg.hashsalt": "ufsbench"}):
            fig.savefig(tmp, format=suffix, dpi=150, metadata=_NO_DATE.get(suffix))
    plt.close(fig)


def cliques(ranks, cd: float) -> list[tuple[int, int]]:
    """Maximal runs ``(first, last)`` of rank-sorted methods whose ranks differ by < ``cd``.

    Methods in one run are not significantly different by the Nemenyi test; runs of one
    method are left out, and a run inside another is not repeated.
    """
    values = np.sort(np.asarray(ranks, dtype=float))
    runs = []
    for i in range(len(values)):
        j = i
        while j + 1 < len(values) and values[j + 1] - values[i] < cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return runs


def plot_cd_diagram(ranks, cd: float, *, title=None, labels=None):
    """Critical-difference diagram (Demšar 2006): mean ranks on an axis, best on the left.

    ``ranks``: pandas Series method -> mean rank. Methods joined by a thick bar are not
    significantly different (rank difference below the critical difference ``cd``).
    """
    ranks = ranks.sort_values(kind="stable")
    names = [labels.get(m, m) if labels else m for m in ranks.index]
    k = len(ranks)
    half = (k + 1) // 2
    fig, ax = plt.subplots(figsize=(8.0, 1.6 + 0.28 * half))
    low, high = 1, max(k, int(np.ceil(ranks.max())))
    ax.hlines(0, low, high, color="k", lw=1)
    for tick in range(low, high + 1):
        ax.vlines(tick, 0, 0.12, color="k", lw=1)
        ax.text(tick, 0.18, str(tick), ha="center", va="bottom", fontsize=9)
    ax.hlines(0.75, low, low + cd, color="k", lw=1.5)
    ax.vlines([low, low + cd], 0.68, 0.82, color="k", lw=1)
    ax.text(low + cd / 2, 0.86, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    step = 0.32
    for i, (name, rank) in enumerate(zip(names, ranks.to_numpy(), strict=True)):
        left = i < half
        level = -(i + 1 if left else k - i) * step - 0.2
        edge = low - 0.6 if left else high + 0.6
        ax.plot([rank, rank, edge], [0, level, level], color="0.3", lw=0.8)
        ax.text(edge + (-0.05 if left else 0.05), level, f"{name} ({rank:.2f})",
                ha="right" if left else "left", va="center", fontsize=9)  # fmt: skip
    for j, (a, b) in enumerate(cliques(ranks, cd)):
        y = -0.1 - 0.09 * j
        ax.hlines(y, ranks.iloc[a] - 0.03, ranks.iloc[b] + 0.03, color="k", lw=3)
    ax.set_xlim(low - 3.2, high + 3.2)
    ax.set_ylim(-(half + 1) * step - 0.3, 1.1)
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def plot_selected_pairs(X, y, pairs: dict, *, title=None, informative=(0, 1)):
    """One scatter panel per method: the samples on its 2 selected features, by class.

    ``pairs``: method -> (feature i, feature j). A panel title says whether the pair is
    the informative one (BLUFS paper, Figs. 3-4).
    """
    n = len(pairs)
    cols = min(5, max(1, n))
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, squeeze=False, figsize=(2.8 * cols, 2.7 * rows))
    for ax in axes.ravel()[n:]:
        ax.set_axis_off()
    for ax, (method, (i, j)) in zip(axes.ravel(), pairs.items(), strict=False):
        ax.scatter(X[:, i], X[:, j], c=y, s=2, cmap="tab10", rasterized=True)
        hit = len({int(i), int(j)} & set(informative))
        ax.set_title(f"{method}: f{i}, f{j} ({hit}/2 informative)", fontsize=8)
        ax.tick_params(labelsize=6)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
