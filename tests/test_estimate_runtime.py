"""ufsbench.tools.estimate_runtime: costs per setting, scaled by measured speed-ups."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ufsbench.tools import estimate_runtime as er
from ufsbench.tools.estimate_runtime import estimate, factor, read_costs, read_speedups

COSTS = """dataset\tmethod\tstage\tcpu_s\twall_s
d1\tfast\tselect\t100\t150
d1\tfast\tevaluate\t40\t50
d1\tslow\tselect\t1000\t1200
d1\tslow\tevaluate\t200\t220
d1\tslow\tcrossval\t90\t95
d2\tslow\tcrossval\t77\t80
"""
SPEEDUPS = """dataset\tmethod\tstage\tfactor\tsource
*\tslow\tselect\t2\tbench
*\t*\tevaluate\t4\tkmeans
d1\t*\tevaluate\t5\tkmeans on d1
"""


@pytest.fixture
def tables(tmp_path):
    (tmp_path / "cost.tsv").write_text(COSTS)
    (tmp_path / "speedups.tsv").write_text(SPEEDUPS)
    return read_costs([tmp_path / "cost.tsv"]), read_speedups(tmp_path / "speedups.tsv")


def row(table, dataset, method, stage):
    part = table[(table.dataset == dataset) & (table.method == method) & (table.stage == stage)]
    assert len(part) == 1
    return part.iloc[0]


def test_cost_per_setting_scales_to_the_target_settings(tables):
    costs, _ = tables
    # measured: 10 settings of each; target: 30 of fast, 10 of slow, and a pair not measured
    measured = {("d1", "fast"): (10, 1), ("d1", "slow"): (10, 1)}
    target = {("d1", "fast"): (30, 3), ("d1", "slow"): (10, 1), ("d1", "new"): (5, 1)}
    table = estimate(costs, target, measured)
    assert row(table, "d1", "fast", "select").before_s == pytest.approx(300.0)
    assert row(table, "d1", "fast", "evaluate").before_s == pytest.approx(120.0)
    assert row(table, "d1", "slow", "select").after_s == pytest.approx(1000.0)  # no speed-up
    new = row(table, "d1", "new", "select")
    assert not new.measured and math.isnan(new.before_s)
    # crossval is carried over for the target's datasets only (d2 is not planned)
    assert row(table, "d1", "slow", "crossval").before_s == pytest.approx(90.0)
    assert not (table.dataset == "d2").any()


def test_speedups_divide_the_work_and_overhead_is_replaced(tables):
    costs, speedups = tables
    target = {("d1", "fast"): (10, 2), ("d1", "slow"): (10, 4)}
    overhead = {"select": (2.0, 0.5), "evaluate": (1.5, 0.5)}
    table = estimate(costs, target, speedups=speedups, overhead=overhead)
    # (1000 - 4 jobs x 2 s) / 2 + 4 x 0.5
    assert row(table, "d1", "slow", "select").after_s == pytest.approx(498.0)
    # d1's own evaluate factor (5) beats the wildcard one (4): (40 - 2 x 1.5) / 5 + 2 x 0.5
    assert row(table, "d1", "fast", "evaluate").after_s == pytest.approx(8.4)
    assert row(table, "d1", "fast", "select").after_s == pytest.approx(100 - 4 + 1)
    # one method's own overhead wins over its stage's
    overhead["fast/select"] = (2.0, 2.0)
    table = estimate(costs, target, speedups=speedups, overhead=overhead)
    assert row(table, "d1", "fast", "select").after_s == pytest.approx(100.0)
    assert row(table, "d1", "slow", "select").after_s == pytest.approx(498.0)
    summary = er.summarise(table, "stage")
    total = summary.iloc[-1]
    assert total.stage == "total"
    assert total.before_cpu_h == pytest.approx((100 + 40 + 1000 + 200 + 90) / 3600)


def test_most_specific_speedup_wins(tables):
    _, speedups = tables
    assert factor(speedups, "d1", "slow", "evaluate") == 5  # dataset beats method
    assert factor(speedups, "d2", "slow", "evaluate") == 4
    assert factor(speedups, "d2", "slow", "select") == 2
    assert factor(speedups, "d2", "fast", "select") == 1  # no row: nothing assumed
    assert factor(None, "d1", "slow", "select") == 1


def test_bad_tables_are_named(tmp_path):
    path = tmp_path / "cost.tsv"
    path.write_text("dataset\tmethod\tcpu_s\nd1\tm\t3\n")
    with pytest.raises(ValueError, match="no column.*stage"):
        read_costs([path])
    path.write_text("dataset\tmethod\tstage\tfactor\n*\tm\tselect\t0\n")
    with pytest.raises(ValueError, match="factor must be positive"):
        read_speedups(path)
    path.write_text("dataset\tmethod\tstage\tfactor\n*\tm\tselect\t2\n*\tm\tselect\t3\n")
    with pytest.raises(ValueError, match="twice"):
        read_speedups(path)


def test_command_line_on_a_real_config(tmp_path, capsys):
    from snakemake_cli import ROOT

    config = ROOT / "config" / "experiments" / "lsdcl-quick.yaml"
    plan = er.planned(er._plan(config))
    (dataset, method), (settings, _) = next(iter(plan.items()))
    costs = tmp_path / "cost.tsv"
    frame = pd.DataFrame(
        [(dataset, method, "select", 3.0 * settings), (dataset, method, "evaluate", 360.0)],
        columns=["dataset", "method", "stage", "cpu_s"],
    )
    frame.to_csv(costs, sep="\t", index=False)
    assert er.main([str(config), "--costs", str(costs), "--by", "method"]) == 0
    out = capsys.readouterr().out
    assert method in out and "total" in out and "not measured" in out


def test_console_entry_point_names_the_main_function():
    import importlib
    import tomllib

    from snakemake_cli import ROOT

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = scripts["ufsbench-estimate-runtime"].split(":")
    assert getattr(importlib.import_module(module), function) is er.main
