"""ufsbench: unsupervised feature selection methods and the benchmark around them."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time, __getattr__ below
    from .api import rank_features
    from .methods.base import Selection
    from .methods.registry import REGISTRY, get_method
    from .selector import UFSSelector

__version__ = "0.1.0"

__all__ = ["REGISTRY", "Selection", "UFSSelector", "get_method", "rank_features"]


def __getattr__(name):
    # Everything is imported on first use, so that ``import ufsbench`` and a job's
    # ``from ufsbench import joblog`` load neither ``api`` (and with it SciPy's sparse
    # matrices, for graphs) nor the registry (every method module).
    if name == "rank_features":
        from .api import rank_features

        return rank_features
    if name == "Selection":
        from .methods.base import Selection

        return Selection
    if name == "get_method":
        from .methods.registry import get_method

        return get_method
    if name == "REGISTRY":
        from .methods.registry import REGISTRY

        return REGISTRY
    if name == "UFSSelector":
        from .selector import UFSSelector

        return UFSSelector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
