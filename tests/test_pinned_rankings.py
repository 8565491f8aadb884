"""Pinned rankings: every registered method's ranking on three small datasets, byte for byte.

A refactor of the methods or their registration must not move a number. This test runs
every method of the registry on three small in-memory datasets (wine and iris from
scikit-learn, min-max scaled, and a planted set drawn here) at its default setting and at
two other settings (from its registered grid where the grid has them, else chosen below),
and compares the sha256 of the ranking's bytes (and its dtype; the subsets' too for
count-dependent methods) with ``tests/data/pinned_rankings.json``.

The settings live in the JSON file beside their digests, so the test does not depend on
today's registry grids. Entries marked ``machine_specific`` differed on another kind of
machine (a tie broken the other way, an iterative solver amplifying the last bit: see
``tests/machine_pins.py``) and are compared on the recorded kind of machine only. After
a deliberate change of numbers, regenerate and commit:

    PYTHONPATH=src python tests/test_pinned_rankings.py --regen

A newly registered method fails ``test_every_method_is_pinned`` until it is pinned.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from machine_pins import require_recorded_machine
from sklearn.datasets import load_iris, load_wine

from ufsbench import REGISTRY, rank_features
from ufsbench.plan import expand_grid, setting_id

PINS = Path(__file__).parent / "data" / "pinned_rankings.json"
FEATURE_COUNTS = [2, 4]
N_CLUSTERS = 3
SEED = 0

# Settings that keep a slow method fast, applied to every one of its pinned settings.
BASE = {"blsfe": {"n_replicates": 2, "qp_max_iter": 50}}
# Other settings of methods whose grid has fewer than two non-default points.
ALTERNATIVES = {
    "random": [{"seed": 1}, {"seed": 7}],
    "lapscore": [{"t": 0.5}, {"t": 2.0}],
    "spec": [{"style": "phi1"}, {"style": "phi3", "t": 2.0}],
    "mcfs": [{"weight": "heat", "t": 2.0}, {"n_eigen": 2, "scale": "standardize"}],
    "udfs": [{"gamma": 1.0}, {"lam": 10.0, "k": 3}],
    "ndfs": [{"alpha": 0.1}, {"beta": 10.0}],
    "rne": [{"k": 5}, {"reconstruction": "transpose"}],
    "fspca": [{"max_iter": 5}, {"n_components": 2}],
    "blsfe": [{"gamma1": 0.1}, {"gamma2": 10.0}],
    "pocss": [{"seed": 1}, {"scale": "none"}],
    "greedy_css": [{"scale": "none"}],
    "aprx_svd": [{"scale": "none"}, {"k": 3}],
    "two_stage": [{"seed": 1}, {"c_factor": 4.0}],
    "iter_fs": [{"seed": 1}, {"max_sweeps": 2}],
    "wastar": [{"epsilon": 0.1}, {"priority": "bounded"}],
}
# Options that select another code path of a family (pinned on top of the grid points).
EXTRA = {
    "lsdcl_m2": [{"graph_term": "projection"}],
    "blufs_case3": [{"case3_graph": "hh"}],
}


def _minmax(X):
    X = np.asarray(X, dtype=float)
    span = X.max(axis=0) - X.min(axis=0)
    return (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)


def _planted():
    """60 samples, 3 clusters in features 0-3, 8 noise features; nonnegative."""
    rng = np.random.default_rng(20261126)
    labels = np.repeat(np.arange(3), 20)
    centres = rng.normal(scale=3.0, size=(3, 4))
    informative = centres[labels] + rng.normal(size=(60, 4))
    noise = rng.normal(size=(60, 8))
    return _minmax(np.hstack([informative, noise]))


DATASETS = {
    "wine": lambda: _minmax(load_wine().data),
    "iris": lambda: _minmax(load_iris().data),
    "planted": _planted,
}


def digest(array) -> dict:
    array = np.ascontiguousarray(array)
    return {"dtype": str(array.dtype), "sha256": hashlib.sha256(array.tobytes()).hexdigest()}


def run(dataset: str, method: str, params: dict) -> dict:
    """Digests of the selection, or the error a method raises (an outcome pinned too)."""
    X = DATASETS[dataset]()
    try:
        selection = rank_features(
            X,
            method,
            n_clusters=N_CLUSTERS,
            random_state=SEED,
            feature_counts=FEATURE_COUNTS,
            **params,
        )
    except ValueError as err:
        return {"error": f"ValueError: {err}"}
    out = {"ranking": digest(selection.ranking)}
    if selection.subsets:
        out["subsets"] = {str(m): digest(s) for m, s in sorted(selection.subsets.items())}
    return out


def pinned_settings(method: str) -> list[dict]:
    """The default, two other settings and any EXTRA ones (each with BASE applied)."""
    spec = REGISTRY[method]
    default = spec.check_params({})
    others = [p for p in expand_grid(method, spec.grid) if spec.check_params(p) != default]
    chosen = [others[0], others[-1]] if len(others) >= 2 else []
    if len(chosen) < 2:
        chosen = list(ALTERNATIVES.get(method, []))
    chosen += EXTRA.get(method, [])
    base = BASE.get(method, {})
    return [dict(base)] + [{**base, **p} for p in chosen]


def regenerate() -> dict:
    """Every pin, recorded here; an entry keeps its ``machine_specific`` mark (a digest
    that differed on another kind of machine: compared on the recorded kind only)."""
    old = _load()
    pins = {}
    for method in sorted(REGISTRY):
        for dataset in DATASETS:
            for params in pinned_settings(method):
                key = f"{dataset}/{method}/{setting_id(params)}"
                pins[key] = {
                    "dataset": dataset,
                    "method": method,
                    "params": params,
                    **run(dataset, method, params),
                }
                if old.get(key, {}).get("machine_specific"):
                    pins[key]["machine_specific"] = True
    return pins


def _load():
    return json.loads(PINS.read_text()) if PINS.exists() else {}


PINNED = _load()


def test_every_method_is_pinned():
    pinned = {entry["method"] for entry in PINNED.values()}
    assert sorted(REGISTRY) == sorted(pinned)


# The fast suite pins every method on wine; iris and the planted set run with -m slow
# (as .ci/run does), which keeps the default suite under 3 minutes.
@pytest.mark.parametrize(
    "key",
    [
        key if key.startswith("wine/") else pytest.param(key, marks=pytest.mark.slow)
        for key in sorted(PINNED)
    ],
)
def test_ranking_is_unchanged(key):
    entry = PINNED[key]
    if entry.get("machine_specific"):
        require_recorded_machine()
    got = run(entry["dataset"], entry["method"], entry["params"])
    expected = {k: entry[k] for k in ("ranking", "subsets", "error") if k in entry}
    assert got == expected


if __name__ == "__main__":
    if sys.argv[1:] != ["--regen"]:
        sys.exit(f"usage: python {sys.argv[0]} --regen  (rewrites {PINS})")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # as the tests (conftest) and the workflow's jobs
        pins = regenerate()
    PINS.parent.mkdir(parents=True, exist_ok=True)
    tmp = PINS.with_suffix(".tmp")
    tmp.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
    tmp.replace(PINS)
    print(f"{len(pins)} pinned rankings -> {PINS}")
