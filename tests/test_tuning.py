"""Stage 2 of the two-stage search in parts: the slicing, the part count and the merge."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from ufsbench.io import load_selections, save_selections, write_table
from ufsbench.methods.base import Selection
from ufsbench.methods.registry import get_method
from ufsbench.plan import expand_grid, setting_id
from ufsbench.tuning import (
    merge_parts,
    run_settings,
    stage1_winners,
    stage2_part,
    stage2_part_count,
    stage2_settings,
)

KMEANS = {"repeats": 2, "engine": "litekmeans", "n_init": 2, "max_iter": 20, "init": "random"}


def _fake_settings(rng, n_settings, n_counts):
    """``[(id, params, counts)]`` with 1..n_counts counts per setting."""
    counts = list(range(1, n_counts + 1))
    return [
        (f"s{i}", {"i": i}, sorted(rng.choice(counts, rng.integers(1, n_counts + 1), False)))
        for i in range(n_settings)
    ]


@pytest.mark.parametrize("n_counts", [1, 3, 10])
@pytest.mark.parametrize("n_settings", [0, 1, 2, 7, 63, 640])
def test_stage2_part_covers_every_run_once_in_order(n_settings, n_counts):
    rng = np.random.default_rng(n_settings * 100 + n_counts)
    settings = _fake_settings(rng, n_settings, n_counts)
    total = sum(len(counts) for _, _, counts in settings)
    for parts in sorted({1, 2, 3, 5, 16, 40, max(n_settings, 1), n_settings + 3}):
        sliced = [stage2_part(settings, p, parts) for p in range(parts)]
        # Concatenated in part order the parts are the settings: each exactly once, in order,
        # every part a contiguous slice, no setting (and so no run) split between parts.
        assert list(itertools.chain.from_iterable(sliced)) == settings
        runs = [(sid, m) for part in sliced for sid, _, counts in part for m in counts]
        assert len(runs) == len(set(runs)) == total
        # Balanced by runs: no part holds more than its share plus one setting's counts.
        if total:
            assert max(sum(len(c) for _, _, c in part) for part in sliced) <= math.ceil(
                total / parts
            ) + max(len(c) for _, _, c in settings)
        if n_settings >= parts and all(len(c) == n_counts for _, _, c in settings):
            assert all(sliced), "equal settings, at least one per part: no part is empty"


def test_stage2_part_rejects_a_part_out_of_range():
    with pytest.raises(ValueError, match=r"part=3 must be in \[0, parts=3\)"):
        stage2_part([], 3, 3)


def test_stage2_part_count_bounds_the_runs_by_chunk_size():
    assert stage2_part_count(10, 64, 16) == 40  # blufs.yaml: BLUFS on a 10-count dataset
    assert stage2_part_count(3, 4, 9) == 2  # blufs-quick.yaml
    assert stage2_part_count(2, 2, 16) == 1
    assert stage2_part_count(2, 2, 1) == 4
    with pytest.raises(ValueError, match="chunk_size=0 must all be >= 1"):
        stage2_part_count(2, 2, 0)


@pytest.mark.parametrize("anchor", ["per_count", "per_dataset"])
def test_stage2_runs_fit_the_part_count_bound(anchor):
    """The real settings of a stage-2 search never have more runs than counts x grid."""
    spec = get_method("blufs")
    stage1 = {
        setting_id(p): p
        for p in (
            spec.check_params({"alpha": a, "beta": b}) for a in (0.1, 1.0) for b in (1.0, 10.0)
        )
    }
    ids = list(stage1)
    grid = {"mu": [0.1, 1.0, 10.0], "lam": [1.0, 10.0]}
    for choice in itertools.product(range(len(ids)), repeat=3):
        winners = {m: ids[i] for m, i in zip((5, 10, 20), choice, strict=True)}
        if anchor == "per_dataset":
            winners = dict.fromkeys(winners, ids[choice[0]])
        settings = stage2_settings(spec, stage1, winners, grid)
        runs = [(sid, m) for sid, _, counts in settings for m in counts]
        assert len(runs) == len(set(runs)) <= 3 * len(expand_grid("blufs", grid))


def _tiny_search(planted_data, anchor):
    """Stage 1 of BLUFS on planted data, then the stage-2 settings of ``anchor``."""
    X, y, _ = planted_data
    spec = get_method("blufs")
    counts = [2, 4, 6]
    base = {"max_iter": 3, "k": 5}
    params = [
        spec.check_params({**base, "alpha": a, "beta": b}) for a in (0.1, 10.0) for b in (1.0,)
    ]
    stage1 = {setting_id(p): p for p in params}
    common = dict(dataset="planted", n_clusters=3, kmeans=KMEANS)
    _, scores = run_settings(X, y, "blufs", [(s, p, counts) for s, p in stage1.items()], **common)
    winners = stage1_winners(scores, anchor=anchor)
    grid = {"lam": [0.1, 1.0, 10.0], "mu": [1.0, 10.0]}  # lam = mu = 1 is stage 1: skipped
    return stage2_settings(spec, stage1, winners, grid), common


@pytest.mark.parametrize("anchor", ["per_count", "per_dataset"])
def test_stage2_parts_merge_to_the_serial_search_byte_for_byte(
    planted_data, anchor, tmp_path, monkeypatch
):
    # select_seconds is wall-clock time, the one column no two runs share: fix the clock
    # so the whole file can be compared.
    monkeypatch.setattr("ufsbench.api.time.perf_counter", lambda: 0.0)
    X, y, _ = planted_data
    settings, common = _tiny_search(planted_data, anchor)
    assert len(settings) >= 5
    selections, scores = run_settings(X, y, "blufs", settings, **common)
    write_table(tmp_path / "serial.tsv", scores)
    serial = (tmp_path / "serial.tsv").read_bytes()
    for parts in (1, 2, 3, len(settings), len(settings) + 2):  # the last has empty parts
        pieces = []
        for p in range(parts):
            sels, rows = run_settings(X, y, "blufs", stage2_part(settings, p, parts), **common)
            save_selections(tmp_path / f"{parts}_{p}.npz", sels)
            write_table(tmp_path / f"{parts}_{p}.tsv", rows)
            pieces.append((
                load_selections(tmp_path / f"{parts}_{p}.npz"),
                pd.read_csv(tmp_path / f"{parts}_{p}.tsv", sep="\t"),
            ))  # fmt: skip
        merged_sels, merged = merge_parts(pieces)
        write_table(tmp_path / f"merged_{parts}.tsv", merged)
        assert (tmp_path / f"merged_{parts}.tsv").read_bytes() == serial, f"{parts} parts"
        assert list(merged_sels) == list(selections)
        for sid, sel in selections.items():
            got = merged_sels[sid]
            assert (
                np.array_equal(got.ranking, sel.ranking)
                and got.subsets.keys() == sel.subsets.keys()
            )
            assert all(np.array_equal(got.subsets[m], sel.subsets[m]) for m in sel.subsets)
            assert np.array_equal(got.history, sel.history)


def test_merge_parts_rejects_a_setting_in_two_parts(planted_data):
    X, y, _ = planted_data
    settings, common = _tiny_search(planted_data, "per_dataset")
    part = run_settings(X, y, "blufs", settings[:1], **common)
    with pytest.raises(ValueError, match="is in two parts"):
        merge_parts([part, part])


def test_merge_parts_of_nothing_is_the_empty_search():
    empty = run_settings(np.zeros((3, 2)), None, "blufs", [], dataset="d", n_clusters=2,
                         kmeans=KMEANS)  # fmt: skip
    sels, scores = merge_parts([empty, empty])
    assert sels == {} and scores.columns.tolist() == empty[1].columns.tolist() and scores.empty


def test_selection_file_names_a_stale_setting(tmp_path):
    """An evaluate job asking a selection file for a setting it lacks (written by an older
    configuration, kept by --rerun-triggers mtime) gets a message, not a bare KeyError."""
    path = tmp_path / "selection.npz"
    save_selections(path, {"gamma=1": Selection.from_scores(np.arange(4.0))})
    selections = load_selections(path)
    assert np.array_equal(selections["gamma=1"].ranking, [3, 2, 1, 0])
    with pytest.raises(LookupError, match=r"no selection for setting 'gamma=2'.*'gamma=1'.*mtime"):
        selections["gamma=2"]
    assert "gamma=2" not in selections and selections.get("gamma=2") is None


SOGFS_SMALL = {"max_iter": 3, "gamma": 1.0}


@pytest.mark.parametrize("n_samples", [150, 601])
def test_sogfs_declares_seed_free_exactly_where_its_seed_is_unused(n_samples):
    """On up to 600 samples SOGFS's seed reaches nothing (a dense eigh); above, it starts
    the Lanczos solver of the graph's spectral embedding."""
    from ufsbench import rank_features
    from ufsbench.methods import _adaptive_graph
    from ufsbench.synthetic import planted

    X, _, _ = planted(n_samples=n_samples, n_informative=4, n_noise=8, n_clusters=3,
                      random_state=3)  # fmt: skip
    spec = get_method("sogfs")
    assert spec.seed_free(*X.shape) == (n_samples <= _adaptive_graph._DENSE_EIGH_MAX)
    calls = []
    original = _adaptive_graph.laplacian_bottom

    def spy(L, c, random_state=0):
        calls.append(L.shape[0] > _adaptive_graph._DENSE_EIGH_MAX)
        return original(L, c, random_state)

    mp = pytest.MonkeyPatch()
    mp.setattr(_adaptive_graph, "laplacian_bottom", spy)
    try:
        fits = [
            rank_features(X, "sogfs", n_clusters=3, random_state=seed, **SOGFS_SMALL).scores
            for seed in (0, 12345)
        ]
    finally:
        mp.undo()
    assert calls and all(lanczos == (not spec.seed_free(*X.shape)) for lanczos in calls)
    if spec.seed_free(*X.shape):
        assert np.array_equal(fits[0], fits[1])


def _seed_free_methods():
    from ufsbench.methods.registry import REGISTRY

    return sorted(name for name, spec in REGISTRY.items() if spec.seed_free is not None)


@pytest.mark.parametrize("method", _seed_free_methods())
def test_a_seed_free_declaration_holds(planted_data, method):
    """Every method declared seed-free on a data shape selects alike under two seeds."""
    from ufsbench import rank_features

    X, _, _ = planted_data
    spec = get_method(method)
    assert spec.seed_free(*X.shape)
    quick = {"max_iter": 5} if "max_iter" in spec.params else {}
    fits = [rank_features(X, method, n_clusters=3, random_state=seed, **quick) for seed in (0, 777)]
    assert np.array_equal(fits[0].scores, fits[1].scores)
    assert np.array_equal(fits[0].ranking, fits[1].ranking)
