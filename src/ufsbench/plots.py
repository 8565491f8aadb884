"""Matplotlib figures of the benchmark: scores against feature counts, and convergence."""

from __future__ import annotations

import matplotlib
import matplotlib.patches
import matplotlib.ticker

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
    """Small multiples of each method's score against the number of selected features.

    One row per method, one column per (protocol, metric). In each panel the row's method
    is drawn in colour with a band of ± one standard deviation over the k-means repeats
    (when ``curves`` has a ``std`` column, see :func:`ufsbench.aggregate.repeat_spread`),
    the other methods in light grey for context, and a method evaluated on all features
    only (AllFea) as a dashed horizontal reference line. Columns of one protocol and
    metric share their y axis, so rows compare directly.
    """
    data = curves[curves["dataset"] == dataset]
    if data.empty:
        raise ValueError(f"figure: no curves for dataset {dataset!r}")
    protocols = list(dict.fromkeys(data["protocol"]))
    counts = np.sort(data["n_features"].unique())
    single = {
        method
        for method, part in data.groupby("method", sort=False)
        if part["n_features"].nunique() == 1 and len(counts) > 1
    }
    methods = [m for m in dict.fromkeys(data["method"]) if m not in single] or list(single)
    panels = [(p, m) for p in protocols for m in metrics]
    fig, axes = plt.subplots(
        len(methods),
        len(panels),
        squeeze=False,
        sharex=True,
        sharey="col",
        figsize=(2.9 * len(panels), 0.9 + 1.55 * len(methods)),
    )
    has_std = "std" in data.columns
    for col, (protocol, metric) in enumerate(panels):
        part = data[(data["protocol"] == protocol) & (data["metric"] == metric)]
        lines = {m: g.sort_values("n_features") for m, g in part.groupby("method", sort=False)}
        for row, method in enumerate(methods):
            ax = axes[row, col]
            for other, line in lines.items():
                if other in single:
                    ax.axhline(line["value"].iloc[0], color="k", ls="--", lw=0.9, zorder=2)
                elif other != method:
                    ax.plot(line["n_features"], line["value"], color="0.8", lw=0.8, zorder=1)
            line = lines.get(method)
            if line is not None and method not in single:
                colour = f"C{row % 10}"
                if has_std:
                    std = line["std"].fillna(0.0).to_numpy()
                    ax.fill_between(
                        line["n_features"],
                        line["value"] - std,
                        line["value"] + std,
                        color=colour,
                        alpha=0.25,
                        lw=0,
                        zorder=3,
                    )
                ax.plot(line["n_features"], line["value"], color=colour, marker="o", ms=3, zorder=4)
            ax.grid(alpha=0.3)
            if row == 0:
                ax.set_title(f"{protocol} protocol\n{METRIC_LABELS.get(metric, metric)}")
            if col == 0:
                ax.set_ylabel(method, fontweight="bold")
            if row == len(methods) - 1:
                ax.set_xlabel("selected features")
    handles = [
        plt.Line2D([], [], color="C0", marker="o", ms=3, label="the row's method"),
        plt.Line2D([], [], color="0.8", label="other methods"),
    ]
    if has_std:
        handles.insert(
            1, matplotlib.patches.Patch(color="C0", alpha=0.25, label="± 1 std over repeats")
        )
    if single:
        handles.append(
            plt.Line2D(
                [], [], color="k", ls="--", label=f"{', '.join(sorted(single))} (all features)"
            )
        )
    fig.suptitle(f"{dataset}: clustering score vs number of selected features")
    fig.legend(
        handles=handles, loc="lower center", ncol=len(handles), fontsize="small", frameon=False
    )
    fig.tight_layout(rect=(0, 0.35 / (0.9 + 1.55 * len(methods)), 1, 1))
    return fig


def plot_convergence(traces, dataset, *, max_traces=20, max_labelled=6):
    """Objective per iteration of each iterative method, one panel per method.

    The default setting is drawn bold. With at most ``max_labelled`` settings, every
    setting has its own colour and its parameters in the legend; with more, the first
    ``max_traces`` others are thin grey lines, named as a group in the legend. The
    legend sits below each panel, off the data; iterations are integers.
    """
    data = traces[traces["dataset"] == dataset]
    methods = list(dict.fromkeys(data["method"]))
    n = max(1, len(methods))
    fig, axes = plt.subplots(1, n, squeeze=False, figsize=(4.6 * n, 4.4))
    if not methods:
        axes[0, 0].text(0.5, 0.5, "no iterative method ran", ha="center", va="center")
        axes[0, 0].set_axis_off()
    for ax, method in zip(axes[0], methods, strict=False):
        part = data[data["method"] == method]
        settings = list(part.groupby("params", sort=False))
        names = _short_settings([params for params, _ in settings])
        labelled = len(settings) <= max_labelled
        others = [s for s in settings if not bool(s[1]["is_default"].iloc[0])]
        shown = 0
        for params, trace in settings:
            default = bool(trace["is_default"].iloc[0])
            if not default and not labelled:
                if shown >= max_traces:
                    continue
                label = f"other settings ({min(len(others), max_traces)} of {len(others)})"
                label = label if shown == 0 else None
                shown += 1
                style = {"color": "0.7", "lw": 0.8, "zorder": 1, "label": label}
            elif default:
                label = f"default: {names[params]}"
                style = {"color": "k", "lw": 2.6, "zorder": 2, "label": label}
            else:
                style = {"lw": 1.2, "zorder": 3, "label": names[params]}
            ax.plot(trace["iteration"], trace["objective"], **style)
        ax.set_yscale("symlog" if (part["objective"] <= 0).any() else "log")
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_title(f"{dataset}: {method}")
        ax.set_xlabel("iteration")
        ax.set_ylabel("objective")
        ax.grid(alpha=0.3)
        if settings:
            ax.legend(
                fontsize="x-small",
                loc="upper center",
                bbox_to_anchor=(0.5, -0.18),
                ncol=1,
                frameon=False,
            )
    fig.tight_layout()
    return fig


def _short_settings(setting_ids) -> dict:
    """Each setting id cut to the parameters that differ among ``setting_ids``."""
    parsed = {sid: dict(p.partition("=")[::2] for p in str(sid).split(",")) for sid in setting_ids}
    keys = {k for params in parsed.values() for k in params}
    varying = [k for k in sorted(keys) if len({params.get(k) for params in parsed.values()}) > 1]
    if not varying:
        return {sid: str(sid) for sid in setting_ids}
    return {
        sid: ", ".join(f"{k}={params[k]}" for k in varying if k in params)
        for sid, params in parsed.items()
    }


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
        ax.set_xlabel(f"feature f{i}", fontsize=7)
        ax.set_ylabel(f"feature f{j}", fontsize=7)
        ax.tick_params(labelsize=6)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
