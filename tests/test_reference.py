"""Reference data, the ours-vs-paper comparison, paper tables, figures' data and crossval."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ufsbench import crossval, reference
from ufsbench.aggregate import CURVE_COLUMNS, SCORE_COLUMNS
from ufsbench.aggregate import curves as protocol_curves
from ufsbench.aggregate import summary as protocol_summary
from ufsbench.graph import affinity, nearest_neighbours
from ufsbench.papers import figures as paperfigures
from ufsbench.papers import tables as papertables

REF = """# a comment
table\tdataset\tmethod\tmetric\tmean\tstd\tp\tbold
t2\twine\tallfea\tacc\t67.81\t\t\tfalse
t2\twine\tm1\tacc\t80.00\t4.00\t1.00\ttrue
t2\twine\tm2\tacc\t70.00\t3.00\t0.01\tfalse
t3\twine\tm1\tnmi\t60.00\t5.00\t1.00\ttrue
t2\tzoo\tm1\tacc\t50.00\t1.00\t1.00\ttrue
"""


def write(tmp_path, text, name="ref.tsv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def score_rows(dataset, method, params, values, *, in_grid=True, is_default=False, counts=(1, 2)):
    """Tidy scores with two repeats per count: ``values[m]`` is the mean ACC at count m."""
    rows = []
    for m in counts:
        for repeat, offset in enumerate((-0.01, 0.01)):
            value = values[m] + offset
            rows.append(
                (dataset, method, params, in_grid, is_default, m, repeat, value, value, value)
            )
    return rows


def scores_frame(rows):
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


# -- load_reference -------------------------------------------------------------------


def test_load_reference_parses_values_and_keys(tmp_path):
    ref = reference.load_reference(write(tmp_path, REF))
    assert ref.attrs["keys"] == ["dataset", "method", "metric"]
    assert len(ref) == 5
    assert np.isnan(ref.loc[0, "std"]) and np.isnan(ref.loc[0, "p"])
    assert ref["bold"].tolist() == [False, True, False, True, True]
    assert ref.loc[1, "mean"] == 80.0


def test_load_reference_extra_keys_are_typed(tmp_path):
    text = "dataset\tmethod\tmetric\tn_train\tn_features\tmean\tstd\nu\tl\tacc\t100\t5\t90.2\t4.4\n"
    ref = reference.load_reference(write(tmp_path, text))
    assert ref.attrs["keys"] == ["dataset", "method", "metric", "n_train", "n_features"]
    assert ref["n_train"].dtype.kind == "i"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dataset\tmethod\tmean\nw\tm\t1\n", "missing columns metric"),
        ("dataset\tmethod\tmetric\tmean\nw\tm\tacc\tabc\n", "not a number"),
        ("dataset\tmethod\tmetric\tmean\nw\tm\tacc\t1\nw\tm\tacc\t2\n", "duplicate cell"),
        ("dataset\tmethod\tmetric\tmean\n", "no rows"),
    ],
)
def test_load_reference_rejects_bad_files(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        reference.load_reference(write(tmp_path, text))


def test_load_reference_missing_file(tmp_path):
    with pytest.raises(ValueError, match="file not found"):
        reference.load_reference(tmp_path / "nope.tsv")


def test_load_reference_carries_paper_columns_and_keys_cells_per_table(tmp_path):
    text = (
        "table\tdataset\tpaper_dataset\tmethod\tmetric\tk\tmean\tpaper_s\n"
        "II\td\tD one\tm\tacc\t50\t40.0\t70\n"
        "V\td\tD one\tm\tacc\t50\t40.0\t\n"  # a cell may stand again in another table
    )
    ref = reference.load_reference(write(tmp_path, text))
    assert ref.attrs["keys"] == ["dataset", "method", "metric", "k"]
    assert ref["k"].dtype.kind == "i" and ref["paper_dataset"].tolist() == ["D one"] * 2
    assert ref["paper_s"].dtype.kind == "f" and np.isnan(ref.loc[1, "paper_s"])
    assert ref["table"].tolist() == ["II", "V"]
    with pytest.raises(ValueError, match=r"'ref.tsv' line 3: duplicate cell table=II, dataset=d"):
        reference.load_reference(write(tmp_path, text.replace("\nV\t", "\nII\t")))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("w\tm\tacc\t1\nw\tm\tacc\tx\n", r"line 5: column 'mean' is not a number: 'x'"),
        ("w\tm\tacc\t1\nw\tm\tnmi\t\n", r"line 5: every row needs a mean"),
    ],
)
def test_load_reference_errors_name_the_line(tmp_path, body, message):
    # Two comment lines and the header come first: the second data row is line 5.
    text = "# one\n# two\ndataset\tmethod\tmetric\tmean\n" + body
    with pytest.raises(ValueError, match=message):
        reference.load_reference(write(tmp_path, text))


def test_repository_reference_files_load():
    from snakemake_cli import ROOT

    tables = reference.load_reference(ROOT / "resources" / "reference" / "lsdcl.tsv")
    assert len(tables) == 2 * 10 * 10  # Tables 2 and 3: 10 datasets x 10 methods
    wine = tables[(tables["dataset"] == "wine") & (tables["method"] == "lsdcl")]
    assert wine.set_index("metric")["mean"].to_dict() == {"acc": 87.47, "nmi": 66.37}
    # The transcription's Average rows are the column means (spec 7.3's check).
    acc = tables[tables["metric"] == "acc"].groupby("method")["mean"].mean()
    assert acc["lsdcl"] == pytest.approx(71.10, abs=0.006)
    cv = reference.load_reference(ROOT / "resources" / "reference" / "lsdcl_crossval.tsv")
    assert len(cv) == 2 * 10 * 10
    assert cv.attrs["keys"][-2:] == ["n_train", "n_features"]
    blufs = reference.load_reference(ROOT / "resources" / "reference" / "blufs.tsv")
    assert blufs.attrs["keys"] == ["dataset", "method", "metric"]
    assert set(blufs["table"]) == {"II", "III", "V", "VI", "VII", "VIII"}
    pocss = reference.load_reference(ROOT / "resources" / "reference" / "pocss_table1.tsv")
    assert pocss.attrs["keys"] == ["dataset", "method", "metric", "k"]
    srsg = reference.load_reference(ROOT / "resources" / "reference" / "srsg_paper.tsv")
    assert srsg.attrs["keys"] == ["dataset", "method", "metric"]
    # One place for every paper's numbers; config/ holds configuration only.
    assert not list((ROOT / "config").glob("papers/*"))
    assert not list((ROOT / "config").glob("**/*.tsv"))


NOTES_OF = {  # notes file (beside the published tables) -> the reference it explains
    "measured/blufs/notes.tsv": "resources/reference/blufs.tsv",
    "measured/lsdcl/notes.tsv": "resources/reference/lsdcl.tsv",
    "measured/lsdcl/notes_crossval.tsv": "resources/reference/lsdcl_crossval.tsv",
    "measured/pocss/notes.tsv": "resources/reference/pocss_table1.tsv",
    "measured/srsg/notes.tsv": "resources/reference/srsg_paper.tsv",
}


@pytest.mark.parametrize("notes_file", sorted(NOTES_OF))
def test_repository_notes_name_cells_of_their_reference(notes_file):
    """A typo in a notes file would silently attach nothing: every (dataset, method) it
    names, wildcards aside, must be a cell of the paper's table."""
    from snakemake_cli import ROOT

    notes = reference.load_notes(ROOT / notes_file)
    ref = reference.load_reference(ROOT / NOTES_OF[notes_file])
    assert len(notes) and notes["note"].str.len().gt(20).all()
    for _, row in notes.iterrows():
        hit = np.ones(len(ref), dtype=bool)
        for column in ("dataset", "method"):
            if row[column] != "*":
                hit &= ref[column].eq(row[column]).to_numpy()
        assert hit.any(), f"{notes_file}: no paper cell for {row['dataset']}/{row['method']}"


