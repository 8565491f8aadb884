"""The POCSS datasets not in the mirror: mediamill (LIBSVM multilabel, bz2), CT slices (a CSV
in UCI's zip) and sEMG (a zip of .mat files): loading, option checks, skip messages, and
how a skipped one reaches the CSS tables.

No test downloads anything: the files are written here in the real formats, at test size,
and URLs are only read."""

from __future__ import annotations

import bz2
import gzip
import io
import re
import zipfile
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.io import savemat
from sklearn.datasets import dump_svmlight_file
from snakemake_cli import ROOT, validated

from ufsbench.css import table
from ufsbench.css.plan import CssPlan
from ufsbench.data import load_dataset
from ufsbench.datasets import fetch, load_registry, unavailable_reason
from ufsbench.plan import Plan, unavailable_datasets
from ufsbench.reference import load_reference

REGISTRY = load_registry()
POCSS_NEW = ("mediamill", "ct_slices", "semg")
GRASPS = ["cyl", "hook", "tip", "palm", "spher", "lat"]


def small(name, **shape):
    """The registered entry (its format and options) at a test-sized shape."""
    return replace(REGISTRY[name], feature_counts=(1,), **shape)


def write_zip(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    write_zip(buffer, members)
    return buffer.getvalue()


def mat_bytes(variables: dict) -> bytes:
    buffer = io.BytesIO()
    savemat(buffer, variables)
    return buffer.getvalue()


# -- mediamill: svmlight --------------------------------------------------------------------


def multilabel_file(tmp_path, name="train-exp1.svm.bz2", compress=bz2.compress):
    """5 rows x 4 features (column 3 empty everywhere) with label sets over {0, 2, 7}."""
    X = np.array([[1.0, 0, 0.5, 0], [0, 2, 0, 0], [3, 0, 0, 0], [0, 0, 0.25, 0], [1, 1, 1, 0]])
    labels = [(0, 2), (7,), (0,), (2, 7), (0, 2, 7)]
    indicator = np.zeros((5, 8), dtype=int)  # sklearn writes the indices of the 1s
    for i, row in enumerate(labels):
        indicator[i, list(row)] = 1
    buffer = io.BytesIO()
    dump_svmlight_file(X, indicator, buffer, multilabel=True, zero_based=False)
    path = tmp_path / name
    path.write_bytes(compress(buffer.getvalue()))
    return path, X, labels


@pytest.mark.parametrize(
    "name, compress",
    [("train-exp1.svm.bz2", bz2.compress), ("train.svm.gz", gzip.compress), ("t.svm", bytes)],
)
def test_svmlight_multilabel_gives_x_and_a_label_matrix(tmp_path, name, compress):
    path, X, _ = multilabel_file(tmp_path, name, compress)
    X_out, y, info = load_dataset(small("mediamill", n_samples=5, n_features=4, n_classes=3), path)
    np.testing.assert_array_equal(X_out, X)  # the all-zero last column keeps the width
    assert y is None and info["label_values"] == [0, 2, 7]
    expected = [[1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1], [1, 1, 1]]
    np.testing.assert_array_equal(info["Y_multilabel"], expected)


def test_svmlight_single_label_file_is_recoded(tmp_path):
    path = tmp_path / "dna.svm"
    dump_svmlight_file(np.eye(3), np.array([3.0, 1.0, 3.0]), str(path), zero_based=False)
    entry = replace(
        small("mediamill", n_samples=3, n_features=3, n_classes=2), options={}, name="toy"
    )
    X, y, info = load_dataset(entry, path)
    np.testing.assert_array_equal(X, np.eye(3))
    np.testing.assert_array_equal(y, [1, 0, 1])
    assert info["classes"] == [1, 3]


def test_svmlight_with_more_features_than_registered(tmp_path):
    path, _, _ = multilabel_file(tmp_path)
    with pytest.raises(ValueError, match=r"dataset 'mediamill': cannot read train-exp1.svm.bz2 "
                       r"as svmlight \(.*n_features"):  # fmt: skip
        load_dataset(small("mediamill", n_samples=5, n_features=2, n_classes=3), path)


def test_svmlight_zero_index_in_a_one_based_file(tmp_path):
    path = tmp_path / "t.svm"
    path.write_text("1 0:1.5 2:1\n0 1:2\n")
    entry = replace(small("mediamill", n_samples=2, n_features=3, n_classes=2), options={})
    with pytest.raises(ValueError, match=r"cannot read t.svm as svmlight \(.*[Ii]nvalid index 0"):
        load_dataset(entry, path)
    entry = replace(entry, options={"zero_based": True})
    X, _, _ = load_dataset(entry, path)
    np.testing.assert_array_equal(X, [[1.5, 0, 1], [0, 2, 0]])


def test_svmlight_truncated_archive_and_wrong_label_count(tmp_path):
    path, _, _ = multilabel_file(tmp_path)
    with pytest.raises(ValueError, match=r"class count mismatch \(expected 101, found 3\)"):
        load_dataset(small("mediamill", n_samples=5, n_features=4), path)
    path.write_bytes(path.read_bytes()[:20])
    with pytest.raises(ValueError, match="cannot read train-exp1.svm.bz2 as svmlight"):
        load_dataset(small("mediamill", n_samples=5, n_features=4, n_classes=3), path)


# -- ct_slices: a CSV inside a zip ----------------------------------------------------------


def ct_csv(n_rows=4, n_values=3) -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(0)
    values = rng.random((n_rows, n_values)).round(6)
    frame = pd.DataFrame(values, columns=[f"value{j}" for j in range(n_values)])
    frame.insert(0, "patientId", np.arange(n_rows) // 2)
    frame["reference"] = np.linspace(10.0, 90.0, n_rows)
    return frame.to_csv(index=False).encode(), frame


@pytest.mark.parametrize("nested", [False, True])
def test_ct_slices_csv_read_from_the_zip_or_a_zip_inside_it(tmp_path, nested):
    data, frame = ct_csv()
    members = {"slice_localization_data.csv": data, "readme.txt": b"CT slices"}
    if nested:
        members = {"relative_location.zip": zipped(members), "other.txt": b"x"}
    path = write_zip(tmp_path / REGISTRY["ct_slices"].file, members)
    X, y, info = load_dataset(small("ct_slices", n_samples=4, n_features=3), path)
    assert y is None and info["classes"] == []
    np.testing.assert_allclose(X, frame[["value0", "value1", "value2"]].to_numpy())
    # the paper-like reading keeps the identifier and the target: 3 + 2 columns
    X, _, _ = load_dataset(small("ct_slices_paper_like", n_samples=4, n_features=5), path)
    np.testing.assert_allclose(X, frame.to_numpy(dtype=float))


def test_ct_slices_zip_without_the_csv(tmp_path):
    path = write_zip(tmp_path / "ct.zip", {"data/slices.csv": b"a\n1\n", "README": b""})
    msg = (
        r"dataset 'ct_slices': ct.zip has no member matching "
        r"'slice_localization_data.csv' \(2 files: data/slices.csv, README\)"
    )
    with pytest.raises(ValueError, match=msg):
        load_dataset(small("ct_slices", n_samples=1, n_features=1), path)


def test_ct_slices_member_pattern_matching_two_tables(tmp_path):
    data, _ = ct_csv()
    path = write_zip(tmp_path / "ct.zip", {"a/slices.csv": data, "b/slices.csv": data})
    entry = small("ct_slices", n_samples=4, n_features=3)
    entry = replace(entry, options={**entry.options, "member": "*.csv"})
    with pytest.raises(ValueError, match=r"options.member '\*.csv' matches 2 members of ct.zip "
                       r"\(a/slices.csv, b/slices.csv\)"):  # fmt: skip
        load_dataset(entry, path)


def test_ct_slices_that_is_not_a_zip_or_has_other_columns(tmp_path):
    path = tmp_path / "ct.zip"
    path.write_bytes(b"patientId,value0\n")
    with pytest.raises(ValueError, match="dataset 'ct_slices': cannot read ct.zip as a zip"):
        load_dataset(REGISTRY["ct_slices"], path)
    write_zip(path, {"slice_localization_data.csv": b"id,value0,target\n1,2,3\n"})
    with pytest.raises(ValueError, match=r"dataset 'ct_slices': no column 'patientId'"):
        load_dataset(REGISTRY["ct_slices"], path)
    data, _ = ct_csv()
    write_zip(path, {"slice_localization_data.csv": data})
    with pytest.raises(ValueError, match=r"shape mismatch \(expected 53500 x 384, found 4 x 3\)"):
        load_dataset(REGISTRY["ct_slices"], path)


# -- semg: a zip of .mat files --------------------------------------------------------------


def semg_zip(path, n_trials=2, n_samples=5, days=(1, 2, 3), drop=None, nested=False):
    """Database 2 with every <grasp>_ch1/_ch2 filled with day * 1000 + grasp * 10 + channel
    (and the trial index added), plus a Database 1 file that must not be read."""
    members = {}
    for day in days:
        variables = {}
        for g, grasp in enumerate(GRASPS, start=1):
            for ch in (1, 2):
                base = day * 1000 + g * 10 + ch
                variables[f"{grasp}_ch{ch}"] = (
                    base + np.arange(n_trials)[:, None] + np.zeros((1, n_samples))
                )
        variables.pop(drop, None)
        members[f"sEMG/Database 2/male_day_{day}.mat"] = mat_bytes(variables)
    members["sEMG/Database 1/female_1.mat"] = mat_bytes({"cyl_ch1": np.zeros((30, 3000))})
    if nested:
        members = {"sEMG_Basic_Hand_movements_upatras.zip": zipped(members)}
    return write_zip(path, members)


@pytest.mark.parametrize("nested", [False, True])
def test_semg_stacks_grasps_then_days_of_one_channel(tmp_path, nested):
    path = semg_zip(tmp_path / REGISTRY["semg"].file, nested=nested)
    X, y, info = load_dataset(small("semg", n_samples=36, n_features=5), path)
    assert info["classes"] == GRASPS and info["channel"] == 1
    assert [m.rsplit("/", 1)[-1] for m in info["members"]] == [
        f"male_day_{d}.mat" for d in (1, 2, 3)
    ]
    np.testing.assert_array_equal(y, np.repeat(np.arange(6), 6))
    first = [d * 1000 + g * 10 + 1 + t for g in range(1, 7) for d in (1, 2, 3) for t in (0, 1)]
    np.testing.assert_array_equal(X[:, 0], first)
    assert (X == X[:, :1]).all()
    # channel 2
    entry = small("semg", n_samples=36, n_features=5)
    X2, _, _ = load_dataset(replace(entry, options={**entry.options, "channel": 2}), path)
    np.testing.assert_array_equal(X2[:, 0], np.array(first) + 1)


def test_semg_member_order_is_numeric(tmp_path):
    path = semg_zip(tmp_path / "semg.zip", days=(10, 2))
    X, _, info = load_dataset(small("semg", n_samples=24, n_features=5), path)
    assert info["members"][0].endswith("male_day_2.mat")
    assert X[0, 0] == 2000 + 10 + 1


def test_semg_missing_variable_lists_what_the_file_holds(tmp_path):
    path = semg_zip(tmp_path / "semg.zip", drop="palm_ch1")
    with pytest.raises(ValueError, match=r"dataset 'semg': member sEMG/Database 2/male_day_1.mat "
                       r"of semg.zip has no variable 'palm_ch1' \(it holds: cyl_ch1, cyl_ch2, "
                       r"hook_ch1, .*palm_ch2, spher_ch1"):  # fmt: skip
        load_dataset(small("semg", n_samples=36, n_features=5), path)


def test_semg_without_database_2(tmp_path):
    path = write_zip(tmp_path / "semg.zip", {"Database 1/female_1.mat": mat_bytes({"a": 1})})
    msg = r"semg.zip has no member matching 'Database 2/male_day_\*.mat' \(1 files: Database 1/"
    with pytest.raises(ValueError, match=msg):
        load_dataset(REGISTRY["semg"], path)


def test_semg_matrices_of_different_widths_and_registry_shape(tmp_path):
    path = semg_zip(tmp_path / "semg.zip")
    with pytest.raises(ValueError, match=r"shape mismatch \(expected 1800 x 2500, found 36 x 5\)"):
        load_dataset(REGISTRY["semg"], path)
    bad = {f"{g}_ch1": np.zeros((2, 5 if g != "tip" else 4)) for g in GRASPS}
    write_zip(path, {"Database 2/male_day_1.mat": mat_bytes(bad)})
    with pytest.raises(ValueError, match=r"variable 'tip_ch1' of Database 2/male_day_1.mat has 4 "
                       r"columns, the first one read has 5"):  # fmt: skip
        load_dataset(small("semg", n_samples=12, n_features=5), path)
    write_zip(path, {"Database 2/male_day_1.mat": b"not a mat file"})
    with pytest.raises(ValueError, match=r"cannot read member Database 2/male_day_1.mat of "
                       r"semg.zip as a .mat file"):  # fmt: skip
        load_dataset(small("semg", n_samples=12, n_features=5), path)


# -- registry entries and their options -----------------------------------------------------


def test_registered_shapes_urls_and_labels():
    ct = "/206/relative+location+of+ct+slices+on+axial+axis.zip"
    shapes = {
        "mediamill": (30993, 120, 101, "svmlight", "/multilabel/mediamill/train-exp1.svm.bz2"),
        "ct_slices": (53500, 384, None, "csv", ct),
        "ct_slices_paper_like": (53500, 386, None, "csv", ct),
        "semg": (1800, 2500, 6, "mat_zip", "/313/semg+for+basic+hand+movements.zip"),
    }  # fmt: skip
    for name, (n, d, c, fmt, url) in shapes.items():
        entry = REGISTRY[name]
        assert (entry.n_samples, entry.n_features, entry.n_classes, entry.format) == (n, d, c, fmt)
        assert entry.url.endswith(url) and entry.sha256 is None and "from memory" in entry.notes
        assert entry.used_by == ("POCSS",)
    assert REGISTRY["mediamill"].multilabel and not REGISTRY["semg"].multilabel
    assert REGISTRY["semg"].options["channel"] == 1
    assert REGISTRY["semg"].options["classes"] == GRASPS


def test_kmeans_plan_refuses_the_sets_without_one_label_per_sample():
    config = {"datasets": ["semg", "mediamill"], "methods": {"allfea": {}}}
    with pytest.raises(ValueError, match="dataset 'mediamill' is multilabel"):
        Plan(validated(config), REGISTRY)
    with pytest.raises(ValueError, match="dataset 'ct_slices' is unlabelled"):
        Plan(validated({**config, "datasets": ["ct_slices"]}), REGISTRY)
    assert Plan(validated({**config, "datasets": ["semg"]}), REGISTRY).n_clusters("semg") == 6


@pytest.mark.parametrize(
    "name, options, msg",
    [
        ("mediamill", {"multilabel": "yes"}, "options.multilabel must be true or false"),
        ("mediamill", {"label_column": 0}, "unknown option 'label_column' for format 'svmlight'"),
        ("ct_slices", {"member": ""}, "options.member must be a glob pattern"),
        ("semg", {"classes": GRASPS}, "format 'mat_zip' needs options.member_glob"),
        ("semg", {"member_glob": "*.mat"}, "format 'mat_zip' needs options.classes"),
        ("semg", {"member_glob": "*.mat", "classes": ["a"]}, "at least 2 distinct class names"),
        ("semg", {"member_glob": "*.mat", "classes": ["a", "a"]}, "at least 2 distinct"),
        ("semg", {"member_glob": "*.mat", "classes": GRASPS, "channel": 0}, "positive integer"),
        (
            "semg",
            {"member_glob": "*.mat", "classes": GRASPS, "variable": "{grasp}_ch{channel}"},
            "options.variable '{grasp}_ch{channel}' must be a template with the fields",
        ),
        (
            "semg",
            {"member_glob": "*.mat", "classes": GRASPS, "variable": "emg_ch{channel}"},
            "gives every class the same name",
        ),
        (
            "semg",
            {"member_glob": "*.mat", "classes": GRASPS, "chanel": 2},
            "unknown option 'chanel'",
        ),
    ],
)
def test_registry_rejects_bad_options_of_the_new_formats(tmp_path, name, options, msg):
    spec = yaml.safe_load((ROOT / "config/datasets.yaml").read_text())["datasets"][name]
    spec["options"] = options
    path = tmp_path / "datasets.yaml"
    path.write_text(yaml.safe_dump({"datasets": {name: spec}}))
    with pytest.raises(ValueError, match=re.escape(f"dataset {name!r}: ") + ".*" + re.escape(msg)):
        load_registry(path)


# -- skipping and the CSS tables ------------------------------------------------------------


def test_offline_skip_messages_name_the_public_url(tmp_path, capsys):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    reasons = unavailable_datasets(
        [*POCSS_NEW, "wine"], REGISTRY, mirror, raw_root=tmp_path / "raw", probe=False
    )
    assert list(reasons) == list(POCSS_NEW)
    for name in POCSS_NEW:
        entry = REGISTRY[name]
        assert reasons[name] == (
            f"dataset {name!r}: file {entry.file} not in the mirror {mirror}; download it from "
            f"{entry.url} into the mirror or under data/raw/{name}/"
        )
    assert capsys.readouterr().err.count("ufsbench: skipping dataset") == 3
    # without a mirror, and when the URL cannot be reached (a port nothing listens on)
    closed = replace(REGISTRY["semg"], url="http://127.0.0.1:9/semg.zip")
    reason = unavailable_reason(closed, None, timeout=2)
    assert reason.startswith("dataset 'semg': file semg+for+basic+hand+movements.zip no mirror")
    assert "http://127.0.0.1:9/semg.zip cannot be reached" in reason


def test_a_file_dropped_under_data_raw_or_in_the_mirror_is_used(tmp_path):
    raw = tmp_path / "raw" / "semg" / REGISTRY["semg"].file
    raw.parent.mkdir(parents=True)
    semg_zip(raw)
    assert unavailable_datasets(["semg"], REGISTRY, None, raw_root=tmp_path / "raw") == {}
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    multilabel_file(mirror)
    assert unavailable_reason(REGISTRY["mediamill"], None, mirror=mirror, probe=False) is None
    with pytest.warns(UserWarning, match="no sha256 registered"):
        out = fetch(REGISTRY["mediamill"], tmp_path / "out" / "train-exp1.svm.bz2", mirror=mirror)
    assert out.read_bytes() == (mirror / "train-exp1.svm.bz2").read_bytes()


def pocss_config():
    return yaml.safe_load((ROOT / "config/experiments/pocss.yaml").read_text())


def test_pocss_config_lists_every_paper_dataset_and_no_hand_written_skips():
    config = pocss_config()
    css = config["css"]
    reference = load_reference(ROOT / css["reference"])
    assert css["datasets"] == list(dict.fromkeys(reference["dataset"]))  # the paper's order
    assert set(POCSS_NEW) <= set(css["datasets"]) and "skipped" not in css
    assert "mediamill" in css["curves"]["datasets"]
    assert {"ct_slices", "semg"} <= set(css["anytime"])
    assert config["unavailable"] == "skip"
    paper_names = dict(zip(reference["dataset"], reference["paper_name"], strict=False))
    assert [paper_names[n] for n in POCSS_NEW] == ["mediamill", "Rl CTs", "s EMG"]


def css_validated(css):
    """A config with this css section, validated (schema defaults filled in)."""
    return validated({"datasets": ["wine"], "methods": {"allfea": {}}, "css": css})


def test_css_plan_skip_leaves_the_datasets_out_everywhere():
    css = pocss_config()["css"]
    plan = CssPlan(css_validated(css), REGISTRY)
    why = {n: f"dataset {n!r}: cannot be had" for n in POCSS_NEW}
    plan.skip({**why, "wine": "not in this plan"})
    assert plan.skipped == why
    assert not set(POCSS_NEW) & {job.dataset for job in plan.jobs()}
    assert plan.curve_datasets == ["musk", "dna", "scene"]
    assert plan.anytime == ["dna", "madelon"]
    assert "sonar_scale" in plan.datasets
    tiny_css = {"datasets": ["semg"], "methods": {"pocss": {}}}
    tiny = CssPlan(css_validated(tiny_css), REGISTRY)
    with pytest.raises(ValueError, match=r"config 'css': none of the datasets can be had"):
        tiny.skip({"semg": "offline"})


def test_skipped_paper_datasets_are_reported_with_the_registry_reason(tmp_path):
    reasons = unavailable_datasets(POCSS_NEW, REGISTRY, tmp_path, probe=False)
    reference = load_reference(ROOT / "resources/reference/pocss_table1.tsv")
    summary = pd.DataFrame(
        {"dataset": "dna", "method": ["greedy_css", "pocss"], "k": 50,
         "mean": [1.30, 1.29], "std": [np.nan, 0.001], "n_runs": [1, 10]}
    )  # fmt: skip
    comparison = table.paper_comparison(summary, reference)
    out = table.comparison_with_skipped(comparison, reference, reasons)
    for name in POCSS_NEW:
        rows = out[out["dataset"] == name]
        assert len(rows) == 6 and rows["paper_mean"].notna().all()
        assert (rows["note"] == f"not run: {reasons[name]}").all()
        assert rows["note"].str.contains(REGISTRY[name].url, regex=False).all()
    text = table.render_not_run(reasons)
    assert text.startswith("## Not run\n\n- mediamill: dataset 'mediamill': file train-exp1")
    assert text.count("\n- ") == 3 and table.render_not_run({}) == ""
