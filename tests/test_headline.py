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


def test_css_lines_rank_every_method_and_count_the_cells_within_tolerance():
    versus = pd.DataFrame({
        "dataset": ["dna", "dna", "musk", "musk", "semg", "average_rank", "average_rank"],
        "method": ["pocss", "greedy_css"] * 2 + ["pocss", "pocss", "greedy_css"], "k": 50,
        "ours_mean": [1.10, 1.20, 1.30, 1.25, float("nan"), 1.5, 1.5],
        "paper_mean": [1.101, 1.101, 1.20, 1.30, 1.4, 1.0, 2.0],
        "difference": [-0.001, 0.01, 0.10, -0.05, float("nan"), 0.5, -0.5],
        "within_tolerance": [True, False, False, False, False, float("nan"), float("nan")],
    })  # fmt: skip
    lines = headline.css_lines(versus)
    assert "| dna | 1.100 | 1.101 | -0.001 | pocss | pocss=greedy_css |" in lines  # a tie
    assert "| musk | 1.300 | 1.200 | +0.100 | greedy_css | pocss |" in lines
    assert "semg" not in lines.split("Average")[0]  # not run: no row
    assert "ours pocss 1.50, greedy_css 1.50; the paper's pocss 1.00, greedy_css 2.00" in lines
    assert "Cells within 0.005 of the paper: 1 of 4 (k = 50" in lines


def test_graph_fidelity_lines_count_verdicts_and_both_protocols():
    versus = pd.DataFrame({
        "method": ["srsg", "srsg", "srsg", "km"], "metric": "acc",
        "ours": [0.80, 0.50, float("nan"), 0.7], "paper": [0.81, 0.60, 0.9, 0.7],
        "difference": [-0.01, -0.10, float("nan"), 0.0],
        "fidelity": ["within target", "miss", "", "within target"],
        "ours_default": [0.79, 0.40, float("nan"), 0.7],
    })  # fmt: skip
    lines = headline.graph_fidelity_lines(versus)
    assert "| srsg | 2 (3) | 1 | 0 | 1 | -0.06 | -0.11 |" in lines
    assert "| km | 1 (1) | 1 | 0 | 0 | +0.00 | +0.00 |" in lines
