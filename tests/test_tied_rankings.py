"""The tie scan: features that enter a top-m by column order, not by score."""

import numpy as np
import pandas as pd
import pytest

from ufsbench.io import save_selections
from ufsbench.methods.base import Selection
from ufsbench.tools.tied_rankings import main, scan, summary, tie_picks


def test_tie_picks_counts_the_top_features_tied_with_the_first_left_out():
    # two rows kept, the other six switched off to exactly 0: a cut at 5 takes 3 by index
    scores = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0])
    sel = Selection.from_scores(scores)
    assert sel.ranking[:5].tolist() == [5, 2, 0, 1, 3]
    assert tie_picks(sel.scores, sel.ranking, 5) == 3
    assert tie_picks(sel.scores, sel.ranking, 2) == 0  # the cut falls between 1.0 and 0.0
    assert tie_picks(sel.scores, sel.ranking, 1) == 0


def test_tie_picks_brute_force_on_random_ties():
    rng = np.random.default_rng(0)
    for _ in range(200):
        scores = rng.integers(0, 4, size=12).astype(float)
        sel = Selection.from_scores(scores)
        m = int(rng.integers(1, 12))
        left_out = scores[sel.ranking[m]]
        expected = sum(scores[j] == left_out for j in sel.ranking[:m])
        assert tie_picks(sel.scores, sel.ranking, m) == expected


def test_tie_picks_refuses_a_cut_outside_the_ranking():
    sel = Selection.from_scores([3.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="count must be in"):
        tie_picks(sel.scores, sel.ranking, 3)


def _write(root, dataset, method, selections):
    path = root / dataset / method / "c0" / "selection.npz"
    path.parent.mkdir(parents=True)
    save_selections(path, selections)


def test_scan_reports_only_the_settings_cut_inside_a_tie(tmp_path, capsys):
    distinct = Selection.from_scores(np.arange(10.0))
    collapsed = Selection.from_scores([0.0] * 8 + [1.0, 1.0])  # 2 kept, 8 tied at 0
    _write(tmp_path, "toy", "udfs", {"gamma=1": collapsed, "gamma=0.1": distinct})
    _write(tmp_path, "toy", "lapscore", {"default": distinct})
    _write(tmp_path, "toy", "allfea", {"default": Selection.from_scores(np.zeros(10))})
    table = scan(tmp_path, count=5)
    assert set(table.method) == {"udfs", "lapscore"}  # AllFea keeps every feature
    found = summary(table)
    assert found[
        ["method", "settings", "tied_settings", "min_picks", "max_picks"]
    ].values.tolist() == [["udfs", 2, 1, 3, 3]]
    main([str(tmp_path), "--count", "5", "--out", str(tmp_path / "ties.tsv")])
    out = capsys.readouterr().out
    assert "udfs" in out and "lapscore" not in out
    written = pd.read_csv(tmp_path / "ties.tsv", sep="\t")
    assert written.method.tolist() == ["udfs"] and written.max_picks.tolist() == [3]


def test_scan_of_an_empty_folder_says_so(tmp_path):
    with pytest.raises(SystemExit, match="no selections"):
        main([str(tmp_path)])