def test_add_notes_wildcards_order_and_metric():
    table = pd.DataFrame(
        {
            "dataset": ["a", "a", "b", "b"],
            "method": ["m1", "m2", "m1", "m1"],
            "metric": ["acc", "acc", "acc", "nmi"],
            "note": ["ours 1", "", "", ""],
        }
    )
    notes = pd.DataFrame(
        {
            "dataset": ["a", "a", "*", "b"],
            "method": ["m1", "*", "m1", "m1"],
            "metric": ["", "", "", "nmi"],
            "note": ["own", "dataset-wide", "method-wide", "nmi only"],
        }
    )
    out = reference.add_notes(table, notes)
    assert out["note"].tolist() == [
        "ours 1. dataset-wide. method-wide. own",
        "dataset-wide",
        "method-wide",
        "method-wide. nmi only",
    ]
    assert table["note"].tolist() == ["ours 1", "", "", ""]  # the input is not modified
    assert reference.add_notes(table.drop(columns="note"), None)["note"].eq("").all()
    with pytest.raises(ValueError, match="notes lack columns"):
        reference.add_notes(table, notes.drop(columns="method"))


def test_css_and_srsg_comparisons_carry_the_notes():
    from snakemake_cli import ROOT

    from ufsbench.clustering import compare_with_paper
    from ufsbench.css import table as css_table

    folder = ROOT / "resources" / "reference"
    pocss = reference.load_reference(folder / "pocss_table1.tsv")
    summary = pd.DataFrame(
        {"dataset": "dna", "method": ["greedy_css", "pocss"], "k": 50,
         "mean": [1.30, 1.29], "std": [np.nan, 0.001], "n_runs": [1, 10]}
    )  # fmt: skip
    notes = reference.load_notes(ROOT / "measured" / "pocss" / "notes.tsv")
    comparison = css_table.paper_comparison(summary, pocss)
    for skipped in ({}, {"mediamill": "absent"}):
        kept = css_table.comparison_with_skipped(comparison, pocss, skipped, notes)
        dna = kept[kept["dataset"] == "dna"]
        assert len(dna) == 2 and dna["note"].str.contains("2000-row variant").all()
    assert kept.loc[kept["dataset"] == "mediamill", "note"].eq("not run: absent").all()

    srsg = reference.load_reference(folder / "srsg_paper.tsv")
    ran = pd.DataFrame(
        {"dataset": ["ionosphere"], "method": ["srsg"], "setting": ["default"],
         "protocol": ["fixed"], "acc_mean": [0.66], "acc_std": [0.0], "acc_seed0": [0.66],
         "nmi_max_mean": [0.1], "nmi_max_std": [0.0], "nmi_max_seed0": [0.1]}
    )  # fmt: skip
    srsg_notes = reference.load_notes(ROOT / "measured" / "srsg" / "notes.tsv")
    out = compare_with_paper(ran, srsg, {}, srsg_notes)
    mine = out[out["status"] == "run"]
    assert len(mine) == 2 and mine["note"].str.contains("hard-threshold").all()
    others = out[(out["status"] == "not run") & (out["method"] == "sc")]
    assert others["note"].eq("not in this run's clustering datasets or methods").all()


