"""Every method the workflow knows: its module, hyper-parameters, default grid and needs.

A method is one module in this package exposing

    select(X, *, graph, n_clusters, random_state, feature_counts, **hyper) -> Selection

and one entry below. Hyper-parameters named in ``GRAPH_PARAMS`` describe the sample
graph (edge weights, heat-kernel width) and are used to build it; the module itself
receives the finished graph and the remaining hyper-parameters.
"""

from __future__ import annotations

from . import (
    registry_blufs_baselines,
    registry_css,
    registry_lsdcl_baselines,
    registry_srsg,
)
from .params import (
    ITERATIONS,
    NON_NEGATIVE,
    POSITIVE,
    WIDTH,
    MethodSpec,
    Param,
    options_of,
)

# Options of the LSDCL family: the paper's weights and every reading the spec leaves open.
_LSDCL_OPTIONS = {
    "lambda1": (NON_NEGATIVE, 1.0),
    "lambda2": (NON_NEGATIVE, 1.0),
    "gamma": (POSITIVE, 1.0),
    "max_iter": (ITERATIONS, 100),
    "tol": (NON_NEGATIVE, 1e-5),
    "scale": (Param(str, options=("none", "minmax", "unit_norm")), "none"),
    "mixed_sign": (Param(str, options=("split", "raise")), "split"),
    "init": (Param(str, options=("kmeans", "spectral", "random")), "kmeans"),
    "s_init": (Param(str, options=("identity", "identity_plus")), "identity"),
    "hq_weights": (Param(str, options=("printed", "exact")), "printed"),
    "z_split": (Param(str, options=("paper", "elementwise")), "paper"),
    "graph_term": (Param(str, options=("printed", "projection")), "printed"),
    "n_concepts": (Param(int, low=1, allow_none=True), None),
    "n_sample_concepts": (Param(int, low=1, allow_none=True), None),
    "n_feature_concepts": (Param(int, low=1, allow_none=True), None),
    "_always": ("max_iter", "tol", "scale", "mixed_sign", "init", "hq_weights"),
}
_LSDCL_PAPER = (
    "L. Du, Y. Fan, P. Zhou. Local Sensitive Dual Concept Factorization for Unsupervised "
    "Feature Selection. IEEE Access."
)

# Options of the BLUFS family (shared/specs/blufs.md section 2.8 and the readings of 10).
_BLUFS_OPTIONS = {
    "alpha": (NON_NEGATIVE, 1.0),
    "beta": (NON_NEGATIVE, 1.0),
    "lam": (POSITIVE, 1.0),
    "mu": (POSITIVE, 1.0),
    "k": (Param(int, low=1), 10),
    "p_support": (Param(int, low=1, allow_none=True), 10),
    "p_rule": (Param(str, options=("guarded", "distance", "objective")), "guarded"),
    "w_step": (Param(str, options=("refit", "safeguard", "project", "final")), "refit"),
    "graph_term": (Param(str, options=("trace", "sum")), "trace"),
    "case3_graph": (Param(str, options=("knn", "hh")), "knn"),
    "tau1": (NON_NEGATIVE, 0.8),
    "tau2": (NON_NEGATIVE, 0.0),
    "tau3": (NON_NEGATIVE, 0.0),
    "y_solver": (Param(str, options=("pencf", "gpi")), "pencf"),
    "y_tol": (NON_NEGATIVE, 1e-4),
    "y_max_iter": (Param(int, low=2), 100),
    "y_safeguard": (Param(bool), True),
    "max_iter": (ITERATIONS, 50),
    "tol": (NON_NEGATIVE, 1e-4),
    "_always": ("k", "max_iter", "tol"),
}
_BLUFS_Y_STEP = ("tau2", "tau3", "y_solver", "y_tol", "y_max_iter", "y_safeguard")
_BLUFS_PAPER = "J. Liu, X. Ju, X. Xiu, W. Liu. Bi-Level Unsupervised Feature Selection. arXiv 2025."


_DECADES = [10.0**p for p in range(-5, 6)]

