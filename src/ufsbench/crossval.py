"""Train/test cross-validation of a feature-selection method (LSDCL paper, Tables 4-5).

Reading of the paper's unfinished section (spec section 6.7): for a training size ``s``
and each of ``draws`` random splits, the method runs on the ``s`` training samples only
(graph built on them) over the whole grid; per feature count the setting with the best
*training* score (k-means on the training samples, scored with their labels) is kept,
and the *test* samples (the other ``n - s``) are clustered on those features. Tables
report test (and training) scores as mean ± std over the draws.

Two ways to choose the settings, named (config ``paper.crossval.selection``):

``nested``
    Every setting of the grid (gamma included) is chosen inside each draw from the
    training samples only, as the spec's reading of the paper has it (step 2, "over the
    full grid"). No test label is ever used. The default.
``full_data_oracle``
    Some parameters (config ``paper.crossval.full_data_oracle``, e.g. ``{gamma: 8}``)
    are fixed beforehand at their optimum on the whole labelled dataset, every draw's
    test samples included; the rest is chosen inside each draw as above. The spec's
    documented budget option (step 7: 7x fewer runs), kept to compare with and labelled
    as using the test labels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .api import rank_features
from .evaluate import evaluate_selection
from .graph import affinity, nearest_neighbours, pairwise_distance_scale
from .seeding import derive_seed

METRICS = ("acc", "nmi_max", "nmi_sqrt")
SELECTIONS = ("nested", "full_data_oracle")
RESULT_COLUMNS = (
    "n_train",
    "draw",
    "n_features",
    "params",
    *(f"train_{m}" for m in METRICS),
    *(f"test_{m}" for m in METRICS),
)


def selection_grid(grid: dict, selection: str, fixed: dict | None = None) -> dict:
    """The grid the cross-validation searches inside each draw under ``selection``.

    ``nested``: ``grid`` itself. ``full_data_oracle``: ``grid`` with each parameter of
    ``fixed`` set to its one full-data optimum. Raises ``ValueError`` for an unknown
    selection, a missing or empty ``fixed``, or a fixed parameter not in ``grid``.
    """
    if selection not in SELECTIONS:
        raise ValueError(f"crossval: selection {selection!r} must be one of {SELECTIONS}")
    if selection == "nested":
        return dict(grid)
    if not fixed:
        raise ValueError(
            "crossval: selection 'full_data_oracle' needs 'full_data_oracle' (the fixed "
            "parameters, e.g. {gamma: 8.0}) in the crossval config"
        )
    unknown = sorted(set(fixed) - set(grid))
    if unknown:
        raise ValueError(
            f"crossval: full_data_oracle fixes {unknown}, which the grid lacks "
            f"(grid: {', '.join(sorted(grid))})"
        )
    return {**grid, **{name: [value] for name, value in fixed.items()}}


def split(n_samples: int, n_train: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded random split: sorted training and test indices.

    Raises ``ValueError`` unless ``1 < n_train < n_samples - 1``.
    """
    if not 1 < n_train < n_samples - 1:
        raise ValueError(
            f"crossval: training size {n_train} must leave at least 2 training and 2 test "
            f"samples out of {n_samples}"
        )
    order = np.random.default_rng(seed).permutation(n_samples)
    return np.sort(order[:n_train]), np.sort(order[n_train:])


def cross_validate(X, y, method: str, settings: list[dict], **options) -> pd.DataFrame:
    """Run the train-select-test protocol for one training size.

    Parameters
    ----------
    X, y : arrays of shape (n, d) and (n,)
    method : str
        Registered method name.
    settings : list of dict
        ``{"id": str, "hyper": dict, "graph": dict | None}`` per grid setting, where
        ``graph`` holds the edge weights as the workflow plans them
        (:func:`ufsbench.plan.graph_weights`: ``weight``, and for heat ``t``, ``sigma0``
        and a non-default ``width``).
    **options
        Keyword arguments of :func:`cross_validate_subsets`: ``n_train``, ``draws``,
        ``feature_counts``, ``n_clusters``, ``k``, ``select_by``, ``seed_key``, ``log``
        and the k-means options.

    Returns
    -------
    pandas.DataFrame
        One row per (draw, feature count) with the chosen setting and its mean training
        and test scores over ``repeats`` k-means runs (fractions), columns
        ``RESULT_COLUMNS``.
    """
    ids = [setting["id"] for setting in settings]
    return cross_validate_subsets(X, y, method, settings, {"all": ids}, **options)["all"]


