"""The clustering protocol: k-means on the top-m features, scored with ACC and NMI.

One selection is evaluated at every feature count ``m`` of the grid: ``repeats`` k-means
runs on ``X[:, selection.top(m)]``, each with its own seed derived from what the run is
(``derive_seed(*seed_key, m, repeat)``), so a score never depends on which counts are
evaluated together, in which order, or on how many jobs run at once.
"""

from __future__ import annotations

import csv
import math
import os

import numpy as np

from .api import check_data, check_feature_counts
from .io import atomic_path
from .kmeans import cluster
from .methods.base import Selection
from .metrics import clustering_scores
from .seeding import derive_seed

SCORE_COLUMNS = ("n_features", "repeat", "acc", "nmi_max", "nmi_sqrt")


def evaluate_selection(
    X,
    y,
    selection: Selection | None,
    feature_counts,
    *,
    n_clusters: int,
    repeats: int = 20,
    engine: str = "litekmeans",
    n_init: int = 1,
    max_iter: int = 100,
    init: str = "random",
    seed_key=(),
    all_features: bool = False,
    cache: dict | None = None,
    as_frame: bool = True,
):
    """Cluster the selected features ``repeats`` times at every feature count.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data the selection was computed on.
    y : array-like of shape (n_samples,)
        Ground-truth labels (at least 2 classes).
    selection : Selection or None
        The method's result; ``X[:, selection.top(m)]`` is clustered. May be None when
        ``all_features`` is True.
    feature_counts : sequence of int
        The grid of ``m``; evaluated sorted and without duplicates. Ignored when
        ``all_features`` is True.
    n_clusters : int
        Number of k-means clusters (usually the number of classes).
    repeats : int, default=20
        k-means runs per feature count.
    engine : {"litekmeans", "sklearn"}, default="litekmeans"
    n_init, max_iter, init
        Passed to :func:`ufsbench.kmeans.cluster`.
    seed_key : tuple, default=()
        What identifies this evaluation (e.g. the dataset name); the seed of run
        ``repeat`` at count ``m`` is ``derive_seed(*seed_key, m, repeat)``.
    all_features : bool, default=False
        Evaluate only ``m = n_features`` on all columns (the AllFea baseline).
    cache : dict or None, default=None
        Scores already computed, shared across calls on the same ``X`` and ``y``. A
        k-means run is fully determined by its columns, its seed and its settings, so a
        run repeated by another selection (grids often give the same top-m features at
        many settings) is looked up instead of clustered again; the scores are identical.
        Under ``shared`` seeding this removes every repeated subset of a grid.
    as_frame : bool, default=True
        Return a DataFrame; False: the rows as tuples in ``SCORE_COLUMNS`` order, without
        importing pandas (a workflow job writes them with :func:`write_rows`).

    Returns
    -------
    pandas.DataFrame or list of tuple
        One row per (n_features, repeat): ``n_features``, ``repeat``, ``acc``,
        ``nmi_max``, ``nmi_sqrt`` (fractions in [0, 1]).

    Notes
    -----
    Raises ``ValueError`` when ``y`` is missing, has the wrong length or fewer than 2
    classes, when a feature count exceeds the number of features, when ``selection``
    was computed on another number of features, or when ``repeats < 1``.
    """
    X = check_data(X)
    n, d = X.shape
    if y is None:
        raise ValueError("evaluate_selection: y is missing; the clustering protocol needs labels")
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"evaluate_selection: y must have shape ({n},) to match X, got {y.shape}")
    n_classes = len(np.unique(y))
    if n_classes < 2:
        raise ValueError(f"evaluate_selection: y needs at least 2 classes, got {n_classes}")
    if repeats < 1:
        raise ValueError(f"evaluate_selection: repeats={repeats} must be >= 1")
    if all_features:
        counts = [d]
    else:
        if selection is None:
            raise ValueError("evaluate_selection: selection is None and all_features is False")
        if selection.n_features != d:
            raise ValueError(
                f"evaluate_selection: the selection ranks {selection.n_features} features "
                f"but X has {d}"
            )
        if feature_counts is None:
            raise ValueError("evaluate_selection: feature_counts is missing")
        counts = check_feature_counts(feature_counts, d)

    kmeans = dict(engine=engine, n_init=n_init, max_iter=max_iter, init=init)
    settings = (n_clusters, *kmeans.values())
    rows = []
    for m in counts:
        columns = np.arange(d) if all_features else selection.top(m)
        Xm = X if all_features else X[:, columns]
        subset = columns.astype(np.int64).tobytes()
        for repeat in range(repeats):
            seed = derive_seed(*seed_key, m, repeat)
            key = (subset, seed, settings)
            scores = None if cache is None else cache.get(key)
            if scores is None:
                labels = cluster(Xm, n_clusters, random_state=seed, **kmeans)
                scores = clustering_scores(y, labels)
                if cache is not None:
                    cache[key] = scores
            rows.append((m, repeat, *scores))
    if not as_frame:
        return rows
    import pandas as pd

    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def write_rows(path, columns, rows):
    """Rows of Python scalars as :func:`ufsbench.io.write_table` writes them, without pandas.

    The bytes are those of ``write_table(path, pandas.DataFrame(rows, columns=columns))``
    when every column holds one kind of value (bools; integers; floats, or integers mixed
    with floats; strings): integers as ``str``, floats as ``%.10g`` with NaN empty, and
    pandas' own CSV quoting (``csv.writer``, tab, minimal quoting). Anything else (None,
    other objects, a column of mixed kinds) is handed to pandas, so the format never
    depends on which route wrote it.
    """
    columns = [str(c) for c in columns]
    rows = [tuple(row) for row in rows]
    if any(len(row) != len(columns) for row in rows):
        raise ValueError(f"write_rows: every row needs {len(columns)} values ({columns})")
    formats = [_column_format([row[j] for row in rows]) for j in range(len(columns))]
    if None in formats:
        import pandas as pd

        from .io import write_table

        write_table(path, pd.DataFrame(rows, columns=columns))
        return
    with atomic_path(path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator=os.linesep, quotechar='"')
        writer.writerow(columns)
        writer.writerows([f(value) for f, value in zip(formats, row, strict=True)] for row in rows)


