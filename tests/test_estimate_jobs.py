"""ufsbench.tools.estimate_jobs: a sample's CPU seconds per unit, scaled to every planned job."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from ufsbench.tools import estimate_jobs as ej

DRY_RUN = """Building DAG of jobs...
Job stats:
job       count
select        3
total         5

[Fri Nov 27 00:42:20 2026]
rule select:
    input: results/x/d1/data.npz
    output: results/x/d1/m/c0/selection.npz
    jobid: 4
    wildcards: dataset=d1, method=m, chunk=c0
    resources: tmpdir=/tmp, mem_mb=1000
[Fri Nov 27 00:42:20 2026] Group job dataset (jobs in lexicogr. order):

    [Fri Nov 27 00:42:20 2026]
    rule normalize:
        output: results/x/d1/data.npz
        wildcards: dataset=d1

[Fri Nov 27 00:42:20 2026]
rule cluster_graph:
    wildcards: dataset=d1, gmethod=lr, gsid=gamma=0.3,lam=0.5
[Fri Nov 27 00:42:20 2026]
localrule all:
    input: results/x/tables/scores.tsv
    jobid: 0
This was a dry-run (flag -n). The order of jobs does not reflect the order of execution.
"""


def test_dry_run_lists_every_job_with_its_wildcards_group_members_too():
    jobs = ej.parse_dry_run(DRY_RUN)
    assert jobs == [
        ("select", {"dataset": "d1", "method": "m", "chunk": "c0"}),
        ("normalize", {"dataset": "d1"}),
        ("cluster_graph", {"dataset": "d1", "gmethod": "lr", "gsid": "gamma=0.3,lam=0.5"}),
        ("all", {}),
    ]
    assert ej.kind(*jobs[0]) == "select[dataset=d1,method=m]"
    assert ej.kind(*jobs[2]) == "cluster_graph[dataset=d1,gmethod=lr]"
    assert ej.kind("css_run", {"dataset": "a", "css_method": "p", "k": "50", "seed": "3"}) == (
        "css_run[css_method=p,dataset=a,k=50]"
    )


def frame(rows, cpu=False):
    columns = ["rule", "kind", "unit", "units"] + (["cpu_s"] if cpu else [])
    return pd.DataFrame(rows, columns=columns)


def test_cost_per_unit_scales_to_the_planned_units_and_unmeasured_kinds_stay_nan():
    planned = frame(
        [
            ("select", "select[a]", "settings", 16.0),
            ("select", "select[a]", "settings", 16.0),
            ("select", "select[a]", "settings", 4.0),  # a short last chunk
            ("select", "select[b]", "settings", 16.0),  # never sampled
            ("css_run", "css_run[k=50]", "job", 1.0),
        ]
        + [("css_run", "css_run[k=100]", "job", 1.0)] * 10
    )
    sample = frame(
        [
            ("select", "select[a]", "settings", 9.0, 9.0),
            ("select", "select[a]", "settings", 9.0, 27.0),  # 36 s / 18 settings = 2 s each
            ("css_run", "css_run[k=100]", "job", 1.0, 30.0),
            ("css_run", "css_run[k=60]", "job", 1.0, 99.0),  # not planned: ignored
        ],
        cpu=True,
    )
    table = ej.scale(planned, {"after": sample}).set_index("kind")
    assert table.at["select[a]", "jobs"] == 3
    assert table.at["select[a]", "units"] == 36
    assert table.at["select[a]", "after_sample_jobs"] == 2
    assert table.at["select[a]", "after_cpu_s"] == pytest.approx(72.0)
    assert table.at["css_run[k=100]", "after_cpu_s"] == pytest.approx(300.0)  # 10 seeds x 30
    assert math.isnan(table.at["select[b]", "after_cpu_s"])
    assert math.isnan(table.at["css_run[k=50]", "after_cpu_s"])  # k = 100 is not k = 50
    assert table.at["select[b]", "after_sample_jobs"] == 0


def test_summary_adds_only_kinds_measured_before_and_after():
    planned = frame(
        [("select", "select[a]", "settings", 2.0), ("select", "select[b]", "settings", 1.0)]
        + [("evaluate", "evaluate[a]", "job", 1.0)] * 4
    )
    after = frame(
        [
            ("select", "select[a]", "settings", 1.0, 1800.0),
            ("select", "select[b]", "settings", 1.0, 3600.0),  # only measured after
            ("evaluate", "evaluate[a]", "job", 2.0, 900.0),
        ],
        cpu=True,
    )
    before = frame(
        [
            ("select", "select[a]", "settings", 1.0, 3600.0),
            ("evaluate", "evaluate[a]", "job", 1.0, 900.0),
        ],
        cpu=True,
    )
    table = ej.scale(planned, {"before": before, "after": after})
    summary = ej.summarise(table, ["before", "after"]).set_index("rule")
    assert summary.at["select", "jobs"] == 2 and summary.at["select", "measured_jobs"] == 1
    assert summary.at["select", "before_cpu_h"] == pytest.approx(2.0)
    assert summary.at["select", "after_cpu_h"] == pytest.approx(1.0)  # select[b] left out
    assert summary.at["evaluate", "before_cpu_h"] == pytest.approx(1.0)  # 4 jobs x 900 s
    assert summary.at["evaluate", "after_cpu_h"] == pytest.approx(0.5)  # 450 s per job
    assert summary.at["total", "jobs"] == 6 and summary.at["total", "measured_jobs"] == 5
    assert summary.at["total", "after_cpu_h"] == pytest.approx(1.5)
    assert list(summary.index[:2]) == ["select", "evaluate"]  # largest (after) first
    line = ej.not_measured(table, ["before", "after"])
    assert line.startswith("not measured (1 of 6 planned jobs") and "select 1" in line


def test_units_follow_the_plan_of_each_config():
    from snakemake_cli import ROOT

    plan = ej._plan(ROOT / "config" / "experiments" / "blufs-quick.yaml")
    counts = len(plan.feature_counts("jaffe"))  # 3
    settings = len(plan.settings["blufs"])  # 3 x 3 in one chunk of 9
    wc = {"dataset": "jaffe", "method": "blufs", "chunk": "c0"}
    assert ej.job_units(plan, "select", wc) == (float(settings), "settings")
    assert ej.job_units(plan, "evaluate", wc)[0] == settings * counts * plan.evaluation.repeats
    # random: 12 draws in chunks of 9 -> 9 + 3; the units of its chunks add up to its draws
    draws = [
        ej.job_units(plan, "select", {"method": "random", "chunk": c})[0] for c in ("c0", "c1")
    ]
    assert draws == [9.0, 3.0]
    # stage 2: 3 counts x 4 grid points = 12 runs over ceil(12 / 9) = 2 parts
    wc = {"dataset": "jaffe", "method": "blufs", "part": "0"}
    assert ej.job_units(plan, "blufs_stage2", wc)[0] == pytest.approx(6.0)
    assert ej.job_units(plan, "blufs_reseed_part", {**wc, "part": "r3"}) == (1.0, "seeds")
    assert ej.job_units(plan, "blufs_reseed_part", {**wc, "part": "r0-9"})[0] == 10.0
    assert ej.job_units(plan, "blufs_knn", wc)[0] == counts * 50
    assert ej.job_units(plan, "css_run", {"dataset": "dna", "seed": "0"}) == (1.0, "job")


def test_job_log_skips_failed_jobs_and_names_bad_lines(tmp_path):
    path = tmp_path / "jobs.tsv"
    wc = json.dumps({"dataset": "d1"})
    path.write_text(f"normalize\t{wc}\t1.5\nselect\t{wc}\t9.0\tfailed\nall\t{{}}\t0.2\tok\n")
    log = ej.read_job_log(path)
    assert list(log["rule"]) == ["normalize", "all"]
    assert list(log["cpu_s"]) == [1.5, 0.2]
    path.write_text(f"normalize\t{wc}\n")
    with pytest.raises(ValueError, match="line 1"):
        ej.read_job_log(path)


def test_command_line_estimates_a_real_config_from_a_sample(tmp_path, capsys):
    from snakemake_cli import ROOT

    config = ROOT / "config" / "experiments" / "blufs-quick.yaml"
    plan = ej._plan(config)
    chunks = plan.chunks("blufs")
    dry = (
        "".join(
            f"rule select:\n    wildcards: dataset=jaffe, method=blufs, chunk={c}\n" for c in chunks
        )
        + "rule select:\n    wildcards: dataset=warpar10p, method=blufs, chunk=c0\n"
    )
    (tmp_path / "dry.txt").write_text(dry)
    wc = json.dumps({"dataset": "jaffe", "method": "blufs", "chunk": "c0"})
    (tmp_path / "after.tsv").write_text(f"select\t{wc}\t{3600.0 * len(plan.settings['blufs'])}\n")
    out = tmp_path / "table.tsv"
    argv = [str(config), "--dry-run", str(tmp_path / "dry.txt"), "--out", str(out)]
    assert ej.main([*argv, "--after", str(tmp_path / "after.tsv"), str(config)]) == 0
    printed = capsys.readouterr().out
    assert "not measured (1 of 2 planned jobs" in printed
    table = pd.read_csv(out, sep="\t").set_index("kind")
    assert table.at["select[dataset=jaffe,method=blufs]", "after_cpu_s"] == pytest.approx(
        3600.0 * len(plan.settings["blufs"])
    )