# -- random_controls ------------------------------------------------------------------


def test_random_controls_use_as_many_draws_as_the_grid():
    rows = []
    # Three random draws with known per-count means; method m1 has 2 grid settings,
    # m2 has 5 (more than the draws available: capped at 3).
    draws = [{1: 0.5, 2: 0.9}, {1: 0.8, 2: 0.4}, {1: 0.95, 2: 0.1}]
    for seed, values in enumerate(draws):
        rows += score_rows("d", "random", f"seed={seed}", values)
    for i in range(2):
        rows += score_rows("d", "m1", f"a={i}", {1: 0.1, 2: 0.1}, is_default=i == 0)
    for i in range(5):
        rows += score_rows("d", "m2", f"a={i}", {1: 0.1, 2: 0.1}, is_default=i == 0)
    rows += score_rows("d", "allfea", "default", {1: 0.3, 2: 0.3})
    controls = reference.random_controls(scores_frame(rows))
    acc = controls[controls["metric"] == "acc"].set_index("method")
    assert set(acc.index) == {"m1", "m2"}
    # Brute force: per count the best of the first N draws, averaged over the counts.
    assert acc.loc["m1", "random_draws"] == 2
    assert acc.loc["m1", "random_control"] == pytest.approx(100 * (0.8 + 0.9) / 2)
    assert acc.loc["m2", "random_draws"] == 3
    assert acc.loc["m2", "random_control"] == pytest.approx(100 * (0.95 + 0.9) / 2)


def test_random_controls_reject_other_settings():
    rows = score_rows("d", "random", "t=1", {1: 0.5, 2: 0.5}) + score_rows(
        "d", "m1", "a=1", {1: 0.5, 2: 0.5}
    )
    with pytest.raises(ValueError, match="expected seed"):
        reference.random_controls(scores_frame(rows))


