rule graph:
    input:
        res("{dataset}/data.npz"),
    output:
        res("{dataset}/graph/knn{k}.npz"),
    log:
        logs("graph/{dataset}/knn{k}.log"),
    group:
        "dataset"
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        k=graph_k,
        code=code_hash("graph.py", "io.py"),
    script:
        "../scripts/graph.py"
