"""Methods from outside the package: a ``"module:function"`` path, a callable, or an entry point.

The contract (docs/own-method.md) is the one the built-in methods follow, read from the
function's signature instead of a ``METHODS`` declaration:

* the first parameter receives the data ``X`` (float64, ``n_samples x n_features``,
  finite, validated);
* the keywords ``graph``, ``n_clusters``, ``random_state`` and ``feature_counts`` are
  passed only when the function names them (``graph`` and ``n_clusters`` are then
  required: the sample graph is built for it, the class count is passed);
* every other parameter is a hyper-parameter: it must have a default (the method's
  default setting), whose type (bool, int, float, str; None for anything) is the type a
  config value must have;
* it returns a :class:`~ufsbench.Selection` or a 1-D array of feature scores (higher is
  better), checked: a permutation of the features, finite scores, one per feature.

Resolution never runs the method; it imports its module, reads the signature and hashes
the source file (:attr:`ExternalSpec.source_sha256`), so the workflow can report every
mistake before a job starts and re-run exactly the jobs of an edited method.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np

from ..constraints import Param
from ..graph import knn_graph
from . import registry
from .base import Selection
from .params import GRAPH_PARAMS, GRAPH_WEIGHT, WIDTH, Declaration, MethodSpec, signature_defaults

ENTRY_POINT_GROUP = "ufsbench.methods"
# Keywords the caller supplies (when the function names them); never hyper-parameters.
PASSED = ("graph", "n_clusters", "random_state", "feature_counts")
_KINDS = (bool, int, float, str)


@dataclass(frozen=True, kw_only=True)
class ExternalSpec(MethodSpec):
    """Registry entry of a method defined outside ufsbench.

    ``target`` is its ``"module:function"`` path, ``source_path`` the file that defines
    the function and ``source_sha256`` the digest of that file's content (it joins the
    workflow job's code hash). ``accepts`` are the :data:`PASSED` keywords it names.
    """

    target: str
    source_path: str
    source_sha256: str
    accepts: tuple[str, ...] = ()
    implementation: object = field(default=None, compare=False, repr=False)

    @property
    def function(self):
        function = self.implementation if self.implementation is not None else _load(self.target)
        return functools.partial(_call_checked, self.name, function, self.accepts)

    @property
    def source_file(self) -> str:
        return self.source_path


def _load(target: str):
    module_name, _, attribute = target.partition(":")
    obj = importlib.import_module(module_name)
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


def _call_checked(name, function, accepts, X, **kwargs) -> Selection:
    """Run ``function`` with the keywords it takes and check what it returns."""
    passed = {k: v for k, v in kwargs.items() if k not in PASSED or k in accepts}
    return check_result(name, function(X, **passed), X.shape[1])


def check_result(name: str, result, n_features: int) -> Selection:
    """``result`` (a Selection or a 1-D score array) as a checked :class:`Selection`."""
    where = f"method {name!r}"
    if not isinstance(result, Selection):
        try:
            scores = np.asarray(result, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{where} returned {type(result).__name__}; expected a ufsbench.Selection "
                f"or a 1-D array of {n_features} feature scores"
            ) from None
        if scores.shape != (n_features,):
            raise ValueError(
                f"{where} returned scores of shape {scores.shape}; expected ({n_features},), "
                f"one per feature"
            )
        if not np.all(np.isfinite(scores)):
            raise ValueError(f"{where} returned NaN or infinite feature scores")
        return Selection.from_scores(scores)
    ranking = np.asarray(result.ranking)
    if ranking.shape != (n_features,) or not np.array_equal(
        np.sort(ranking), np.arange(n_features)
    ):
        raise ValueError(
            f"{where} returned a ranking that is not a permutation of the {n_features} "
            f"feature indices 0..{n_features - 1}"
        )
    scores = np.asarray(result.scores, dtype=np.float64)
    if scores.shape != (n_features,) or not np.all(np.isfinite(scores)):
        raise ValueError(f"{where} returned scores that are not {n_features} finite numbers")
    return result


def _where(name: str, target: str) -> str:
    return f"method {name!r} (callable {target!r})"


def import_callable(name: str, target) -> tuple[object, str]:
    """The function a ``"module:function"`` path names, and the canonical path.

    Raises ``ValueError`` for a malformed path, a module that cannot be imported, a
    missing attribute or an object that is not callable.
    """
    if not isinstance(target, str) or target.count(":") != 1 or not all(target.split(":")):
        raise ValueError(
            f"method {name!r}: callable must be a 'module:function' path, got {target!r}"
        )
    module_name, attribute = target.split(":")
    try:
        obj = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(
            f"{_where(name, target)}: cannot import module {module_name!r} ({err}); install "
            f"its package or put its folder on PYTHONPATH"
        ) from None
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise ValueError(
                f"{_where(name, target)}: module {module_name!r} has no attribute {attribute!r}"
            )
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(
            f"{_where(name, target)}: {attribute!r} is a {type(obj).__name__}, not a function"
        )
    return obj, target


def _param_of(where: str, parameter: inspect.Parameter) -> Param:
    default = parameter.default
    if default is inspect.Parameter.empty:
        raise ValueError(
            f"{where}: parameter {parameter.name!r} has no default; every argument besides "
            f"X and {', '.join(PASSED)} is a hyper-parameter and needs its default value"
        )
    if default is None:
        return Param(object, allow_none=True)
    kind = next(k for k in (*_KINDS, object) if isinstance(default, k))
    return Param(kind)


def external_spec(name: str, function, target: str, *, need_source=True) -> ExternalSpec:
    """The registry entry of ``function``, read from its signature (see the module doc).

    ``need_source``: its source file must exist (the workflow hashes it); a function
    defined interactively has none, and gets an empty ``source_path``."""
    where = _where(name, target)
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: cannot read its signature ({err})") from None
    parameters = list(signature.parameters.values())
    variadic = [p.name for p in parameters if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if variadic:
        raise ValueError(
            f"{where}: takes *{variadic[0]}; name every hyper-parameter with its default"
        )
    if not parameters or parameters[0].kind not in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        raise ValueError(f"{where}: its first parameter must take the data matrix X")
    params = {}
    defaults = {}
    for parameter in parameters[1:]:
        if parameter.name in PASSED:
            continue
        if parameter.name in GRAPH_PARAMS:
            raise ValueError(
                f"{where}: parameter {parameter.name!r} is reserved for the sample graph "
                f"(it is built for methods that take 'graph'); rename it"
            )
        params[parameter.name] = _param_of(where, parameter)
        defaults[parameter.name] = parameter.default
    accepts = tuple(p.name for p in parameters[1:] if p.name in PASSED)
    graph = None
    if "graph" in accepts:
        graph = "param"
        params = {"weight": GRAPH_WEIGHT, "t": WIDTH, **params}
    if graph is not None:
        built = signature_defaults(knn_graph)
        defaults = {**{key: built[key] for key in GRAPH_PARAMS}, **defaults}
    source = inspect.getsourcefile(function) or getattr(
        inspect.getmodule(function), "__file__", None
    )
    if source is None or not Path(source).is_file():
        if need_source:
            raise ValueError(f"{where}: cannot find the source file that defines it")
        source = None
    declaration = Declaration(
        title=name,
        params=params,
        graph=graph,
        needs_n_clusters="n_clusters" in accepts,
        count_dependent="feature_counts" in accepts,
        references=(f"{target} (outside ufsbench)",),
    )
    fields = {k: getattr(declaration, k) for k in Declaration.__dataclass_fields__}
    return ExternalSpec(
        **fields,
        name=name,
        module=target.partition(":")[0],
        defaults=defaults,
        target=target,
        source_path="" if source is None else str(Path(source).resolve()),
        source_sha256=""
        if source is None
        else hashlib.sha256(Path(source).read_bytes()).hexdigest(),
        accepts=accepts,
        implementation=function,
    )


def entry_point_target(name: str) -> str | None:
    """The ``"module:function"`` an installed package registers as ``name`` (group
    ``ufsbench.methods``), or None."""
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if len(found) > 1:
        values = ", ".join(ep.value for ep in found)
        raise ValueError(f"method {name!r}: several installed entry points name it ({values})")
    return found[0].value if found else None


def resolve_method(method, *, name: str | None = None, target=None) -> MethodSpec:
    """The spec of ``method``: a built-in name, an entry-point name, a ``"module:function"``
    path or a callable. ``target`` (a config's ``callable:``) overrides the lookup by name.
    """
    if isinstance(method, MethodSpec):
        return method
    if target is None and callable(method):
        name = name or getattr(method, "__name__", "method")
        module = getattr(method, "__module__", None) or "__main__"
        path = f"{module}:{getattr(method, '__qualname__', name)}"
        return external_spec(name, method, path, need_source=False)
    if target is None and isinstance(method, str) and ":" in method:
        target = method
    name = name or (method if isinstance(method, str) else str(method))
    if target is None:
        if not isinstance(method, str):
            raise TypeError(
                f"method must be a name, a 'module:function' path or a callable, got {method!r}"
            )
        spec = registry.builtin_method(method)
        if spec is not None:
            return spec
        target = entry_point_target(method)
        if target is None:
            known = ", ".join(sorted(registry.REGISTRY))
            raise ValueError(
                f"unknown method {method!r} (known: {known}; or give 'callable: "
                f"module:function', or install a package with a {ENTRY_POINT_GROUP!r} entry "
                f"point)"
            )
    function, target = import_callable(name, target)
    return external_spec(name, function, target)