# -- vs_paper -------------------------------------------------------------------------


def ours_summary():
    rows = [
        ("wine", "allfea", "oracle", "acc", 66.0, np.nan),
        ("wine", "allfea", "default", "acc", 66.0, np.nan),
        ("wine", "m1", "oracle", "acc", 78.0, 2.0),
        ("wine", "m1", "default", "acc", 70.0, 2.0),
        ("wine", "m1", "oracle", "nmi_sqrt", 61.0, 1.0),
        ("wine", "m1", "oracle", "nmi_max", 55.0, 1.0),
        ("wine", "m2", "oracle", "acc", 72.5, 3.0),
    ]
    return pd.DataFrame(rows, columns=["dataset", "method", "protocol", "metric", "mean", "std"])


def test_vs_paper_sets_ours_beside_the_paper(tmp_path):
    ref = reference.load_reference(write(tmp_path, REF))
    controls = pd.DataFrame(
        [("wine", "m1", "acc", 79.0, 2), ("wine", "m1", "nmi_sqrt", 50.0, 2)],
        columns=["dataset", "method", "metric", "random_control", "random_draws"],
    )
    notes = pd.DataFrame([("wine", "m1", "why it differs")], columns=["dataset", "method", "note"])
    out = reference.vs_paper(
        ref, ours_summary(), metric_map={"nmi": "nmi_sqrt"}, controls=controls, notes=notes
    )
    assert list(out.columns) == list(reference.VS_PAPER_COLUMNS)
    assert len(out) == len(ref)  # every reference cell, in order
    cell = out[(out["method"] == "m1") & (out["metric"] == "acc")].iloc[0]
    assert (cell["ours"], cell["paper"], cell["diff"]) == (78.0, 80.0, -2.0)
    assert (cell["default"], cell["default_diff"]) == (70.0, -10.0)
    assert (cell["random_control"], cell["ours_minus_random"]) == (79.0, -1.0)
    assert cell["paper_minus_random"] == 1.0
    assert cell["note"].endswith("why it differs")
    nmi = out[out["metric"] == "nmi"].iloc[0]
    assert nmi["our_metric"] == "nmi_sqrt" and nmi["ours"] == 61.0  # not nmi_max's 55
    missing = out[out["dataset"] == "zoo"].iloc[0]
    assert np.isnan(missing["ours"]) and missing["note"] == "not run"


def test_vs_paper_matches_extra_keys(tmp_path):
    text = (
        "dataset\tmethod\tmetric\tn_train\tn_features\tmean\tstd\n"
        "u\tl\tacc\t100\t5\t90.0\t4.0\nu\tl\tacc\t200\t5\t92.0\t1.0\n"
    )
    ref = reference.load_reference(write(tmp_path, text))
    ours = pd.DataFrame(
        [("u", "l", "acc", 200, 5, 91.0, 0.5), ("u", "l", "acc", 100, 5, 88.5, 2.0)],
        columns=["dataset", "method", "metric", "n_train", "n_features", "mean", "std"],
    )
    out = reference.vs_paper(ref, ours)
    assert out["diff"].tolist() == [-1.5, -1.0]
    assert {"n_train", "n_features"} <= set(out.columns)
    with pytest.raises(ValueError, match="key columns"):
        reference.vs_paper(ref, ours.drop(columns="n_train"))


def test_vs_paper_rows_choose_the_cells(tmp_path):
    ref = reference.load_reference(write(tmp_path, REF))
    ours = pd.DataFrame(
        [("wine", "m9", "acc", 10.0), ("wine", "m2", "acc", 71.0), ("wine", "m1", "acc", 79.0)],
        columns=["dataset", "method", "metric", "mean"],
    )
    both = reference.vs_paper(ref, ours, rows="both")
    assert both["method"].tolist() == ["m1", "m2"]  # the reference's order
    assert both["diff"].tolist() == pytest.approx([-1.0, 1.0])
    mine = reference.vs_paper(ref, ours, rows="ours")
    assert mine["method"].tolist() == ["m9", "m2", "m1"]  # our order, m9 has no paper value
    assert np.isnan(mine.loc[0, "paper"]) and mine.loc[0, "metric"] == "acc"
    assert mine.loc[0, "note"] == "no paper value"
    assert len(reference.vs_paper(ref, ours)) == len(ref)
    with pytest.raises(ValueError, match="rows must be"):
        reference.vs_paper(ref, ours, rows="all")