def _format_float(value) -> str:
    # pandas formats with ``float_format % value``
    return "" if math.isnan(value) else "%.10g" % value  # noqa: UP031


def _column_format(values):
    """How pandas writes a column of these values, or None when this module does not know."""
    kinds = {_kind(v) for v in values}
    if kinds <= {"bool"} or kinds <= {"str"}:
        return str
    if kinds <= {"int"}:
        return lambda v: str(int(v))
    if kinds <= {"int", "float"}:
        return _format_float
    return None


def _kind(value):
    if isinstance(value, bool | np.bool_):
        return "bool"
    if isinstance(value, int | np.integer):
        return "int"
    if isinstance(value, float | np.floating):
        return "float"
    if isinstance(value, str):
        return "str"
    return None


KNN_COLUMNS = ("n_features", "split", "accuracy")


def knn_classification(
    X,
    y,
    selection: Selection,
    feature_counts,
    *,
    splits: int = 50,
    test_size: float = 0.5,
    k: int = 1,
    seed_key=(),
):
    """kNN classification of the selected features over random stratified splits.

    The BLUFS paper's Table VII (spec blufs.md §6.3): the features come from the
    unsupervised selection on all samples; split ``r`` (seed ``derive_seed(*seed_key,
    "split", r)``) holds out ``test_size`` of every class, a Euclidean ``k``-NN classifier
    is fitted on the rest of the selected raw columns, and the test accuracy is recorded.
    The same splits serve every feature count.

    Returns one row per (n_features, split): ``n_features``, ``split``, ``accuracy``
    (fraction). Raises ``ValueError`` when a class has fewer than 2 samples (no stratified
    split), ``k`` exceeds the training set, or ``splits < 1``.
    """
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsClassifier

    X = check_data(X)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"knn_classification: y must have shape ({X.shape[0]},), got {y.shape}")
    if splits < 1:
        raise ValueError(f"knn_classification: splits={splits} must be >= 1")
    _, sizes = np.unique(y, return_counts=True)
    if sizes.min() < 2:
        raise ValueError("knn_classification: every class needs >= 2 samples to be split")
    counts = check_feature_counts(feature_counts, X.shape[1])
    index = np.arange(len(y))
    rows = []
    for r in range(splits):
        train, test = train_test_split(
            index, test_size=test_size, stratify=y, random_state=derive_seed(*seed_key, "split", r)
        )
        if k > len(train):
            raise ValueError(f"knn_classification: k={k} exceeds the {len(train)} training samples")
        for m in counts:
            cols = selection.top(m)
            model = KNeighborsClassifier(n_neighbors=k).fit(X[np.ix_(train, cols)], y[train])
            rows.append((m, r, float(np.mean(model.predict(X[np.ix_(test, cols)]) == y[test]))))
    return pd.DataFrame(rows, columns=list(KNN_COLUMNS))
