"""Re-seeding oracle winners: fits shared by counts and cells, jobs per seed, the merge."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from ufsbench.io import write_table
from ufsbench.methods.registry import get_method
from ufsbench.reseeding import (
    merge_parts,
    part_names,
    part_seeds,
    reseed,
    reseed_cells,
    seed_list,
)

KMEANS = {"repeats": 2, "engine": "litekmeans", "n_init": 2, "max_iter": 20, "init": "random"}
SOGFS_SMALL = {"max_iter": 3, "gamma": 1.0}
COMMON = dict(dataset="planted", n_clusters=3, kmeans=KMEANS)


def _counting(monkeypatch):
    """Record (random_state, feature_counts) of every fit the re-seeding makes."""
    import ufsbench.reseeding as reseeding

    fits, original = [], reseeding.rank_features

    def counting(*args, **kwargs):
        fits.append((kwargs["random_state"], tuple(kwargs["feature_counts"])))
        return original(*args, **kwargs)

    monkeypatch.setattr(reseeding, "rank_features", counting)
    return fits


def test_part_names_and_seeds_round_trip():
    assert part_names(3, fit_once=False) == ["r0", "r1", "r2"]
    assert part_names(10, fit_once=True) == ["r0-9"]
    assert [part_seeds(p) for p in part_names(3, False)] == [[0], [1], [2]]
    assert part_seeds("r0-9") == list(range(10))
    assert part_seeds("r12") == [12]


@pytest.mark.parametrize("name", ["3", "r", "r1-", "ra", "r5-2", "r0-9x"])
def test_a_malformed_part_name_is_refused(name):
    with pytest.raises(ValueError, match="reseed part"):
        part_seeds(name)


@pytest.mark.parametrize("seeds", [0, -1, [], [1, 1], [-2]])
def test_bad_seeds_are_refused(seeds):
    with pytest.raises(ValueError, match="seeds"):
        seed_list(seeds)


def test_reseed_fits_a_seed_free_method_once_with_the_same_rows(planted_data, monkeypatch):
    from ufsbench.methods import registry

    X, y, _ = planted_data
    spec = get_method("sogfs")
    fits = _counting(monkeypatch)
    once = reseed(X, y, "sogfs", SOGFS_SMALL, 6, seeds=4, **COMMON)
    assert len(fits) == 1
    every = dataclasses.replace(spec, seed_free=None)
    monkeypatch.setattr(registry, "get_method", lambda name: every)
    fits.clear()
    each = reseed(X, y, "sogfs", SOGFS_SMALL, 6, seeds=4, **COMMON)
    assert len(fits) == 4 and len({seed for seed, _ in fits}) == 4
    pd.testing.assert_frame_equal(once, each)
    assert once["seed"].tolist() == [0, 1, 2, 3]


def _alone(X, y, method, params, counts, seeds):
    frames = [reseed(X, y, method, params, m, seeds=[r], **COMMON) for r in seeds for m in counts]
    return pd.concat(frames, ignore_index=True)


def test_one_fit_serves_every_count_as_a_fit_per_count_would(planted_data, monkeypatch):
    """A seed's rows do not depend on the other counts (or seeds) asked for with it."""
    X, y, _ = planted_data
    params = {"max_iter": 5}
    fits = _counting(monkeypatch)
    both = reseed(X, y, "rufs", params, [4, 6], seeds=[0, 1], **COMMON)
    assert fits == [(seed, (4, 6)) for seed, _ in fits] and len(fits) == 2
    pd.testing.assert_frame_equal(both, _alone(X, y, "rufs", params, [4, 6], [0, 1]))
    assert both["n_features"].tolist() == [4, 6, 4, 6]
    assert both["features"].str.split().str.len().tolist() == [4, 6, 4, 6]


@pytest.mark.parametrize(
    "method, params", [("mcfs", {}), ("blufs", {"max_iter": 3, "y_max_iter": 5})]
)
def test_a_count_dependent_method_is_fitted_per_count(planted_data, monkeypatch, method, params):
    X, y, _ = planted_data
    assert get_method(method).count_dependent
    fits = _counting(monkeypatch)
    rows = reseed(X, y, method, params, [4, 6], seeds=[3], **COMMON)
    assert [counts for _, counts in fits] == [(4,), (6,)]
    pd.testing.assert_frame_equal(rows, _alone(X, y, method, params, [4, 6], [3]))
    assert rows["seed"].tolist() == [3, 3]


def _cells():
    # Two cells of one setting (ACC at 4 features, NMI at 6) and a third of another.
    return pd.DataFrame({
        "metric": ["acc", "nmi_max", "nmi_sqrt"],
        "params": ["max_iter=5", "max_iter=5", "max_iter=4"],
        "n_features": [4, 6, 6],
    })  # fmt: skip


def _parse(sid):
    return {"max_iter": int(sid.split("=")[1])}


def test_cells_of_one_setting_share_its_fits(planted_data, monkeypatch):
    X, y, _ = planted_data
    fits = _counting(monkeypatch)
    rows = reseed_cells(X, y, "rufs", _cells(), _parse, seeds=2, **COMMON)
    assert len(fits) == 2 * 2  # two settings x two seeds
    assert rows.columns.tolist() == [
        "seed", "acc", "nmi_max", "nmi_sqrt", "features",
        "dataset", "method", "metric", "params", "n_features",
    ]  # fmt: skip
    assert rows["metric"].tolist() == ["acc"] * 2 + ["nmi_max"] * 2 + ["nmi_sqrt"] * 2
    assert rows["seed"].tolist() == [0, 1] * 3


def test_merged_parts_are_byte_for_byte_one_pass(planted_data, tmp_path):
    X, y, _ = planted_data
    whole = tmp_path / "whole.tsv"
    write_table(whole, reseed_cells(X, y, "rufs", _cells(), _parse, seeds=3, **COMMON))
    parts = []
    for r in (2, 0, 1):  # the merge orders by cell, then seed, whatever the parts' order
        parts.append(tmp_path / f"r{r}.tsv")
        write_table(parts[-1], reseed_cells(X, y, "rufs", _cells(), _parse, seeds=[r], **COMMON))
    merged = tmp_path / "merged.tsv"
    merge_parts(parts, merged)
    assert merged.read_bytes() == whole.read_bytes()


def test_the_merge_refuses_parts_that_do_not_fit_together(tmp_path):
    def part(name, rows, header="seed\tacc\tmetric"):
        path = tmp_path / name
        path.write_text(header + "\n" + "".join(f"{r}\n" for r in rows))
        return path

    out = tmp_path / "out.tsv"
    with pytest.raises(ValueError, match="no part"):
        merge_parts([], out)
    a = part("a.tsv", ["0\t0.5\tacc", "0\t0.4\tnmi_max"])
    with pytest.raises(ValueError, match="columns differ"):
        merge_parts([a, part("b.tsv", ["1\t0.5\tacc"], header="seed\tmetric\tacc")], out)
    with pytest.raises(ValueError, match="cells"):
        merge_parts([a, part("c.tsv", ["1\t0.4\tnmi_max", "1\t0.5\tacc"])], out)
    with pytest.raises(ValueError, match="appears twice"):
        merge_parts([a, part("d.tsv", ["0\t0.5\tacc", "0\t0.4\tnmi_max"])], out)
    assert not out.exists()
