rule select:
    input:
        unpack(knn_of_chunk),
        data=res("{dataset}/data.npz"),
    output:
        res("{dataset}/{method}/{chunk}/selection.npz"),
    log:
        logs("select/{dataset}/{method}/{chunk}.log"),
    benchmark:
        res("benchmarks/select/{dataset}/{method}/{chunk}.tsv")
    group:
        "chunk"
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    resources:
        mem_mb=select_mem_mb,
        runtime=select_runtime,
    params:
        method=method_target,
        jobs=select_jobs,
        n_clusters=n_clusters_of,
        feature_counts=feature_counts_of,
        connect=PLAN.graph.connect,
        code=method_code,
    script:
        "../scripts/select.py"
