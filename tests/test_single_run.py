"""Publishing the runs whose tables span all their datasets (ufsbench.tools.single_run)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufsbench.tools.single_run import (
    copy_up,
    fidelity_counts,
    kinds_of,
    markdown_to_latex,
    run_outputs,
)


def test_kinds_follow_the_config_sections():
    assert kinds_of({"leaderboard": {}, "css": {"k": [5]}}) == ["leaderboard"]
    assert kinds_of({"css": {"k": [5]}, "datasets": ["wine"]}) == ["css"]
    assert kinds_of({"clustering": {"datasets": ["iris"]}}) == ["clustering"]
    assert kinds_of({"blufs": {"stage1": {}}, "css": None}) == ["blufs"]
    assert kinds_of({"datasets": ["wine"], "paper": {"name": "lsdcl"}}) == []


def _touch(path, text="x\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_run_outputs_name_files_by_their_path_and_need_the_required_ones(tmp_path):
    for name in ("css_table1.md", "css_summary.tsv", "pocss_vs_paper.tsv", "summary.tsv"):
        _touch(tmp_path / "tables" / name)
    _touch(tmp_path / "figures" / "css" / "dna" / "anytime.png")
    _touch(tmp_path / "figures" / "sonar" / "curves.png")
    _touch(tmp_path / "tables" / "scores.tsv")  # per setting: not published
    files = run_outputs(tmp_path, ["css"])
    assert set(files) == {
        "css_table1.md", "css_summary.tsv", "pocss_vs_paper.tsv", "summary.tsv",
        "dna_anytime.png", "sonar_curves.png",
    }  # fmt: skip
    assert files["dna_anytime.png"] == tmp_path / "figures" / "css" / "dna" / "anytime.png"
    (tmp_path / "tables" / "pocss_vs_paper.tsv").unlink()
    with pytest.raises(SystemExit, match="not a finished css run: missing .*pocss_vs_paper"):
        run_outputs(tmp_path, ["css"])
    with pytest.raises(SystemExit, match="srsg_table\\*.md"):
        run_outputs(tmp_path, ["clustering"])


def test_markdown_tables_become_booktabs_with_the_text_as_comments():
    markdown = (
        "# Table 1: k = 50\n\n| dataset | two_stage | pocss |\n|---|---|---:|\n"
        "| dna | **1.2 ± 0.1** | 5% & {x} |\n| average rank | 2.00 | 1.00 |\n\n"
        "## Not run\n\n- semg: not in the mirror\n"
    )
    assert markdown_to_latex(markdown).splitlines() == [
        "% Table 1: k = 50",
        r"\begin{tabular}{lcc}",
        r"\toprule",
        r"dataset & two\_stage & pocss \\",
        r"\midrule",
        r"dna & \textbf{1.2 $\pm$ 0.1} & 5\% \& \{x\} \\",
        r"average rank & 2.00 & 1.00 \\",
        r"\bottomrule",
        r"\end{tabular}",
        "% Not run",
        "% - semg: not in the mirror",
    ]


def test_fidelity_counts_group_the_paper_cells_and_count_verdicts():
    srsg = pd.DataFrame(
        {
            "table": ["1", "1", "1", "2"],
            "dataset": ["a", "b", "c", "a"],
            "method": ["srsg"] * 4,
            "metric": ["acc"] * 4,
            "ours": [0.80, 0.70, np.nan, 0.5],
            "paper": [0.81, 0.60, 0.9, 0.5],
            "difference": [-0.01, 0.10, np.nan, 0.0],
            "fidelity": ["within target", "miss", "", "within target"],
        }
    )
    out = fidelity_counts(srsg)
    first = out.iloc[0]
    assert (first["table"], first["cells"], first["ran"]) == ("1", 3, 2)
    assert first["mean_diff"] == pytest.approx(0.045)
    assert first["max_abs_diff"] == pytest.approx(0.10)
    assert (first["within_target"], first["within_seed_noise"], first["miss"]) == (1, 0, 1)
    pocss = pd.DataFrame(
        {
            "dataset": ["dna", "musk", "average_rank"],
            "method": ["pocss"] * 3,
            "k": [50] * 3,
            "ours_mean": [1.10, 1.30, 1.0],
            "paper_mean": [1.10, 1.20, 1.5],
            "difference": [0.0, 0.10, -0.5],
            "within_tolerance": [True, False, np.nan],
        }
    )
    assert list(fidelity_counts(pocss.iloc[:0]).columns) == [
        "method", "k", "cells", "ran", "mean_diff", "mean_abs_diff", "max_abs_diff",
        "within_tolerance",
    ]  # fmt: skip
    row = fidelity_counts(pocss).iloc[0]
    assert (row["cells"], row["ran"], row["within_tolerance"]) == (2, 2, 1)  # no rank row
    assert row["mean_abs_diff"] == pytest.approx(0.05)


def test_copy_up_writes_latex_and_fidelity_beside_the_run_files(tmp_path):
    run, into = tmp_path / "into" / "runs" / "r", tmp_path / "into"
    _touch(run / "srsg_table1.md", "| a | b |\n|---|---|\n| 1 | 2 |\n")
    vs = "table\tdataset\tmethod\tmetric\tours\tpaper\tdifference\n1\ta\tsrsg\tacc\t0.5\t0.4\t0.1\n"
    _touch(run / "srsg_vs_paper.tsv", vs)
    _touch(run / "run.json", "{}")
    written = {p.name for p in copy_up(run, into)}
    tables = {"srsg_table1.md", "srsg_table1.tex", "srsg_vs_paper.tsv", "srsg_fidelity.tsv"}
    assert written == tables
    assert not (into / "run.json").exists()
    assert pd.read_csv(into / "srsg_fidelity.tsv", sep="\t")["ran"].tolist() == [1]


def test_blufs_merge_stacks_blocks_then_datasets_and_refuses_a_dataset_twice():
    from ufsbench.tools.merge_blufs import stack

    one = pd.DataFrame(
        {"metric": ["acc", "acc", "nmi"], "dataset": ["b", "b", "b"], "v": [1, 2, 3]}
    )
    two = pd.DataFrame({"metric": ["acc", "nmi"], "dataset": ["a", "a"], "v": [4, 5]})
    merged = stack([one, two], order=["a", "b"], block="metric")
    # as one run writes it: every dataset's acc rows, then every dataset's nmi rows
    assert merged["v"].tolist() == [4, 1, 2, 5, 3]
    assert stack([one, two], order=["a", "b"])["v"].tolist() == [4, 5, 1, 2, 3]
    with pytest.raises(SystemExit, match="dataset 'b' is in two published runs"):
        stack([one, one.iloc[:1]], order=None)


def test_blufs_merge_refuses_runs_that_disagree_on_a_shared_file(tmp_path):
    from ufsbench.tools.merge_blufs import merge_runs

    runs = [tmp_path / "wine", tmp_path / "iris"]
    for run, picks in zip(runs, ("0\n", "1\n"), strict=True):
        run.mkdir()
        (run / "blufs_synthetic_planted.tsv").write_text("hits\n" + picks)
    staging = tmp_path / "staging"
    staging.mkdir()
    with pytest.raises(SystemExit, match="blufs_synthetic_planted.tsv differs between"):
        merge_runs(runs, staging, {"blufs": {}}, root=tmp_path)


def test_a_blufs_part_leaves_out_files_an_earlier_part_left_in_its_folder(tmp_path, capsys):
    from ufsbench.tools.publish_run import without_other_datasets

    cells = tmp_path / "blufs_cells.tsv"
    cells.write_text("dataset\tmethod\nwine\tblufs\n")
    names = ["blufs_cells.tsv", "stability_wine.png", "stability_iris.png",
             "blufs_stability_iris.tsv", "iris_curves.png", "synthetic_planted.png",
             "blufs_table2.md"]  # fmt: skip
    files = {name: tmp_path / name for name in names}
    kept = without_other_datasets(files, {"datasets": ["wine", "iris"]})
    assert sorted(kept) == sorted(
        ["blufs_cells.tsv", "stability_wine.png", "synthetic_planted.png", "blufs_table2.md"]
    )
    assert "left out" in capsys.readouterr().out
    assert without_other_datasets(files, {"datasets": ["wine"]}) == files


def _git(root, *args) -> str:
    import subprocess

    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _commit(root, message: str) -> str:
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
         "-m", message)  # fmt: skip
    return _git(root, "rev-parse", "HEAD")


def _part(tmp_path, name: str, picks: str, commit: str | None):
    """A published BLUFS part holding the synthetic picks of 'planted' (and of
    'planted_centred', made at an older commit), its jobs made at ``commit``."""
    run = tmp_path / name
    run.mkdir()
    (run / "blufs_synthetic_planted.tsv").write_text("hits\n" + picks)
    if commit is not None:
        (run / "jobs.tsv").write_text(
            "stage\tdataset\tmethod\tcommit\tmodified\tcode\tjobs\n"
            f"blufs/synthetic\tplanted\t\t{commit}\t0\t\t10\n"
            f"blufs/synthetic\tplanted_centred\t\tfeedbeef\t0\t\t10\n"
            f"select\t{name}\tblufs\tfeedbeef\t0\tabc\t3\n"
        )
    return run / "blufs_synthetic_planted.tsv"


def test_a_shared_blufs_file_comes_from_the_part_made_at_the_newest_code(tmp_path):
    from ufsbench.tools.merge_blufs import newest_holder

    _git(tmp_path, "init", "-q")
    old = _commit(tmp_path, "old")
    new = _commit(tmp_path, "new")
    parts = tmp_path / "parts"
    parts.mkdir()
    # Two parts made at the old code agree; a re-made part brings the new code's picks.
    first = _part(parts, "wine", "0\n", old)
    remade = _part(parts, "iris", "1\n", new)
    third = _part(parts, "zoo", "0\n", old)
    assert newest_holder([first, remade, third], tmp_path) == remade
    assert newest_holder([remade, first], tmp_path) == remade


def test_a_shared_blufs_file_whose_order_is_unknown_is_refused(tmp_path):
    from ufsbench.tools.merge_blufs import newest_holder

    _git(tmp_path, "init", "-q")
    base = _commit(tmp_path, "base")
    one = _commit(tmp_path, "one")
    _git(tmp_path, "checkout", "-q", "-b", "side", base)
    other = _commit(tmp_path, "side")  # neither descends from the other
    parts = tmp_path / "parts"
    parts.mkdir()
    assert newest_holder([_part(parts, "a", "0\n", one), _part(parts, "b", "1\n", other)],
                         tmp_path) is None  # fmt: skip
    # The same commit with different picks: not the code, something else differed.
    assert newest_holder([_part(parts, "c", "0\n", base), _part(parts, "d", "1\n", base)],
                         tmp_path) is None  # fmt: skip
    # A part that recorded no jobs cannot be placed.
    assert newest_holder([_part(parts, "e", "0\n", None), _part(parts, "f", "1\n", one)],
                         tmp_path) is None  # fmt: skip