REGISTRY: dict[str, MethodSpec] = {
    spec.name: spec
    for spec in [
        MethodSpec(
            name="allfea",
            title="AllFea",
            module="allfea",
            uses_all_features=True,
            references=("k-means on all features: the baseline every paper reports.",),
        ),
        MethodSpec(
            name="random",
            title="RandomSubset",
            module="random_subset",
            params={"seed": Param(int, low=0)},
            defaults={"seed": 0},
            grid={"seed": [0]},
            references=("Control: a seeded random ranking; its grid is a list of seeds.",),
        ),
        MethodSpec(
            name="maxvariance",
            title="MaxVariance",
            module="maxvariance",
            references=("Features ranked by their variance, largest first.",),
        ),
        MethodSpec(
            name="lapscore",
            title="LapScore",
            module="lapscore",
            params={"t": WIDTH},
            defaults={"t": 1.0},
            grid={"t": [1.0]},
            graph="heat",
            references=(
                "X. He, D. Cai, P. Niyogi. Laplacian Score for Feature Selection. NIPS 2005.",
            ),
        ),
        MethodSpec(
            name="spec",
            title="SPEC",
            module="spec",
            params={
                "t": WIDTH,
                "style": Param(str, options=("phi1", "phi2", "phi3")),
                "n_spectrum": Param(int, low=1, allow_none=True),
            },
            defaults={"t": 1.0, "style": "phi2", "n_spectrum": None},
            grid={"t": [1.0], "style": ["phi2"]},
            graph="heat",
            needs_n_clusters=True,
            references=(
                "Z. Zhao, H. Liu. Spectral Feature Selection for Supervised and Unsupervised "
                "Learning. ICML 2007.",
            ),
        ),
        MethodSpec(
            name="mcfs",
            title="MCFS",
            module="mcfs",
            params={
                "weight": Param(str, options=("binary", "heat")),
                "t": WIDTH,
                "n_eigen": Param(int, low=1, allow_none=True),
                "scale": Param(str, options=("none", "center", "standardize")),
                "coefficients": Param(str, options=("unit_norm", "raw")),
            },
            defaults={
                "weight": "binary",
                "t": 1.0,
                "n_eigen": None,
                "scale": "none",
                "coefficients": "unit_norm",
            },
            grid={"weight, t": [("binary", 1.0)]},
            graph="param",
            needs_n_clusters=True,
            count_dependent=True,
            references=(
                "D. Cai, C. Zhang, X. He. Unsupervised Feature Selection for Multi-Cluster "
                "Data. KDD 2010.",
            ),
        ),
        MethodSpec(
            name="udfs",
            title="UDFS",
            module="udfs",
            params={
                "gamma": NON_NEGATIVE,
                "lam": POSITIVE,
                "k": Param(int, low=1),
                "max_iter": ITERATIONS,
                "tol": NON_NEGATIVE,
                "eig_solver": Param(str, options=("auto", "dense", "lowrank")),
            },
            defaults={
                "gamma": 0.1,
                "lam": 1e3,
                "k": 5,
                "max_iter": 20,
                "tol": 1e-4,
                "eig_solver": "auto",
            },
            grid={"gamma": [0.1], "lam": [1e3]},
            needs_n_clusters=True,
            iterative=True,
            references=(
                "Y. Yang, H. T. Shen, Z. Ma, Z. Huang, X. Zhou. l2,1-Norm Regularized "
                "Discriminative Feature Selection for Unsupervised Learning. IJCAI 2011.",
            ),
        ),
        MethodSpec(
            name="ndfs",
            title="NDFS",
            module="ndfs",
            params={
                "alpha": POSITIVE,
                "beta": POSITIVE,
                "gamma": POSITIVE,
                "t": WIDTH,
                "max_iter": ITERATIONS,
                "tol": NON_NEGATIVE,
            },
            defaults={
                "alpha": 1.0,
                "beta": 1.0,
                "gamma": 1e8,
                "t": 1.0,
                "max_iter": 100,
                "tol": 0.0,
            },
            grid={"alpha": [1.0], "beta": [1.0]},
            graph="heat",
            needs_n_clusters=True,
            iterative=True,
            references=(
                "Z. Li, Y. Yang, J. Liu, X. Zhou, H. Lu. Unsupervised Feature Selection Using "
                "Nonnegative Spectral Analysis. AAAI 2012.",
            ),
        ),
        MethodSpec(
            name="lsdcl",
            title="LSDCL",
            module="lsdcl",
            **options_of(
                _LSDCL_OPTIONS,
                "lambda1",
                "lambda2",
                "gamma",
                "s_init",
                "z_split",
                "n_sample_concepts",
                "n_feature_concepts",
            ),
            grid={"lambda1": [1e-2, 1.0, 1e2], "lambda2": [1e-2, 1.0, 1e2], "gamma": [1.0]},
            graph="binary",
            needs_n_clusters=True,
            iterative=True,
            references=(
                _LSDCL_PAPER,
                "Implementation spec: shared/specs/lsdcl.md, sections 1-2.",
            ),
        ),
        MethodSpec(
            name="lsdcl_m1",
            title="LSDCL-M1",
            module="lsdcl_m1",
            **options_of(_LSDCL_OPTIONS, "lambda1", "lambda2", "n_concepts"),
            grid={"lambda1": [1e-2, 1.0, 1e2], "lambda2": [1e-2, 1.0, 1e2]},
            graph="binary",
            needs_n_clusters=True,
            iterative=True,
            references=(
                "Ablation M1 (NMF + graph on U + l2,1, EUFS-like) of " + _LSDCL_PAPER,
                "Updates: shared/specs/lsdcl.md, section 3.",
            ),
        ),
        MethodSpec(
            name="lsdcl_m2",
            title="LSDCL-M2",
            module="lsdcl_m2",
            **options_of(
                _LSDCL_OPTIONS,
                "lambda1",
                "lambda2",
                "s_init",
                "graph_term",
                "n_sample_concepts",
                "n_feature_concepts",
            ),
            grid={"lambda1": [1e-2, 1.0, 1e2], "lambda2": [1e-2, 1.0, 1e2]},
            graph="binary",
            needs_n_clusters=True,
            iterative=True,
            references=(
                "Ablation M2 (dual concepts + graph on U + l2,1) of " + _LSDCL_PAPER,
                "Updates: shared/specs/lsdcl.md, section 3.",
            ),
        ),
        MethodSpec(
            name="lsdcl_m3",
            title="LSDCL-M3",
            module="lsdcl_m3",
            **options_of(_LSDCL_OPTIONS, "lambda1", "lambda2", "gamma", "z_split", "n_concepts"),
            grid={"lambda1": [1e-2, 1.0, 1e2], "lambda2": [1e-2, 1.0, 1e2], "gamma": [1.0]},
            graph="binary",
            needs_n_clusters=True,
            iterative=True,
            references=(
                "Ablation M3 (NMF + CIM graph on V^T x + l2,1) of " + _LSDCL_PAPER,
                "Updates: shared/specs/lsdcl.md, section 3.",
            ),
        ),
        MethodSpec(
            name="blufs",
            title="BLUFS",
            module="blufs",
            **options_of(
                _BLUFS_OPTIONS,
                "alpha",
                "beta",
                "lam",
                "mu",
                "p_support",
                "p_rule",
                "w_step",
                "graph_term",
                "tau1",
                *_BLUFS_Y_STEP,
            ),
            grid={"alpha": [1e-2, 1.0, 1e2], "beta": [1e-2, 1.0, 1e2]},
            needs_n_clusters=True,
            count_dependent=True,
            iterative=True,
            references=(_BLUFS_PAPER, "Model and readings: shared/specs/blufs.md, section 2."),
        ),
        MethodSpec(
            name="blufs_case1",
            title="BLUFS Case I",
            module="blufs_case1",
            **options_of(
                _BLUFS_OPTIONS,
                "beta",
                "lam",
                "mu",
                "p_support",
                "p_rule",
                "w_step",
                "graph_term",
                "tau1",
                "tau2",
                "tau3",
            ),
            grid={"beta": [1e-2, 1.0, 1e2]},
            needs_n_clusters=True,
            count_dependent=True,
            iterative=True,
            references=(
                _BLUFS_PAPER,
                "Case I, feature level only (alpha = 0): shared/specs/blufs.md, section 3.",
            ),
        ),
        MethodSpec(
            name="blufs_case2",
            title="BLUFS Case II",
            module="blufs_case2",
            **options_of(_BLUFS_OPTIONS, "alpha", "lam", *_BLUFS_Y_STEP),
            grid={"alpha": [1e-2, 1.0, 1e2]},
            needs_n_clusters=True,
            count_dependent=True,
            iterative=True,
            references=(
                _BLUFS_PAPER,
                "Case II, clustering level only (beta = 0): shared/specs/blufs.md, section 3.",
            ),
        ),
        MethodSpec(
            name="blufs_case3",
            title="BLUFS Case III",
            module="blufs_case3",
            **options_of(
                _BLUFS_OPTIONS,
                "alpha",
                "beta",
                "lam",
                "case3_graph",
                "w_step",
                "graph_term",
                *_BLUFS_Y_STEP,
            ),
            grid={"alpha": [1e-2, 1.0, 1e2], "beta": [1e-2, 1.0, 1e2]},
            needs_n_clusters=True,
            count_dependent=True,
            iterative=True,
            references=(
                _BLUFS_PAPER,
                "Case III, no graph learning (P frozen): shared/specs/blufs.md, section 3.",
            ),
        ),
    ]
}

# Families that register themselves in files of their own.
for _family in (
    registry_lsdcl_baselines,
    registry_blufs_baselines,
    registry_css,
    registry_srsg,
):
    for _spec in _family.SPECS:
        if _spec.name in REGISTRY:
            raise RuntimeError(f"method {_spec.name!r} is registered twice")
        REGISTRY[_spec.name] = _spec

DECADES = tuple(_DECADES)


def get_method(name: str) -> MethodSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown method {name!r} (known: {known})") from None
