"""measured/README.md's headline blocks are made from the committed files (issue #29)."""

from __future__ import annotations

import pandas as pd
import pytest
from snakemake_cli import ROOT

from ufsbench.tools import headline

MEASURED = ROOT / "measured"


def test_measured_readme_matches_the_committed_tables():
    page = (MEASURED / "README.md").read_text()
    made = headline.blocks(MEASURED)
    assert headline.check_page(page, made) == [], (
        "measured/README.md differs from the files: ufsbench-headline measured/README.md"
    )
    assert headline.render_page(page, made) == page


def test_check_page_names_a_drifted_block():
    made = headline.blocks(MEASURED)
    page = (MEASURED / "README.md").read_text().replace("| 94.10 |", "| 94.11 |", 1)
    assert headline.check_page(page, made) == ["lsdcl-acc"]
    assert headline.check_page("no blocks", made) == list(made)


def test_cells_table_recomputes_the_mean_row():
    versus = pd.DataFrame({
        "dataset": ["a", "b"], "method": "m", "metric": "acc", "ours": [50.0, 70.0],
        "paper": [55.0, 70.0], "diff": [-5.0, 0.0], "default": [40.0, float("nan")],
        "random_control": [45.0, 65.0],
    })  # fmt: skip
    table = headline.cells_table(versus, "m", "acc")
    assert "| a | 50.00 | 55.00 | -5.00 | 40.00 | 45.00 |" in table
    assert "| b | 70.00 | 70.00 | +0.00 | — | 65.00 |" in table
    assert "| **mean** | 60.00 | 62.50 | -2.50 | 40.00 | 55.00 |" in table
    with pytest.raises(ValueError, match="no m nmi cells"):
        headline.cells_table(versus, "m", "nmi")


def test_leaderboard_lines_rank_the_methods_and_place_the_random_control():
    board = pd.DataFrame({
        "protocol": ["oracle"] * 3 + ["default"] * 2, "metric": "acc",
        "method": ["a", "random", "b", "b", "a"], "rank": [1.5, 2.0, 2.5, 1.0, 2.0],
        "p_value": 0.0123, "cd": [1.1] * 3 + [float("nan")] * 2,
    })  # fmt: skip
    lines = headline.leaderboard_lines(board.sample(frac=1.0, random_state=0), top=2)
    assert "| oracle | 0.012 | 1.10 | a 1.50, random 2.00 | 2 of 3 (mean rank 2.00) |" in lines
    assert "| default | 0.012 | — | b 1.00, a 2.00 | not run |" in lines
