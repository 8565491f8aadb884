"""The command-line tools of ufsbench.tools, imported and run as their entry points run them."""

from __future__ import annotations

import importlib
import tomllib

import pytest
from conftest import ROOT

from ufsbench.tools import publish_run, run_cost

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(run, stage, dataset, method, job, *, wall, cpu):
    """One finished job's Snakemake benchmark file in the results folder ``run``."""
    bench = run / "benchmarks" / stage / dataset / method / f"{job}.tsv"
    bench.parent.mkdir(parents=True, exist_ok=True)
    # Two repeats: the last one counts.
    first = "1\t0\t1\t1\t1\t1\t0\t0\t5\t1\n"
    bench.write_text(HEADER + first + f"{wall}\t0\t1\t1\t1\t1\t0\t0\t5\t{cpu}\n")


def test_entry_points_name_the_tools_main_functions():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert {
        "ufsbench-publish-run": "ufsbench.tools.publish_run:main",
        "ufsbench-run-cost": "ufsbench.tools.run_cost:main",
        "ufsbench-estimate-runtime": "ufsbench.tools.estimate_runtime:main",
    }.items() <= scripts.items()
    for target in scripts.values():
        module, function = target.split(":")
        assert module.startswith("ufsbench.tools.")
        assert callable(getattr(importlib.import_module(module), function))


def test_run_cost_sums_cpu_and_wall_per_stage_and_method(tmp_path, capsys):
    for chunk in ("c0", "c1"):
        for stage in ("select", "evaluate"):
            _bench(tmp_path, stage, "wine", "random", chunk, wall=36000, cpu=1800)
    _bench(tmp_path, "stage2", "zoo", "blufs", "part0", wall=7200, cpu=3600)
    jobs = run_cost.job_costs(tmp_path)
    assert len(jobs) == 5 and jobs["cpu_s"].sum() == 4 * 1800 + 3600
    run_cost.main([str(tmp_path)])
    lines = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[1:]}
    assert lines["evaluate"] == ["2", "1.00", "20.00"]
    assert lines["select"] == ["2", "1.00", "20.00"]
    assert lines["stage2"] == ["1", "1.00", "2.00"]
    assert lines["total"] == ["5", "3.00", "42.00"]
    run_cost.main([str(tmp_path), "--by", "method"])
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert rows[0] == ["random", "4", "2.00", "40.00"]
    assert rows[1] == ["blufs", "1", "1.00", "2.00"]


def test_run_cost_reads_jobs_nested_below_the_method(tmp_path):
    # The CSS runs' benchmarks sit one level deeper: css/<dataset>/<method>/k<k>/s<seed>.tsv.
    _bench(tmp_path, "css", "dna", "pocss", "k50/s1", wall=10, cpu=8)
    _bench(tmp_path, "css", "dna", "pocss", "k50/s2", wall=20, cpu=16)
    jobs = run_cost.job_costs(tmp_path)
    assert jobs[["stage", "dataset", "method"]].drop_duplicates().values.tolist() == [
        ["css", "dna", "pocss"]
    ]
    assert jobs["job"].tolist() == ["k50/s1", "k50/s2"] and jobs["cpu_s"].sum() == 24


def test_run_cost_of_a_directory_without_benchmarks_says_so(tmp_path):
    with pytest.raises(SystemExit, match="neither a results folder"):
        run_cost.main([str(tmp_path)])
    (tmp_path / "benchmarks").mkdir()
    with pytest.raises(SystemExit, match="no benchmark files under"):
        run_cost.main([str(tmp_path)])


def test_run_cost_of_a_publication_sums_its_parts_cost_tables(tmp_path, capsys):
    header = "dataset\tmethod\tstage\tcpu_s\twall_s\n"
    for part, rows in {
        "coil20": "coil20\tblufs\tstage2\t3600\t7200\ncoil20\tblufs\tselect\t1800\t1800\n",
        "jaffe": "jaffe\tblufs\tstage2\t1800\t3600\njaffe\tlapscore\tselect\t1800\t3600\n",
    }.items():
        (tmp_path / "runs" / part).mkdir(parents=True)
        (tmp_path / "runs" / part / "cost.tsv").write_text(header + rows)
    run_cost.main([str(tmp_path)])
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["stage", "cpu_h", "wall_h"]  # no job counts in cost tables
    lines = {line.split()[0]: line.split()[1:] for line in out[1:]}
    assert lines == {
        "stage2": ["1.50", "3.00"],
        "select": ["1.00", "1.50"],
        "total": ["2.50", "4.50"],
    }
    run_cost.main([str(tmp_path / "runs" / "jaffe" / "cost.tsv"), "--by", "method"])
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert rows == [
        ["blufs", "0.50", "1.00"],
        ["lapscore", "0.50", "1.00"],
        ["total", "1.00", "2.00"],
    ]


