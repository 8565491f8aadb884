"""Iter FS (Ordozgoiti, Canaval & Mozo 2016) as a feature selector.

Local search from a random ``m``-subset, replacing one position at a time by the column
that lowers ``f`` most. Numerics: :func:`ufsbench.css.baselines.iter_fs`.
"""

from __future__ import annotations

from ._css_selector import css_selection
from .params import COLUMNS, CSS_SCALE, SEED, Declaration, Param


def select(
    X, *, graph=None, n_clusters=None, random_state=0, feature_counts=None, k=None,
    scale="unit_column", seed=0, max_sweeps=100,
):  # fmt: skip
    """``subsets[m]`` per feature count; ``seed`` is a grid of repeats."""
    return css_selection(
        "iter_fs", X, random_state=random_state, feature_counts=feature_counts, k=k,
        scale=scale, seed=seed, max_sweeps=max_sweeps,
    )  # fmt: skip


METHODS = {
    "iter_fs": Declaration(
        title="Iter FS",
        params={
            "k": COLUMNS,
            "scale": CSS_SCALE,
            "seed": SEED,
            "max_sweeps": Param(int, low=1),
        },
        grid={
            "seed": [0],
        },
        count_dependent=True,
        references=(
            (
                "B. Ordozgoiti, S. G. Canaval, A. Mozo. A Fast Iterative Algorithm for Improved "
                "Unsupervised Feature Selection. ICDM 2016."
            ),
            "Implementation spec: shared/specs/pocss.md, section 3.2.",
        ),
    ),
}
