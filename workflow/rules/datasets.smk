localrules:
    download,


rule download:
    output:
        "data/raw/{dataset}/{filename}",
    log:
        "logs/download/{dataset}/{filename}.log",
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    # Only what the file holds is a param (a changed param re-runs the job and all made
    # from it); where it comes from (mirror, source_base, allow_unverified) the script
    # reads from the config, so moving the mirror or the project re-runs nothing.
    params:
        registry=portable(REGISTRY_PATH),
        entry=dataset_params,
    script:
        "../scripts/download.py"


rule normalize:
    input:
        raw=raw_input,
    output:
        res("{dataset}/data.npz"),
    log:
        logs("normalize/{dataset}.log"),
    group:
        "dataset"
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        registry=portable(REGISTRY_PATH),
        entry=dataset_params,
        normalize=config["normalize"],
        need_labels=lambda wildcards: wildcards.dataset in PLAN.datasets,
        code=normalize_code,
    script:
        "../scripts/normalize.py"
