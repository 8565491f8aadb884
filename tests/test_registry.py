"""The registry is discovered from the method modules; defaults come from select() alone."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import ufsbench.methods as methods_package
from ufsbench import REGISTRY
from ufsbench.graph import knn_graph
from ufsbench.methods.params import GRAPH_PARAMS, Declaration, MethodSpec, Param
from ufsbench.plan import expand_grid

METHODS = sorted(REGISTRY)


def _select(spec):
    return importlib.import_module(f"ufsbench.methods.{spec.module}").select


@pytest.mark.parametrize("name", METHODS)
def test_defaults_are_the_select_signature_defaults(name):
    spec = REGISTRY[name]
    signature = inspect.signature(_select(spec)).parameters
    graph = inspect.signature(knn_graph).parameters
    assert list(spec.defaults) == list(spec.params)
    for key, value in spec.defaults.items():
        source = signature if key in signature else graph
        assert key in signature or key in GRAPH_PARAMS
        expected = source[key].default
        assert value == expected and type(value) is type(expected), key


@pytest.mark.parametrize("name", METHODS)
def test_bound_options_are_keywords_of_select_and_not_parameters(name):
    spec = REGISTRY[name]
    signature = inspect.signature(_select(spec)).parameters
    for key in spec.bind:
        assert key in signature and key not in spec.params
    if "method" in signature:
        assert spec.bind["method"] == name


@pytest.mark.parametrize("name", METHODS)
def test_defaults_and_every_grid_value_satisfy_the_constraints(name):
    spec = REGISTRY[name]
    assert spec.check_params({}) == spec.defaults
    points = expand_grid(name, spec.grid)
    for point in points:
        for key, value in point.items():
            assert spec.params[key].check(name, key, value) == value
        spec.check_params(point)


@pytest.mark.parametrize("name", METHODS)
def test_each_entry_is_declared_by_its_module(name):
    spec = REGISTRY[name]
    module = importlib.import_module(f"ufsbench.methods.{spec.module}")
    assert name in module.METHODS


def test_every_public_module_but_the_machinery_declares_methods():
    names = [m.name for m in pkgutil.iter_modules(methods_package.__path__)]
    machinery = ("base", "catalogue", "external", "params", "registry")
    public = [n for n in names if not n.startswith("_") and n not in machinery]
    assert public and sorted({REGISTRY[n].module for n in REGISTRY}) == sorted(public)


def test_variants_bind_their_family_select():
    for family, variants in {
        "lsdcl": ("lsdcl_m1", "lsdcl_m2", "lsdcl_m3"),
        "blufs": ("blufs_case1", "blufs_case2", "blufs_case3"),
    }.items():
        for name in variants:
            assert REGISTRY[name].module == family
            assert set(REGISTRY[name].bind) - {"method"}
    assert REGISTRY["blufs_case1"].bind["alpha"] == 0.0
    assert REGISTRY["lsdcl_m1"].bind["dual"] is False


def _toy_select(X, *, graph=None, n_clusters=None, random_state=0, feature_counts=None, a=3, b="x"):
    return None


def test_declared_reads_defaults_from_the_signature():
    declaration = Declaration(
        title="Toy", params={"a": Param(int, low=0), "t": Param(float, positive=True)}
    )
    spec = MethodSpec.declared("toy", "toy", declaration, _toy_select)
    assert spec.defaults == {"a": 3, "t": inspect.signature(knn_graph).parameters["t"].default}


@pytest.mark.parametrize(
    "declaration, message",
    [
        (Declaration(title="Toy", params={"c": Param(int)}), "parameter 'c' has no default"),
        (Declaration(title="Toy", bind={"z": 1}), "cannot bind 'z'"),
        (
            Declaration(title="Toy", params={"b": Param(str)}, bind={"b": "y"}),
            "cannot bind 'b'",
        ),
    ],
)
def test_declared_rejects_inconsistent_declarations(declaration, message):
    with pytest.raises(ValueError, match=message):
        MethodSpec.declared("toy", "toy", declaration, _toy_select)
