"""Oracle and default protocols, grid summaries, rendered tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufsbench.aggregate import (
    curves,
    render_latex,
    render_markdown,
    render_summary_markdown,
    summary,
)
from ufsbench.stats import paired_ttests


def make_scores(rows):
    """rows: (dataset, method, params, in_grid, is_default, m, [acc per repeat])."""
    records = []
    for dataset, method, params, in_grid, is_default, m, accs in rows:
        for repeat, acc in enumerate(accs):
            records.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "params": params,
                    "in_grid": in_grid,
                    "is_default": is_default,
                    "n_features": m,
                    "repeat": repeat,
                    "acc": acc,
                    "nmi_max": acc / 2,
                    "nmi_sqrt": 1 - acc,
                    "select_seconds": 0.1,
                }
            )
    return pd.DataFrame(records)


@pytest.fixture
def scores():
    return make_scores(
        [
            # ndfs: a=1 best at m=5, a=2 best at m=10; a=9 is off-grid and best everywhere.
            ("wine", "ndfs", "a=1", True, True, 5, [0.6, 0.8]),
            ("wine", "ndfs", "a=1", True, True, 10, [0.5, 0.5]),
            ("wine", "ndfs", "a=2", True, False, 5, [0.6, 0.6]),
            ("wine", "ndfs", "a=2", True, False, 10, [0.7, 0.9]),
            ("wine", "ndfs", "a=9", False, False, 5, [0.99, 0.99]),
            ("wine", "ndfs", "a=9", False, False, 10, [0.99, 0.99]),
            ("wine", "allfea", "-", True, True, 13, [0.5, 0.7]),
            ("zoo", "allfea", "-", True, True, 16, [0.4, 0.4]),
            ("zoo", "ndfs", "a=1", True, True, 5, [0.3, 0.5]),
            ("zoo", "ndfs", "a=1", True, True, 10, [0.2, 0.2]),
        ]
    )


def pick(frame, **where):
    mask = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        mask &= frame[column].to_numpy() == value
    return frame[mask]


def test_curves_columns_and_order(scores):
    out = curves(scores)
    assert list(out.columns) == [
        "dataset", "method", "protocol", "metric", "n_features", "value", "params",
    ]  # fmt: skip
    assert list(pd.unique(out["dataset"])) == ["wine", "zoo"]
    assert list(pd.unique(pick(out, dataset="wine")["method"])) == ["ndfs", "allfea"]
    # One method order for every dataset (first appearance overall, not alphabetical),
    # although zoo lists allfea first: table columns stay consistent.
    assert list(pd.unique(pick(out, dataset="zoo")["method"])) == ["ndfs", "allfea"]
    assert list(pd.unique(out["protocol"])) == ["oracle", "default"]
    assert list(pd.unique(out["metric"])) == ["acc", "nmi_max", "nmi_sqrt"]


def test_oracle_picks_best_in_grid_setting_per_count(scores):
    out = pick(curves(scores), dataset="wine", method="ndfs", protocol="oracle", metric="acc")
    assert out["n_features"].tolist() == [5, 10]
    assert out["params"].tolist() == ["a=1", "a=2"]  # never the off-grid a=9
    np.testing.assert_allclose(out["value"], [70.0, 80.0])


def test_oracle_chooses_per_metric(scores):
    # nmi_sqrt = 1 - acc, so its oracle picks the opposite settings.
    out = pick(curves(scores), dataset="wine", method="ndfs", protocol="oracle", metric="nmi_sqrt")
    assert out["params"].tolist() == ["a=2", "a=1"]
    np.testing.assert_allclose(out["value"], [40.0, 50.0])


def test_default_picks_the_default_setting(scores):
    out = pick(curves(scores), dataset="wine", method="ndfs", protocol="default", metric="acc")
    assert out["params"].tolist() == ["a=1", "a=1"]
    np.testing.assert_allclose(out["value"], [70.0, 50.0])


def test_curves_single_protocol(scores):
    out = curves(scores, protocols=("default",))
    assert set(out["protocol"]) == {"default"}


def test_curves_rejects_unknown_protocol(scores):
    with pytest.raises(
        ValueError, match="unknown protocol 'best' \\(known: 'oracle', 'default'\\)"
    ):
        curves(scores, protocols=("best",))


def test_curves_rejects_missing_default(scores):
    scores = scores.copy()
    scores.loc[scores["method"] == "ndfs", "is_default"] = False
    with pytest.raises(ValueError, match="method 'ndfs' on dataset 'wine' has 0 is_default"):
        curves(scores)


def test_curves_rejects_missing_grid(scores):
    scores = scores.copy()
    scores.loc[scores["dataset"] == "zoo", "in_grid"] = False
    with pytest.raises(ValueError, match="method 'allfea' on dataset 'zoo' has no in_grid"):
        curves(scores, protocols=("oracle",))


def test_curves_rejects_missing_columns(scores):
    with pytest.raises(ValueError, match="missing columns in_grid"):
        curves(scores.drop(columns=["in_grid"]))


def test_summary_mean_and_std_by_hand(scores):
    out = summary(curves(scores))
    row = pick(out, dataset="wine", method="ndfs", protocol="oracle", metric="acc").iloc[0]
    # Oracle curve: 70, 80 -> mean 75, std sqrt(((70-75)^2 + (80-75)^2) / 1) = sqrt(50).
    assert row["mean"] == pytest.approx(75.0)
    assert row["std"] == pytest.approx(np.sqrt(50.0))
    assert row["n_counts"] == 2
    allfea = pick(out, dataset="wine", method="allfea", protocol="oracle", metric="acc").iloc[0]
    assert allfea["mean"] == pytest.approx(60.0)
    assert np.isnan(allfea["std"]) and allfea["n_counts"] == 1


def test_render_markdown_bolds_the_t_tests_best_per_row(scores):
    """Bold is the best of the methods the t-tests compare: AllFea never (issue 26)."""
    text = render_markdown(summary(curves(scores)), metric="acc")
    assert "| dataset | ndfs | allfea |" in text
    # wine oracle: ndfs 75.00 ± 7.07 beats allfea 60.00.
    assert "| wine | **75.00 ± 7.07** | 60.00 |" in text
    # zoo oracle: allfea's 40.00 is larger, but allfea is not compared: ndfs is the best.
    assert "| zoo | **30.00 ± 14.14** | 40.00 |" in text
    assert "| wine | **60.00 ± 14.14** | 60.00 |" in text
    assert "acc, oracle protocol" in text and "acc, default protocol" in text
    tests = paired_ttests(curves(scores))
    assert set(tests["best_method"]) == {"ndfs"}


def test_summary_markdown_explains_the_spread_and_shows_every_metric(scores):
    text = render_summary_markdown(summary(curves(scores)), repeats=2)
    assert "mean ± std over the feature-count grid" in text and "2 k-means runs" in text
    assert "allfea is not compared" in text
    for title in ("## ACC", "## NMI, MI / max(H(Y), H(C))", "## NMI, MI / sqrt(H(Y) H(C))"):
        assert title in text
    assert text.count("oracle protocol") == 3


def test_render_latex_bolds_best_per_row(scores):
    text = render_latex(summary(curves(scores)), metric="acc")
    assert r"\textbf{75.00 $\pm$ 7.07} & 60.00 \\" in text
    assert text.count(r"\begin{tabular}") == 2
    assert r"Dataset & ndfs & allfea \\" in text


def test_render_latex_escapes_names():
    frame = pd.DataFrame(
        {
            "dataset": ["tox_171"],
            "method": ["l1_ufs"],
            "protocol": ["oracle"],
            "metric": ["acc"],
            "mean": [50.0],
            "std": [1.0],
            "n_counts": [2],
        }
    )
    text = render_latex(frame, metric="acc")
    assert r"tox\_171 & \textbf{50.00 $\pm$ 1.00}" in text
    assert r"l1\_ufs" in text


def test_render_rejects_unknown_metric(scores):
    with pytest.raises(ValueError, match="unknown metric 'f1'"):
        render_markdown(summary(curves(scores)), metric="f1")


def test_repeat_spread_is_the_std_of_the_chosen_settings_repeats(scores):
    from ufsbench.aggregate import repeat_spread

    table = repeat_spread(curves(scores), scores)
    oracle = pick(table, dataset="wine", method="ndfs", protocol="oracle", metric="acc")
    # m=5: a=1 (0.6, 0.8) is chosen; m=10: a=2 (0.7, 0.9); std of two values = |a-b|/sqrt 2
    assert np.allclose(oracle.sort_values("n_features")["std"], [20 / np.sqrt(2)] * 2)
    zoo = pick(table, dataset="zoo", method="allfea", protocol="oracle", metric="acc")
    assert np.allclose(zoo["std"], 0.0)
    assert len(table) == len(curves(scores))


def test_curves_figure_has_a_row_per_method_with_repeat_bands(scores):
    """See issue 26, item 8: small multiples with error bands, AllFea as a reference."""
    from ufsbench.aggregate import repeat_spread
    from ufsbench.plots import plot_curves, plt

    fig = plot_curves(repeat_spread(curves(scores), scores), "wine")
    axes = fig.axes
    assert len(axes) == 1 * 4  # ndfs only (allfea is the dashed line), 2 protocols x 2 metrics
    assert all(len(ax.collections) == 1 for ax in axes)  # the band
    assert axes[0].get_ylabel() == "ndfs"
    plt.close(fig)


def test_convergence_figure_labels_settings_and_counts_whole_iterations():
    from ufsbench.plots import plot_convergence, plt

    traces = pd.DataFrame(
        [
            {"dataset": "d", "method": "ndfs", "params": p, "is_default": p == "a=1",
             "iteration": i, "objective": 10.0 / i + k}
            for k, p in enumerate(["a=1", "a=2"])
            for i in range(1, 4)
        ]
    )  # fmt: skip
    fig = plot_convergence(traces, "d")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["default: a=1", "a=2"]  # only the parameters that differ
    fig.canvas.draw()
    assert all(float(t).is_integer() for t in ax.get_xticks())
    plt.close(fig)
