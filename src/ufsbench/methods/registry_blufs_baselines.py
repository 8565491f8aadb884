"""Registry entries of the BLUFS paper's baselines not in the spine.

RNE, SPCAFS, FSPCA, BLSFE and BLSFS (``shared/specs/blufs.md`` §4.6-4.10).

``SPECS`` is merged into ``ufsbench.methods.registry.REGISTRY``; each entry names its
module in this package (see ``registry.py`` for the module contract). Default grids are
the paper's: ``{1e-4, ..., 1e3}`` for the regularisation weights of SPCAFS and BLSFS, the
authors' defaults for every other parameter (paper §V-A).
"""

from __future__ import annotations

from .params import ITERATIONS, NON_NEGATIVE, POSITIVE, MethodSpec, Param

# The paper's tuning grid {1e-4, 1e-3, ..., 1e3}.
PAPER_GRID = [10.0**p for p in range(-4, 4)]
_NEIGHBOURS = Param(int, low=1)
_COMPONENTS = Param(int, low=1, allow_none=True)
_BLUFS_PAPER = "Compared in: J. Liu, X. Ju, X. Xiu, W. Liu. Bi-Level Unsupervised FS (BLUFS)."

SPECS: list[MethodSpec] = [
    MethodSpec(
        name="rne",
        title="RNE",
        module="rne",
        params={
            "k": _NEIGHBOURS,
            "reg": NON_NEGATIVE,
            "ortho_weight": POSITIVE,
            "mu0": POSITIVE,
            "rho": Param(float, low=1.0),
            "max_iter": ITERATIONS,
            "inner_iter": ITERATIONS,
            "reconstruction": Param(str, options=("rows", "transpose")),
            "n_components": _COMPONENTS,
            "scale": Param(str, options=("none", "zscore")),
        },
        defaults={
            "k": 10,
            "reg": 1e-3,
            "ortho_weight": 1e3,
            "mu0": 10.0,
            "rho": 1.1,
            "max_iter": 50,
            "inner_iter": 30,
            "reconstruction": "rows",
            "n_components": None,
            "scale": "none",
        },
        grid={"k": [10]},
        count_dependent=True,
        iterative=True,
        references=(
            "Y. Liu, D. Ye, W. Li, H. Wang, Y. Gao. Robust Neighborhood Embedding for "
            "Unsupervised Feature Selection. Knowledge-Based Systems 193, 2020.",
            _BLUFS_PAPER,
            "Algorithm: shared/specs/blufs.md, section 4.6.",
        ),
    ),
    MethodSpec(
        name="spcafs",
        title="SPCAFS",
        module="spcafs",
        params={
            "gamma": POSITIVE,
            "p": Param(float, positive=True, high=2.0),
            "n_components": _COMPONENTS,
            "eps": POSITIVE,
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
        },
        defaults={
            "gamma": 1.0,
            "p": 0.5,
            "n_components": None,
            "eps": 1e-12,
            "max_iter": 30,
            "tol": 1e-4,
        },
        grid={"gamma": PAPER_GRID},
        needs_n_clusters=True,
        iterative=True,
        references=(
            "Z. Li, F. Nie, J. Bian, D. Wu, X. Li. Sparse PCA via l2,p-Norm Regularization "
            "for Unsupervised Feature Selection. IEEE TPAMI 45(4), 2023.",
            _BLUFS_PAPER,
            "Algorithm: shared/specs/blufs.md, section 4.7.",
        ),
    ),
    MethodSpec(
        name="fspca",
        title="FSPCA",
        module="fspca",
        params={"n_components": _COMPONENTS, "max_iter": ITERATIONS},
        defaults={"n_components": None, "max_iter": 20},
        grid={"max_iter": [20]},
        needs_n_clusters=True,
        count_dependent=True,
        iterative=True,
        references=(
            "F. Nie, L. Tian, R. Wang, X. Li. Learning Feature-Sparse Principal Subspace. "
            "IEEE TPAMI 45(4):4858-4869, 2023 (NeurIPS 2020 version).",
            _BLUFS_PAPER,
            "Algorithm: shared/specs/blufs.md, section 4.8.",
        ),
    ),
    MethodSpec(
        name="blsfe",
        title="BLSFE",
        module="blsfe",
        params={
            "gamma1": POSITIVE,
            "gamma2": POSITIVE,
            "n_bases": Param(int, low=2),
            "mix": Param(float, low=0.0, high=1.0),
            "n_replicates": ITERATIONS,
            "max_iter": ITERATIONS,
            "qp_max_iter": ITERATIONS,
        },
        defaults={
            "gamma1": 1.0,
            "gamma2": 1.0,
            "n_bases": 10,
            "mix": 0.7,
            "n_replicates": 20,
            "max_iter": 5,
            "qp_max_iter": 300,
        },
        grid={"gamma1": [1.0], "gamma2": [1.0]},
        needs_n_clusters=True,
        count_dependent=True,
        iterative=True,
        references=(
            "P. Zhou, X. Wang, L. Du. Bi-Level Ensemble Method for Unsupervised Feature "
            "Selection. Information Fusion 100:101910, 2023.",
            _BLUFS_PAPER,
            "Algorithm: shared/specs/blufs.md, section 4.9.",
        ),
    ),
    MethodSpec(
        name="blsfs",
        title="BLSFS",
        module="blsfs",
        params={
            "alpha": POSITIVE,
            "beta": NON_NEGATIVE,
            "gamma": POSITIVE,
            "k": _NEIGHBOURS,
            "p_support": Param(int, low=1, allow_none=True),
            "eps": POSITIVE,
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
        },
        defaults={
            "alpha": 1.0,
            "beta": 1.0,
            "gamma": 1.0,
            "k": 10,
            "p_support": 10,
            "eps": 1e-10,
            "max_iter": 30,
            "tol": 1e-4,
        },
        grid={"alpha": PAPER_GRID, "beta": PAPER_GRID, "gamma": PAPER_GRID},
        needs_n_clusters=True,
        iterative=True,
        references=(
            "Z. Hu, J. Wang, K. Zhang, W. Pedrycz, N. R. Pal. Bi-Level Spectral Feature "
            "Selection. IEEE TNNLS 36(4):6597-6611, 2025.",
            _BLUFS_PAPER,
            "Model and solver [inferred]: shared/specs/blufs.md, section 4.10.",
        ),
    ),
]
