"""How the cross-validation chooses settings: nested or full-data oracle (issue #29 item 4)."""

from __future__ import annotations

import pandas as pd
import pytest

from ufsbench import crossval
from ufsbench.papers.crossval_report import vs_paper_columns

GRID = {"lambda1": [1.0, 10.0], "gamma": [1.0, 8.0]}


def test_nested_searches_the_whole_grid():
    assert crossval.selection_grid(GRID, "nested") == GRID
    assert crossval.selection_grid(GRID, "nested", {"gamma": 8.0}) == GRID


def test_full_data_oracle_fixes_its_parameters():
    grid = crossval.selection_grid(GRID, "full_data_oracle", {"gamma": 8.0})
    assert grid == {"lambda1": [1.0, 10.0], "gamma": [8.0]}


@pytest.mark.parametrize(
    ("selection", "fixed", "message"),
    [
        ("oracle", None, "selection 'oracle' must be one of"),
        ("full_data_oracle", None, "needs 'full_data_oracle'"),
        ("full_data_oracle", {"sigma": 2.0}, r"fixes \['sigma'\], which the grid lacks"),
    ],
)
def test_selection_grid_rejects_bad_config(selection, fixed, message):
    with pytest.raises(ValueError, match=message):
        crossval.selection_grid(GRID, selection, fixed)


def test_summarize_keeps_each_selection_apart():
    row = {f"{s}_{m}": 0.5 for s in ("train", "test") for m in crossval.METRICS}
    results = pd.DataFrame(
        [
            {"n_train": 10, "draw": d, "n_features": 2, "params": "x", **row, "protocol": p}
            for p in ("nested", "full_data_oracle")
            for d in range(2)
        ]
    )
    results.loc[results["protocol"] == "nested", "test_acc"] = 0.75
    summary = crossval.summarize(results, dataset="d", method="m")
    assert list(summary.columns) == list(crossval.SUMMARY_COLUMNS)
    test_acc = summary[(summary["split"] == "test") & (summary["metric"] == "acc")]
    assert dict(zip(test_acc["protocol"], test_acc["mean"], strict=True)) == {
        "nested": 75.0,
        "full_data_oracle": 50.0,
    }
    assert (summary["draws"] == 2).all()
    markdown = crossval.render_markdown(summary, "acc", protocol="nested")
    assert "selection: nested" in markdown and "75.00 ± 0.00" in markdown
    columns = vs_paper_columns(["full_data_oracle"])
    at = columns.index("paper_p") + 1
    assert columns[at : at + 3] == [
        "full_data_oracle",
        "full_data_oracle_std",
        "full_data_oracle_diff",
    ]
    assert "default" not in columns and columns[-1] == "note"
