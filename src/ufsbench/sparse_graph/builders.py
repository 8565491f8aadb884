"""The clustering methods of the SRSG paper by name, with their parameters and defaults.

``km`` clusters the raw features; every other method builds a sample affinity graph on
unit-norm rows and clusters it with NJW spectral clustering. Every [inferred] reading
of the spec is a named parameter with the spec's default, checked here.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ..constraints import Param
from ..graph import knn_graph
from ..metrics import clustering_accuracy, nmi
from ._common import codes_affinity, unit_rows
from .l1graph import l1_codes
from .lr_l1 import LR_GRAPHS, lr_l1_codes
from .smce import smce_graph
from .spectral import gaussian_affinity, kmeans_labels, njw_spectral_clustering
from .srsg import C_FORMULAS, SCHEDULES, STEPS, srsg

_INT, _FLOAT, _BOOL = Param(int), Param(float), Param(bool)

# name -> {parameter: (default, constraint)}.
GRAPH_METHODS = {
    "knn": {
        "k": (5, _INT),
        "weight": ("binary", Param(str, options=("binary", "heat"))),
        "t": (1.0, _FLOAT),
    },
    "sc": {"sigma": ("median", Param(object))},  # "median" or a width; not checked
    "l1graph": {"lam": (0.1, _FLOAT)},
    "smce": {"lam": (10.0, _FLOAT), "K": (50, _INT), "max_iter": (1000, _INT)},
    "lr_l1graph": {
        "lam": (0.1, _FLOAT),
        "gamma_l2": (0.1, _FLOAT),
        "graph": ("iterative", Param(str, options=LR_GRAPHS)),
        "K": (5, _INT),
        "rounds": (3, _INT),
        "max_iter": (300, _INT),
        "lam_init": (0.1, _FLOAT),
    },
    "srsg": {
        "K": (5, _INT),
        "gamma": (0.1, _FLOAT),
        "lam_init": (0.1, _FLOAT),
        "max_sweeps": (100, _INT),
        "max_inner": (100, _INT),
        "tol": (1e-5, _FLOAT),
        "step": ("global", Param(str, options=STEPS)),
        "step_scale": (0.99, _FLOAT),  # s = step_scale / L_f [inferred from Thm 3.2]
        "c_formula": ("paper", Param(str, options=C_FORMULAS)),
        "schedule": ("colored", Param(str, options=SCHEDULES)),
        "monotone": (False, _BOOL),
    },
}
CLUSTER_METHODS = ("km", *GRAPH_METHODS)
# Methods whose graph the workflow stores (SC's dense kernel graph is rebuilt on the fly).
STORED_GRAPHS = ("knn", "l1graph", "smce", "lr_l1graph", "srsg")


def check_params(method: str, params: dict | None) -> dict:
    """Every parameter of ``method``: the defaults updated with ``params``, checked."""
    if method == "km":
        if params:
            raise ValueError(f"clustering method 'km' takes no parameters, got {sorted(params)}")
        return {}
    if method not in GRAPH_METHODS:
        raise ValueError(
            f"unknown clustering method {method!r} (known: {', '.join(CLUSTER_METHODS)})"
        )
    spec = GRAPH_METHODS[method]
    unknown = sorted(set(params or {}) - set(spec))
    if unknown:
        raise ValueError(
            f"clustering method {method!r}: unknown parameter(s) {unknown} "
            f"(known: {', '.join(spec)})"
        )
    out = {}
    for key, (default, constraint) in spec.items():
        value = (params or {}).get(key, default)
        out[key] = constraint.check(method, key, value, kind="clustering method")
    return out


def build_graph(method: str, X, params: dict | None = None, *, n_jobs: int = 1):
    """``(W, info)``: the symmetric non-negative affinity of ``method`` on unit-norm rows.

    ``info`` holds diagnostics (seconds, nnz per row, isolated samples, SRSG history).
    """
    p = check_params(method, params)
    if method == "km":
        raise ValueError("'km' clusters the features and builds no graph")
    start = time.perf_counter()
    info = {"method": method, "params": p}
    if method == "knn":
        W = knn_graph(unit_rows(X), p["k"], weight=p["weight"], t=p["t"])
    elif method == "sc":
        W = sp.csr_matrix(gaussian_affinity(X, sigma=p["sigma"]))
    elif method == "l1graph":
        W = codes_affinity(l1_codes(X, p["lam"], n_jobs=n_jobs))
    elif method == "smce":
        W = smce_graph(X, p["lam"], p["K"], max_iter=p["max_iter"])
    elif method == "lr_l1graph":
        options = {k: v for k, v in p.items() if k not in ("lam", "gamma_l2")}
        codes, history = lr_l1_codes(X, p["lam"], p["gamma_l2"], **options)
        W = codes_affinity(codes)
        info["history"] = history
    else:
        result = srsg(X, n_jobs=n_jobs, **p)
        W = result.affinity
        info.update(
            history=result.history,
            n_sweeps=result.n_sweeps,
            converged=result.converged,
            safeguard_hits=result.safeguard_hits,
            rejected=result.rejected,
            step=result.step,
            lambda_max=result.lambda_max,
            n_colours=result.n_colours,
            nnz_init=result.nnz_init,
            nnz_final=result.nnz_final,
            stage_seconds=result.seconds,
        )
    deg = np.asarray(W.sum(axis=1)).ravel()
    info.update(
        seconds=time.perf_counter() - start,
        nnz_per_row=float(W.nnz / W.shape[0]),
        n_isolated=int(np.count_nonzero(deg <= 0)),
    )
    return W, info


def scores(y, labels) -> dict:
    """ACC and NMI (both normalisations) of one clustering."""
    return {
        "acc": clustering_accuracy(y, labels),
        "nmi_max": nmi(y, labels, "max"),
        "nmi_sqrt": nmi(y, labels, "sqrt"),
    }


def cluster_with(
    method, X, n_clusters, *, W=None, seed=0, n_init=10, km_n_init=1, engine="sklearn"
):
    """Labels of one clustering: k-means on raw ``X`` (``km``) or NJW on ``W``."""
    if method == "km":
        return kmeans_labels(X, n_clusters, random_state=seed, n_init=km_n_init, engine=engine)
    if W is None:
        raise ValueError(f"clustering method {method!r} needs its graph W")
    return njw_spectral_clustering(W, n_clusters, random_state=seed, n_init=n_init, engine=engine)
