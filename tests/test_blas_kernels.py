"""benchmarks/blas_kernels.py: rankings per OpenBLAS core type and memory layout."""

from __future__ import annotations

from argparse import Namespace

import numpy as np
import pytest
from benchmark_scripts import load_benchmark


def load_script():
    return load_benchmark("blas_kernels.py")


def test_compare_against_brute_force():
    compare = load_script().compare
    rng = np.random.default_rng(3)
    for _ in range(50):
        a = rng.permutation(12).tolist()
        b = a.copy()
        i, j = sorted(rng.choice(12, size=2, replace=False))
        if rng.random() < 0.7:
            b[i], b[j] = b[j], b[i]
        count = int(rng.integers(1, 13))
        same, first, overlap = compare(a, b, count)
        differ = [k for k in range(12) if a[k] != b[k]]
        assert same == (not differ)
        assert first == (differ[0] if differ else None)
        assert overlap == len(set(a[:count]) & set(b[:count])) / count


@pytest.mark.slow
@pytest.mark.mirror
def test_workers_rank_as_the_workflow_does(mirror):
    """The worker's rankings are the methods' default-setting selections with the
    workflow's seed and the data's own layout; the flipped run changes only the layout."""
    script = load_script()
    from ufsbench import get_method, rank_features
    from ufsbench.data import load_dataset
    from ufsbench.datasets import find_in_mirror
    from ufsbench.plan import setting_id
    from ufsbench.seeding import derive_seed

    args = Namespace(mirror=mirror, datasets=["wine"], methods=["lapscore", "ndfs"])
    native = script.run_worker(None, args)  # pinned as this process is, or not at all
    flipped = script.run_worker(None, args, flip_layout=True)
    entry = script._cli.registry_entry("wine")
    X, _, _ = load_dataset(entry, find_in_mirror(entry, mirror))
    assert native["layouts"]["wine"] == ("F" if X.flags.f_contiguous else "C")
    assert flipped["layouts"]["wine"] != native["layouts"]["wine"]
    assert native["counts"]["wine"] == list(range(1, 10))  # the leaderboard config's
    for method in args.methods:
        seed = derive_seed("wine", method, setting_id(get_method(method).check_params({})))
        with script._cli.one_thread():
            expected = rank_features(
                X, method, n_clusters=entry.n_classes, random_state=seed,
                feature_counts=native["counts"]["wine"], n_neighbors=5,
            ).ranking.tolist()  # fmt: skip
        assert native["rankings"]["wine"][method] == expected
        assert sorted(flipped["rankings"]["wine"][method]) == list(range(X.shape[1]))


def test_variants_pin_openblas_numpy_both_or_neither():
    from ufsbench.blas import ENV, NUMPY_ENV, pinned_environment

    script = load_script()
    base = {"HOME": "/h", ENV: "Zen", NUMPY_ENV: "X86_V4"}  # the caller's own are dropped
    assert script.variant_environment("native", base) == {"HOME": "/h"}
    assert script.variant_environment("Sandybridge", base) == {"HOME": "/h", ENV: "Sandybridge"}
    both = script.variant_environment("Haswell+numpy", base)
    expected = pinned_environment("Haswell", environ={})[0]
    assert both == {"HOME": "/h", ENV: "Haswell", **expected}
