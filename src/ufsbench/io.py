"""Atomic file output and the on-disk formats of selections and data matrices.

Every writer goes through :func:`atomic_path`: the file appears complete or not at all,
so an interrupted job never leaves a half-written output behind.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .graph import affinity
from .integrity import NPZ_ERRORS, damaged, open_npz
from .methods.base import Selection


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success.

    The temporary name is fixed (``.<name>.part``): a job killed mid-write (SIGKILL runs
    no cleanup) leaves it behind, and the job's re-run overwrites and renames it.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.part")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def save_npz(path, **arrays):
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def write_text(path, text: str):
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_table(path, frame):
    """A pandas DataFrame as tab-separated text, written atomically."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, sep="\t", index=False, float_format="%.10g")


def save_knn(path, neighbours, distances, scales: dict):
    """A k-NN table, stored once per (dataset, k) and shared by every graph-based method.

    The file is a ``scipy.sparse.load_npz``-readable 0-1 symmetric graph; it also holds
    the directed table (``knn_indices``, ``knn_distances``) and the pairwise-distance
    scales (``sigma_median``, ``sigma_mean``) from which any weighting is derived in
    O(n k) by :func:`ufsbench.graph.affinity`.
    """
    binary = affinity(neighbours, distances, weight="binary")
    save_npz(
        path,
        format=np.array("csr"),
        shape=np.array(binary.shape),
        data=binary.data,
        indices=binary.indices,
        indptr=binary.indptr,
        knn_indices=neighbours,
        knn_distances=distances,
        **{f"sigma_{name}": np.array(value) for name, value in scales.items()},
    )


def load_knn(path) -> dict:
    """``{"neighbours", "distances", "scales"}`` as written by :func:`save_knn`.

    A damaged file raises :class:`ufsbench.integrity.DamagedIntermediate`.
    """
    with open_npz(path, ("knn_indices", "knn_distances")) as f:
        scales = {
            key[len("sigma_") :]: float(f[key]) for key in f.files if key.startswith("sigma_")
        }
        neighbours, distances = f["knn_indices"], f["knn_distances"]
    if neighbours.ndim != 2 or neighbours.shape != distances.shape:
        raise damaged(
            path,
            f"its k-NN indices {neighbours.shape} and distances {distances.shape} do not match",
        )
    n = len(neighbours)
    if neighbours.size and (neighbours.min() < 0 or neighbours.max() >= n):
        raise damaged(path, f"it names neighbours outside the {n} samples")
    return {"neighbours": neighbours, "distances": distances, "scales": scales}


def knn_affinity(knn: dict, *, weight="binary", t=1.0, sigma0="median", width="sigma"):
    """The sparse affinity of a stored k-NN table with the requested weights."""
    return affinity(
        knn["neighbours"],
        knn["distances"],
        weight=weight,
        t=t,
        scale=knn["scales"][sigma0],
        width=width,
    )


def save_data(path, X, y, **meta):
    """The normalised data of one dataset: ``X`` float64, ``y`` int, JSON metadata."""
    save_npz(
        path,
        X=np.asarray(X, dtype=np.float64),
        y=np.asarray(y, dtype=np.int64),
        meta=np.array(json.dumps(meta, sort_keys=True, default=str)),
    )


def load_data(path):
    """``(X, y, meta)`` as written by :func:`save_data`.

    A damaged file raises :class:`ufsbench.integrity.DamagedIntermediate`.
    """
    with open_npz(path, ("X", "y", "meta")) as f:
        X, y, meta = f["X"], f["y"], str(f["meta"])
    if X.ndim != 2 or y.shape != (len(X),):
        raise damaged(path, f"X has shape {X.shape} and y {y.shape}: they do not match")
    try:
        meta = json.loads(meta)
    except json.JSONDecodeError as exc:
        raise damaged(path, f"its metadata is not JSON ({exc})") from exc
    return X, y, meta


def save_selections(path, selections: dict[str, Selection]):
    """Several selections (one per hyper-parameter setting id) in one ``.npz`` file."""
    arrays = {"settings": np.array(list(selections), dtype=str)}
    for i, sel in enumerate(selections.values()):
        arrays[f"{i}/ranking"] = sel.ranking
        arrays[f"{i}/scores"] = sel.scores
        arrays[f"{i}/history"] = sel.history
        arrays[f"{i}/stats"] = np.array([sel.n_iter, sel.seconds])
        if sel.subsets is not None:
            counts = np.array(sorted(sel.subsets), dtype=np.int64)
            arrays[f"{i}/subset_counts"] = counts
            arrays[f"{i}/subset_features"] = np.concatenate([sel.subsets[m] for m in counts])
    save_npz(path, **arrays)


class SelectionFile(dict):
    """Selections by setting id, as one select job wrote them; a missing id says why."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def __missing__(self, setting_id):
        held = ", ".join(map(repr, self)) or "nothing"
        raise LookupError(
            f"{self.path} has no selection for setting {setting_id!r} (it holds {held}): "
            "the file was written by an older configuration or version of the method, which "
            "a run with --rerun-triggers mtime keeps; delete the file, or rerun without "
            "--rerun-triggers mtime"
        )


def load_selections(path) -> dict[str, Selection]:
    """The selections of :func:`save_selections`, by setting id (a :class:`SelectionFile`).

    A damaged file raises :class:`ufsbench.integrity.DamagedIntermediate`; what it must
    hold is checked by :func:`ufsbench.integrity.check_selections`.
    """
    out = SelectionFile(path)
    with open_npz(path, ("settings",)) as f:
        settings = f["settings"].tolist()
        if len(set(settings)) != len(settings):
            raise damaged(path, "a setting id appears more than once")
        for i, setting in enumerate(settings):
            subsets = None
            if f"{i}/subset_counts" in f:
                counts = f[f"{i}/subset_counts"]
                flat = f[f"{i}/subset_features"]
                bounds = np.concatenate([[0], np.cumsum(counts)])
                subsets = {int(m): flat[bounds[j] : bounds[j + 1]] for j, m in enumerate(counts)}
            n_iter, seconds = f[f"{i}/stats"]
            out[setting] = Selection(
                ranking=f[f"{i}/ranking"],
                scores=f[f"{i}/scores"],
                history=f[f"{i}/history"],
                n_iter=int(n_iter),
                seconds=float(seconds),
                subsets=subsets,
            )
    return out


def save_graph(path, graph):
    """A sparse sample graph (``scipy.sparse.load_npz``-readable), written atomically."""
    import scipy.sparse as sp

    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        sp.save_npz(fh, sp.csr_matrix(graph), compressed=True)


def load_graph(path):
    """The sparse graph of :func:`save_graph` (CSR); a damaged file raises clearly."""
    import scipy.sparse as sp

    try:
        graph = sp.load_npz(path).tocsr()
        graph.check_format(full_check=True)
    except FileNotFoundError:
        raise
    except NPZ_ERRORS as exc:
        raise damaged(path, f"not a readable sparse graph ({type(exc).__name__}: {exc})") from exc
    if graph.shape[0] != graph.shape[1]:
        raise damaged(path, f"a sample graph must be square, it is {graph.shape}")
    return graph