def test_run_cost_compares_two_runs_on_the_groups_both_ran(tmp_path, capsys):
    before, after = tmp_path / "before", tmp_path / "after"
    for chunk in ("c0", "c1"):
        _bench(before, "select", "wine", "random", chunk, wall=10, cpu=1800)
        _bench(after, "select", "wine", "random", chunk, wall=10, cpu=900)
    _bench(before, "evaluate", "wine", "random", "c0", wall=10, cpu=3600)
    _bench(after, "evaluate", "wine", "random", "c0", wall=10, cpu=3600)
    _bench(before, "select", "zoo", "sogfs", "c0", wall=10, cpu=7200)  # not run after
    _bench(after, "select", "wine", "lsdcl", "c0", wall=10, cpu=60)  # not run before
    run_cost.main([str(after), "--compare", str(before)])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "2 (stage, dataset, method) groups ran in both; 1 only before, 1 only after"
    rows = {line.split()[0]: line.split()[1:] for line in out[2:]}
    assert rows["select"] == ["1.00", "0.50", "2.00"]
    assert rows["evaluate"] == ["1.00", "1.00", "1.00"]
    assert rows["total"] == ["2.00", "1.50", "1.33"]


def test_run_cost_compares_with_a_publication_and_keeps_the_datasets_asked(tmp_path, capsys):
    published = tmp_path / "measured" / "runs"
    for name, rows in {
        "wine": "wine\trandom\tselect\t7200\t9000\n",
        "zoo+glioma": "zoo\trandom\tselect\t3600\t4000\nglioma\tsogfs\tselect\t36000\t1\n",
    }.items():
        (published / name).mkdir(parents=True)
        (published / name / "cost.tsv").write_text("dataset\tmethod\tstage\tcpu_s\twall_s\n" + rows)
    after = tmp_path / "after"
    _bench(after, "select", "wine", "random", "c0", wall=10, cpu=1800)
    _bench(after, "select", "zoo", "random", "c0", wall=10, cpu=3600)
    _bench(after, "select", "glioma", "sogfs", "c0", wall=10, cpu=60)  # a run under way
    common = [str(after), "--compare", str(tmp_path / "measured"), "--by", "dataset"]
    run_cost.main([*common, "--datasets", "wine", "zoo"])
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows == {
        "wine": ["2.00", "0.50", "4.00"],
        "zoo": ["1.00", "1.00", "1.00"],
        "total": ["3.00", "1.50", "2.00"],
    }
    one = published / "wine" / "cost.tsv"
    run_cost.main([str(after), "--compare", str(one), "--by", "dataset"])
    assert capsys.readouterr().out.splitlines()[-1].split()[1:] == ["2.00", "0.50", "4.00"]


def test_run_cost_compare_says_what_it_cannot_read_or_match(tmp_path):
    after = tmp_path / "after"
    _bench(after, "select", "wine", "random", "c0", wall=10, cpu=1800)
    with pytest.raises(SystemExit, match="neither a results folder"):
        run_cost.main([str(after), "--compare", str(tmp_path / "nothing")])
    other = tmp_path / "other"
    _bench(other, "select", "zoo", "random", "c0", wall=10, cpu=1800)
    with pytest.raises(SystemExit, match="share no"):
        run_cost.main([str(after), "--compare", str(other)])


def test_publish_run_needs_a_section_it_can_publish(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("datasets: [wine]\n")
    with pytest.raises(SystemExit, match="has no paper section .and no leaderboard, css"):
        publish_run.main(["--config", str(config), "--into", str(tmp_path / "into")])
    assert not (tmp_path / "into").exists()


def test_published_runs_list_numbers_in_numeric_order(tmp_path):
    names = ["usps49-crossval-nested-n1000", "coil20", "usps49-crossval-nested-n900", "orl"]
    for name in names:
        (tmp_path / "runs" / name).mkdir(parents=True)
        (tmp_path / "runs" / name / "run.json").write_text("{}")
    listed = [p.name for p in publish_run.published_runs(tmp_path)]
    assert listed == [
        "coil20",
        "orl",
        "usps49-crossval-nested-n900",
        "usps49-crossval-nested-n1000",
    ]
