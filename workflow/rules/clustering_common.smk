# The clustering task's plan and the small functions its rules call (the rules are in
# clustering.smk).
from ufsbench.clustering import graph_path, score_path

CPLAN = PLAN.clustering
CLUSTER_CONFIG = config["clustering"]

if CPLAN.enabled or FS_GRAPH is not None:
    from ufsbench.sparse_graph.builders import CLUSTER_METHODS, STORED_GRAPHS
else:
    # No job of this run builds a sparse graph, so no wildcard may name one; the builders
    # (and scikit-learn with them, ~1 CPU s of every command's planning) stay unloaded.
    CLUSTER_METHODS = STORED_GRAPHS = ()


def one_of(names):
    """A wildcard constraint matching exactly ``names`` (nothing when there are none)."""
    return "|".join(names) or "(?!)"


# Datasets whose file is neither in the mirror nor under data/raw (or that are gated:
# licensed, no public URL) are skipped, each with a "ufsbench: skipping dataset" line
# (the same path as `unavailable: skip`, without trying the network).
if CPLAN.enabled and CLUSTER_CONFIG["skip_missing"]:
    for _name, _reason in unavailable(CPLAN.datasets, probe=False).items():
        CPLAN.skip(_name, _reason)


wildcard_constraints:
    gmethod=one_of(STORED_GRAPHS),
    cmethod=one_of(CLUSTER_METHODS),
    gsid=r"[^/]+",
    csid=r"[^/]+",


def cluster_graph_params(wildcards):
    """Every parameter of a stored graph: a clustering setting or the selectors' graph."""
    if FS_GRAPH is not None and (wildcards.gmethod, wildcards.gsid) == FS_GRAPH[:2]:
        return FS_GRAPH[2]
    return CPLAN.params(wildcards.gmethod, wildcards.gsid)


def cluster_score_inputs(wildcards):
    inputs = {"data": res(f"{wildcards.dataset}/data.npz")}
    if wildcards.cmethod in STORED_GRAPHS:
        inputs["graph"] = res(
            graph_path(wildcards.dataset, wildcards.cmethod, wildcards.csid)
        )
    return inputs


def cluster_threads(wildcards):
    return int(CLUSTER_CONFIG["n_jobs"])


def cluster_mem_mb(wildcards):
    entry = REGISTRY[wildcards.dataset]
    return resources.cluster_mem_mb(entry.n_samples, entry.n_features)


def cluster_runtime(wildcards):
    return resources.cluster_runtime(REGISTRY[wildcards.dataset].n_samples)


def clustering_outputs():
    if not CPLAN.enabled or not CPLAN.datasets:
        return []
    return [
        res("tables/clustering.tsv"),
        res("tables/srsg_vs_paper.tsv"),
        *expand(res("tables/srsg_table{table}.md"), table=[1, 2, 3]),
    ]


# The package the clustering scripts import: code_hash follows its imports.
SPARSE_GRAPH_CODE = ["sparse_graph/__init__.py"]
