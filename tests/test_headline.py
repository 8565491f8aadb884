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


def test_every_published_lsdcl_table2_cell_beyond_the_limit_has_a_note():
    # docs/lsdcl.md says so; a re-made part can move a cell past 3.5 (ACC points).
    from ufsbench.reference import load_notes

    versus = pd.read_csv(MEASURED / "lsdcl" / "lsdcl_vs_paper.tsv", sep="\t")
    notes = load_notes(MEASURED / "lsdcl" / "notes.tsv")
    noted = set(zip(notes["dataset"], notes["method"], strict=True))
    far = versus[(versus["table"] == "table2") & (versus["diff"].abs() > 3.5)]
    assert len(far) >= 10  # the published table, not an empty one
    unexplained = [
        (r.dataset, r.method) for r in far.itertuples() if (r.dataset, r.method) not in noted
    ]
    assert unexplained == [], f"add a note to measured/lsdcl/notes.tsv for {unexplained}"


def test_published_lsdcl_tie_counts_match_the_runs_tie_scans():
    # lsdcl_vs_paper.tsv's tie columns come from the runs' tie_cells.tsv (publish_run).
    versus = pd.read_csv(MEASURED / "lsdcl" / "lsdcl_vs_paper.tsv", sep="\t")
    cells = pd.read_csv(MEASURED / "lsdcl" / "tie_cells.tsv", sep="\t")
    keys = ["dataset", "method", "protocol", "metric"]
    cells = cells[cells["protocol"].isin(versus["protocol"])]
    shown = versus.rename(columns={"metric": "paper_metric", "our_metric": "metric"})
    joined = cells.merge(shown, on=keys, how="left", validate="one_to_one")
    assert len(joined) >= 10 and joined["tied_counts_y"].notna().all()
    assert (joined["tied_counts_x"] == joined["tied_counts_y"]).all()
    assert (joined["max_picks"] == joined["tie_picks_max"]).all()
    assert joined["note"].str.contains("tie rule").all()
    # Every other cell of a dataset with ties shows 0 (empty: a run never scanned).
    scanned = set(cells["dataset"])
    rest = versus[versus["dataset"].isin(scanned) & ~versus["tied_counts"].fillna(0).gt(0)]
    assert (rest["tied_counts"] == 0).all()


def test_check_page_names_a_drifted_block():
    made = headline.blocks(MEASURED)
    page = (MEASURED / "README.md").read_text().replace("| 94.10 |", "| 94.11 |", 1)
    assert headline.check_page(page, made) == ["lsdcl-acc"]
    assert headline.check_page("no blocks", made) == list(made)


def test_check_option_exits_naming_the_drifted_block_and_changes_nothing(tmp_path):
    for path in MEASURED.rglob("*"):  # the files the blocks read, and the page
        if path.is_file() and path.suffix in (".tsv", ".md", ".json"):
            target = tmp_path / path.relative_to(MEASURED)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    page = tmp_path / "README.md"
    headline.main([str(page), "--check"])  # as committed: passes
    drifted = page.read_text().replace("| 94.10 |", "| 94.11 |", 1)
    page.write_text(drifted)
    with pytest.raises(SystemExit, match="blocks differ from the files: lsdcl-acc"):
        headline.main([str(page), "--check"])
    assert page.read_text() == drifted
    headline.main([str(page)])  # without --check: regenerated
    assert page.read_text() == (MEASURED / "README.md").read_text()


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