def test_vs_paper_companions_carried_columns_and_a_shared_control(tmp_path):
    ref = reference.load_reference(write(tmp_path, REF))
    ours = pd.DataFrame(
        [
            ("wine", "m1", "acc", "oracle", 78.0, 2.0, 30, np.nan),
            ("wine", "m1", "acc", "default", 70.0, 1.0, 40, np.nan),
            ("wine", "m1", "acc", "reseed", 75.0, 3.0, np.nan, 5),
            ("wine", "m2", "acc", "oracle", 72.5, 3.0, 20, np.nan),
        ],
        columns=["dataset", "method", "metric", "protocol", "mean", "std", "n_features", "n"],
    )
    controls = pd.DataFrame({"dataset": ["wine"], "metric": ["acc"], "random_control": [75.0]})
    out = reference.vs_paper(
        ref,
        ours,
        rows="both",
        companions=("default", "reseed"),
        carry=("n_features", "n"),
        controls=controls,
        columns=None,
        describe=lambda row: f"{row['method']}: {row['reseed_diff']:+.1f}",
    ).set_index("method")
    assert out.loc["m1", "n_features"] == 30 and out.loc["m1", "default_n_features"] == 40
    assert (out.loc["m1", "reseed"], out.loc["m1", "reseed_std"]) == (75.0, 3.0)
    assert (out.loc["m1", "reseed_n"], out.loc["m1", "reseed_diff"]) == (5, -5.0)
    assert out.loc["m1", "default_diff"] == -10.0 and np.isnan(out.loc["m2", "default"])
    # A control without a method column serves every method of its dataset and metric.
    assert out["random_control"].tolist() == [75.0, 75.0]
    assert np.isnan(out.loc["m1", "random_draws"])
    assert out.loc["m1", "note"] == "m1: -5.0"
    with pytest.raises(ValueError, match="carried columns"):
        reference.vs_paper(ref, ours, carry=("table",))


def test_fidelity_summary_flags_the_targets(tmp_path):
    table = pd.DataFrame(
        {
            "table": ["t"] * 4,
            "method": ["a", "a", "b", "b"],
            "metric": ["acc"] * 4,
            "ours": [1.0, 2.0, 1.0, np.nan],
            "diff": [1.0, -1.5, 4.0, np.nan],
        }
    )
    out = reference.fidelity_summary(table).set_index("method")
    assert out.loc["a", "mean_diff"] == pytest.approx(-0.25)
    assert bool(out.loc["a", "within_target"]) is True
    assert bool(out.loc["b", "within_target"]) is False  # one cell beyond 3.5
    assert out.loc["b", "missing"] == 1


# -- paper tables ---------------------------------------------------------------------


def test_paper_table_t_tests_against_the_best():
    rng = np.random.default_rng(0)
    counts = [1, 2, 3, 4, 5]
    series = {"best": 80 + rng.normal(0, 1, 5), "close": 79.5 + rng.normal(0, 1, 5)}
    series["far"] = series["best"] - 10 + rng.normal(0, 0.1, 5)
    rows = [
        ("d", m, "oracle", "acc", c, v, "x")
        for m, vals in series.items()
        for c, v in zip(counts, vals, strict=True)
    ]
    rows.append(("d", "allfea", "oracle", "acc", 9, 50.0, "default"))
    curves = pd.DataFrame(rows, columns=list(CURVE_COLUMNS))
    table = papertables.paper_table(curves, "acc", methods=["allfea", "far", "close", "best"])
    body = table[table["dataset"] == "d"].set_index("method")
    assert list(body.index) == ["allfea", "far", "close", "best"]
    assert body.loc["best", "p"] == 1.0 and bool(body.loc["best", "bold"])
    expected = stats.ttest_rel(series["far"], series["best"]).pvalue
    assert body.loc["far", "p"] == pytest.approx(expected)
    assert not body.loc["far", "bold"]
    assert body.loc["close", "p"] == pytest.approx(
        stats.ttest_rel(series["close"], series["best"]).pvalue
    )
    assert body.loc["best", "std"] == pytest.approx(np.std(series["best"], ddof=1))
    assert np.isnan(body.loc["allfea", "p"]) and not body.loc["allfea", "bold"]
    average = table[table["dataset"] == "Average"].set_index("method")
    assert bool(average.loc["best", "bold"]) and not average.loc["far", "bold"]
    markdown = papertables.render_markdown(table, "t", labels={"best": "Best"})
    assert "| Best |" in markdown and "**" in markdown and "(p=1.00)" in markdown
    latex = papertables.render_latex(table, "t")
    assert r"\textbf{" in latex and latex.count(r"\midrule") == 2


