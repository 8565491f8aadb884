"""Damaged intermediates are refused with the file and the rebuild command (issue 25, item 2);
timings stay out of the score tables and figures carry no date (item 8)."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from ufsbench.aggregate import split_timings  # noqa: E402
from ufsbench.integrity import (  # noqa: E402
    DamagedIntermediate,
    check_selections,
    read_scores,
)
from ufsbench.io import (  # noqa: E402
    load_data,
    load_graph,
    load_knn,
    load_selections,
    save_data,
    save_graph,
    save_knn,
    save_selections,
    write_table,
)
from ufsbench.methods.base import Selection  # noqa: E402
from ufsbench.plots import save_figure  # noqa: E402

REBUILD = r"--forcerun "


def truncate(path, keep: float = 0.5):
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.truncate(int(size * keep))


def selections(d=6):
    rng = np.random.default_rng(0)
    out = {}
    for sid in ("t=0.5", "t=1"):
        scores = rng.random(d)
        out[sid] = Selection.from_scores(scores, history=[3.0, 2.0, 1.0])
    return out


def test_truncated_selection_file_names_the_file_and_the_rebuild_command(tmp_path):
    path = tmp_path / "selection.npz"
    save_selections(path, selections())
    truncate(path)
    with pytest.raises(DamagedIntermediate, match=rf"{path} is damaged.*{REBUILD}{path}"):
        load_selections(path)


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9, 0.99])
def test_any_cut_of_a_selection_file_is_refused(tmp_path, keep):
    path = tmp_path / "selection.npz"
    save_selections(path, selections(d=400))
    truncate(path, keep)
    with pytest.raises(DamagedIntermediate, match="is damaged"):
        load_selections(path)


def test_check_selections_wants_every_setting_of_the_chunk(tmp_path):
    path = tmp_path / "selection.npz"
    save_selections(path, selections())
    held = load_selections(path)
    check_selections(held, path, ["t=0.5", "t=1"], 6)
    with pytest.raises(DamagedIntermediate, match=r"no selection for setting\(s\) 't=2'"):
        check_selections(held, path, ["t=0.5", "t=2"], 6)
    with pytest.raises(DamagedIntermediate, match="the data has 7"):
        check_selections(held, path, ["t=0.5"], 7)


def test_check_selections_refuses_a_ranking_that_is_no_permutation(tmp_path):
    bad = {"a": Selection(ranking=np.array([0, 1, 1]), scores=np.zeros(3))}
    with pytest.raises(DamagedIntermediate, match="not a permutation"):
        check_selections(bad, "sel.npz", ["a"], 3)


def test_damaged_data_knn_and_graph_files_are_refused(tmp_path):
    rng = np.random.default_rng(1)
    data = tmp_path / "data.npz"
    save_data(data, rng.random((300, 40)), rng.integers(0, 3, 300), name="x")
    knn = tmp_path / "knn5.npz"
    neighbours = np.argsort(rng.random((300, 300)), axis=1)[:, :5]
    save_knn(knn, neighbours, rng.random((300, 5)), {"median": 1.0, "mean": 1.0})
    graph = tmp_path / "graph.npz"
    save_graph(graph, sp.random(300, 300, density=0.05, random_state=0))
    for path, load in ((data, load_data), (knn, load_knn), (graph, load_graph)):
        load(path)
        truncate(path, 0.6)
        with pytest.raises(DamagedIntermediate, match=rf"{path} is damaged"):
            load(path)


# -- scores chunks ----------------------------------------------------------------------

SETTINGS = ["t=0.5", "t=1"]
COUNTS = [2, 4, 6]
REPEATS = 4


def chunk_frame(settings=SETTINGS, counts=COUNTS, repeats=REPEATS, method="lapscore"):
    rows = [
        ("wine", method, s, True, s == settings[0], m, r, 0.5, 0.4, 0.41, 0.01)
        for s, m, r in itertools.product(settings, counts, range(repeats))
    ]
    columns = ["dataset", "method", "params", "in_grid", "is_default", "n_features", "repeat"]
    return pd.DataFrame(rows, columns=[*columns, "acc", "nmi_max", "nmi_sqrt", "select_seconds"])


def plan(files, settings=SETTINGS):
    return {
        "files": files,
        "settings": {"lapscore": {"c0": settings}, "allfea": {"c0": ["default"]}},
        "feature_counts": {"wine": COUNTS},
        "all_features": ["allfea"],
        "repeats": REPEATS,
    }


def cut_lines(path, n_lines):
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-n_lines]))


def test_complete_scores_chunks_are_read_in_order(tmp_path):
    first, second = tmp_path / "a.tsv", tmp_path / "b.tsv"
    write_table(first, chunk_frame())
    write_table(second, chunk_frame(["default"], [13], method="allfea"))
    files = [["wine", "lapscore", "c0"], ["wine", "allfea", "c0"]]
    scores = read_scores([first, second], plan(files))
    assert len(scores) == len(SETTINGS) * len(COUNTS) * REPEATS + REPEATS
    assert list(pd.unique(scores["method"])) == ["lapscore", "allfea"]


@pytest.mark.parametrize("n_lines", [1, REPEATS, len(COUNTS) * REPEATS])
def test_scores_chunk_cut_at_a_line_boundary_is_refused(tmp_path, n_lines):
    path = tmp_path / "scores.tsv"
    write_table(path, chunk_frame())
    cut_lines(path, n_lines)
    pd.read_csv(path, sep="\t")  # still parses: this is what aggregate used to accept
    with pytest.raises(DamagedIntermediate, match=rf"{path} is damaged: .*{REBUILD}{path}"):
        read_scores([path], plan([["wine", "lapscore", "c0"]]))


def test_scores_chunk_cut_mid_line_is_refused(tmp_path):
    path = tmp_path / "scores.tsv"
    write_table(path, chunk_frame())
    text = path.read_text()
    path.write_text(text[: text.rindex("\t")])
    with pytest.raises(DamagedIntermediate, match="is damaged"):
        read_scores([path], plan([["wine", "lapscore", "c0"]]))


@pytest.mark.parametrize(
    "frame, message",
    [
        (pd.concat([chunk_frame(), chunk_frame().iloc[:1]]), "appears more than once"),
        (chunk_frame(["t=0.5", "t=1", "t=9"]), "'t=9' is not in the plan"),
        (chunk_frame(counts=[2, 4]), r"evaluated at counts \[2, 4\]"),
        (chunk_frame(method="ndfs"), "method 'ndfs' where the plan has 'lapscore'"),
        (chunk_frame().iloc[0:0], "no score rows"),
        (chunk_frame().drop(columns="nmi_max"), "lacks the column"),
    ],
)
def test_scores_chunk_other_than_the_plan_is_refused(tmp_path, frame, message):
    path = tmp_path / "scores.tsv"
    write_table(path, frame)
    with pytest.raises(DamagedIntermediate, match=message):
        read_scores([path], plan([["wine", "lapscore", "c0"]]))


def test_empty_scores_file_is_refused(tmp_path):
    path = tmp_path / "scores.tsv"
    path.write_text("")
    with pytest.raises(DamagedIntermediate, match="not a readable table"):
        read_scores([path], plan([["wine", "lapscore", "c0"]]))


def test_stage2_scores_may_hold_any_setting_at_planned_counts(tmp_path):
    path = tmp_path / "scores.tsv"
    write_table(path, chunk_frame(["alpha=3"], [4]))
    read_scores([path], plan([["wine", "lapscore", "stage2"]]))
    write_table(path, chunk_frame(["alpha=3"], [5]))
    with pytest.raises(DamagedIntermediate, match=r"counts among \[2, 4, 6\]"):
        read_scores([path], plan([["wine", "lapscore", "stage2"]]))


# -- item 8: timings apart, figures without a date ----------------------------------------


def test_split_timings_keeps_wall_clock_out_of_the_scores():
    scores, timings = split_timings(chunk_frame())
    assert "select_seconds" not in scores.columns
    assert list(timings.columns) == ["dataset", "method", "params", "select_seconds"]
    assert list(timings["params"]) == SETTINGS


def test_saved_figures_do_not_depend_on_when_they_are_drawn(tmp_path, monkeypatch):
    def draw(name, epoch):
        # SOURCE_DATE_EPOCH is the clock matplotlib reads for a PDF's CreationDate.
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
        fig, ax = plt.subplots()
        ax.plot([1, 3, 2], marker="o")
        paths = [tmp_path / f"{name}.{ext}" for ext in ("png", "pdf", "svg")]
        save_figure(fig, *paths)
        return [p.read_bytes() for p in paths]

    assert draw("first", "0") == draw("second", "1700000000")
