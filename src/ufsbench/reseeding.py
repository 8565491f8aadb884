"""The re-run of oracle winners with fresh method seeds (spec blufs.md §10.1).

An oracle cell (the best setting and feature count on the labels) is partly the luck of
one initialisation, so the BLUFS experiment re-runs each winning setting with ``seeds``
fresh method seeds. A re-seeding is split into jobs (:func:`part_names`): one per seed,
so ``--cores N`` runs N seeds at once and an interrupted re-seeding keeps its finished
seeds, or a single job when the method's declaration says its seed cannot matter on data
of this shape (it is then fitted once). :func:`merge_parts` orders the parts' rows as
one pass over the seeds writes them.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .api import rank_features
from .evaluate import evaluate_selection
from .seeding import derive_seed

RESEED_COLUMNS = ("seed", "n_features", "acc", "nmi_max", "nmi_sqrt", "features")
_PART = re.compile(r"r(\d+)(?:-(\d+))?")


def seed_list(seeds) -> list[int]:
    """``seeds`` as a list: an int ``s`` is ``0, ..., s - 1``; a sequence is taken as is."""
    if isinstance(seeds, (int, np.integer)):
        if seeds < 1:
            raise ValueError(f"reseed: seeds={seeds} must be >= 1")
        return list(range(int(seeds)))
    out = [int(s) for s in seeds]
    if not out or min(out) < 0 or len(set(out)) != len(out):
        raise ValueError(f"reseed: seeds {seeds!r} must be distinct non-negative numbers")
    return out


def fits_once(spec, shape) -> bool:
    """Whether ``spec``'s seed cannot change its selection on data of ``shape`` (n, d)."""
    return spec.seed_free is not None and bool(spec.seed_free(*shape))


def part_names(seeds: int, fit_once: bool) -> list[str]:
    """The jobs of a re-seeding with ``seeds`` seeds: ``r0``, ``r1``, ... one per seed, or
    ``r0-<seeds-1>`` alone when the method is fitted once (a seed-free method)."""
    seeds = len(seed_list(seeds))
    if fit_once:
        return [f"r0-{seeds - 1}"]
    return [f"r{r}" for r in range(seeds)]


def part_seeds(name: str) -> list[int]:
    """The seeds of the job named ``name`` (``r3`` -> [3], ``r0-9`` -> [0, ..., 9])."""
    match = _PART.fullmatch(name)
    if match is None:
        raise ValueError(f"reseed part {name!r} is neither r<seed> nor r<first>-<last>")
    first = int(match[1])
    last = int(match[2]) if match[2] is not None else first
    if last < first:
        raise ValueError(f"reseed part {name!r}: the last seed precedes the first")
    return list(range(first, last + 1))


def reseed(
    X, y, method, params, n_features, *, dataset, n_clusters, kmeans, seeds=10,
    graph_of=None, log=None,
) -> pd.DataFrame:  # fmt: skip
    """Re-run one setting with fresh method seeds and cluster it at the given counts.

    Each re-run draws the method's random start from ``derive_seed(dataset, method,
    params, "reseed", r)`` and is clustered by the usual protocol, its k-means seeds from
    ``(dataset, method, "reseed", r, count, repeat)``. So a seed's rows do not depend on
    the other seeds or counts asked for in the same call.

    Parameters
    ----------
    n_features : int or sequence of int
        The counts to evaluate. One fit serves them all, except for a count-dependent
        method, which is fitted per count (as the select jobs of one count would).
    seeds : int or sequence of int, default=10
        ``s``: seeds ``0, ..., s - 1``; a sequence: those seeds (one job's share).

    Returns
    -------
    pandas.DataFrame
        One row per (seed, count), seeds outermost: ``seed``, ``n_features``, the mean
        ``acc``/``nmi_max``/``nmi_sqrt`` over the k-means repeats (fractions) and the
        selected ``features``. A method declared seed-free on data of this shape (e.g.
        SOGFS on at most 600 samples) is fitted once; its rows are those fits per seed
        would give.
    """
    from .methods.registry import get_method

    seeds = seed_list(seeds)
    counts = [int(m) for m in np.atleast_1d(n_features)]
    spec = get_method(method)
    params = spec.check_params(params)
    _, hyper = spec.split_graph_params(params)
    graph = graph_of(params) if graph_of else None
    fit_once = fits_once(spec, np.shape(X))
    # count-dependent methods pick a subset per count: fit each count alone
    fit_groups = [[m] for m in counts] if spec.count_dependent else [counts]
    fitted: dict[int, object] = {}
    rows = []
    for r in seeds:
        for group in fit_groups:
            if not (fit_once and group[0] in fitted):
                fitted[group[0]] = rank_features(
                    X,
                    method,
                    graph=graph,
                    n_clusters=n_clusters,
                    random_state=derive_seed(dataset, method, params, "reseed", r),
                    feature_counts=group,
                    **hyper,
                )
            sel = fitted[group[0]]
            for m in group:
                scores = evaluate_selection(
                    X, y, sel, [m], n_clusters=n_clusters,
                    seed_key=(dataset, method, "reseed", r), **kmeans,
                )  # fmt: skip
                means = scores[["acc", "nmi_max", "nmi_sqrt"]].mean()
                features = " ".join(map(str, np.sort(sel.top(m))))
                rows.append((r, m, *means.to_list(), features))
                if log is not None:
                    log.info("%s reseed %d at s=%d: ACC %.2f", method, r, m, 100 * means["acc"])
    return pd.DataFrame(rows, columns=list(RESEED_COLUMNS))