def test_paper_table_errors():
    curves = pd.DataFrame(columns=list(CURVE_COLUMNS))
    with pytest.raises(ValueError, match="no curves"):
        papertables.paper_table(curves, "acc")


# -- figure data ----------------------------------------------------------------------


def grid_scores():
    rows = []
    for a, b in itertools.product([1.0, 10.0], [0.5, 2.0]):
        value = {1: 0.5 + 0.1 * (a == 10.0) + 0.05 * (b == 2.0), 2: 0.4}
        rows += score_rows("d", "m", f"a={a:g},b={b:g}", value, is_default=(a, b) == (1.0, 0.5))
    return scores_frame(rows)


def test_parse_setting_and_best_average():
    assert reference.parse_setting("a=1e-05,s=paper") == {"a": 1e-05, "s": "paper"}
    assert reference.parse_setting("default") == {}
    scores = grid_scores()
    assert paperfigures.best_average_setting(scores, "d", "m") == "a=10,b=2"


def test_sensitivity_holds_the_other_parameters_at_their_best():
    table = paperfigures.sensitivity(grid_scores(), "d", "m", "a")
    assert table.index.tolist() == [1.0, 10.0] and table.columns.tolist() == [1, 2]
    # b is held at 2 (the best-average setting's value).
    assert table.loc[1.0, 1] == pytest.approx(55.0) and table.loc[10.0, 1] == pytest.approx(65.0)
    with pytest.raises(ValueError, match="no parameter"):
        paperfigures.sensitivity(grid_scores(), "d", "m", "zeta")


def test_monotone_share():
    assert paperfigures.monotone_share(pd.Series([3.0, 2.0, 2.0, 1.0])) == 1.0
    assert paperfigures.monotone_share(pd.Series([3.0, 4.0, 2.0])) == 0.5


# -- heat-kernel width convention ----------------------------------------------------


def test_fsasl_width_uses_sigma0_squared():
    X = np.random.default_rng(1).normal(size=(30, 4))
    neighbours, distances = nearest_neighbours(X, 3)
    scale = 1.7
    fsasl = affinity(neighbours, distances, weight="heat", t=0.5, scale=scale, width="fsasl")
    plain = affinity(neighbours, distances, weight="heat", t=0.5 * scale, scale=scale)
    np.testing.assert_allclose(fsasl.toarray(), plain.toarray())
    with pytest.raises(ValueError, match="unknown width"):
        affinity(neighbours, distances, weight="heat", t=1.0, scale=scale, width="x")


# -- cross-validation -----------------------------------------------------------------


def test_split_is_seeded_and_disjoint():
    train, test = crossval.split(20, 7, seed=3)
    again, _ = crossval.split(20, 7, seed=3)
    assert np.array_equal(train, again) and len(train) == 7 and len(test) == 13
    assert not set(train) & set(test) and set(train) | set(test) == set(range(20))
    with pytest.raises(ValueError, match="training size"):
        crossval.split(10, 9, seed=0)


