# The BLUFS paper's experiment (config key `blufs`): two-stage search, oracle re-runs,
# kNN classification, Tables II/III/V/VII against the paper, Friedman-Nemenyi (Fig. 7)
# and the synthetic selections (Figs. 3-4). Nothing here runs when `blufs` is absent.


# Stage 2 runs as parts whose number the config fixes (feature counts x stage-2 grid,
# chunk_size runs each); every part finds the stage-1 winners and runs its slice.
rule blufs_stage2:
    input:
        unpack(knn_of_method),
        data=res("{dataset}/data.npz"),
        stage1=stage1_scores,
    output:
        selection=res("{dataset}/{method}/stage2/part{part}/selection.npz"),
        scores=res("{dataset}/{method}/stage2/part{part}/scores.tsv"),
    log:
        logs("blufs/stage2/{dataset}/{method}/part{part}.log"),
    benchmark:
        res("benchmarks/stage2/{dataset}/{method}/part{part}.tsv")
    wildcard_constraints:
        part=r"\d+",
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    resources:
        mem_mb=select_mem_mb,
        runtime=stage2_runtime,
    params:
        method="{method}",
        part=part_number,
        parts=stage2_parts,
        settings=method_settings,
        grid=stage2_grid,
        anchor=BLUFS.anchor,
        anchor_metric=BLUFS.anchor_metric,
        n_clusters=n_clusters_of,
        kmeans=PLAN.evaluation.kmeans_options,
        seeding=PLAN.evaluation.seeding,
        graph=PLAN.graph.weighting,
        stage1=stage1_score_plan,
        code=method_code_with("tuning.py", "evaluate.py", "kmeans.py"),
    script:
        "../scripts/blufs_stage2.py"


localrules:
    blufs_stage2_merge,


