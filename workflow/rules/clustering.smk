# The graph-clustering task of the SRSG paper: sparse graphs -> spectral clustering
# (and the KM baseline) -> ACC/NMI per seed -> the paper's tables and ours-vs-paper.


rule cluster_graph:
    input:
        data=res("{dataset}/data.npz"),
    output:
        graph=res("{dataset}/clustering/graph/{gmethod}/{gsid}.npz"),
        info=res("{dataset}/clustering/graph/{gmethod}/{gsid}.json"),
    log:
        logs("cluster_graph/{dataset}/{gmethod}/{gsid}.log"),
    benchmark:
        res("benchmarks/cluster_graph/{dataset}/{gmethod}/{gsid}.tsv")
    conda:
        "../envs/ufsbench.yaml"
    threads: cluster_threads
    resources:
        mem_mb=cluster_mem_mb,
        runtime=cluster_runtime,
    params:
        method="{gmethod}",
        params=cluster_graph_params,
        code=code_hash(*STAGE_MODULES["cluster_graph"]),
    script:
        "../scripts/cluster_graph.py"


rule cluster_scores:
    input:
        unpack(cluster_score_inputs),
    output:
        res("{dataset}/clustering/scores/{cmethod}/{csid}.tsv"),
    log:
        logs("cluster_scores/{dataset}/{cmethod}/{csid}.log"),
    benchmark:
        res("benchmarks/cluster_scores/{dataset}/{cmethod}/{csid}.tsv")
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    resources:
        mem_mb=cluster_mem_mb,
        runtime=cluster_runtime,
    params:
        dataset="{dataset}",
        method="{cmethod}",
        setting="{csid}",
        params=lambda wc: CPLAN.params(wc.cmethod, wc.csid),
        seeds=CPLAN.seeds,
        n_clusters=n_clusters_of,
        options={
            "n_init": CLUSTER_CONFIG["n_init"],
            "km_n_init": CLUSTER_CONFIG["km_n_init"],
            "engine": CLUSTER_CONFIG["kmeans"],
        },
        code=code_hash("metrics.py", "kmeans.py", "seeding.py", *SPARSE_GRAPH_CODE),
    script:
        "../scripts/cluster_scores.py"


localrules:
    cluster_tables,


rule cluster_tables:
    input:
        unpack(notes_input(CLUSTER_CONFIG["notes"])),
        scores=[res(path) for path in CPLAN.score_files()],
        reference=workflow_path(CLUSTER_CONFIG["reference"]),
    output:
        summary=res("tables/clustering.tsv"),
        settings=res("tables/clustering_settings.tsv"),
        comparison=report(
            res("tables/srsg_vs_paper.tsv"),
            caption="../report/srsg_vs_paper.rst",
            category="Tables",
            labels={"table": "SRSG paper: ours vs paper"},
        ),
        tables=expand(res("tables/srsg_table{table}.md"), table=[1, 2, 3]),
    log:
        logs("cluster_tables.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        select=CLUSTER_CONFIG["select"],
        skipped=CPLAN.skipped,
        code=code_hash("clustering.py", "reference.py"),
    script:
        "../scripts/cluster_tables.py"