def test_fidelity_table_gives_each_methods_mean_worst_cell_and_verdict():
    versus = pd.DataFrame({
        "table": "table2", "dataset": ["a", "b", "c", "a", "b", "c"],
        "method": ["m", "m", "m", "n", "n", "n"], "metric": "acc",
        "ours": [50.0, 51.0, 49.0, 60.0, 70.0, float("nan")],
        "paper": [51.0, 50.0, 52.5, 55.0, 73.0, 40.0],
        "diff": [-1.0, 1.0, -3.5, 5.0, -3.0, float("nan")],
    })  # fmt: skip
    table = headline.fidelity_table(versus, "acc", labels={"c": "C"})
    # m: mean -1.17, worst -3.5 on c (at the cell limit: within); n: mean +1.00 over the
    # two cells run, its worst cell +5.00 beyond 3.5.
    assert "| m | 3 | -1.17 | -3.50 (C) | yes |" in table
    assert "| n | 2 | +1.00 | +5.00 (a) | no |" in table
    assert table.index("| m |") < table.index("| n |")
    with pytest.raises(ValueError, match="no nmi cells"):
        headline.fidelity_table(versus, "nmi")


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


def test_blufs_lines_give_the_companions_and_count_weak_paper_cells():
    nan = float("nan")
    versus = pd.DataFrame({
        "dataset": ["isolet", "isolet", "isolet", "pie", "pie", "wine"],
        "method": ["blufs", "lapscore", "allfea", "blufs", "udfs", "blufs"], "metric": "acc",
        "ours": [60.0, 55.0, 50.0, 40.0, 30.0, 70.0],
        "paper": [58.0, 50.0, 45.0, 41.0, 35.0, nan],
        "difference": [2.0, 5.0, 5.0, -1.0, -5.0, nan],
        "default": [52.0, 51.0, 50.0, 38.0, 29.0, 60.0],
        "random_oracle": [52.5, 52.5, 52.5, 34.0, 34.0, 65.0],
        "reseed_mean": [59.0, nan, nan, 39.5, nan, 69.0],
        "reseed_std": [1.5, nan, nan, 0.25, nan, 1.0], "reseeds": [10, nan, nan, 10, nan, 2],
        "reseed_difference": [1.0, nan, nan, -1.5, nan, nan],
    })  # fmt: skip
    friedman = pd.DataFrame({"method": ["udfs", "blufs", "lapscore"], "mean_rank": [3, 1.5, 1.5]})
    lines = headline.blufs_lines(versus, friedman)
    assert "| isolet | 60.00 | 58.00 | +2.00 | 52.00 | 52.50 | 59.00 ± 1.50 (10) | +1.00 |" in lines
    assert "| pie | 40.00 | 41.00 | -1.00 | 38.00 | 34.00 | 39.50 ± 0.25 (10) | -1.50 |" in lines
    assert "wine" not in lines  # no paper value: not a headline cell
    # lapscore 50 < 52.5 below, blufs 58 above, blufs 41 and udfs 35 above 34; AllFea is
    # not a selection method.
    assert "below our RandomSubset oracle: 1 of 4 (acc" in lines
    assert "(1 = best): blufs 1.50, lapscore 1.50, udfs 3.00." in lines
    over = headline.blufs_lines(versus, friedman.assign(n_datasets=2))
    assert "Friedman mean ranks on acc over 2 datasets (1 = best)" in over
    one = headline.blufs_lines(versus, friedman.assign(mean_rank=None))
    assert "Friedman ranks: not yet, they need two datasets." in one and "nan" not in one
    with pytest.raises(ValueError, match="no blufs nmi_max cells"):
        headline.blufs_lines(versus, friedman, "nmi_max")


def test_sweep_lines_order_settings_by_value_and_mark_default_and_best():
    settings = pd.DataFrame({
        "dataset": ["c8"] * 3 + ["heart"] * 3, "method": "srsg",
        "setting": ["step_scale=16", "step_scale=0.99", "step_scale=4"] * 2,
        "acc_mean": [0.97, 0.79, 0.85, 0.60, 0.64, 0.62],
        "default": [False, True, False] * 2,
    })  # fmt: skip
    versus = pd.DataFrame({
        "dataset": ["c8", "c8", "heart"], "method": ["srsg", "km", "km"], "metric": "acc",
        "paper": [0.9705, 0.5, 0.6],
    })  # fmt: skip
    lines = headline.sweep_lines(settings, versus, "srsg")
    # 0.99 < 4 < 16 numerically, not as text
    assert "| dataset | paper | step_scale=0.99 (default) | step_scale=4 | step_scale=16 |" in lines
    assert "| c8 | 0.9705 | 0.7900 | 0.8500 | **0.9700** |" in lines
    assert "| heart | — | **0.6400** | 0.6200 | 0.6000 |" in lines  # no srsg paper cell
    with pytest.raises(ValueError, match="no km settings"):
        headline.sweep_lines(settings, versus, "km")