def reseed_cells(
    X, y, method, cells: pd.DataFrame, parse_params, *, dataset, seeds, log=None, **options
) -> pd.DataFrame:
    """Re-seed every oracle cell of one method (``cells``: rows ``metric, params,
    n_features`` of :func:`ufsbench.papers.blufs.oracle_cells`) at ``seeds``.

    Cells of one setting share its fits; ``parse_params`` turns a cell's setting id into
    parameters. Returns the cells' rows in cell order, seeds in order within a cell:
    ``seed, acc, nmi_max, nmi_sqrt, features, dataset, method, metric, params,
    n_features`` (``options``: the other keywords of :func:`reseed`).
    """
    if cells.empty:
        raise ValueError(f"reseed: {method} has no oracle cell on {dataset} to re-seed")
    per_setting = {}
    for params in pd.unique(cells["params"]):
        counts = sorted({int(m) for m in cells.loc[cells["params"] == params, "n_features"]})
        if log is not None:
            log.info("%s setting %s at s=%s", method, params, counts)
        per_setting[params] = reseed(
            X, y, method, parse_params(params), counts, dataset=dataset, seeds=seeds,
            log=log, **options,
        )  # fmt: skip
    frames = []
    for cell in cells.itertuples():
        rows = per_setting[cell.params]
        rows = rows[rows["n_features"] == int(cell.n_features)].drop(columns="n_features")
        frames.append(rows.assign(dataset=dataset, method=method, metric=cell.metric,
                                  params=cell.params, n_features=int(cell.n_features)))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def merge_parts(paths, out) -> None:
    """One re-seeding's table from its parts' tables (``paths``), written atomically to
    ``out``: every cell's rows (in the parts' cell order) by seed, byte for byte the
    table one pass over all seeds writes (the values are moved as text, not re-read).

    Raises ``ValueError`` when ``paths`` is empty, the headers differ, the parts list
    different cells or a seed appears twice.
    """
    from pathlib import Path

    from .io import atomic_path

    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("reseed: no part tables to merge")
    header, cells, rows = None, None, {}
    for path in paths:
        first, *lines = path.read_text().splitlines(keepends=True)
        columns = first.rstrip("\n").split("\t")
        if header is None:
            header = first
            seed_at, metric_at = columns.index("seed"), columns.index("metric")
        elif first != header:
            raise ValueError(f"reseed: {path}'s columns differ from {paths[0]}'s")
        fields = [line.rstrip("\n").split("\t") for line in lines]
        order = list(dict.fromkeys(f[metric_at] for f in fields))
        if cells is None:
            cells = order
        elif order != cells:
            raise ValueError(f"reseed: {path} re-seeds cells {order}, {paths[0]} {cells}")
        for f, line in zip(fields, lines, strict=True):
            key = (f[metric_at], int(f[seed_at]))
            if key in rows:
                raise ValueError(f"reseed: seed {key[1]} of cell {key[0]} appears twice")
            rows[key] = line
    ordered = sorted(rows, key=lambda key: (cells.index(key[0]), key[1]))
    with atomic_path(out) as tmp:
        Path(tmp).write_text(header + "".join(rows[key] for key in ordered))