def test_cross_validate_picks_the_best_training_setting(planted_data):
    X, y = planted_data[:2]
    settings = [
        {"id": "t=0.5", "hyper": {}, "graph": {"weight": "heat", "t": 0.5, "sigma0": "median"}},
        {"id": "t=2", "hyper": {}, "graph": {"weight": "heat", "t": 2.0, "sigma0": "median"}},
    ]
    kwargs = dict(
        n_train=len(X) // 2,
        draws=2,
        feature_counts=[2, 4],
        n_clusters=len(np.unique(y)),
        k=5,
        repeats=3,
        seed_key=("planted",),
    )
    out = crossval.cross_validate(X, y, "lapscore", settings, **kwargs)
    assert list(out.columns) == list(crossval.RESULT_COLUMNS)
    assert len(out) == 2 * 2 and set(out["params"]) <= {"t=0.5", "t=2"}
    assert (
        out[[c for c in out.columns if c.startswith(("train_", "test_"))]]
        .stack()
        .between(0, 1)
        .all()
    )
    pd.testing.assert_frame_equal(
        out, crossval.cross_validate(X, y, "lapscore", settings, **kwargs)
    )
    # Brute force: each setting alone (its seeds derive from its id, so its scores are the
    # same); per draw and count the chosen one has the best training ACC, first on ties,
    # and its reported scores are that setting's own.
    alone = {
        s["id"]: crossval.cross_validate(X, y, "lapscore", [s], **kwargs).set_index(
            ["draw", "n_features"]
        )
        for s in settings
    }
    assert len({tuple(a["train_acc"]) for a in alone.values()}) == 2  # the choice matters
    for row in out.itertuples(index=False):
        key = (row.draw, row.n_features)
        train = [alone[s["id"]].loc[key, "train_acc"] for s in settings]
        assert row.params == settings[int(np.argmax(train))]["id"]
        own = alone[row.params].loc[key]
        assert row.train_acc == own["train_acc"] and row.test_acc == own["test_acc"]
    summary = crossval.summarize(out, dataset="p", method="lapscore")
    assert len(summary) == 2 * 3 * 2  # split x metric x feature count
    assert (summary["draws"] == 2).all()
    markdown = crossval.render_markdown(summary, "acc")
    assert "| Average |" in markdown
    with pytest.raises(ValueError, match="select_by"):
        crossval.cross_validate(X, y, "lapscore", settings, select_by="f1", **kwargs)


def test_cross_validate_clusters_a_repeated_subset_once(planted_data, monkeypatch):
    """Settings that rank alike (here: the same weights under two ids) share the k-means
    runs of each draw, with the scores the setting alone gets."""
    from ufsbench import evaluate

    X, y = planted_data[:2]
    graph = {"weight": "heat", "t": 1.0, "sigma0": "median"}
    twins = [{"id": name, "hyper": {}, "graph": graph} for name in ("a", "b")]
    kwargs = dict(n_train=len(X) // 2, draws=2, feature_counts=[2, 4],
                  n_clusters=len(np.unique(y)), k=5, repeats=3, seed_key=("planted",))  # fmt: skip
    runs = []
    original = evaluate.cluster

    def counting(*args, **options):
        runs.append(options["random_state"])
        return original(*args, **options)

    monkeypatch.setattr(evaluate, "cluster", counting)
    alone = crossval.cross_validate(X, y, "lapscore", twins[:1], **kwargs)
    runs_alone = len(runs)
    both = crossval.cross_validate(X, y, "lapscore", twins, **kwargs)
    assert len(runs) - runs_alone == runs_alone == 2 * (2 * 3 + 2 * 3)  # draws x (train + test)
    assert list(both["params"]) == ["a"] * len(both)  # a tie: the first listed wins
    pd.testing.assert_frame_equal(both, alone)


def test_draws_run_apart_merge_to_the_one_pass_table_byte_for_byte(planted_data, tmp_path):
    """The workflow runs a job per draw and concatenates their tables: the size's table
    is the one a single pass over the draws writes."""
    from ufsbench.io import write_table

    X, y = planted_data[:2]
    settings = [
        {"id": f"t={t}", "hyper": {}, "graph": {"weight": "heat", "t": t, "sigma0": "median"}}
        for t in (0.5, 2.0)
    ]
    subsets = {"all": ["t=0.5", "t=2.0"], "first": ["t=0.5"]}
    kwargs = dict(n_train=len(X) // 2, feature_counts=[2, 4], n_clusters=len(np.unique(y)),
                  k=5, repeats=2, seed_key=("planted",))  # fmt: skip
    one_pass = crossval.cross_validate_subsets(X, y, "lapscore", settings, subsets, draws=3,
                                               **kwargs)  # fmt: skip
    for name, table in one_pass.items():
        write_table(tmp_path / f"{name}.tsv", table)
        parts = []
        for draw in range(3):
            alone = crossval.cross_validate_subsets(
                X, y, "lapscore", settings, subsets, draws=[draw], **kwargs
            )[name]
            parts.append(tmp_path / f"{name}-d{draw}.tsv")
            write_table(parts[-1], alone)
        crossval.merge_draw_tables(parts, tmp_path / f"{name}-merged.tsv")
        merged = (tmp_path / f"{name}-merged.tsv").read_bytes()
        assert merged == (tmp_path / f"{name}.tsv").read_bytes()
    other = tmp_path / "other.tsv"
    other.write_text("draw\tacc\n0\t0.5\n")
    with pytest.raises(ValueError, match="columns differ"):
        crossval.merge_draw_tables([parts[0], other], tmp_path / "x.tsv")
    with pytest.raises(ValueError, match="no draw tables"):
        crossval.merge_draw_tables([], tmp_path / "x.tsv")