def cross_validate_subsets(
    X,
    y,
    method: str,
    settings: list[dict],
    subsets: dict[str, list[str]],
    *,
    n_train: int,
    draws,
    feature_counts,
    n_clusters: int,
    select_by: str = "acc",
    k: int,
    seed_key=(),
    log=None,
    **kmeans,
) -> dict[str, pd.DataFrame]:
    """:func:`cross_validate` for several ways to choose, each setting run once per draw.

    ``subsets`` maps a name (e.g. a selection of ``SELECTIONS``) to the ids of the
    settings it chooses from, in its order; ``settings`` holds every one of them. Each
    name's table is the one :func:`cross_validate` gives with that subset's settings
    alone: the splits and every seed depend on the draw and the setting, never on the
    other settings, and ties go to the subset's first setting.

    Parameters
    ----------
    k : int
        Neighbours of the training samples' k-NN graph (config ``graph.k``).
    n_train : int
        Training-set size.
    draws : int or sequence of int
        The number of random splits (draws ``0 .. draws - 1``), or which draws to run:
        each draw's split and seeds depend on its index only, so the rows of draws run
        apart are those of one pass over all of them (the workflow runs a job per draw).
    feature_counts : sequence of int
    select_by : {"acc", "nmi_max", "nmi_sqrt"}
        Training score that chooses the setting per feature count (one choice for both
        reported metrics).
    seed_key : tuple
        What identifies this experiment; every split, method and k-means seed derives
        from it.
    **kmeans
        The k-means evaluation's options (``repeats``, ``engine``, ``n_init``, ``max_iter``,
        ``init``), passed as they are to :func:`ufsbench.evaluate.evaluate_selection`.

    Returns
    -------
    dict of pandas.DataFrame
        Name -> the table :func:`cross_validate` describes.
    """
    if select_by not in METRICS:
        raise ValueError(f"crossval: select_by={select_by!r} must be one of {METRICS}")
    if not settings:
        raise ValueError("crossval: no settings to choose from")
    by_id = {setting["id"]: setting for setting in settings}
    for name, ids in subsets.items():
        unknown = sorted(set(ids) - set(by_id))
        if not ids or unknown:
            raise ValueError(f"crossval: subset {name!r} is empty or names unknown {unknown}")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    counts = sorted(int(m) for m in feature_counts)
    rows = {name: [] for name in subsets}
    for draw in range(draws) if isinstance(draws, int | np.integer) else draws:
        train, test = split(len(X), n_train, derive_seed(*seed_key, "split", n_train, draw))
        Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
        knn = None
        graphs: dict[tuple, object] = {}
        train_scores, selections = {}, {}
        # k-means seeds depend on the draw and the count, not the setting: settings that
        # rank the same top-m features share their runs (the scores are identical)
        train_runs, test_runs = {}, {}
        for setting in settings:
            graph = None
            if setting.get("graph"):
                weights = dict(setting["graph"])
                key = tuple(sorted(weights.items()))
                if key not in graphs:
                    if knn is None:
                        knn = nearest_neighbours(Xtr, k)
                    sigma0 = weights.pop("sigma0", None)  # heat weights name it
                    scale = pairwise_distance_scale(Xtr, sigma0) if sigma0 else None
                    graphs[key] = affinity(*knn, scale=scale, **weights)
                graph = graphs[key]
            sel = rank_features(
                Xtr,
                method,
                graph=graph,
                n_clusters=n_clusters,
                random_state=derive_seed(*seed_key, n_train, draw, setting["id"]),
                feature_counts=counts,
                n_neighbors=k,
                **setting["hyper"],
            )
            selections[setting["id"]] = sel
            scores = evaluate_selection(
                Xtr,
                ytr,
                sel,
                counts,
                n_clusters=n_clusters,
                seed_key=(*seed_key, "train", n_train, draw),
                cache=train_runs,
                **kmeans,
            )
            means = scores.groupby("n_features")[list(METRICS)].mean()
            means["params"] = setting["id"]
            train_scores[setting["id"]] = means.reset_index()
        tested = {}  # (setting, count) -> test scores: two subsets may choose alike
        for name, ids in subsets.items():
            table = pd.concat([train_scores[i] for i in ids], ignore_index=True)
            # First setting listed wins ties, as in the oracle protocol.
            best = table.loc[table.groupby("n_features", sort=True)[select_by].idxmax()]
            for chosen in best.itertuples(index=False):
                key = (chosen.params, int(chosen.n_features))
                if key not in tested:
                    tested[key] = evaluate_selection(
                        Xte,
                        yte,
                        selections[chosen.params],
                        [chosen.n_features],
                        n_clusters=n_clusters,
                        seed_key=(*seed_key, "test", n_train, draw),
                        cache=test_runs,
                        **kmeans,
                    )[list(METRICS)].mean()
                rows[name].append(
                    (
                        n_train,
                        draw,
                        int(chosen.n_features),
                        chosen.params,
                        *(float(getattr(chosen, m)) for m in METRICS),
                        *(float(tested[key][m]) for m in METRICS),
                    )
                )
        if log is not None:
            chose = ", ".join(f"{name} from {len(ids)}" for name, ids in subsets.items())
            log.info(
                "n_train=%d draw %d: %d settings ranked (%s)", n_train, draw, len(settings), chose
            )
    return {name: pd.DataFrame(part, columns=list(RESULT_COLUMNS)) for name, part in rows.items()}


