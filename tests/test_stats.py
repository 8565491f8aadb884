"""Holm correction and paired t-tests against the best method."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ufsbench.stats import holm, paired_ttests


def test_holm_hand_example():
    # Sorted: 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> monotone 0.06.
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])


def test_holm_caps_at_one_and_keeps_nan():
    # NaN is not counted: k = 2. 0.6*2 = 1.2 -> 1.0; 0.7*1 = 0.7 -> monotone 1.0.
    np.testing.assert_allclose(holm([0.7, 0.6, np.nan]), [1.0, 1.0, np.nan])
    np.testing.assert_allclose(holm([0.5, 0.2, np.nan]), [0.5, 0.4, np.nan])
    assert holm([]).shape == (0,)


def make_curves(values, dataset="wine", protocol="oracle", metric="acc", counts=None):
    records = []
    for method, series in values.items():
        grid = counts or range(5, 5 * len(series) + 1, 5)
        for m, value in zip(grid, series, strict=True):
            records.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "protocol": protocol,
                    "metric": metric,
                    "n_features": m,
                    "value": value,
                    "params": "-",
                }
            )
    return pd.DataFrame(records)


@pytest.fixture
def values():
    return {
        "allfea": [99.0, 99.0, 99.0, 99.0],  # excluded, although the highest
        "lapscore": [60.0, 62.0, 61.0, 65.0],
        "ndfs": [70.0, 71.0, 75.0, 74.0],
        "mcfs": [69.0, 72.0, 73.0, 74.5],
    }


def test_paired_ttests_against_scipy(values):
    out = paired_ttests(make_curves(values)).set_index("method")
    assert list(out.index) == ["lapscore", "ndfs", "mcfs"]
    assert set(out["best_method"]) == {"ndfs"}
    for method in ("lapscore", "mcfs"):
        expected = stats.ttest_rel(values[method], values["ndfs"])
        assert out.loc[method, "statistic"] == pytest.approx(expected.statistic)
        assert out.loc[method, "p_value"] == pytest.approx(expected.pvalue)
        assert out.loc[method, "mean"] == pytest.approx(np.mean(values[method]))
    p = [out.loc["lapscore", "p_value"], out.loc["mcfs", "p_value"]]
    np.testing.assert_allclose(out.loc[["lapscore", "mcfs"], "p_holm"], holm(p))
    assert out.loc["ndfs", "p_value"] == 1.0 and out.loc["ndfs", "p_holm"] == 1.0
    assert out.loc["ndfs", "not_worse"]
    assert not out.loc["lapscore", "not_worse"]  # clearly worse
    assert out.loc["mcfs", "not_worse"]  # close to the best


def test_paired_ttests_hand_example():
    # Differences -1, -1, -2, -2: mean -1.5, sd sqrt(1/3), t = -1.5 / (sqrt(1/3) / 2).
    out = paired_ttests(make_curves({"a": [5.0, 6.0, 7.0, 8.0], "b": [4.0, 5.0, 5.0, 6.0]}))
    row = out.set_index("method").loc["b"]
    assert row["statistic"] == pytest.approx(-1.5 / (np.sqrt(1 / 3) / 2))
    assert row["p_value"] == pytest.approx(2 * stats.t.sf(abs(row["statistic"]), df=3))


def test_paired_ttests_identical_vectors_give_one():
    out = paired_ttests(make_curves({"a": [1.0, 2.0, 4.0], "b": [1.0, 2.0, 4.0]}))
    assert out["p_value"].tolist() == [1.0, 1.0]
    assert out["not_worse"].all()


def test_paired_ttests_use_common_counts_only():
    curves = pd.concat(
        [
            # The best method lacks m=20, the other one has it: only 5, 10, 15 pair up.
            make_curves({"a": [10.0, 11.0, 13.0]}, counts=[5, 10, 15]),
            make_curves({"b": [9.0, 9.5, 12.0, 1.0]}, counts=[5, 10, 15, 20]),
        ]
    )
    row = paired_ttests(curves).set_index("method").loc["b"]
    assert row["best_method"] == "a"
    expected = stats.ttest_rel([9.0, 9.5, 12.0], [10.0, 11.0, 13.0])
    assert row["p_value"] == pytest.approx(expected.pvalue)


def test_paired_ttests_families_are_separate():
    curves = pd.concat(
        [
            make_curves({"a": [1.0, 2.0, 3.0], "b": [3.0, 4.0, 4.0]}, metric="acc"),
            make_curves({"a": [5.0, 6.0, 7.0], "b": [3.0, 4.0, 4.0]}, metric="nmi_sqrt"),
        ]
    )
    out = paired_ttests(curves)
    assert out.groupby("metric")["best_method"].first().to_dict() == {"acc": "b", "nmi_sqrt": "a"}


def test_paired_ttests_exclude_is_case_insensitive(values):
    curves = make_curves({"AllFea": values["allfea"], "ndfs": values["ndfs"]})
    out = paired_ttests(curves)
    assert out["method"].tolist() == ["ndfs"]


def test_ttest_tables_are_written_to_four_significant_digits():
    """See issue 26, item 8: p-values were written with ~17 digits."""
    from ufsbench.stats import round_ttests, significant

    assert list(significant([0.000123456, 1.0, 123456.7, 0.0, np.inf, np.nan])[:5]) == [
        0.0001235,
        1.0,
        123500.0,
        0.0,
        np.inf,
    ]
    tests = pd.DataFrame(
        {"mean": [71.234567891], "statistic": [-2.7182818], "p_value": [0.0314159265],
         "p_holm": [0.0628318531], "not_worse": [True]}
    )  # fmt: skip
    rounded = round_ttests(tests)
    assert rounded.iloc[0].tolist() == [71.2346, -2.718, 0.03142, 0.06283, True]
