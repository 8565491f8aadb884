rule graph:
    input:
        res("{dataset}/data.npz"),
    output:
        res("{dataset}/graph/knn{k}.npz"),
    log:
        logs("graph/{dataset}/knn{k}.log"),
    wildcard_constraints:
        # the file name shows graph.k; the job reads it from the plan, not back from the name
        k=str(PLAN.graph.k),
    group:
        "dataset"
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        k=PLAN.graph.k,
        code=code_hash("graph.py", "io.py"),
    script:
        "../scripts/graph.py"
