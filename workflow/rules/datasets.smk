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
    params:
        registry=REGISTRY_PATH,
        entry=dataset_params,
        mirror=config["mirror"],
        source_base=config["source_base"],
        allow_unverified=config["allow_unverified"],
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
        registry=REGISTRY_PATH,
        entry=dataset_params,
        normalize=config["normalize"],
        need_labels=lambda wildcards: wildcards.dataset in PLAN.datasets,
        code=normalize_code,
    script:
        "../scripts/normalize.py"
