"""The SRSG datasets not in the mirror: COIL-100 (PNG archive), CMU PIE (68 subjects) and the
gated Multi-PIE sessions: conversion, labels, subset sizes, skip messages, bad files.

No test downloads anything: the archives are built here, and URLs are only read."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import yaml
from PIL import Image
from scipy.io import savemat
from snakemake_cli import ROOT, needs_snakemake, run_snakemake, write_config

from ufsbench import images
from ufsbench.clustering import compare_with_paper, paper_table_markdown
from ufsbench.data import load_dataset
from ufsbench.datasets import fetch, find_in_mirror, load_registry, unavailable_reason
from ufsbench.plan import unavailable_datasets
from ufsbench.reference import load_reference

REGISTRY = load_registry()
REFERENCE = ROOT / "resources" / "reference" / "srsg_paper.tsv"
GATED = ["mpie_s1", "mpie_s2", "mpie_s3", "mpie_s4"]


def png(pixels: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def coil_like_zip(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def small_coil(n_samples, n_classes, size=(2, 2)):
    """The registered coil100 entry (its pattern and transform) at a test-sized shape."""
    entry = REGISTRY["coil100"]
    options = {**entry.options, "image_params": {**entry.options["image_params"], "size": size}}
    return replace(
        entry,
        n_samples=n_samples,
        n_features=size[0] * size[1],
        n_classes=n_classes,
        feature_counts=(1,),
        options=options,
    )


# -- the conversion -----------------------------------------------------------------------


def test_grey_resize_is_the_block_mean_of_the_luma():
    rng = np.random.default_rng(0)
    rgb = rng.random((8, 12, 3))
    out = images.grey_resize(rgb, size=[2, 3])
    luma = rgb @ np.array([0.299, 0.587, 0.114])
    expected = luma.reshape(2, 4, 3, 4).mean(axis=(1, 3))
    np.testing.assert_allclose(out, expected, atol=1e-6)  # float32 inside Pillow
    # other weights (here: the red channel only) and other filters are honoured
    red = images.grey_resize(rgb, size=[2, 3], weights=[1, 0, 0])
    np.testing.assert_allclose(red, rgb[..., 0].reshape(2, 4, 3, 4).mean(axis=(1, 3)), atol=1e-6)
    assert not np.allclose(images.grey_resize(rgb, size=[2, 3], resample="bicubic"), expected)
    # a grey image of the target size is returned as it is
    np.testing.assert_array_equal(images.grey_resize(luma, size=[8, 12]), luma)


def test_decode_scales_8_bit_colour_and_grey_to_unit_range():
    rgb = np.zeros((4, 4, 3), dtype=np.uint8)
    rgb[..., 1] = 255
    np.testing.assert_array_equal(images.decode(png(rgb)), rgb / 255.0)
    grey = np.full((4, 4), 51, dtype=np.uint8)
    np.testing.assert_allclose(images.decode(png(grey)), 0.2)
    with pytest.raises(ValueError, match="not a readable image"):
        images.decode(b"not a png")


def test_image_zip_gives_grey_rows_in_label_then_pose_order(tmp_path):
    # 3 objects (1, 2, 10) x 2 poses; numeric order: obj2 before obj10, pose 5 before 10
    colours = {}
    members = {"coil-100/convertGroupppm2png.pl": b"#!/usr/bin/perl\n"}
    for label in (10, 2, 1):
        for pose in (10, 5):
            rgb = np.zeros((8, 8, 3), dtype=np.uint8)
            rgb[:4, :, 0] = 10 * label  # top half red, bottom half green
            rgb[4:, :, 1] = pose
            colours[(label, pose)] = rgb
            members[f"coil-100/obj{label}__{pose}.png"] = png(rgb)
    path = coil_like_zip(tmp_path / "coil-100.zip", members)
    X, y, info = load_dataset(small_coil(6, 3), path)
    order = [(1, 5), (1, 10), (2, 5), (2, 10), (10, 5), (10, 10)]
    assert info["classes"] == [1, 2, 10]
    np.testing.assert_array_equal(y, [0, 0, 1, 1, 2, 2])
    for row, key in zip(X, order, strict=True):
        label, pose = key
        top, bottom = 0.299 * 10 * label / 255, 0.587 * pose / 255
        np.testing.assert_allclose(row, [top, top, bottom, bottom], atol=1e-6)
    assert info["image_transform"]["name"] == "grey_resize"


@pytest.mark.parametrize(
    "member, parsed",
    [
        ("coil-100/obj1__0.png", (1, 0)),
        ("obj100__355.png", (100, 355)),
        ("coil-100/obj37__120.png", (37, 120)),
        ("coil-100/obj1__0.ppm", None),
        ("coil-100/convertGroupppm2png.pl", None),
        ("coil-100/xobj1__0.png", None),
    ],
)
def test_coil100_member_names_give_label_and_pose(member, parsed):
    pattern = re.compile(REGISTRY["coil100"].options["member_pattern"])
    match = pattern.fullmatch(member.rsplit("/", 1)[-1])
    assert (None if match is None else (int(match["label"]), int(match["order"]))) == parsed


def test_first_classes_of_an_image_archive(tmp_path):
    members = {
        f"coil-100/obj{label}__{pose}.png": png(np.full((4, 4, 3), label * 20, dtype=np.uint8))
        for label in (1, 2, 3)
        for pose in (0, 5, 10, 15)
    }
    path = coil_like_zip(tmp_path / "coil-100.zip", members)
    base = small_coil(12, 3)
    subset = replace(
        REGISTRY["coil100_c20"],
        n_samples=8,
        n_features=4,
        n_classes=2,
        params={"n_classes": 2},
        parent=base,
    )
    X, y, info = load_dataset(subset, path)
    assert X.shape == (8, 4) and info["classes"] == [1, 2] and info["first_classes"] == 2
    np.testing.assert_allclose(X[:, 0], np.repeat([20, 40], 4) / 255, atol=1e-6)


# -- archives and .mat files without the expected content ---------------------------------


def test_image_zip_without_matching_members(tmp_path):
    path = coil_like_zip(tmp_path / "coil-100.zip", {"coil-100/obj1_0.jpg": b"x"})
    with pytest.raises(ValueError, match=r"coil-100.zip has no member whose name matches .*"
                       r"\(1 files: coil-100/obj1_0.jpg\)"):  # fmt: skip
        load_dataset(REGISTRY["coil100"], path)


def test_image_zip_labels_must_be_integers(tmp_path):
    path = coil_like_zip(tmp_path / "coil-100.zip", {"objA__0.png": b"x"})
    entry = small_coil(1, 2)
    entry = replace(entry, options={**entry.options, "member_pattern": r"obj(?P<label>\w)__0\.png"})
    with pytest.raises(ValueError, match="member objA__0.png of coil-100.zip: the groups 'label'"):
        load_dataset(entry, path)


def test_image_zip_that_is_not_a_zip(tmp_path):
    path = tmp_path / "coil-100.zip"
    path.write_bytes(b"<html>moved</html>")
    with pytest.raises(ValueError, match="dataset 'coil100': cannot read coil-100.zip as a zip"):
        load_dataset(REGISTRY["coil100"], path)


def test_image_zip_with_an_unreadable_member(tmp_path):
    good = png(np.zeros((8, 8, 3), dtype=np.uint8))
    members = {"coil-100/obj1__0.png": good, "coil-100/obj1__5.png": b"truncated"}
    path = coil_like_zip(tmp_path / "coil-100.zip", members)
    with pytest.raises(
        ValueError, match=r"member coil-100/obj1__5.png of coil-100.zip: not a readable image"
    ):
        load_dataset(small_coil(2, 2), path)


def test_image_zip_with_too_few_images_fails_the_registry_check(tmp_path):
    members = {f"obj{k}__0.png": png(np.zeros((128, 128, 3), np.uint8)) for k in (1, 2)}
    path = coil_like_zip(tmp_path / "coil-100.zip", members)
    with pytest.raises(ValueError, match=r"dataset 'coil100': shape mismatch "
                       r"\(expected 7200 x 1024, found 2 x 1024\)"):  # fmt: skip
        load_dataset(REGISTRY["coil100"], path)


def test_pie_mat_without_fea_and_gnd(tmp_path):
    path = tmp_path / "PIE_32x32.mat"
    savemat(path, {"X": np.zeros((4, 1024)), "Y": np.ones((4, 1))})
    with pytest.raises(ValueError, match=r"dataset 'cmupie': .mat file has no variable 'fea' "
                       r"\(found: X, Y\)"):  # fmt: skip
        load_dataset(REGISTRY["cmupie"], path)


def test_pie_mat_with_another_shape(tmp_path):
    path = tmp_path / "PIE_32x32.mat"
    savemat(path, {"fea": np.zeros((68, 1024), np.uint8), "gnd": np.arange(1, 69)[:, None]})
    with pytest.raises(ValueError, match=r"shape mismatch \(expected 11554 x 1024, found 68 x"):
        load_dataset(REGISTRY["cmupie"], path)


def test_gated_file_prepared_with_the_wrong_subjects(tmp_path):
    path = tmp_path / "mpie_s2.mat"
    X = np.zeros((4060, 1024), np.uint8)
    savemat(path, {"X": X, "Y": (np.arange(4060) % 200 + 1)[:, None]})
    with pytest.raises(ValueError, match=r"dataset 'mpie_s2': class count mismatch "
                       r"\(expected 203, found 200\)"):  # fmt: skip
        load_dataset(REGISTRY["mpie_s2"], path)


# -- registry entries and subset sizes ----------------------------------------------------


def test_registered_shapes_and_subset_sizes():
    coil = REGISTRY["coil100"]
    assert (coil.n_samples, coil.n_features, coil.n_classes) == (7200, 1024, 100)
    assert coil.format == "image_zip" and coil.url.endswith("/coil-100/coil-100.zip")
    assert coil.options["image_params"] == {
        "size": [32, 32],
        "weights": [0.299, 0.587, 0.114],
        "resample": "box",
    }
    for c in (20, 40, 60, 80):
        sub = REGISTRY[f"coil100_c{c}"]
        assert (sub.base, sub.n_samples, sub.n_classes, sub.params) == (
            "coil100",
            72 * c,
            c,
            {"n_classes": c},
        )
    pie = REGISTRY["cmupie"]
    assert (pie.n_samples, pie.n_features, pie.n_classes) == (11554, 1024, 68)
    assert pie.options == {"x_variable": "fea", "y_variable": "gnd"}
    assert pie.url.endswith("/PIE/PIE_32x32.mat") and pie.sha256 is None
    assert REGISTRY["cmupie_c20"].n_samples == 3400 and REGISTRY["cmupie_c40"].n_classes == 40
    # the BLUFS 53-subject subset keeps its name and file
    assert (REGISTRY["pie"].n_samples, REGISTRY["pie"].file) == (1166, "pie.mat")
    for name, subjects in zip(GATED, (249, 203, 230, 239), strict=True):
        entry = REGISTRY[name]
        assert entry.url is None and entry.sha256 is None and "licensed" in entry.access
        assert (entry.n_samples, entry.n_classes) == (20 * subjects, subjects)


def test_every_srsg_paper_row_is_registered_and_configured():
    reference = load_reference(REFERENCE)
    assert set(reference["dataset"]) <= set(REGISTRY)
    config = yaml.safe_load((ROOT / "config/experiments/srsg.yaml").read_text())
    assert set(config["clustering"]["datasets"]) == set(reference["dataset"])


@pytest.mark.parametrize(
    "change, msg",
    [
        ({"url": None}, "url is null (a gated file), so 'access' must say how to obtain it"),
        ({"options": {"image_transform": "grey_resize"}}, "needs options.member_pattern"),
        (
            {"options": {"member_pattern": r"obj(\d+)", "image_transform": "grey_resize"}},
            "member_pattern must have a named group 'label'",
        ),
        (
            {"options": {"member_pattern": "(?P<label>", "image_transform": "grey_resize"}},
            "is not a regular expression",
        ),
        (
            {"options": {"member_pattern": "(?P<label>\\d)", "image_transform": "sepia"}},
            "unknown image_transform 'sepia' (known: grey_resize)",
        ),
        (
            {
                "options": {
                    "member_pattern": "(?P<label>\\d)",
                    "image_transform": "grey_resize",
                    "image_params": {"size": [32, 32], "resample": "nearest"},
                }
            },
            "unknown image_params.resample 'nearest'",
        ),
        (
            {
                "options": {
                    "member_pattern": "(?P<label>\\d)",
                    "image_transform": "grey_resize",
                    "image_params": {"size": [32]},
                }
            },
            "image_params.size must be [height, width]",
        ),
        (
            {
                "options": {
                    "member_pattern": "(?P<label>\\d)",
                    "image_transform": "grey_resize",
                    "image_params": {},
                }
            },
            "image_params of grey_resize needs size",
        ),
    ],
)
def test_registry_rejects_bad_image_and_gated_entries(tmp_path, change, msg):
    spec = yaml.safe_load((ROOT / "config/datasets.yaml").read_text())["datasets"]["coil100"]
    spec.update(change)
    path = tmp_path / "datasets.yaml"
    path.write_text(yaml.safe_dump({"datasets": {"coil100": spec}}))
    with pytest.raises(ValueError, match=re.escape(msg)):
        load_registry(path)


# -- skipping -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", GATED)
def test_gated_dataset_skip_message_says_why_and_where(tmp_path, name, capsys):
    empty = tmp_path / "mirror"
    empty.mkdir()
    reason = unavailable_reason(REGISTRY[name], tmp_path / "raw.mat", mirror=empty)
    assert reason.startswith(f"dataset {name!r}: file {name}.mat not in the mirror {empty}")
    assert "has no public URL: CMU Multi-PIE is licensed" in reason
    assert "http://www.cs.cmu.edu/afs/cs/project/PIE/MultiPie/Multi-Pie/Home.html" in reason
    assert f"Put the prepared file there as {name}.mat or under data/raw/{name}/" in reason
    # probing changes nothing: there is no URL to try
    assert unavailable_reason(REGISTRY[name], None, mirror=empty, probe=False) == reason
    assert unavailable_datasets([name], REGISTRY, empty, raw_root=tmp_path) == {name: reason}
    assert capsys.readouterr().err == f"ufsbench: skipping {reason}\n"
    with pytest.raises(FileNotFoundError, match="has no public URL"):
        fetch(REGISTRY[name], tmp_path / "out" / f"{name}.mat", mirror=empty)


def test_gated_dataset_placed_in_the_mirror_is_used(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    savemat(mirror / "mpie_s1.mat", {"X": np.zeros((2, 2)), "Y": np.ones((2, 1))})
    assert unavailable_reason(REGISTRY["mpie_s1"], None, mirror=mirror) is None
    assert find_in_mirror(REGISTRY["mpie_s1"], mirror) == mirror / "mpie_s1.mat"
    with pytest.warns(UserWarning, match="no sha256 registered"):
        out = fetch(REGISTRY["mpie_s1"], tmp_path / "raw" / "mpie_s1.mat", mirror=mirror)
    assert out.read_bytes() == (mirror / "mpie_s1.mat").read_bytes()


@pytest.mark.parametrize(
    "name, file, url",
    [
        ("coil100_c40", "coil-100.zip (of 'coil100')", REGISTRY["coil100"].url),
        ("coil100", "coil-100.zip", REGISTRY["coil100"].url),
        ("cmupie_c20", "PIE_32x32.mat (of 'cmupie')", REGISTRY["cmupie"].url),
    ],
)
def test_public_dataset_skip_message_offline(tmp_path, name, file, url):
    reason = unavailable_reason(REGISTRY[name], None, mirror=tmp_path, probe=False)
    base = REGISTRY[name].file_entry.name
    assert reason == (
        f"dataset {name!r}: file {file} not in the mirror {tmp_path}; download it from "
        f"{url} into the mirror or under data/raw/{base}/"
    )


def test_vs_paper_lists_skipped_datasets_as_not_run():
    summary = pd.DataFrame(
        [
            {
                "dataset": "heart",
                "method": "km",
                "setting": "default",
                "protocol": "fixed",
                **{f"{m}_{s}": 0.5 for m in ("acc", "nmi_max") for s in ("mean", "std", "seed0")},
            }
        ]
    )
    reference = load_reference(REFERENCE)
    skipped = {"mpie_s1": "dataset 'mpie_s1': file mpie_s1.mat not in the mirror m, and ..."}
    comparison = compare_with_paper(summary, reference, skipped)
    assert len(comparison) == len(reference)
    ran = comparison[comparison["status"] == "run"]
    assert set(zip(ran["dataset"], ran["method"], strict=True)) == {("heart", "km")}
    mpie = comparison[comparison["dataset"] == "mpie_s1"]
    assert len(mpie) == 12 and (mpie["status"] == "not run").all() and mpie["ours"].isna().all()
    assert (mpie["note"] == f"skipped: {skipped['mpie_s1']}").all()
    coil = comparison[comparison["dataset"] == "coil100_c20"]
    assert (coil["note"] == "not in this run's clustering datasets or methods").all()
    table2 = paper_table_markdown(comparison, "2")
    assert "No dataset of this table was run." in table2
    assert f"- MPIE S1: skipped: {skipped['mpie_s1']}" in table2
    assert "| Heart | AC | 0.5000 (" in paper_table_markdown(comparison, "3")


# -- end to end: the real CLI -------------------------------------------------------------


@pytest.mark.slow
@needs_snakemake
def test_srsg_run_skips_absent_and_gated_sets_and_runs_a_prepared_gated_file(tmp_path):
    """mpie_s1 is placed in the mirror (a small stand-in registered at its size), mpie_s2
    and coil100_c20 are absent: the run skips those two with their reason, clusters
    mpie_s1 and reports the skipped ones as not run."""
    doc = yaml.safe_load((ROOT / "config/datasets.yaml").read_text())
    doc["datasets"]["mpie_s1"].update(
        n_samples=40, n_features=16, n_classes=4, feature_counts=[5, 10, 15]
    )
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump(doc))
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(1, 5), 10)
    X = rng.normal(size=(40, 16)) + 6.0 * np.eye(4)[labels - 1] @ rng.normal(size=(4, 16))
    savemat(mirror / "mpie_s1.mat", {"X": X, "Y": labels[:, None]})
    config = {
        "mirror": str(mirror),
        "dataset_registry": str(registry),
        "datasets": ["iris"],
        "methods": {"allfea": {}},
        "tasks": ["clustering"],
        "clustering": {
            "datasets": ["mpie_s1", "mpie_s2", "coil100_c20"],
            "methods": {"km": {}},
            "seeds": 2,
        },
    }
    write_config(tmp_path, config)
    result = run_snakemake(tmp_path, "--cores", "2")
    lines = [line for line in result.stderr.splitlines() if "skipping" in line]
    assert len(lines) == 2
    assert lines[0].startswith("ufsbench: skipping dataset 'mpie_s2': file mpie_s2.mat")
    assert "no public URL: CMU Multi-PIE is licensed" in lines[0]
    assert lines[1].startswith("ufsbench: skipping dataset 'coil100_c20': file coil-100.zip")
    versus = pd.read_csv(tmp_path / "results/default/tables/srsg_vs_paper.tsv", sep="\t")
    mpie = versus[versus["dataset"] == "mpie_s1"]
    ran = mpie[mpie["status"] == "run"]
    assert set(ran["method"]) == {"km"} and len(ran) == 2 and ran["ours"].between(0, 1).all()
    other = mpie[mpie["method"] != "km"]
    assert (other["note"] == "not in this run's clustering datasets or methods").all()
    for name in ("mpie_s2", "coil100_c20"):
        rows = versus[versus["dataset"] == name]
        assert (rows["status"] == "not run").all() and rows["ours"].isna().all()
        assert rows["note"].str.startswith(f"skipped: dataset '{name}': file ").all()
    table1 = (tmp_path / "results/default/tables/srsg_table1.md").read_text()
    assert "No dataset of this table was run." in table1 and "- coil100 c=20: skipped:" in table1
    assert "| MPIE S1 | AC |" in (tmp_path / "results/default/tables/srsg_table2.md").read_text()


def test_large_srsg_sets_request_memory_and_time_for_their_dense_matrices():
    from ufsbench import resources

    pie = REGISTRY["cmupie"]
    gram_mb = pie.n_samples**2 * 8 / 1e6  # 1068 MB (srsg.md §10)
    assert resources.cluster_mem_mb(pie.n_samples, pie.n_features) > 5 * gram_mb
    assert resources.cluster_runtime(pie.n_samples) >= 4 * 60  # l1 initialisation ~1 h
    assert resources.cluster_runtime(REGISTRY["coil100"].n_samples) >= 60
    assert resources.cluster_runtime(REGISTRY["heart"].n_samples) <= 31
