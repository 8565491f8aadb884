"""Every method the workflow knows, discovered from the modules that declare them.

A method module in this package (any ``<module>.py`` not starting with ``_`` that defines
``METHODS``) exposes

    select(X, *, graph, n_clusters, random_state, feature_counts, **hyper) -> Selection

and, beside it, ``METHODS``: its registry entries as :class:`.params.Declaration` (title,
hyper-parameter constraints, default grid, graph needs, references; a variant binds fixed
options of the same ``select``). Defaults are those of ``select``'s keywords. Parameters
named in ``GRAPH_PARAMS`` describe the sample graph and are used to build it; the module
receives the finished graph and the remaining hyper-parameters.

``REGISTRY`` is built on first use (module ``__getattr__``): building it imports every
method module, and with them SciPy's and scikit-learn's submodules (about half a CPU
second). :func:`get_method` before that imports only the module that declares the name
(by the naming convention below; anything else falls back to the whole registry), so a
workflow job pays the imports of its own method only. The entry is the same either way;
the duplicate-name check is the whole registry's (the tests build it).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from .params import MethodSpec

# Modules of this package that are not methods.
_NOT_METHODS = {"base", "catalogue", "external", "params", "registry"}


def _method_modules() -> list[str]:
    """The names of this package's method modules, sorted."""
    names = []
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if not (info.name.startswith("_") or info.name in _NOT_METHODS or info.ispkg):
            names.append(info.name)
    return sorted(names)


def _declared_in(module_name: str) -> dict[str, MethodSpec]:
    """The entries one method module declares, by name."""
    module = importlib.import_module(f"{__package__}.{module_name}")
    return {
        name: MethodSpec.declared(name, module_name, declaration, module.select)
        for name, declaration in getattr(module, "METHODS", {}).items()
    }


def discover() -> dict[str, MethodSpec]:
    """The entries declared by every method module of this package, by name."""
    registry: dict[str, MethodSpec] = {}
    for module_name in _method_modules():
        for name, spec in _declared_in(module_name).items():
            if name in registry:
                raise RuntimeError(f"method {name!r} is declared twice")
            registry[name] = spec
    return registry


def __getattr__(name: str):
    if name == "REGISTRY":
        registry = discover()
        globals()["REGISTRY"] = registry  # built once; later reads skip this hook
        return registry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _likely_modules(name: str) -> list[str]:
    """Method modules that by convention declare ``name``: ``name`` itself, a prefix of a
    variant (``lsdcl`` for ``lsdcl_m1``) or an extension of it (``random_subset``)."""
    return [
        module
        for module in _method_modules()
        if module == name or name.startswith(f"{module}_") or module.startswith(f"{name}_")
    ]


def builtin_method(name: str) -> MethodSpec | None:
    """The spec of the built-in method ``name``, or None. Before the registry is built,
    only the module that declares ``name`` by convention is imported; a name it does not
    declare builds the whole registry (an unconventional module may declare it)."""
    registry = globals().get("REGISTRY")
    if registry is None:
        for module_name in _likely_modules(name):
            spec = _declared_in(module_name).get(name)
            if spec is not None:
                return spec
        registry = __getattr__("REGISTRY")
    return registry.get(name)


def get_method(name) -> MethodSpec:
    """The spec of a registered method by name; any other method (a spec, a callable, a
    ``"module:function"`` path, an installed entry point's name) is resolved by
    :func:`.external.resolve_method`, which says what is wrong with it. A built-in name
    imports only the module that declares it (the full registry is built on demand)."""
    if isinstance(name, str):
        spec = builtin_method(name)
        if spec is not None:
            return spec
    from .external import resolve_method

    return resolve_method(name)
