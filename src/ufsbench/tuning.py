"""Two-stage hyper-parameter search (the re-run of its winners: :mod:`ufsbench.reseeding`).

The BLUFS paper tunes four weights over ``{1e-4, ..., 1e3}`` but never says how; the 8^4
product is unaffordable (spec blufs.md §2.8, E25). The two-stage search its Fig. 9
implies: stage 1 is an ordinary grid (e.g. ``(alpha, beta)`` with ``lam = mu = 1``), run
by the workflow's select/evaluate jobs; stage 2 fixes the stage-1 winner and searches
the remaining weights (e.g. ``(mu, lam)``). Spec §10.2 F5: whether the winner is taken
per feature count or once per dataset is not stated, so it is a named option
(``anchor``). The winner is chosen on the labels (oracle), by ``metric``.

Because both stages use the same seeds, scores and selections of stage 2 have exactly
the stage-1 layout and aggregate with them.

Stage 2 runs as ``stage2_part_count`` jobs, a number fixed by the config (feature
counts x stage-2 grid points, ``chunk_size`` runs per job) although which settings it
holds depends on the stage-1 winners: every part computes the winners, takes its slice
of the settings (``stage2_part``) and :func:`merge_parts` joins the parts. A setting's
seeds do not depend on which job runs it, so the merge equals the serial search.
"""

from __future__ import annotations

import math

import pandas as pd

from .api import rank_features
from .evaluate import evaluate_selection
from .plan import expand_grid, graph_weights, setting_id
from .seeding import derive_seed

ANCHORS = ("per_count", "per_dataset")


