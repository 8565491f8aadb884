"""benchmarks/blsfs_pseudo_labels.py: the clustering ACC of BLSFS's classification level."""

from __future__ import annotations

import importlib.util

import numpy as np
from conftest import ROOT

_spec = importlib.util.spec_from_file_location(
    "blsfs_pseudo_labels", ROOT / "benchmarks" / "blsfs_pseudo_labels.py"
)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_separated_classes_give_perfect_pseudo_labels_and_noise_does_not():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 30)
    centres = 20.0 * rng.standard_normal((3, 8))
    X = centres[y] + rng.standard_normal((90, 8))
    assert bench.pseudo_label_accuracy(X, y, range(2)) == [100.0, 100.0]
    noise = rng.standard_normal((90, 8))
    assert max(bench.pseudo_label_accuracy(noise, y, range(2))) < 70.0
