rule evaluate:
    input:
        data=res("{dataset}/data.npz"),
        selection=res("{dataset}/{method}/{chunk}/selection.npz"),
    output:
        res("{dataset}/{method}/{chunk}/scores.tsv"),
    log:
        logs("evaluate/{dataset}/{method}/{chunk}.log"),
    benchmark:
        res("benchmarks/evaluate/{dataset}/{method}/{chunk}.tsv")
    group:
        "chunk"
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    resources:
        mem_mb=evaluate_mem_mb,
        runtime=evaluate_runtime,
    params:
        method="{method}",
        settings=eval_settings,
        all_features=uses_all_features,
        n_clusters=n_clusters_of,
        feature_counts=feature_counts_of,
        # not evaluation.protocol: only the aggregation reads it
        kmeans=PLAN.evaluation.kmeans_options,
        seeding=PLAN.evaluation.seeding,
        code=code_hash("evaluate.py", "kmeans.py", "metrics.py", "io.py"),
    script:
        "../scripts/evaluate.py"


localrules:
    aggregate,
    dataset_scores,


rule aggregate:
    input:
        all_scores(),
    output:
        scores=res("tables/scores.tsv"),
        timings=res("timings/select_seconds.tsv"),
        curves=res("tables/curves.tsv"),
        summary=report(
            res("tables/summary.tsv"),
            caption="../report/summary.rst",
            category="Tables",
        ),
        markdown=res("tables/summary.md"),
        latex=res("tables/summary.tex"),
    log:
        logs("aggregate.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        protocols=PLAN.protocols,
        plan=all_score_plan(),
        code=code_hash("aggregate.py", "io.py", "integrity.py"),
    script:
        "../scripts/aggregate.py"


# One dataset's rows of tables/scores.tsv, for the analyses of that dataset alone (the
# BLUFS companions): the run's table changes whenever a dataset joins or leaves the run.
rule dataset_scores:
    input:
        dataset_score_files,
    output:
        res("{dataset}/scores.tsv"),
    log:
        logs("scores/{dataset}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        plan=dataset_score_plan,
        code=code_hash("aggregate.py", "io.py", "integrity.py"),
    script:
        "../scripts/dataset_scores.py"