def setting_means(scores: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Mean of ``metric`` over repeats per (params, n_features), in-grid settings only."""
    if metric not in scores.columns:
        raise ValueError(f"scores have no column {metric!r}")
    grid = scores[scores["in_grid"].astype(bool)]
    if grid.empty:
        raise ValueError("scores have no in_grid setting to choose from")
    return grid.groupby(["params", "n_features"], sort=False)[metric].mean().reset_index()


def stage1_winners(scores: pd.DataFrame, *, metric="acc", anchor="per_count") -> dict[int, str]:
    """The stage-1 setting id that stage 2 starts from, for every feature count.

    ``per_count``: the best mean at each count. ``per_dataset``: the best (setting,
    count) cell overall, used at every count. Ties go to the first setting listed and,
    for ``per_dataset``, to the smaller count (spec §6.4).
    """
    if anchor not in ANCHORS:
        raise ValueError(f"unknown anchor {anchor!r} (known: {', '.join(ANCHORS)})")
    means = setting_means(scores, metric)
    counts = sorted(int(m) for m in means["n_features"].unique())
    if anchor == "per_dataset":
        ordered = means.sort_values("n_features", kind="stable")
        best = ordered.loc[ordered[metric].idxmax(), "params"]
        return dict.fromkeys(counts, best)
    winners = {}
    for m in counts:
        at_m = means[means["n_features"] == m]
        winners[m] = at_m.loc[at_m[metric].idxmax(), "params"]
    return winners


def stage2_settings(spec, stage1: dict[str, dict], winners: dict[int, str], grid: dict):
    """Stage-2 settings: ``[(setting_id, params, counts)]``, stage-1 settings excluded.

    ``stage1`` maps every stage-1 setting id to its full (checked) parameters; each
    winner's parameters are completed with every point of ``grid``. A setting reached
    from several counts is run once, for all of them.
    """
    if not grid:
        raise ValueError(f"method {spec.name!r}: the stage-2 grid is empty")
    unknown = sorted(set(grid) - set(spec.params))
    if unknown:
        raise ValueError(f"method {spec.name!r}: stage-2 grid has unknown parameter {unknown[0]!r}")
    out: dict[str, tuple[dict, list[int]]] = {}
    for m, winner in sorted(winners.items()):
        if winner not in stage1:
            raise ValueError(f"method {spec.name!r}: stage-1 winner {winner!r} is not configured")
        for point in expand_grid(spec.name, grid):
            params = spec.check_params({**stage1[winner], **point})
            sid = setting_id(params)
            if sid in stage1:
                continue
            out.setdefault(sid, (params, []))[1].append(m)
    return [(sid, params, counts) for sid, (params, counts) in out.items()]


def stage2_part_count(n_counts: int, grid_size: int, chunk_size: int) -> int:
    """Stage-2 jobs of one (dataset, method): ``ceil(n_counts * grid_size / chunk_size)``.

    ``n_counts * grid_size`` bounds the stage-2 (setting, feature count) runs whatever the
    stage-1 winners: each count's winner is completed with every grid point, and a
    setting reached from several counts runs once per count (one budget each).
    """
    if n_counts < 1 or grid_size < 1 or chunk_size < 1:
        raise ValueError(
            f"stage 2: n_counts={n_counts}, grid_size={grid_size} and chunk_size={chunk_size} "
            "must all be >= 1"
        )
    return math.ceil(n_counts * grid_size / chunk_size)


def stage2_part(settings, part: int, parts: int):
    """Part ``part`` of ``parts`` of the stage-2 ``settings`` (``[(id, params, counts)]``).

    Contiguous slices, balanced by runs (a setting weighs its number of counts), never
    splitting a setting: setting ``i``, whose runs start at ``r_i`` of ``R`` in all, goes
    to part ``floor(parts * (r_i + w_i / 2) / R)``. Concatenating the parts in order gives
    ``settings`` back; a part may be empty when there are fewer settings than parts.
    """
    if not 0 <= part < parts:
        raise ValueError(f"stage 2: part={part} must be in [0, parts={parts})")
    weights = [len(counts) for _, _, counts in settings]
    total = sum(weights)
    out, start = [], 0
    for setting, weight in zip(settings, weights, strict=True):
        if min(parts - 1, parts * (2 * start + weight) // (2 * total)) == part:
            out.append(setting)
        start += weight
    return out


def merge_parts(parts):
    """Join stage-2 parts ``[(selections, scores)]``, in part order, into one.

    Raises ``ValueError`` when a setting id is in two parts.
    """
    selections, frames = {}, []
    for i, (sels, scores) in enumerate(parts):
        for sid, sel in sels.items():
            if sid in selections:
                raise ValueError(f"stage 2: setting {sid!r} is in two parts (again in part {i})")
            selections[sid] = sel
        if len(scores):
            frames.append(scores)
    scores = pd.concat(frames, ignore_index=True) if frames else _empty_scores()
    return selections, scores


def _empty_scores() -> pd.DataFrame:
    columns = ["dataset", "method", "params", "in_grid", "is_default", "n_features", "repeat"]
    return pd.DataFrame(columns=columns)


def run_settings(
    X, y, method, settings, *, dataset, n_clusters, kmeans, seeding="per_run",
    graph_of=None, log=None,
):  # fmt: skip
    """Select and evaluate ``[(setting_id, params, counts)]`` like the select/evaluate jobs.

    Returns ``(selections, scores)``: selections by setting id, and the tidy score rows
    (``dataset, method, params, in_grid, is_default, n_features, repeat, acc, ...``) with
    ``in_grid=True`` and ``is_default=False``. Seeds are the workflow's, so a setting has
    the same result whichever stage runs it. ``graph_of(params)`` gives the sample graph
    of a setting (the workflow's shared k-NN table); None lets each method build its own.
    """
    from .methods.registry import get_method

    spec = get_method(method)
    selections, frames, runs = {}, [], {}
    for sid, params, counts in settings:
        _, hyper = spec.split_graph_params(params)
        sel = rank_features(
            X,
            method,
            graph=graph_of(params) if graph_of else None,
            n_clusters=n_clusters,
            random_state=derive_seed(dataset, method, sid),
            feature_counts=counts,
            **hyper,
        )
        seed_key = (dataset, method, sid) if seeding == "per_run" else (dataset,)
        rows = evaluate_selection(
            X, y, sel, counts, n_clusters=n_clusters, seed_key=seed_key, cache=runs,
            **kmeans,
        )  # fmt: skip
        if log is not None:
            log.info("%s [%s] at %s: %.3f s, mean ACC %.2f", method, sid, counts, sel.seconds,
                     100 * rows["acc"].mean())  # fmt: skip
        frames.append(_tag(rows, dataset, method, sid, sel.seconds))
        selections[sid] = sel
    scores = pd.concat(frames, ignore_index=True) if frames else _empty_scores()
    return selections, scores


def _tag(rows, dataset, method, sid, seconds):
    rows = rows.copy()
    rows.insert(0, "dataset", dataset)
    rows.insert(1, "method", method)
    rows.insert(2, "params", sid)
    rows.insert(3, "in_grid", True)
    rows.insert(4, "is_default", False)
    rows["select_seconds"] = seconds
    return rows


def graph_from_knn(method: str, knn: dict | None, *, sigma0: str, width: str):
    """``params -> graph`` from the workflow's shared k-NN table, weighted as the select
    job weights it (:func:`ufsbench.plan.graph_weights`; config ``graph.sigma0``/``width``)."""
    from .io import knn_affinity
    from .methods.registry import get_method

    spec = get_method(method)

    def graph_of(params):
        weights = graph_weights(spec, params, sigma0=sigma0, width=width)
        if weights is None or knn is None:
            return None
        return knn_affinity(knn, **weights)

    return graph_of