def test_crossval_line_reports_the_selection_beside_the_compared_one():
    nan = float("nan")
    versus = pd.DataFrame({
        "protocol": "nested", "metric": "acc", "paper": [90.0, 80.0, 70.0],
        "ours": [88.0, nan, nan], "full_data_oracle": [85.0, 75.0, 65.0],
    })  # fmt: skip
    lines = headline.crossval_line(versus).splitlines()
    assert lines == [
        "- test acc, selection `nested`: 88.00 against the paper's 90.00 (-2.00), mean over"
        " 1 cells.",
        "- test acc, selection `full_data_oracle`: 75.00 against the paper's 80.00 (-5.00), mean"
        " over 3 cells.",
    ]


def test_crossval_sizes_table_means_each_size_and_counts_where_the_compared_one_is_above():
    nan = float("nan")
    versus = pd.DataFrame({
        "protocol": "nested", "n_train": [100, 100, 200, 200, 100, 100, 200, 200],
        "metric": ["acc"] * 4 + ["nmi"] * 4,
        "ours": [88.0, 90.0, nan, nan, 40.0, 42.0, 50.0, nan],
        "full_data_oracle": [85.0, 85.0, 80.0, 82.0, 45.0, 45.0, 50.0, 52.0],
        "paper": [91.0, 93.0, 94.0, 96.0, 60.0, 62.0, 64.0, 66.0],
    }).sample(frac=1.0, random_state=0)  # fmt: skip
    lines = headline.crossval_sizes_table(versus).splitlines()
    assert lines[0] == (
        "| n_train | acc nested | acc full_data_oracle | acc paper | nmi nested "
        "| nmi full_data_oracle | nmi paper |"
    )
    # a size is "—" unless every feature count of it ran (200's nmi: one of two)
    assert lines[2] == "| 100 | 89.00 | 85.00 | 92.00 | 41.00 | 45.00 | 61.00 |"
    assert lines[3] == "| 200 | — | 81.00 | 95.00 | — | 51.00 | 65.00 |"
    assert lines[-2:] == [
        "- acc: `nested` above `full_data_oracle` at 1 of the 1 sizes where both are published.",
        "- nmi: `nested` above `full_data_oracle` at 0 of the 1 sizes where both are published.",
    ]
    with pytest.raises(ValueError, match="one compared selection"):
        headline.crossval_sizes_table(versus.assign(protocol=["nested", "other"] * 4))


def test_published_blufs_notes_are_the_current_notes_and_explain_every_far_cell():
    # The merge applies measured/blufs/notes.tsv afresh (merge_blufs); editing the notes
    # without publishing again would leave the comparison with the old ones.
    from ufsbench.papers.blufs import renote
    from ufsbench.reference import load_notes

    versus = pd.read_csv(MEASURED / "blufs" / "blufs_vs_paper.tsv", sep="\t")
    notes = load_notes(MEASURED / "blufs" / "notes.tsv")
    published = versus["notes"].fillna("").tolist()
    assert renote(versus, notes)["notes"].tolist() == published, (
        "re-publish: python -m ufsbench.tools.publish_run --config "
        "config/experiments/blufs.yaml --into measured/blufs"
    )
    # docs/blufs.md: every miss beyond +-3 points has a note.
    far = versus[versus["difference"].abs() > 3]
    assert len(far) >= 30
    assert far["notes"].fillna("").ne("").all(), far.loc[
        far["notes"].isna(), ["dataset", "method", "metric"]
    ]
