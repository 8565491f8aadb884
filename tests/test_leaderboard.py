"""The generic leaderboard over datasets (ufsbench.leaderboard; issue #28 item 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufsbench.leaderboard import markdown, ranking


def summary(scores: dict[str, dict[str, float]], protocol="oracle", metric="acc"):
    """A summary.tsv frame from {dataset: {method: mean}}."""
    rows = [
        {"dataset": d, "method": m, "protocol": protocol, "metric": metric, "mean": v}
        for d, methods in scores.items()
        for m, v in methods.items()
    ]
    return pd.DataFrame(rows)


def test_ranks_friedman_and_every_dataset_score():
    scores = {
        f"d{i}": {"allfea": 99.0, "best": 90.0 + i, "mid": 80.0 + i, "random": 70.0 + i}
        for i in range(6)
    }
    table, result = ranking(summary(scores), "oracle", "acc")
    assert table["method"].tolist() == ["best", "mid", "random"]  # allfea is left out
    assert table["rank"].tolist() == [1.0, 2.0, 3.0]
    assert table["mean_score"].tolist() == pytest.approx([92.5, 82.5, 72.5])
    assert table["d3"].tolist() == [93.0, 83.0, 73.0]
    # every dataset orders them the same way: chi2 = N (k - 1) = 12
    assert result["chi2"] == pytest.approx(12.0)
    assert (table["p_value"] < 0.01).all() and (table["n_datasets"] == 6).all()
    text = markdown([table])
    assert "## acc, oracle protocol" in text and "| 1 | best | 1.00 | 92.50 |" in text


def test_a_method_missing_a_dataset_is_left_out_and_one_dataset_has_no_test():
    scores = {"a": {"x": 1.0, "y": 2.0, "z": 3.0}, "b": {"x": 1.0, "y": 2.0}}
    table, result = ranking(summary(scores), "oracle", "acc")
    assert sorted(table["method"]) == ["x", "y"]
    one, none = ranking(summary({"a": {"x": 1.0, "y": 2.0}}), "oracle", "acc")
    assert none is None and np.isnan(one["rank"]).all() and np.isnan(one["cd"]).all()
    assert "| 1 | x |" in markdown([one])
