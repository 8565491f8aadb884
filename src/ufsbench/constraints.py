"""One neutral constraint type for every named parameter ufsbench checks.

A :class:`Param` is data: a type, optional bounds or allowed options, and whether None is
allowed. Feature-selection methods (``ufsbench.methods``), column subset selection
(``ufsbench.css``) and the sparse graphs of the clustering task (``ufsbench.sparse_graph``)
check their parameters with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real


@dataclass(frozen=True)
class Param:
    """One named parameter: its type and allowed values (the constraint is data)."""

    kind: type
    low: float | None = None
    high: float | None = None
    options: tuple = ()
    positive: bool = False
    allow_none: bool = False

    def check(self, owner: str, name: str, value, *, kind: str = "method"):
        """``value`` checked (ints and floats converted); ``ValueError`` names
        ``kind owner`` (e.g. "method 'ndfs'") and the parameter."""
        if value is None and self.allow_none:
            return None
        where = f"{kind} {owner!r}: parameter {name!r}"
        if self.options:
            if value not in self.options:
                known = ", ".join(map(repr, self.options))
                raise ValueError(f"{where} must be one of {known}, got {value!r}")
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, Integral):
                raise ValueError(f"{where} must be an integer, got {value!r}")
            value = int(value)
        elif self.kind is float:
            if isinstance(value, bool) or not isinstance(value, Real):
                raise ValueError(f"{where} must be a number, got {value!r}")
            value = float(value)
        elif not isinstance(value, self.kind):
            raise ValueError(f"{where} must be a {self.kind.__name__}, got {value!r}")
        if self.positive and not value > 0:
            raise ValueError(f"{where} must be > 0, got {value!r}")
        if self.low is not None and value < self.low:
            raise ValueError(f"{where} must be >= {self.low}, got {value!r}")
        if self.high is not None and value > self.high:
            raise ValueError(f"{where} must be <= {self.high}, got {value!r}")
        return value
