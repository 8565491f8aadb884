"""The tie scan: features that enter a top-m by column order, not by score."""

import numpy as np
import pandas as pd
import pytest

from ufsbench.io import save_selections
from ufsbench.methods.base import Selection
from ufsbench.reference import numbers_note
from ufsbench.tools.tied_rankings import (
    cell_ties,
    main,
    run_ties,
    scan,
    summary,
    tie_picks,
    with_tie_counts,
)


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


def _curves(root, rows):
    """A run's tables/curves.tsv: the setting each protocol took per (metric, count)."""
    columns = ["dataset", "method", "protocol", "metric", "n_features", "value", "params"]
    table = pd.DataFrame(rows, columns=columns)
    (root / "tables").mkdir(exist_ok=True)
    table.to_csv(root / "tables" / "curves.tsv", sep="\t", index=False)
    return table


@pytest.fixture
def toy_run(tmp_path):
    collapsed = Selection.from_scores([0.0] * 8 + [1.0, 2.0])  # 2 kept, 8 tied at 0
    distinct = Selection.from_scores(np.arange(10.0))
    _write(tmp_path, "toy", "udfs", {"gamma=1": collapsed, "gamma=0.1": distinct})
    _write(tmp_path, "toy", "allfea", {"default": Selection.from_scores(np.zeros(10))})
    curves = _curves(
        tmp_path,
        [
            ("toy", "allfea", "oracle", "acc", 10, 50.0, "default"),
            ("toy", "udfs", "oracle", "acc", 2, 60.0, "gamma=1"),  # cut between 1 and 0
            ("toy", "udfs", "oracle", "acc", 5, 70.0, "gamma=1"),  # 3 of 5 by column order
            ("toy", "udfs", "oracle", "nmi_sqrt", 2, 10.0, "gamma=0.1"),
            ("toy", "udfs", "oracle", "nmi_sqrt", 5, 20.0, "gamma=0.1"),
            ("toy", "udfs", "default", "acc", 2, 55.0, "gamma=0.1"),
            ("toy", "udfs", "default", "acc", 5, 65.0, "gamma=1"),
            ("toy", "udfs", "oracle", "nmi_max", 5, 20.0, "gamma=1"),
        ],
    )
    return tmp_path, curves


def test_cell_ties_lists_the_cells_whose_chosen_setting_was_cut_inside_a_tie(toy_run):
    root, curves = toy_run
    cells = cell_ties(curves, root, metrics=["acc", "nmi_sqrt"])
    # NMI (sqrt) took the distinct setting at both counts; nmi_max is not a table metric.
    assert cells[["protocol", "metric", "counts", "tied_counts", "max_picks"]].values.tolist() == [
        ["oracle", "acc", 2, 1, 3],
        ["default", "acc", 2, 1, 3],
    ]
    assert set(cell_ties(curves, root).metric) == {"acc", "nmi_max"}


def test_cell_ties_refuses_a_setting_the_run_has_no_selection_of(toy_run):
    root, curves = toy_run
    curves = curves.assign(params=curves["params"].replace("gamma=1", "gamma=10"))
    with pytest.raises(SystemExit, match="no selection of 'gamma=10'"):
        cell_ties(curves, root)


def test_run_ties_cuts_at_the_largest_count_and_writes_a_run_folder(toy_run, capsys):
    root, _ = toy_run
    settings, cells = run_ties(root, ["toy"], metrics=["acc"])
    assert settings[
        ["method", "settings", "tied_settings", "min_picks", "max_picks"]
    ].values.tolist() == [["udfs", 2, 1, 3, 3]]
    assert len(cells) == 2
    folder = root / "published"
    folder.mkdir()
    main([str(root), "--run-folder", str(folder), "--datasets", "toy", "--metrics", "acc"])
    pd.testing.assert_frame_equal(pd.read_csv(folder / "tie_cells.tsv", sep="\t"), cells)
    assert pd.read_csv(folder / "tie_settings.tsv", sep="\t").max_picks.tolist() == [3]
    with pytest.raises(SystemExit, match="no curves of other"):
        run_ties(root, ["other"])


def test_with_tie_counts_marks_the_cells_of_scanned_runs_only(toy_run):
    root, curves = toy_run
    cells = cell_ties(curves, root, metrics=["acc", "nmi_sqrt"])
    versus = pd.DataFrame(
        {
            "dataset": ["toy", "toy", "other"],
            "method": ["udfs", "udfs", "udfs"],
            "protocol": ["oracle", "oracle", "oracle"],
            "our_metric": ["acc", "nmi_sqrt", "acc"],
            "ours": [70.0, 20.0, 50.0],
            "paper": [68.0, 21.0, 50.0],
            "diff": [2.0, -1.0, 0.0],
            "note": ["", "", ""],
        }
    )
    out = with_tie_counts(versus, cells, scanned=["toy"])
    assert list(out.columns[-3:]) == ["tied_counts", "tie_picks_max", "note"]
    assert out["tied_counts"].tolist()[:2] == [1, 0] and pd.isna(out["tied_counts"].iloc[2])
    assert out["tie_picks_max"].tolist()[:2] == [3, 0]
    notes = [numbers_note(row) for _, row in out.iterrows()]
    assert notes[0].endswith(
        "tie rule: column order completes the top features at 1 counts (up to 3)"
    )
    assert "tie rule" not in notes[1] and "tie rule" not in notes[2]
    # Marking again replaces the columns: the published merge re-runs on its own output.
    again = with_tie_counts(out, cells, scanned=["toy"])
    pd.testing.assert_frame_equal(again, out)
