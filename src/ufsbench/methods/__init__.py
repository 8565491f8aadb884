"""Unsupervised feature-selection methods: one module each, listed in the registry."""

from .base import Selection
from .params import MethodSpec
from .registry import get_method

__all__ = ["REGISTRY", "MethodSpec", "Selection", "get_method"]


def __getattr__(name):
    # The registry imports every method module: built on first use (see .registry).
    if name == "REGISTRY":
        from .registry import REGISTRY

        return REGISTRY
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
