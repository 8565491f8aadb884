"""Registry entries of the LSDCL paper's baselines not in the spine (RUFS, SOGFS, ULAP, L1UFS).

``SPECS`` is merged into ``ufsbench.methods.registry.REGISTRY``; each entry names its
module in this package (see ``registry.py`` for the module contract). The default grids
are the LSDCL paper's (``shared/specs/lsdcl.md`` §6.3): every regularisation weight over
``10^-5..10^5``.
"""

from __future__ import annotations

from .params import ITERATIONS, NON_NEGATIVE, POSITIVE, MethodSpec, Param, options_of

_DECADES = [10.0**p for p in range(-5, 6)]
_LSDCL_SPEC = "Baseline of the LSDCL paper: shared/specs/lsdcl.md, sections 4 and 6.3."

_NEIGHBOURS = Param(int, low=1)
_COMPONENTS = Param(int, low=1, allow_none=True)
_ALPHA_RULE = Param(str, options=("mean", "row", "input"))

# Options of the adaptive-neighbour family (SOGFS, ULAP share one solver).
_ADAPTIVE_OPTIONS = {
    "gamma": (NON_NEGATIVE, 1.0),
    "k": (_NEIGHBOURS, 5),
    "n_components": (_COMPONENTS, None),
    "lambda0": (Param(float, positive=True, allow_none=True), 1.0),
    "lambda_update": (Param(str, options=("adapt", "fixed")), "adapt"),
    "alpha_rule": (_ALPHA_RULE, "mean"),
    "support": (Param(str, options=("simplex", "knn")), "simplex"),
    "w_inner": (ITERATIONS, 1),
    "stop": (Param(str, options=("max_iter", "components")), "max_iter"),
    "scale": (Param(str, options=("standardize", "none")), "standardize"),
    "max_iter": (ITERATIONS, 30),
    "tol": (NON_NEGATIVE, 0.0),
    "eig_solver": (Param(str, options=("auto", "dense", "lowrank")), "auto"),
    "_always": ("gamma", "k", "n_components", "alpha_rule", "max_iter", "tol"),
}

SPECS: list[MethodSpec] = [
    MethodSpec(
        name="sogfs",
        title="SOGFS",
        module="sogfs",
        **options_of(
            _ADAPTIVE_OPTIONS, "lambda0", "lambda_update", "support", "w_inner", "stop", "scale"
        ),
        grid={"gamma": _DECADES},
        needs_n_clusters=True,
        iterative=True,
        references=(
            "F. Nie, W. Zhu, X. Li. Unsupervised Feature Selection with Structured Graph "
            "Optimization. AAAI 2016.",
            _LSDCL_SPEC,
            "Also a baseline of BLUFS (shared/specs/blufs.md, section 4.5: k=10).",
        ),
    ),
    MethodSpec(
        name="ulap",
        title="ULAP",
        module="ulap",
        **options_of(_ADAPTIVE_OPTIONS, "eig_solver"),
        grid={"gamma": _DECADES},
        needs_n_clusters=True,
        iterative=True,
        references=(
            "X. Chen, G. Yuan, W. Wang, F. Nie, X. Chang, J. Z. Huang. Local Adaptive "
            "Projection Framework for Feature Selection of Labeled and Unlabeled Data. "
            "IEEE TNNLS 2018 (identification inferred by the spec).",
            _LSDCL_SPEC,
        ),
    ),
    MethodSpec(
        name="rufs",
        title="RUFS",
        module="rufs",
        params={
            "nu": POSITIVE,
            "alpha": POSITIVE,
            "beta": POSITIVE,
            "k": _NEIGHBOURS,
            "ridge": POSITIVE,
            "ortho": NON_NEGATIVE,
            "f_l21": NON_NEGATIVE,
            "g_l1": NON_NEGATIVE,
            "g_offset": POSITIVE,
            "max_iter": ITERATIONS,
            "max_iter_heavy": Param(int, low=1, allow_none=True),
            "inner_iter": ITERATIONS,
            "w_step": Param(str, options=("irls", "ridge")),
            "tol": NON_NEGATIVE,
        },
        defaults={
            "nu": 1.0,
            "alpha": 1.0,
            "beta": 1.0,
            "k": 5,
            "ridge": 0.1,
            "ortho": 1e7,
            "f_l21": 1e-4,
            "g_l1": 0.1,
            "g_offset": 0.2,
            "max_iter": 20,
            "max_iter_heavy": 5,
            "inner_iter": 1,
            "w_step": "irls",
            "tol": 0.0,
        },
        grid={"nu": _DECADES, "alpha": _DECADES, "beta": _DECADES},
        needs_n_clusters=True,
        iterative=True,
        references=(
            "M. Qian, C. Zhai. Robust Unsupervised Feature Selection. IJCAI 2013.",
            _LSDCL_SPEC,
            "Solver: IRLS + multiplicative updates, a documented deviation from the "
            "reference's projected L-BFGS (lsdcl.md section 4).",
        ),
    ),
    MethodSpec(
        name="l1ufs",
        title="L1UFS",
        module="l1ufs",
        params={
            "lambda1": NON_NEGATIVE,
            "lambda2": POSITIVE,
            "residual": Param(str, options=("features", "samples")),
            "rho": Param(float, low=1.0),
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
            "linear_solver": Param(str, options=("auto", "dense", "lowrank")),
        },
        defaults={
            "lambda1": 1.0,
            "lambda2": 1.0,
            "residual": "features",
            "rho": 1.1,
            "max_iter": 50,
            "tol": 0.0,
            "linear_solver": "auto",
        },
        grid={"lambda1": _DECADES, "lambda2": _DECADES},
        graph="binary",
        iterative=True,
        references=(
            "C. Tang, X. Zhu, J. Chen, P. Wang, X. Liu, J. Tian. Robust graph regularized "
            "unsupervised feature selection. Expert Systems with Applications 2018 "
            "(identification inferred by the spec).",
            _LSDCL_SPEC,
        ),
    ),
]
