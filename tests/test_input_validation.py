"""The input checks every method shares (ufsbench.validation), across the whole registry.

Each case once failed differently per method (an obscure NumPy or scikit-learn error,
all-zero scores, an arbitrary ranking); now every method gives the same clear error.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from ufsbench import UFSSelector, rank_features
from ufsbench.graph import pairwise_distance_scale
from ufsbench.methods.registry import REGISTRY
from ufsbench.validation import magnitude_limit

METHODS = sorted(REGISTRY)
CLUSTER_METHODS = [m for m in METHODS if REGISTRY[m].needs_n_clusters]
GRAPH_METHODS = [m for m in METHODS if REGISTRY[m].graph is not None]
HEAT_METHODS = [m for m in METHODS if "t" in REGISTRY[m].params]


def _data(n=30, d=5, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def _rank(X, method, **kwargs):
    return rank_features(X, method, n_clusters=2, feature_counts=[2], **kwargs)


@pytest.mark.parametrize("method", METHODS)
def test_sparse_input_is_refused_with_a_type_error(method):
    with pytest.raises(TypeError, match=r"sparse matrix.*toarray\(\)"):
        _rank(sp.csr_matrix(_data()), method)


@pytest.mark.parametrize("method", METHODS)
def test_overflowing_input_is_refused(method):
    with pytest.raises(ValueError, match=r"values up to 2\.\d+e\+200 in magnitude.*overflow"):
        _rank(_data() * 1e200, method)


@pytest.mark.parametrize("method", METHODS)
def test_all_constant_input_is_refused(method):
    with pytest.raises(ValueError, match="every feature is constant"):
        _rank(np.full((30, 5), 3.0), method)


@pytest.mark.parametrize("method", METHODS)
def test_non_finite_input_is_refused(method):
    X = _data()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="1 NaN or infinite values"):
        _rank(X, method)


@pytest.mark.parametrize("method", CLUSTER_METHODS)
@pytest.mark.parametrize("bad", [2.7, 2.0, True, "2"])
def test_non_integer_n_clusters_is_refused(method, bad):
    with pytest.raises(ValueError, match="n_clusters must be an integer"):
        rank_features(_data(), method, n_clusters=bad, feature_counts=[2])


@pytest.mark.parametrize("method", GRAPH_METHODS)
def test_all_zero_graph_is_refused(method):
    with pytest.raises(ValueError, match="graph has no edge with a positive weight"):
        _rank(_data(), method, graph=sp.csr_matrix((30, 30)))


@pytest.mark.parametrize("method", HEAT_METHODS)
def test_underflowing_heat_kernel_is_refused(method):
    with pytest.raises(ValueError, match=r"no edge with a positive weight.*t=1e-300"):
        _rank(_data(), method, t=1e-300, **({"weight": "heat"} if method == "mcfs" else {}))


def test_many_duplicate_samples_are_not_called_all_identical():
    X = _data(40)
    X[:30] = X[0]
    with pytest.raises(ValueError, match="only 11 distinct samples among 40") as info:
        pairwise_distance_scale(X)
    assert "all samples are identical" not in str(info.value)
    with pytest.raises(ValueError, match="all samples are identical"):
        pairwise_distance_scale(np.ones((5, 2)))


def test_the_selector_refuses_the_same_inputs():
    with pytest.raises(ValueError, match="every feature is constant"):
        UFSSelector("maxvariance").fit(np.ones((10, 3)))
    with pytest.raises(TypeError, match="[Ss]parse"):
        UFSSelector("maxvariance").fit(sp.csr_matrix(_data()))


def test_magnitude_limit_admits_ordinary_data_and_refuses_overflow():
    assert magnitude_limit(10_000, 10_000) > 1e149
    X = _data(10, 3)
    X[0, 0] = magnitude_limit(10, 3) * 0.99
    assert _rank(X, "maxvariance").ranking[0] == 0  # just below the limit: still ranked


@pytest.mark.parametrize("method", ["maxvariance", "lapscore", "mcfs", "udfs"])
def test_partly_constant_input_still_ranks(method):
    X = _data()
    X[:, 2] = 1.0  # one constant feature among varying ones is ordinary data
    ranking = _rank(X, method).ranking
    assert sorted(ranking.tolist()) == list(range(5))