def test_cross_validate_subsets_equal_each_subset_run_alone(planted_data):
    """One pass over the union serves several selections: each table is exactly the one a
    run over that subset alone gives (same splits, seeds, choices and ties)."""
    X, y = planted_data[:2]
    settings = [
        {"id": f"t={t:g}", "hyper": {}, "graph": {"weight": "heat", "t": t, "sigma0": "median"}}
        for t in (0.25, 0.5, 2.0, 8.0)
    ]
    kwargs = dict(
        n_train=len(X) // 2,
        draws=2,
        feature_counts=[1, 2, 4],
        n_clusters=len(np.unique(y)),
        k=5,
        repeats=2,
        seed_key=("planted",),
    )
    subsets = {"all": ["t=0.25", "t=0.5", "t=2", "t=8"], "some": ["t=8", "t=0.5"]}
    together = crossval.cross_validate_subsets(X, y, "lapscore", settings, subsets, **kwargs)
    by_id = {s["id"]: s for s in settings}
    for name, ids in subsets.items():
        alone = crossval.cross_validate(X, y, "lapscore", [by_id[i] for i in ids], **kwargs)
        pd.testing.assert_frame_equal(together[name], alone, check_exact=True)
    assert set(together["some"]["params"]) <= {"t=8", "t=0.5"}
    with pytest.raises(ValueError, match="subset 'bad'.*t=3"):
        crossval.cross_validate_subsets(X, y, "lapscore", settings, {"bad": ["t=3"]}, **kwargs)


def test_summary_roundtrip_through_aggregate():
    """The reference module's oracle is the aggregate module's (no second implementation)."""
    rows = score_rows("d", "random", "seed=0", {1: 0.5, 2: 0.6})
    scores = scores_frame(rows)
    table = protocol_summary(protocol_curves(scores, protocols=("oracle",)))
    assert table[table["metric"] == "acc"]["mean"].iloc[0] == pytest.approx(55.0)


def test_readings_table_runs_the_oracle_within_each_reading():
    rows = []
    for split, base in (("paper", 0.5), ("elementwise", 0.7)):
        for lam in (1.0, 10.0):
            values = {1: base + 0.1 * (lam == 10.0), 2: base}
            rows += score_rows("d", "m", f"lam={lam:g},split={split}", values)
    scores = scores_frame(rows)
    out = reference.readings_table(scores, "m", ["split"], defaults={"split": "paper"})
    acc = out[out["metric"] == "acc"].set_index("reading")
    assert acc.loc["spec default", "mean"] == pytest.approx(100 * (0.6 + 0.5) / 2)
    assert acc.loc["split=elementwise", "diff"] == pytest.approx(20.0)
    assert (acc["settings"] == 2).all()
    with pytest.raises(ValueError, match="lack options"):
        reference.readings_table(scores, "m", ["scale"])


def test_ecoli343_is_ecoli_plus_a_sample_onehot(mirror):
    from snakemake_cli import ROOT

    from ufsbench.data import load_dataset
    from ufsbench.datasets import load_registry

    registry = load_registry(ROOT / "config" / "datasets.yaml")
    base = load_dataset(registry["ecoli"], mirror / "ecoli.mat")
    wide = load_dataset(registry["ecoli343"], mirror / "ecoli.mat")
    X7, X343 = base[0], wide[0]
    assert X343.shape == (336, 343)
    np.testing.assert_array_equal(X343[:, :7], X7)
    np.testing.assert_array_equal(X343[:, 7:], np.eye(336))
    np.testing.assert_array_equal(wide[1], base[1])