def merge_draw_tables(paths, out) -> None:
    """One training size's table from its draws' tables (``paths``, in draw order),
    written atomically to ``out``: their rows under their one header, byte for byte the
    table one pass over the draws writes (:func:`ufsbench.io.write_table` formats every
    value alone).

    Raises ``ValueError`` when the headers differ or ``paths`` is empty.
    """
    from .io import atomic_path

    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("crossval: no draw tables to merge")
    header, rows = None, []
    for path in paths:
        first, *lines = path.read_text().splitlines(keepends=True)
        if header is None:
            header = first
        elif first != header:
            raise ValueError(f"crossval: {path}'s columns differ from {paths[0]}'s")
        rows.extend(lines)
    with atomic_path(out) as tmp:
        Path(tmp).write_text(header + "".join(rows))


def summarize(
    results: pd.DataFrame, *, dataset: str, method: str, protocol: str = "nested"
) -> pd.DataFrame:
    """Mean ± std over draws (in %), tidy, ready for :func:`ufsbench.reference.vs_paper`.

    ``results`` may hold several selections in a ``protocol`` column (see
    :data:`SELECTIONS`); without one, every row is ``protocol``.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``method``, ``protocol``, ``split`` (train/test),
        ``metric``, ``n_train``, ``n_features``, ``mean``, ``std`` (ddof=1 over draws),
        ``draws``; protocols in the order they first appear.
    """
    if "protocol" not in results.columns:
        results = results.assign(protocol=protocol)
    rows = []
    for name in pd.unique(results["protocol"]):
        part = results[results["protocol"] == name]
        for split_name in ("train", "test"):
            for metric in METRICS:
                column = f"{split_name}_{metric}"
                grouped = part.groupby(["n_train", "n_features"], sort=True)[column]
                stats = grouped.agg(["mean", "std", "count"]).reset_index()
                for row in stats.itertuples(index=False):
                    rows.append(
                        (
                            dataset,
                            method,
                            name,
                            split_name,
                            metric,
                            int(row.n_train),
                            int(row.n_features),
                            100 * row.mean,
                            100 * row.std,
                            int(row.count),
                        )
                    )
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))


SUMMARY_COLUMNS = (
    "dataset",
    "method",
    "protocol",
    "split",
    "metric",
    "n_train",
    "n_features",
    "mean",
    "std",
    "draws",
)


def render_markdown(
    summary: pd.DataFrame, metric: str, split_name: str = "test", protocol: str | None = None
) -> str:
    """Rows: feature counts (and Average), columns: training sizes; ``mean ± std``.

    ``protocol``: the selection shown (named in the title) when ``summary`` has a
    ``protocol`` column; None shows every row."""
    part = summary[(summary["metric"] == metric) & (summary["split"] == split_name)]
    if protocol is not None:
        part = part[part["protocol"] == protocol]
    sizes = sorted(part["n_train"].unique())
    counts = sorted(part["n_features"].unique())
    cell = {(r.n_features, r.n_train): (r.mean, r.std) for r in part.itertuples()}
    lines = [
        f"**{split_name} {metric} (%), mean ± std over draws"
        + (f", selection: {protocol}**" if protocol is not None else "**"),
        "",
        "| #features \\ nTrain | " + " | ".join(str(s) for s in sizes) + " |",
        "|---|" + "---|" * len(sizes),
    ]
    for m in counts:
        cells = []
        for s in sizes:
            mean, std = cell.get((m, s), (np.nan, np.nan))
            cells.append("—" if np.isnan(mean) else f"{mean:.2f} ± {std:.2f}")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    averages = part.groupby("n_train")["mean"].mean()
    lines.append("| Average | " + " | ".join(f"{averages[s]:.2f}" for s in sizes) + " |")
    return "\n".join(lines) + "\n"