rule blufs_stage2_merge:
    input:
        selections=stage2_part_files("selection.npz"),
        scores=stage2_part_files("scores.tsv"),
    output:
        selection=res("{dataset}/{method}/stage2/selection.npz"),
        scores=res("{dataset}/{method}/stage2/scores.tsv"),
    log:
        logs("blufs/stage2/{dataset}/{method}/merge.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        code=code_hash("tuning.py", "io.py"),
    script:
        "../scripts/blufs_stage2_merge.py"


rule blufs_reseed_part:
    input:
        unpack(knn_of_method),
        data=res("{dataset}/data.npz"),
        scores=res("{dataset}/scores.tsv"),
    output:
        res("{dataset}/{method}/reseed/{part}.tsv"),
    log:
        logs("blufs/reseed/{dataset}/{method}/{part}.log"),
    benchmark:
        res("benchmarks/reseed/{dataset}/{method}/{part}.tsv")
    wildcard_constraints:
        part=r"r\d+(-\d+)?",
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    resources:
        mem_mb=select_mem_mb,
        runtime=reseed_runtime,
    params:
        n_clusters=n_clusters_of,
        kmeans=PLAN.evaluation.kmeans_options,
        graph=PLAN.graph.weighting,
        code=method_code_with(
            "reseeding.py", "tuning.py", "evaluate.py", "kmeans.py", "papers/blufs.py"
        ),
    script:
        "../scripts/blufs_reseed.py"


rule blufs_reseed:
    input:
        reseed_parts,
    output:
        res("{dataset}/{method}/reseed.tsv"),
    log:
        logs("blufs/reseed/{dataset}/{method}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        code=code_hash("reseeding.py", "io.py"),
    script:
        "../scripts/blufs_reseed_merge.py"


rule blufs_knn:
    input:
        data=res("{dataset}/data.npz"),
        scores=res("{dataset}/scores.tsv"),
        selections=method_selections,
    output:
        res("{dataset}/{method}/knn.tsv"),
    log:
        logs("blufs/knn/{dataset}/{method}.log"),
    benchmark:
        res("benchmarks/knn/{dataset}/{method}/knn.tsv")
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    resources:
        mem_mb=evaluate_mem_mb,
    params:
        knn=BLUFS.knn,
        code=code_hash("evaluate.py", "io.py"),
    script:
        "../scripts/blufs_knn.py"


localrules:
    blufs_reseed,
    blufs_tables,
    blufs_cd,
    figure_synthetic,


rule blufs_tables:
    input:
        unpack(notes_input(BLUFS.notes)),
        scores=res("tables/scores.tsv"),
        reseeds=reseed_outputs(),
        knn=knn_outputs(),
    output:
        cells=res("tables/blufs_cells.tsv"),
        table2=report(
            res("tables/blufs_table2.md"),
            caption="../report/blufs_tables.rst",
            category="BLUFS paper",
            labels={"table": "II: ACC"},
        ),
        table3=report(
            res("tables/blufs_table3.md"),
            caption="../report/blufs_tables.rst",
            category="BLUFS paper",
            labels={"table": "III: NMI"},
        ),
        table5=res("tables/blufs_table5.md"),
        table5_tsv=res("tables/blufs_table5.tsv"),
        table7=report(
            res("tables/blufs_table7.md"),
            caption="../report/blufs_tables.rst",
            category="BLUFS paper",
            labels={"table": "VII: kNN"},
        ),
        table7_tsv=res("tables/blufs_table7.tsv"),
        versus=report(
            res("tables/blufs_vs_paper.tsv"),
            caption="../report/blufs_vs_paper.rst",
            category="BLUFS paper",
            labels={"table": "ours vs paper"},
        ),
    log:
        logs("blufs/tables.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        ablation=list(BLUFS.ablation),
        knn=BLUFS.knn,
        reference=workflow_path(BLUFS.reference),
        code=code_hash(
            "papers/blufs.py", "papers/blufs_report.py", "reference.py", "io.py"
        ),
    script:
        "../scripts/blufs_tables.py"


rule blufs_cd:
    input:
        res("tables/blufs_cells.tsv"),
    output:
        tsv=res("tables/blufs_friedman_acc.tsv"),
        pairwise=res("tables/blufs_nemenyi_acc.tsv"),
        png=report(
            res("figures/blufs/cd_acc.png"),
            caption="../report/blufs_cd.rst",
            category="BLUFS paper",
            labels={"figure": "7: critical difference"},
        ),
        pdf=res("figures/blufs/cd_acc.pdf"),
    log:
        logs("blufs/cd.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        alpha=BLUFS.cd_alpha,
        code=code_hash("papers/blufs_report.py", "stats.py", "plots.py"),
    script:
        "../scripts/blufs_cd.py"


rule blufs_synthetic:
    input:
        data=res("{dataset}/data.npz"),
    output:
        res("blufs/synthetic/{dataset}/{method}.tsv"),
    log:
        logs("blufs/synthetic/{dataset}/{method}.log"),
    benchmark:
        res("benchmarks/synthetic/{dataset}/{method}/synthetic.tsv")
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        params=default_params,
        n_features=BLUFS.synthetic["n_features"],
        k=PLAN.graph.k,
        code=method_code,
    script:
        "../scripts/blufs_synthetic.py"


rule figure_synthetic:
    input:
        data=res("{dataset}/data.npz"),
        picks=synthetic_picks,
    output:
        tsv=res("tables/blufs_synthetic_{dataset}.tsv"),
        png=report(
            res("figures/blufs/synthetic_{dataset}.png"),
            caption="../report/blufs_synthetic.rst",
            category="BLUFS paper",
            labels={"figure": "3-4: synthetic", "dataset": "{dataset}"},
        ),
        pdf=res("figures/blufs/synthetic_{dataset}.pdf"),
    log:
        logs("blufs/figures/synthetic_{dataset}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        code=code_hash("plots.py"),
    script:
        "../scripts/figure_synthetic.py"


localrules:
    blufs_sensitivity,
    blufs_stability,
    blufs_correlation,
    blufs_table8,


rule blufs_sensitivity:
    input:
        res("{dataset}/scores.tsv"),
    output:
        png=report(
            res("figures/blufs/sensitivity_{dataset}.png"),
            caption="../report/blufs_figures.rst",
            category="BLUFS paper",
            labels={"figure": "9: sensitivity", "dataset": "{dataset}"},
        ),
        pdf=res("figures/blufs/sensitivity_{dataset}.pdf"),
    log:
        logs("blufs/figures/sensitivity_{dataset}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        code=code_hash("papers/blufs_figures.py", "plots.py"),
    script:
        "../scripts/blufs_sensitivity.py"


rule blufs_stability:
    input:
        scores=res("{dataset}/scores.tsv"),
        data=res("{dataset}/data.npz"),
        selections=dataset_selections,
    output:
        tsv=res("tables/blufs_stability_{dataset}.tsv"),
        png=report(
            res("figures/blufs/stability_{dataset}.png"),
            caption="../report/blufs_figures.rst",
            category="BLUFS paper",
            labels={"figure": "10: stability", "dataset": "{dataset}"},
        ),
        pdf=res("figures/blufs/stability_{dataset}.pdf"),
    log:
        logs("blufs/figures/stability_{dataset}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        methods=selection_methods(),
        n_clusters=n_clusters_of,
        code=code_hash("papers/blufs_figures.py", "plots.py", "kmeans.py"),
    script:
        "../scripts/blufs_stability.py"


rule blufs_correlation:
    input:
        scores=res("{dataset}/scores.tsv"),
        data=res("{dataset}/data.npz"),
        selections=dataset_selections,
    output:
        tsv=res("tables/blufs_correlation_{dataset}.tsv"),
        png=report(
            res("figures/blufs/correlation_{dataset}.png"),
            caption="../report/blufs_figures.rst",
            category="BLUFS paper",
            labels={"figure": "8: feature correlation", "dataset": "{dataset}"},
        ),
        pdf=res("figures/blufs/correlation_{dataset}.pdf"),
    log:
        logs("blufs/figures/correlation_{dataset}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        methods=[
            m for m in BLUFS.figures["correlation_methods"] if m in selection_methods()
        ],
        n_features=fewest_features,
        code=code_hash("papers/blufs_figures.py", "plots.py"),
    script:
        "../scripts/blufs_correlation.py"


rule blufs_convergence:
    input:
        data=res("{dataset}/data.npz"),
    output:
        tsv=res("tables/blufs_convergence_{dataset}.tsv"),
        png=report(
            res("figures/blufs/convergence_{dataset}.png"),
            caption="../report/blufs_figures.rst",
            category="BLUFS paper",
            labels={"figure": "11: convergence", "dataset": "{dataset}"},
        ),
        pdf=res("figures/blufs/convergence_{dataset}.pdf"),
    log:
        logs("blufs/figures/convergence_{dataset}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        n_features=most_features,
        n_clusters=n_clusters_of,
        code=blufs_code_with("papers/blufs_figures.py"),
    script:
        "../scripts/blufs_convergence.py"


rule blufs_runtime:
    input:
        data=res("{dataset}/data.npz"),
    output:
        res("{dataset}/{method}/runtime.tsv"),
    log:
        logs("blufs/runtime/{dataset}/{method}.log"),
    benchmark:
        res("benchmarks/runtime/{dataset}/{method}/runtime.tsv")
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    resources:
        mem_mb=select_mem_mb,
        runtime=timing_runtime,
    params:
        params=default_params,
        repeats=BLUFS.runtime["repeats"],
        n_features=most_features,
        n_clusters=n_clusters_of,
        k=PLAN.graph.k,
        code=method_code,
    script:
        "../scripts/blufs_runtime.py"


rule blufs_table8:
    input:
        [f"{stem}/runtime.tsv" for stem in runs_of(runtime_methods())],
    output:
        tsv=res("timings/blufs_table8.tsv"),
        md=report(
            res("timings/blufs_table8.md"),
            caption="../report/blufs_tables.rst",
            category="BLUFS paper",
            labels={"table": "VIII: running time"},
        ),
    log:
        logs("blufs/table8.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        reference=workflow_path(BLUFS.reference),
        code=code_hash("papers/blufs.py", "papers/blufs_report.py", "reference.py"),
    script:
        "../scripts/blufs_table8.py"
