"""Every method the workflow knows, discovered from the modules that declare them.

A method module in this package (any ``<module>.py`` not starting with ``_`` that defines
``METHODS``) exposes

    select(X, *, graph, n_clusters, random_state, feature_counts, **hyper) -> Selection

and, beside it, ``METHODS``: its registry entries as :class:`.params.Declaration` (title,
hyper-parameter constraints, default grid, graph needs, references; a variant binds fixed
options of the same ``select``). Defaults are those of ``select``'s keywords. Parameters
named in ``GRAPH_PARAMS`` describe the sample graph and are used to build it; the module
receives the finished graph and the remaining hyper-parameters.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from .params import MethodSpec

# Modules of this package that are not methods.
_NOT_METHODS = {"base", "catalogue", "external", "params", "registry"}


def discover() -> dict[str, MethodSpec]:
    """The entries declared by every method module of this package, by name."""
    registry: dict[str, MethodSpec] = {}
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in _NOT_METHODS or info.ispkg:
            continue
        module = importlib.import_module(f"{__package__}.{info.name}")
        for name, declaration in getattr(module, "METHODS", {}).items():
            if name in registry:
                raise RuntimeError(f"method {name!r} is declared twice")
            registry[name] = MethodSpec.declared(name, info.name, declaration, module.select)
    return registry


REGISTRY: dict[str, MethodSpec] = discover()


def get_method(name) -> MethodSpec:
    """The spec of a registered method by name; any other method (a spec, a callable, a
    ``"module:function"`` path, an installed entry point's name) is resolved by
    :func:`.external.resolve_method`, which says what is wrong with it."""
    if isinstance(name, str) and name in REGISTRY:
        return REGISTRY[name]
    from .external import resolve_method

    return resolve_method(name)
