"""Per-job provenance: the commit and code hash each job ran at (issue #29 item 2)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pandas as pd
import pytest
from snakemake_cli import ROOT, needs_snakemake, snakemake_cmd, write_config

from ufsbench import joblog, provenance
from ufsbench.methods.registry import REGISTRY


def git(cwd, *args) -> str:
    out = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def make_checkout(tmp_path):
    """A git checkout holding a copy of the library, committed once."""
    repo = tmp_path / "checkout"
    shutil.copytree(ROOT / "src" / "ufsbench", repo / "src" / "ufsbench")
    git(tmp_path, "init", "-q", str(repo))
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    return repo


def test_setup_logs_the_commit_code_and_versions(tmp_path):
    log = joblog.setup(tmp_path / "job.log", code="abc123")
    log.info("work")
    record = provenance.read_log_record(tmp_path / "job.log")
    assert record["commit"] == provenance.code_commit()[0]
    assert record["code"] == "abc123"
    assert record["versions"]["numpy"] == __import__("numpy").__version__
    first = (tmp_path / "job.log").read_text().splitlines()[0]
    assert provenance.parse_record(first) == record


def test_code_commit_is_the_library_checkout_head(tmp_path):
    repo = make_checkout(tmp_path)
    lib = repo / "src" / "ufsbench"
    assert provenance.code_commit(lib) == (git(repo, "rev-parse", "HEAD"), 0)
    (lib / "api.py").write_text((lib / "api.py").read_text() + "\n# edited\n")
    assert provenance.code_commit(lib)[1] == 1


def test_code_commit_outside_git_is_unknown(tmp_path):
    assert provenance.code_commit(tmp_path) == ("unknown", 0)


def write_log(path, record):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"2026-01-01 INFO {provenance.format_record(record)}\nsecond line\n")


def test_job_records_are_read_from_the_log_tree(tmp_path):
    base = {"modified": 0, "versions": {"numpy": "2.0"}}
    write_log(tmp_path / "select/wine/ndfs/c0.log", {**base, "commit": "aaa", "code": "h1"})
    write_log(tmp_path / "select/wine/ndfs/c1.log", {**base, "commit": "bbb", "code": "h1"})
    write_log(tmp_path / "blufs/stage2/wine/ndfs/part0.log", {**base, "commit": "aaa"})
    write_log(tmp_path / "aggregate.log", {**base, "commit": "aaa"})
    (tmp_path / "select/wine/ndfs/old.log").write_text("a log without a record\n")
    jobs = provenance.read_job_records(tmp_path)
    assert len(jobs) == 4
    stages = dict(zip(jobs["job"], jobs["stage"], strict=True))
    assert stages == {"c0": "select", "c1": "select", "part0": "blufs/stage2", "aggregate": ""}
    stage2 = jobs[jobs["job"] == "part0"].iloc[0]
    assert (stage2["dataset"], stage2["method"]) == ("wine", "ndfs")
    assert provenance.distinct_commits(jobs) == ["aaa", "bbb"]
    summary = provenance.summarise_jobs(jobs)
    assert summary["jobs"].sum() == 4
    assert provenance.distinct_commits(summary) == ["aaa", "bbb"]
    assert provenance.distinct_versions(jobs) == [{"numpy": "2.0"}]


def test_run_provenance_leaves_out_the_jobs_of_another_parts_datasets(tmp_path):
    base = {"modified": 0, "versions": {"numpy": "2.0"}}
    write_log(tmp_path / "select/wine/ndfs/c0.log", {**base, "commit": "aaa", "code": "h1"})
    write_log(tmp_path / "select/iris/ndfs/c0.log", {**base, "commit": "bbb", "code": "h1"})
    write_log(tmp_path / "aggregate.log", {**base, "commit": "aaa"})
    summary, info = provenance.run_provenance(tmp_path, exclude_datasets=["iris"])
    assert set(summary["dataset"]) == {"wine", ""} and summary["jobs"].sum() == 2
    assert info["job_commits"] == ["aaa"] and info["jobs_recorded"] == 2
    _, everything = provenance.run_provenance(tmp_path)
    assert everything["job_commits"] == ["aaa", "bbb"]


def test_stale_cells_flag_method_code_changed_since():
    jobs = pd.DataFrame(
        {
            "stage": ["select", "select", "crossval", "evaluate"],
            "dataset": ["wine"] * 4,
            "method": ["ndfs", "mcfs", "ndfs", "ndfs"],
            "commit": ["aaa"] * 4,
            "modified": [0] * 4,
            "code": ["new", "old", "newEVAL", "evalhash"],
            "jobs": [1, 1, 1, 1],
        }
    )
    flagged = provenance.stale_cells(jobs, {"ndfs": "new", "mcfs": "now"})
    # evaluate jobs do not run the method: their code is not the method's
    assert list(flagged["stage"]) == ["select", "select", "crossval"]
    assert list(flagged["stale"]) == [False, True, False]


def test_a_reseed_part_made_by_older_method_code_is_flagged(tmp_path):
    """BLUFS re-seeding parts run the method; their merge (one level up) runs none."""
    base = {"modified": 0, "versions": {}, "commit": "aaa"}
    write_log(tmp_path / "blufs/reseed/wine/ndfs/r0.log", {**base, "code": "newRESEED"})
    write_log(tmp_path / "blufs/reseed/wine/ndfs/r1.log", {**base, "code": "oldRESEED"})
    write_log(tmp_path / "blufs/reseed/wine/ndfs.log", {**base, "code": "merge"})
    jobs = provenance.read_job_records(tmp_path)
    flagged = provenance.stale_cells(jobs, {"ndfs": "new"})
    assert dict(zip(flagged["job"], flagged["stale"], strict=True)) == {"r0": False, "r1": True}


def test_synthetic_and_runtime_jobs_name_their_method_and_are_flagged(tmp_path):
    """BLUFS's synthetic picks and runtimes run one method per job, logged as
    ``<stage>/<dataset>/<method>.log``; jobs that recorded no code stay unjudged."""
    base = {"modified": 0, "versions": {}, "commit": "aaa"}
    write_log(tmp_path / "blufs/synthetic/diamond9/sogfs.log", {**base, "code": "old"})
    write_log(tmp_path / "blufs/synthetic/diamond9/blufs.log", {**base, "code": "b"})
    write_log(tmp_path / "blufs/runtime/jaffe/sogfs.log", {**base, "code": "new"})
    write_log(tmp_path / "blufs/synthetic/dartboard1/sogfs.log", base)  # before codes
    jobs = provenance.read_job_records(tmp_path)
    named = set(zip(jobs["stage"], jobs["dataset"], jobs["method"], jobs["job"], strict=True))
    assert named == {
        ("blufs/synthetic", "diamond9", "sogfs", ""),
        ("blufs/synthetic", "diamond9", "blufs", ""),
        ("blufs/synthetic", "dartboard1", "sogfs", ""),
        ("blufs/runtime", "jaffe", "sogfs", ""),
    }
    flagged = provenance.stale_cells(jobs, {"sogfs": "new", "blufs": "b"})
    verdict = {(r.stage, r.dataset, r.method): r.stale for r in flagged.itertuples()}
    assert verdict == {
        ("blufs/synthetic", "diamond9", "sogfs"): True,
        ("blufs/synthetic", "diamond9", "blufs"): False,
        ("blufs/runtime", "jaffe", "sogfs"): False,
    }


def test_stage_code_flags_css_and_graph_jobs_by_their_whole_hash():
    jobs = pd.DataFrame(
        {
            "stage": ["css", "css", "cluster_graph", "cluster_scores", "select"],
            "dataset": ["dna"] * 5,
            "method": ["pocss", "greedy_css", "srsg", "srsg", "ndfs"],
            "commit": ["aaa"] * 5,
            "modified": [0] * 5,
            "code": ["cssnow", "cssold", "graphnowX", "scores", "new"],
            "jobs": [1] * 5,
        }
    )
    stage_code = {"css": "cssnow", "cluster_graph": "graphnow"}
    flagged = provenance.stale_cells(jobs, {"ndfs": "new"}, stage_code=stage_code)
    # cluster_scores runs no graph method; a stage hash is compared whole, not as a prefix
    assert list(flagged["stage"]) == ["css", "css", "cluster_graph", "select"]
    assert list(flagged["stale"]) == [False, True, True, False]
    assert list(flagged["code_now"]) == ["cssnow", "cssnow", "graphnow", "new"]


def test_stage_hashes_are_the_workflow_code_params():
    code = provenance.workflow_codebase(scripts=ROOT / "workflow" / "scripts")
    hashes = provenance.stage_hashes(code)
    assert hashes["css"] == code.hash("css/evaluate.py", "io.py")
    assert hashes["cluster_graph"] == code.hash("graph.py", "io.py", "sparse_graph/__init__.py")
    # the rules take these lists from provenance.STAGE_MODULES (one source)
    rules = ROOT / "workflow" / "rules"
    assert 'code_hash(*STAGE_MODULES["css"])' in (rules / "css_common.smk").read_text()
    assert 'code_hash(*STAGE_MODULES["cluster_graph"])' in (rules / "clustering.smk").read_text()


def test_method_hashes_are_the_workflow_select_params():
    code = provenance.workflow_codebase(scripts=ROOT / "workflow" / "scripts")
    hashes = provenance.method_hashes(code, ["ndfs", "not_a_method"])
    assert hashes == {"ndfs": code.hash("api.py", f"methods/{REGISTRY['ndfs'].module}.py")}


TINY = {
    "datasets": ["wine"],
    "feature_counts": {"wine": [2, 4]},
    "methods": {"lapscore": {"t": [1.0]}},
    "evaluation": {"repeats": 2},
}


@pytest.mark.slow
@needs_snakemake
def test_jobs_record_their_commit_and_a_new_commit_reruns_nothing(tmp_path):
    repo = make_checkout(tmp_path)
    first = git(repo, "rev-parse", "HEAD")
    workdir = tmp_path / "run"
    workdir.mkdir()
    write_config(workdir, TINY)
    env = {**os.environ, "PYTHONPATH": str(repo / "src")}

    def snakemake(*args):
        cmd = snakemake_cmd(workdir, "--cores", "1", *args)
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
        return out.stdout + out.stderr

    snakemake()
    logs = workdir / "logs" / "default"
    jobs = provenance.read_job_records(logs)
    select = jobs[(jobs["stage"] == "select") & (jobs["method"] == "lapscore")]
    assert len(select) == 1 and set(jobs["commit"]) == {first}
    lib = repo / "src" / "ufsbench"
    now = provenance.method_hashes(
        provenance.workflow_codebase(lib, ROOT / "workflow" / "scripts"), ["lapscore"]
    )
    assert select["code"].iloc[0] == now["lapscore"]
    # A new commit changes no param: nothing re-runs and the logs keep the first commit.
    git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "two",
    )
    assert "Nothing to be done" in snakemake("-n")
    summary, info = provenance.run_provenance(logs)
    assert info["job_commits"] == [first] and info["jobs_recorded"] == len(jobs)
    assert not provenance.stale_cells(summary, now)["stale"].any()
    # Editing the method's code makes its published cells stale.
    module = lib / "methods" / f"{REGISTRY['lapscore'].module}.py"
    # a counted top-level statement (not a definition or assignment): a numerics edit
    module.write_text(module.read_text() + "\nassert __name__\n")
    later = provenance.method_hashes(
        provenance.workflow_codebase(lib, ROOT / "workflow" / "scripts"), ["lapscore"]
    )
    assert later != now
    assert provenance.stale_cells(summary, later)["stale"].all()
    assert json.loads(json.dumps(info))["versions"]


def test_a_workflow_running_another_checkouts_library_is_named(tmp_path):
    """A second clone or worktree whose jobs would import the first one's editable
    install says so; its own library, or no library beside it, says nothing."""
    clone = tmp_path / "clone"
    (clone / "workflow").mkdir(parents=True)
    (clone / "src" / "ufsbench").mkdir(parents=True)
    other = tmp_path / "main" / "src" / "ufsbench"
    other.mkdir(parents=True)
    message = provenance.foreign_library(clone / "workflow", other)
    assert str(other) in message and str(clone / "src" / "ufsbench") in message
    assert f"PYTHONPATH={clone / 'src'}" in message
    assert provenance.foreign_library(clone / "workflow", clone / "src" / "ufsbench") is None
    assert provenance.foreign_library(tmp_path / "main" / "workflow", other) is None
    installed = tmp_path / "installed" / "workflow"
    installed.mkdir(parents=True)
    assert provenance.foreign_library(installed, other) is None


def test_this_checkouts_workflow_runs_its_own_library():
    assert provenance.foreign_library(ROOT / "workflow") is None
