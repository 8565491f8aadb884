"""A workflow job imports only what it uses (issue 27, per-job overhead)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ufsbench.methods import REGISTRY, registry

# Heavy modules no selection job of a light method needs.
HEAVY = ("pandas", "sklearn", "scipy.stats", "scipy.optimize", "matplotlib", "numba")


def fresh_modules(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], env=dict(os.environ), check=True, capture_output=True
    )
    return set(json.loads(out.stdout.decode().splitlines()[-1]))


def test_select_job_imports_only_its_own_method_module():
    loaded = fresh_modules(
        "from ufsbench import joblog, rank_features\n"
        "from ufsbench.io import knn_affinity, load_data, load_graph, load_knn, save_selections\n"
        "from ufsbench.methods.registry import get_method\n"
        "get_method('lapscore').function"
    )
    methods = {m for m in loaded if m.startswith("ufsbench.methods.") and "._" not in m}
    assert methods == {
        "ufsbench.methods.base",
        "ufsbench.methods.lapscore",
        "ufsbench.methods.params",
        "ufsbench.methods.registry",
    }
    assert not {m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_lookup_by_convention_finds_the_registry_entry(name):
    modules = registry._likely_modules(name)
    found = [registry._declared_in(m)[name] for m in modules if name in registry._declared_in(m)]
    assert found == [REGISTRY[name]]


def test_public_names_still_import():
    loaded = fresh_modules("from ufsbench import REGISTRY, UFSSelector, get_method, rank_features")
    assert "ufsbench.methods.ndfs" in loaded and "ufsbench.selector" in loaded


def test_unknown_method_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown method 'nope'.*lapscore"):
        registry.get_method("nope")
