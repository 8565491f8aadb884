"""ufsbench: unsupervised feature selection methods and the benchmark around them."""

from .api import rank_features
from .methods import Selection, get_method

__version__ = "0.1.0"

__all__ = ["REGISTRY", "Selection", "UFSSelector", "get_method", "rank_features"]


def __getattr__(name):
    # The scikit-learn wrapper and the registry (it imports every method module) are
    # imported lazily so the library loads fast in jobs.
    if name == "REGISTRY":
        from .methods.registry import REGISTRY

        return REGISTRY
    if name == "UFSSelector":
        from .selector import UFSSelector

        return UFSSelector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
