"""benchmarks/speed/engines_vs_skfeature.py: its agreement columns and its missing-peer exit.

scikit-feature is not a dependency, so the timed comparison itself runs only by hand
(the script's docstring); what is checked here needs no peer.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from benchmark_scripts import load_benchmark


def load_script():
    return load_benchmark("speed/engines_vs_skfeature.py")


def test_agreement_counts_the_equal_leading_places_and_score_gap():
    agreement = load_script().agreement
    ranking = np.arange(6)
    swapped = np.array([0, 1, 2, 3, 5, 4])
    scores = np.array([1.0, 2.0, 1000.0, 4.0, 5.0, 6.0])  # 1000: unscored by the peer
    ours = scores * (1 + np.array([0, 1e-9, 0.5, 0, 0, 0]))
    out = {"theirs": (ranking, scores, 0), "ours": (swapped, ours, 0)}
    assert agreement("spec", out, 3) == "ranking_same_first=4/6;score_max_rel_diff=1e-09"
    out = {"theirs": (ranking, None, 0), "ours": (ranking.copy(), None, 0)}
    assert agreement("lapscore", out, 3) == "ranking_same_first=6/6"


def test_agreement_of_iterative_methods_is_the_top_m_overlap():
    agreement = load_script().agreement
    out = {"theirs": (np.array([4, 1, 2, 0, 3]), None, 7), "ours": (np.arange(5), None, 20)}
    assert agreement("ndfs", out, 3) == "top_m_overlap=2"


def test_without_scikit_feature_it_exits_with_the_hint(monkeypatch):
    script = load_script()
    monkeypatch.setitem(sys.modules, "skfeature", None)  # import raises ImportError
    with pytest.raises(SystemExit, match="scikit-feature is not importable"):
        script.main(["--datasets", "jaffe"])
