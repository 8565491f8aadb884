"""The BLUFS paper's analysis figures: sensitivity (Fig. 9), stability (Fig. 10),
feature correlation (Fig. 8) and convergence (Fig. 11), plus what they are drawn from.

Every figure reads what the workflow already computed (tidy scores and stored
selections); only stability (50 k-means runs) and convergence (two BLUFS runs) compute.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from ..kmeans import cluster
from ..metrics import clustering_accuracy
from ..plots import plt
from ..seeding import derive_seed


def best_setting(scores: pd.DataFrame, dataset, method, metric="acc", n_features=None):
    """(setting id, count) of the oracle cell, or of the best setting at ``n_features``."""
    part = scores[(scores["dataset"] == dataset) & (scores["method"] == method)]
    part = part[part["in_grid"].astype(bool)]
    if n_features is not None:
        part = part[part["n_features"] == n_features]
    if part.empty:
        raise ValueError(f"no in-grid scores of {method!r} on {dataset!r} (count {n_features})")
    means = part.groupby(["params", "n_features"], sort=False)[metric].mean().reset_index()
    means = means.sort_values("n_features", kind="stable")
    row = means.loc[means[metric].idxmax()]
    return row["params"], int(row["n_features"])


def selections_by_method(paths) -> dict:
    """The stored selections of ``.../{method}/{chunk}/selection.npz`` files, as
    ``{method: {setting id: selection}}`` (a method's chunks merged)."""
    from ..io import load_selections

    found = {}
    for path in paths:
        found.setdefault(Path(path).parts[-3], {}).update(load_selections(path))
    return found


def _param(sid: str, name: str) -> float:
    for pair in sid.split(","):
        key, _, value = pair.partition("=")
        if key == name:
            return float(value)
    raise ValueError(f"setting {sid!r} has no parameter {name!r}")


def sensitivity_grids(scores, dataset, method="blufs", *, pairs=(("alpha", "beta"), ("mu", "lam"))):
    """ACC (%) over each parameter pair at the ACC winner's count (spec §6.6).

    Panel 1 holds the other weights at their stage-1 values (every setting whose other
    weights equal the winner's stage-1 anchor is used); panel 2 holds the first pair at
    the winner's values. Returns ``[(x name, y name, DataFrame y x x)]``.
    """
    winner, s = best_setting(scores, dataset, method)
    part = scores[
        (scores["dataset"] == dataset) & (scores["method"] == method) & (scores["n_features"] == s)
    ]
    means = part.groupby("params", sort=False)["acc"].mean() * 100.0
    names = [name for pair in pairs for name in pair]
    values = pd.DataFrame({name: [_param(sid, name) for sid in means.index] for name in names})
    values["acc"] = means.to_numpy()
    out = []
    for i, (x, y) in enumerate(pairs):
        others = [name for name in names if name not in (x, y)]
        if i == 0:  # stage 1: the other weights at their stage-1 value (1 in the paper)
            fixed = values[others].mode().iloc[0]
        else:  # stage 2: the first pair at the winner's values
            fixed = pd.Series({name: _param(winner, name) for name in others})
        mask = np.all([np.isclose(values[name], fixed[name]) for name in others], axis=0)
        grid = values[mask].pivot_table(index=y, columns=x, values="acc", aggfunc="mean")
        out.append((x, y, grid))
    return out, s


def plot_sensitivity(grids, dataset, n_features):
    """Heatmaps of ACC over each parameter pair on one colour scale (one colour bar).

    A cell is the mean ACC over the k-means repeats; its value is printed when the grid
    is at most 10 x 10. A grey, hatched cell is a pair the search did not run (stage 2
    searches ``(mu, lam)`` only at the stage-1 winner's ``(alpha, beta)``, and a grid may
    be coarser than the other panel's), said in the figure's note.
    """
    values = [grid.to_numpy(dtype=float) for _, _, grid in grids]
    finite = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.array([])
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("0.85")
    fig, axes = plt.subplots(1, len(grids), squeeze=False, figsize=(4.4 * len(grids) + 1, 4.3))
    image, blank = None, False
    for ax, (x, y, grid), data in zip(axes[0], grids, values, strict=True):
        masked = np.ma.masked_invalid(data)
        image = ax.imshow(masked, origin="lower", cmap=cmap, aspect="auto", vmin=vmin, vmax=vmax)
        for i, j in zip(*np.nonzero(~np.isfinite(data)), strict=True):
            blank = True
            ax.add_patch(
                plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", ec="0.6", lw=0)
            )
        if data.shape[0] <= 10 and data.shape[1] <= 10:
            middle = (vmin + vmax) / 2
            for i, j in zip(*np.nonzero(np.isfinite(data)), strict=True):
                ax.text(j, i, f"{data[i, j]:.1f}", ha="center", va="center", fontsize=7,
                        color="k" if data[i, j] > middle else "w")  # fmt: skip
        ax.set_xticks(range(grid.shape[1]), [f"{v:g}" for v in grid.columns], rotation=45)
        ax.set_yticks(range(grid.shape[0]), [f"{v:g}" for v in grid.index])
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.set_title(f"ACC over ({x}, {y})", fontsize=9)
    fig.suptitle(f"{dataset}: BLUFS sensitivity at s = {n_features} selected features", fontsize=10)
    note = "one colour scale for both panels; cell: mean ACC (%) over the k-means repeats"
    if blank:
        note += "\ngrey hatched: setting not run (stage 2 is searched at the stage-1 winner only)"
    fig.text(0.5, 0.01, note, ha="center", va="bottom", fontsize=7)
    fig.tight_layout(rect=(0, 0.08, 0.9, 0.95))
    if image is not None:
        cax = fig.add_axes((0.915, 0.2, 0.015, 0.65))
        fig.colorbar(image, cax=cax, label="ACC (%)")
    return fig


def stability_runs(X, y, features, *, n_clusters, runs=50, seed_key=()) -> np.ndarray:
    """ACC (%) of ``runs`` k-means runs (10 starts, <= 50 iterations) on ``X[:, features]``."""
    Xs = X[:, features]
    return np.array([
        100.0 * clustering_accuracy(y, cluster(
            Xs, n_clusters, engine="litekmeans", n_init=10, max_iter=50,
            random_state=derive_seed(*seed_key, "stability", r)))
        for r in range(runs)
    ])  # fmt: skip


def plot_stability(values: dict, dataset):
    fig, ax = plt.subplots(figsize=(0.9 * max(4, len(values)) + 1.5, 3.6))
    ax.boxplot(list(values.values()), tick_labels=list(values))
    ax.set_ylabel("ACC (%)")
    ax.set_title(f"{dataset}: 50 k-means runs at each method's ACC-optimal setting", fontsize=9)
    ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    return fig


def redundancy(X, features) -> tuple[np.ndarray, float]:
    """Pearson correlation of the selected raw columns and the mean off-diagonal |r|."""
    with np.errstate(invalid="ignore", divide="ignore"):
        R = np.corrcoef(X[:, features], rowvar=False)
    # A constant column correlates with nothing; one column's "matrix" is a scalar.
    R = np.atleast_2d(np.nan_to_num(R))
    off = np.abs(R[~np.eye(len(features), dtype=bool)])
    return R, float(off.mean()) if off.size else 0.0


def plot_correlation(matrices: dict, dataset):
    n = len(matrices)
    fig, axes = plt.subplots(1, n, squeeze=False, figsize=(3.8 * n, 3.4))
    for ax, (method, (R, score)) in zip(axes[0], matrices.items(), strict=True):
        image = ax.imshow(R, vmin=-1, vmax=1, cmap="RdBu_r")
        labels = [f"F{i + 1}" for i in range(len(R))]
        ax.set_xticks(range(len(R)), labels, fontsize=6, rotation=90)
        ax.set_yticks(range(len(R)), labels, fontsize=6)
        ax.set_title(f"{dataset} {method}: mean |r| = {score:.2f}", fontsize=9)
        ax.set_xlabel("selected features, best-ranked first", fontsize=7)
    fig.colorbar(image, ax=list(axes[0]), shrink=0.8, label="Pearson correlation r")
    return fig


def plot_convergence_traces(traces: pd.DataFrame, dataset):
    fig, ax = plt.subplots(figsize=(5, 3.4))
    # The runs share their first sweeps: the first is drawn wide underneath, the next
    # dashed on top, so both stay visible where they coincide.
    for i, (run, part) in enumerate(traces.groupby("run", sort=False)):
        style = (
            {"lw": 3.0, "alpha": 0.6} if i == 0 else {"lw": 1.2, "ls": "--", "marker": "o", "ms": 2}
        )
        ax.plot(part["iteration"], part["objective"], label=run, zorder=2 + i, **style)
    ax.set_xlabel("iteration")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("objective f")
    ax.set_title(f"{dataset}: BLUFS, default parameters", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
