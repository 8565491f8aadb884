"""Datasets from local files by path in the config (issue #28 item 2)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy.io import savemat
from snakemake_cli import needs_snakemake, run_snakemake, validated, write_config

from ufsbench.data import normalize
from ufsbench.datasets import content_fields, load_registry
from ufsbench.localdata import entry_from_fields, load_local_dataset, local_datasets
from ufsbench.plan import Plan

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 4))
LABELS = np.repeat(["b", "a", "c"], 10)


def write_csv(path, X=X, labels=LABELS, sep=","):
    frame = pd.DataFrame(X, columns=["p", "q", "r", "s"])
    if labels is not None:
        frame["kind"] = labels
    frame.to_csv(path, sep=sep, index=False)
    return path


@pytest.fixture
def files(tmp_path):
    write_csv(tmp_path / "d.csv")
    write_csv(tmp_path / "d.tsv", sep="\t")
    np.savez(tmp_path / "d.npz", X=X, y=LABELS)
    savemat(tmp_path / "d.mat", {"data": X, "lab": np.repeat([2, 1, 3], 10)})
    return tmp_path


SPECS = {
    "mycsv": {"path": "d.csv", "label": "kind"},
    "mytsv": {"path": "d.tsv", "label": "kind"},
    "mynpz": {"path": "d.npz", "label": "y"},
    "mymat": {"path": "d.mat", "features": "data", "label": "lab"},
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_format_loads_the_same_arrays(files, name):
    entry = local_datasets({name: SPECS[name]}, files, {})[name]
    assert (entry.n_samples, entry.n_features, entry.n_classes) == (30, 4, 3)
    assert entry.feature_counts == (1, 2, 3)
    got, y, info = load_local_dataset(entry)
    np.testing.assert_array_equal(got, X)
    # labels recoded 0..c-1 in sorted order of the original values
    assert y.tolist() == [1] * 10 + [0] * 10 + [2] * 10
    # a job rebuilds the entry from the params it gets (content_fields)
    again, _, _ = load_local_dataset(entry_from_fields(content_fields(entry)))
    np.testing.assert_array_equal(again, X)


def test_a_plan_runs_a_local_dataset_beside_registry_ones(files):
    registry = load_registry()
    registry.update(local_datasets({"mycsv": SPECS["mycsv"]}, files, registry))
    config = validated({"datasets": ["wine", "mycsv"], "methods": {"maxvariance": {}}})
    plan = Plan(config, registry)
    assert plan.n_clusters("mycsv") == 3
    assert plan.feature_counts("mycsv") == [1, 2, 3]


def test_unlabelled_file_is_refused_for_clustering_like_a_registry_one(files):
    write_csv(files / "nolabel.csv", labels=None)
    registry = load_registry()
    registry.update(local_datasets({"mine": {"path": "nolabel.csv"}}, files, registry))
    with pytest.raises(ValueError, match="dataset 'mine' is unlabelled"):
        Plan(validated({"datasets": ["mine"], "methods": {"maxvariance": {}}}), registry)


def test_content_hash_changes_with_the_content_only(files):
    first = content_fields(local_datasets({"d": SPECS["mycsv"]}, files, {})["d"])
    (files / "d.csv").touch()
    assert content_fields(local_datasets({"d": SPECS["mycsv"]}, files, {})["d"]) == first
    write_csv(files / "d.csv", X=X + 1)
    assert content_fields(local_datasets({"d": SPECS["mycsv"]}, files, {})["d"]) != first


def test_a_file_changed_after_planning_is_refused(files):
    entry = local_datasets({"d": SPECS["mycsv"]}, files, {})["d"]
    write_csv(files / "d.csv", X=X * 2)
    with pytest.raises(ValueError, match="changed after the run was planned"):
        load_local_dataset(entry)


def test_missing_values_and_constant_columns_get_the_usual_messages(files):
    bad = X.copy()
    bad[3, 1] = np.nan
    bad[:, 2] = 7.0
    write_csv(files / "bad.csv", X=bad)
    entry = local_datasets({"bad": {"path": "bad.csv", "label": "kind"}}, files, {})["bad"]
    assert entry.n_missing == 1
    loaded, _, _ = load_local_dataset(entry)
    with pytest.raises(ValueError, match=re.escape("dataset 'bad': X has 1 NaN values")):
        normalize(loaded, name="bad")
    with pytest.raises(ValueError, match="1 constant feature\\(s\\) \\(columns 2\\)"):
        normalize(loaded, impute="mean", constant="error", name="bad")


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"path": "nowhere.csv"}, "file .*nowhere.csv does not exist"),
        ({"path": "d.csv", "label": "class"}, "no column 'class' in d.csv"),
        ({"path": "d.npz", "label": "labels"}, "d.npz has no variable 'labels' \\(found: X, y\\)"),
        ({"path": "d.mat"}, "d.mat has no variable 'X' \\(found: data, lab\\)"),
        ({"path": "d.csv", "lable": "kind"}, "unknown key 'lable'"),
        ({"path": "d.xlsx"}, "cannot tell the format of d.xlsx"),
        (
            {"path": "one.csv", "label": "kind"},
            "n_classes must be an integer >= 2 or null, found 1",
        ),
        ({"path": "text.csv", "label": "kind"}, "column 'q' is not numeric \\(found 'x'\\)"),
        ({"path": "holes.csv", "label": "kind"}, "labels have 2 missing values"),
    ],
)
def test_bad_files_fail_with_one_clear_line(files, spec, message):
    write_csv(files / "one.csv", labels=["a"] * 30)
    frame = pd.read_csv(files / "d.csv")
    frame["q"] = frame["q"].astype(object)
    frame.loc[4, "q"] = "x"
    frame.to_csv(files / "text.csv", index=False)
    write_csv(files / "holes.csv", labels=[None, None, *LABELS[2:]])
    (files / "d.xlsx").write_bytes(b"")
    with pytest.raises(ValueError, match=message):
        local_datasets({"d": spec}, files, {})


def test_a_registry_name_cannot_be_reused(files):
    with pytest.raises(ValueError, match="'wine' is already a dataset of the registry"):
        local_datasets({"wine": SPECS["mycsv"]}, files, load_registry())


def test_parquet_reads_or_says_what_is_missing(files):
    try:
        write_target = files / "d.parquet"
        pd.DataFrame(X, columns=list("pqrs")).assign(kind=LABELS).to_parquet(write_target)
    except ImportError:
        (files / "d.parquet").write_bytes(b"PAR1")
        with pytest.raises(ValueError, match="pandas cannot read d.parquet here.*install pyarrow"):
            local_datasets({"d": {"path": "d.parquet", "label": "kind"}}, files, {})
        return
    entry = local_datasets({"d": {"path": "d.parquet", "label": "kind"}}, files, {})["d"]
    np.testing.assert_array_equal(load_local_dataset(entry)[0], X)


@pytest.mark.slow
@needs_snakemake
def test_workflow_reruns_a_local_dataset_when_its_content_changes(tmp_path):
    data = write_csv(tmp_path / "mine.csv")
    config = {
        "datasets": ["mine"],
        "local_datasets": {"mine": {"path": str(data), "label": "kind"}},
        "methods": {"allfea": {}, "maxvariance": {}},
        "evaluation": {"repeats": 2},
    }
    write_config(tmp_path, config)
    run_snakemake(tmp_path, "--cores", "1")
    summary = (tmp_path / "results" / "default" / "tables" / "summary.tsv").read_text()
    assert "mine" in summary
    data.touch()
    result = run_snakemake(tmp_path, "-n", "--max-checksum-file-size", "0")
    assert "Nothing to be done" in result.stdout + result.stderr
    write_csv(data, X=X + RNG.normal(size=X.shape))
    result = run_snakemake(tmp_path, "-n")
    output = result.stdout + result.stderr
    assert re.search(r"rule normalize:\n(.*\n){0,6}\s+wildcards: dataset=mine", output), output
    assert "Params have changed" in output or "params" in output.lower()
