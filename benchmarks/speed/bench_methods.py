"""Time every classic method against a naive transcription of the same mathematics.

    python benchmarks/speed/bench_methods.py [--datasets coil20] [--mirror PATH]
        [--repeats N] [--methods ...] [--out TSV]

Data: COIL20 (1440 x 1024, 20 clusters) through the checked loader (clusters: the
dataset's classes); without the mirror, ``--datasets synthetic_planted``. Both sides of a
row get the same data, the same sparse k-NN graph (built once, outside the timings, as
the workflow does) and the same seed; BLAS runs on one thread; CPU seconds.

"ours" is the method's ``select`` from ``ufsbench.methods``. "naive" is written here the
way a direct transcription of the paper would be: dense n x n graph and Laplacian,
per-feature loops, explicit inverses, ``M`` formed, full eigendecompositions. Each row
reports the better of ``--repeats`` timings and whether the outputs match:

* filters (maxvariance, lapscore, spec), udfs, ndfs: every score equal to 1e-6 relative
  to the largest, and the same top-50 features in the same order up to ties (ours'
  top-50 carry the 50 largest naive scores, in order, to ``rtol=1e-9``);
* mcfs: the same 50-feature subset (``feature_counts=[50]``). On a disconnected graph
  the eigenvalue 0 of ``L y = lambda D y`` is repeated, any basis of its eigenspace is
  valid, and MCFS's per-eigenvector LASSO depends on that basis: subsets may differ.

UDFS and NDFS run a fixed ``ITERATIONS`` on both sides (``tol=0``) so the naive side
stays within minutes; the defaults are otherwise unchanged. The LSDCL paper's baselines
(sogfs, ulap, rufs, l1ufs) run ``FEW_ITERATIONS`` on both sides: their naive sides cost
seconds (L1UFS: a minute) per iteration at COIL20 size. Their naive sides use dense n x n
distances, graphs and eigendecompositions, explicit inverses and, for L1UFS, one linear
solve per column of ``W`` (the O(d^4) route); ``--methods`` picks a subset.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import scipy.linalg
from scipy.sparse.csgraph import connected_components
from sklearn.cluster import KMeans
from sklearn.linear_model import lars_path
from sklearn.neighbors import NearestNeighbors

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench.graph import knn_graph  # noqa: E402
from ufsbench.methods import get_method  # noqa: E402

METHODS = ("maxvariance", "lapscore", "spec", "mcfs", "udfs", "ndfs")
METHODS += ("sogfs", "ulap", "rufs", "l1ufs")
N_CLUSTERS, N_NEIGHBORS, SEED, TOP, ITERATIONS = 20, 5, 0, 50, 20
FEW_ITERATIONS = 5
OVERRIDES = {
    "udfs": {"max_iter": ITERATIONS, "tol": 0.0},
    "ndfs": {"max_iter": ITERATIONS},
    **{name: {"max_iter": FEW_ITERATIONS} for name in ("sogfs", "ulap", "rufs", "l1ufs")},
}


# ----------------------------------------------------------------- naive implementations


def naive_maxvariance(X, S):
    n, d = X.shape
    scores = np.empty(d)
    for j in range(d):
        mean = X[:, j].sum() / n
        scores[j] = ((X[:, j] - mean) ** 2).sum() / n
    return scores


def naive_lapscore(X, S):
    S = S.toarray()
    D = np.diag(S.sum(axis=1))
    L = D - S
    one = np.ones(len(S))
    scores = np.empty(X.shape[1])
    for j in range(X.shape[1]):
        f = X[:, j]
        f_tilde = f - (f @ D @ one) / (one @ D @ one) * one
        scores[j] = -(f_tilde @ L @ f_tilde) / (f_tilde @ D @ f_tilde)
    return scores


def naive_spec(X, S):  # style phi2
    S = S.toarray()
    D_half = np.diag(np.sqrt(S.sum(axis=1)))
    D_half_inv = np.linalg.inv(D_half)
    L = np.eye(len(S)) - D_half_inv @ S @ D_half_inv
    xi1 = D_half @ np.ones(len(S))
    xi1 /= np.linalg.norm(xi1)
    scores = np.empty(X.shape[1])
    for j in range(X.shape[1]):
        f_hat = D_half @ X[:, j]
        f_hat /= np.linalg.norm(f_hat)
        scores[j] = -(f_hat @ L @ f_hat) / (1.0 - (f_hat @ xi1) ** 2)
    return scores


def naive_mcfs(X, S):  # the 50-feature subset
    S = S.toarray()
    deg = S.sum(axis=1)
    values, V = np.linalg.eigh(S / np.sqrt(np.outer(deg, deg)))  # full dense spectrum
    V = V[:, ::-1][:, : N_CLUSTERS + 1]
    # Eigenvalue 1 repeats once per connected component, and MCFS regresses each
    # eigenvector separately, so the basis of that space matters. Use the same basis as
    # ours: D^1/2 1 first, then the components' D^1/2 1_C (largest first), orthogonalised.
    n_comp, component = connected_components(S, directed=False)
    mass = np.bincount(component, weights=deg)
    blocks = [np.sqrt(deg)] + [
        np.where(component == c, np.sqrt(deg), 0.0) for c in np.argsort(-mass, kind="stable")
    ]
    basis = np.linalg.qr(np.column_stack(blocks))[0][:, :n_comp]
    V[:, : min(n_comp, N_CLUSTERS + 1)] = basis[:, : N_CLUSTERS + 1]
    Y = V[:, 1:] / np.sqrt(deg)[:, None]  # drop the trivial one; y = D^-1/2 v
    scores = np.zeros(X.shape[1])
    for y in Y.T:  # the defaults: raw columns, each eigenvector's coefficients at unit norm
        _, _, coefs = lars_path(X, y, method="lasso")  # the whole path
        step = np.flatnonzero(np.count_nonzero(coefs, axis=0) <= TOP)[-1]
        a = np.abs(coefs[:, step])
        scores = np.maximum(scores, a / np.linalg.norm(a))
    return np.argsort(-scores, kind="stable")[:TOP]


def naive_udfs(X, S, gamma=0.1, lam=1e3, k=5):
    n, d = X.shape
    _, neighbours = NearestNeighbors(n_neighbors=k).fit(X).kneighbors()
    H = np.eye(k + 1) - np.ones((k + 1, k + 1)) / (k + 1)
    L = np.zeros((n, n))
    for i in range(n):
        local = np.concatenate([[i], neighbours[i]])
        X_tilde = H @ X[local]
        L[np.ix_(local, local)] += H @ np.linalg.inv(X_tilde @ X_tilde.T + lam * np.eye(k + 1)) @ H
    M = X.T @ L @ X
    D = np.eye(d)
    for _ in range(ITERATIONS):
        _, vectors = np.linalg.eigh(M + gamma * D)  # full spectrum
        W = vectors[:, :N_CLUSTERS]
        D = np.diag(1.0 / (2.0 * np.linalg.norm(W, axis=1) + 1e-12))
    return np.linalg.norm(W, axis=1)


def naive_ndfs(X, S, alpha=1.0, beta=1.0, gamma=1e8):
    n, d = X.shape
    S = S.toarray()
    D_half_inv = np.diag(1.0 / np.sqrt(S.sum(axis=1)))
    L = np.eye(n) - D_half_inv @ S @ D_half_inv
    _, vectors = np.linalg.eigh(np.eye(n) - L)
    embedding = vectors[:, -N_CLUSTERS:]
    embedding /= np.linalg.norm(embedding, axis=1, keepdims=True)
    labels = KMeans(N_CLUSTERS, n_init=10, random_state=SEED).fit_predict(embedding)
    F = np.eye(N_CLUSTERS)[labels] + 0.2
    F /= np.linalg.norm(F, axis=0)
    W = np.linalg.inv(X.T @ X + beta * np.eye(d)) @ X.T @ F
    for _ in range(ITERATIONS):
        D_W = np.diag(1.0 / (2.0 * np.linalg.norm(W, axis=1) + 1e-12))
        A_inv = np.linalg.inv(X.T @ X + beta * D_W)
        M = L + alpha * (np.eye(n) - X @ A_inv @ X.T)
        denominator = M @ F + gamma * F @ F.T @ F
        ratio = np.where(denominator > 0, gamma * F / np.where(denominator > 0, denominator, 1), 1)
        F = F * ratio
        F /= np.linalg.norm(F, axis=0)
        W = A_inv @ X.T @ F
    return np.linalg.norm(W, axis=1)


def _naive_simplex(v):
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1.0
    rho = np.flatnonzero(u - cumulative / np.arange(1, len(u) + 1) > 0)[-1]
    return np.maximum(v - cumulative[rho] / (rho + 1), 0.0)


def _naive_adaptive_graph(X, m, ranked, gamma=1.0, k=5, lam=1.0):
    """SOGFS (ranked) / ULAP: dense distances, dense S, full eigendecompositions."""
    n, d = X.shape

    def sq_dist(E):  # dense n x n
        sq = (E**2).sum(axis=1)
        return np.maximum(sq[:, None] + sq[None, :] - 2 * E @ E.T, 0.0)

    def s_step(dist, alpha):
        S = np.zeros((n, n))
        for i in range(n):
            others = np.arange(n) != i
            S[i, others] = _naive_simplex(-dist[i, others] / (2 * alpha[i]))
        return S

    def rule(dist):  # per-row adaptive-neighbour alpha_i and its k-sparse rows
        alpha = np.empty(n)
        for i in range(n):
            e = np.sort(np.delete(dist[i], i))
            alpha[i] = 0.5 * (k * e[k] - e[:k].sum())
        return alpha

    dist = sq_dist(X)
    S = s_step(dist, rule(dist))
    D = np.eye(d)
    alpha = None
    for _ in range(FEW_ITERATIONS):
        Ssym = (S + S.T) / 2
        L = np.diag(Ssym.sum(axis=1)) - Ssym
        values, vectors = np.linalg.eigh(X.T @ L @ X + 0.5 * gamma * D)
        W = vectors[:, :m]
        D = np.diag(1.0 / (2.0 * np.linalg.norm(W, axis=1) + 1e-12))
        dist = sq_dist(X @ W)
        if ranked:
            _, F = np.linalg.eigh(L)
            dist = dist + lam * sq_dist(F[:, :N_CLUSTERS])
        if alpha is None:
            alpha = np.full(n, rule(dist).mean())
        S = s_step(dist, alpha)
        if ranked:
            Ssym = (S + S.T) / 2
            zeros = np.sum(np.linalg.eigvalsh(np.diag(Ssym.sum(axis=1)) - Ssym) < 1e-10)
            lam = lam * 2 if zeros < N_CLUSTERS else (lam / 2 if zeros > N_CLUSTERS else lam)
    return np.linalg.norm(W, axis=1)


def naive_sogfs(X, S):
    return _naive_adaptive_graph(X, X.shape[1] // 3, ranked=True)


def naive_ulap(X, S):
    return _naive_adaptive_graph(X, N_CLUSTERS, ranked=False)


def naive_rufs(X, S, nu=1.0, alpha=1.0, beta=1.0, ridge=0.1, zeta=1e7, f_l21=1e-4, g_l1=0.1):
    n, d = X.shape
    sq = (X**2).sum(axis=1)
    dist = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0))
    sigma = dist.mean()
    order = np.argsort(dist, axis=1)[:, 1 : N_NEIGHBORS + 1]
    K = np.zeros((n, n))
    for i in range(n):
        K[i, order[i]] = np.exp(-(dist[i, order[i]] ** 2) / (2 * sigma**2))
    K = np.maximum(K, K.T)
    A = np.zeros((n, n))
    for i in range(n):
        nb = np.flatnonzero(K[i])
        A[i, nb] = K[i, nb] @ np.linalg.inv(K[np.ix_(nb, nb)] + ridge * np.eye(len(nb)))
    L = (np.eye(n) - A).T @ (np.eye(n) - A)
    labels = KMeans(N_CLUSTERS, n_init=10, random_state=SEED).fit_predict(X)
    Y = np.eye(N_CLUSTERS)[labels]
    W = np.linalg.inv(X.T @ X + beta / alpha * np.eye(d)) @ X.T @ Y
    G = (Y + 0.2) / np.linalg.norm(Y + 0.2, axis=0)
    F = np.maximum(np.linalg.inv(G.T @ G) @ G.T @ X, 0)
    F += 0.2 * F[F > 0].mean()
    pos, neg = np.maximum(L, 0), np.maximum(-L, 0)

    def weights(R):
        return np.diag(1.0 / (2 * np.linalg.norm(R, axis=1) + 1e-12))

    for _ in range(FEW_ITERATIONS):
        D2, Q = weights(X @ W - G), weights(W)
        W = np.linalg.inv(X.T @ D2 @ X + beta / alpha * Q) @ X.T @ D2 @ G
        D1, D2 = weights(G @ F - X), weights(X @ W - G)
        up = (
            2 * np.maximum(D1 @ X @ F.T, 0)
            + 2 * nu * neg @ G
            + 2 * alpha * np.maximum(D2 @ X @ W, 0)
            + zeta * G
        )
        down = (
            2 * D1 @ G @ F @ F.T
            + 2 * np.maximum(-D1 @ X @ F.T, 0)
            + g_l1
            + 2 * nu * pos @ G
            + 2 * alpha * D2 @ G
            + 2 * alpha * np.maximum(-D2 @ X @ W, 0)
            + zeta * G @ G.T @ G
        )
        G = G * np.sqrt((up + 1e-16) / (down + 1e-16))
        D1 = weights(G @ F - X)
        QF = weights(F.T)
        up = np.maximum(G.T @ D1 @ X, 0)
        down = G.T @ D1 @ G @ F + np.maximum(-G.T @ D1 @ X, 0) + f_l21 * F @ QF
        F = F * np.sqrt((up + 1e-16) / (down + 1e-16))
    return np.linalg.norm(W, axis=1)


def naive_l1ufs(X, S, lambda1=1.0, lambda2=1.0, rho=1.1):
    n, d = X.shape
    S = S.toarray()
    # scipy's eigh, as ours: ||P W||_1 depends on the basis inside a repeated eigenvalue.
    values, Phi = scipy.linalg.eigh(np.diag(S.sum(axis=1)) - S)
    P = np.diag(np.sqrt(np.maximum(values, 0))) @ Phi.T @ X
    B = X.T @ X
    W = np.linalg.inv(B + lambda1 * P.T @ P + lambda2 * np.eye(d)) @ B
    mu = lambda1 / np.abs(P @ W).mean()
    E, Y = P @ W, np.zeros((n, d))
    for _ in range(FEW_ITERATIONS):
        a = 1.0 / (2 * np.linalg.norm(X - X @ W, axis=0) + 1e-12)
        Q = np.diag(1.0 / (2 * np.linalg.norm(W, axis=1) + 1e-12))
        C = lambda2 * Q + mu / 2 * P.T @ P
        rhs = mu / 2 * P.T @ (E - Y / mu)
        W = np.column_stack(
            [np.linalg.solve(a[j] * B + C, a[j] * B[:, j] + rhs[:, j]) for j in range(d)]
        )
        M = P @ W + Y / mu
        E = np.sign(M) * np.maximum(np.abs(M) - lambda1 / mu, 0)
        Y = Y + mu * (P @ W - E)
        mu = min(rho * mu, 1e10)
    return np.linalg.norm(W, axis=1)


NAIVE = {
    "maxvariance": naive_maxvariance,
    "lapscore": naive_lapscore,
    "spec": naive_spec,
    "mcfs": naive_mcfs,
    "udfs": naive_udfs,
    "ndfs": naive_ndfs,
    "sogfs": naive_sogfs,
    "ulap": naive_ulap,
    "rufs": naive_rufs,
    "l1ufs": naive_l1ufs,
}

# ----------------------------------------------------------------- driver


def run_ours(name, X, graphs):
    spec = get_method(name)
    graph_params, hyper = spec.split_graph_params(spec.check_params(OVERRIDES.get(name, {})))
    counts = [TOP] if spec.count_dependent else None
    graph = graphs[graph_params["weight"]] if spec.graph else None
    return spec.function(
        X, graph=graph, n_clusters=N_CLUSTERS, random_state=SEED, feature_counts=counts, **hyper
    )


def best_time(function, args, repeats):
    return _cli.best_time(lambda: function(*args), repeats)


def outputs_match(name, ours, naive):
    """(match, detail): see the module docstring for the criteria."""
    if name == "mcfs":
        common = len(set(ours.top(TOP)) & set(naive))
        return common == TOP, f"top-{TOP} subsets share {common}/{TOP}"
    error = np.max(np.abs(ours.scores - naive)) / np.abs(naive).max()
    # Top-50 agree up to ties: ours' picks carry the 50 largest naive scores, in order.
    same_top = np.allclose(naive[ours.ranking[:TOP]], np.sort(naive)[::-1][:TOP], rtol=1e-9)
    exact = np.array_equal(ours.ranking[:TOP], np.argsort(-naive, kind="stable")[:TOP])
    order = "same" if exact else ("same up to ties" if same_top else "differs")
    return error <= 1e-6 and same_top, f"max rel. score error {error:.1e}; top-{TOP} {order}"


def main(argv=None):
    global N_CLUSTERS  # the naive sides read it
    p = _cli.parser(__doc__.splitlines()[0], ["coil20"], repeats=1)
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    args = p.parse_args(argv)
    columns = ["dataset", "n x d", "c", "components", "method", "ours_s", "naive_s",
               "speed_up", "match", "detail"]  # fmt: skip
    rows = []
    with _cli.one_thread():
        for dataset in args.datasets:
            X, y = _cli.load(dataset, args.mirror)
            N_CLUSTERS = len(np.unique(y))
            graphs = {w: knn_graph(X, N_NEIGHBORS, weight=w) for w in ("binary", "heat")}
            n_components = connected_components(graphs["heat"])[0]
            for name in args.methods:
                spec = get_method(name)
                weight = spec.split_graph_params(spec.check_params({}))[0].get("weight", "heat")
                ours_s, ours = best_time(run_ours, (name, X, graphs), args.repeats)
                naive_s, naive = best_time(NAIVE[name], (X, graphs[weight]), args.repeats)
                match, detail = outputs_match(name, ours, naive)
                rows.append((dataset, f"{X.shape[0]}x{X.shape[1]}", N_CLUSTERS, n_components,
                             name, ours_s, naive_s, naive_s / ours_s, match, detail))  # fmt: skip
                print(name, f"{ours_s:.3f}", f"{naive_s:.3f}", match, detail, sep="\t", flush=True)
    _cli.write_tsv("methods", columns, rows, args.out)


if __name__ == "__main__":
    main()
