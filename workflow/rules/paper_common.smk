# Functions of the paper-reproduction rules (workflow/rules/paper.smk).
import re

from ufsbench.crossval import selection_grid
from ufsbench.methods.registry import get_method
from ufsbench.plan import expand_grid, grid_parameters, setting_id

PAPER = config.get("paper") or {}
PAPER_NAME = PAPER.get("name", "paper")


wildcard_constraints:
    paper=re.escape(PAPER_NAME),


def paper_path(key, section=PAPER):
    """A file named in the paper section, relative to the project folder."""
    path = section.get(key)
    if not path:
        return None
    path = Path(path)
    return str(path if path.is_absolute() else PROJECT / path)


def paper_methods():
    return [m for m in PAPER.get("methods", PLAN.methods) if m in PLAN.methods]


def datasets_of(methods, wanted=None):
    """The datasets (of ``wanted``, else of the run) on which every one of ``methods`` runs."""
    return [
        d
        for d in (PLAN.datasets if wanted is None else wanted)
        if all(PLAN.runs_on(d, m) for m in methods)
    ]


def ablation_datasets():
    ablation = PAPER.get("ablation", {})
    return datasets_of(ablation.get("methods", []), ablation.get("datasets", []))


def sensitivity_method():
    method = PAPER.get("sensitivity", {}).get("method")
    return method if method in PLAN.methods else None


def convergence_datasets():
    conv = PAPER.get("convergence", {})
    if conv.get("method") not in PLAN.methods:
        return []
    return datasets_of([conv["method"]], conv.get("datasets", []))


def convergence_parameters():
    """The parameters the convergence method's grid varies: its panels name only these."""
    method = PAPER.get("convergence", {}).get("method")
    return (
        grid_parameters(config["methods"].get(method)) if method in PLAN.methods else []
    )


def readings_method():
    method = PAPER.get("readings", {}).get("method")
    return method if method in PLAN.methods else None


def readings_defaults(wildcards):
    """The spec defaults of the reading options: the baseline of the readings table."""
    spec = PLAN.specs[readings_method()]
    return {name: spec.defaults[name] for name in PAPER["readings"]["params"]}


def crossval_plan():
    """The cross-validation section when its dataset is part of this run, else None."""
    cv = PAPER.get("crossval")
    if not cv or cv["dataset"] not in PLAN.datasets:
        return None
    fixed = cv.get("full_data_oracle")
    for selection in cv.get("selection") or ["nested"]:
        selection_grid(cv["grid"], selection, fixed)  # raises ValueError if ill-formed
    return cv


def crossval_selections():
    """The configured ways to choose settings (ufsbench.crossval.SELECTIONS), in order."""
    return list(crossval_plan().get("selection") or ["nested"])


def crossval_settings(wildcards):
    """Every grid setting the cross-validation searches in each draw under the job's
    selection, as the select jobs see them."""
    cv = crossval_plan()
    spec = get_method(cv["method"])
    base = PLAN._graph_defaults(spec)
    grid = selection_grid(cv["grid"], wildcards.selection, cv.get("full_data_oracle"))
    settings, seen = [], set()
    for params in expand_grid(cv["method"], grid):
        checked = spec.check_params({**base, **params})
        sid = setting_id(checked)
        if sid in seen:
            continue
        seen.add(sid)
        graph, hyper = spec.split_graph_params(checked)
        weights = None
        if spec.graph is not None:
            weights = {"weight": graph["weight"]}
            if graph["weight"] == "heat":
                weights["t"] = float(graph.get("t", 1.0))
                weights["width"] = PLAN.graph_config.get("width", "sigma")
        settings.append({"id": sid, "hyper": hyper, "graph": weights})
    return settings


def crossval_files():
    cv = crossval_plan()
    return [
        res(f"{cv['dataset']}/crossval/{cv['method']}/{selection}/n{size}.tsv")
        for selection in crossval_selections()
        for size in cv["train_sizes"]
    ]


def crossval_file_selections():
    """The selection of each of crossval_files(), in its order."""
    sizes = crossval_plan()["train_sizes"]
    return [selection for selection in crossval_selections() for _ in sizes]


def paper_outputs():
    if not PAPER:
        return []
    paper = PAPER_NAME
    outputs = expand(
        res("tables/{paper}_{table}.{ext}"),
        paper=paper,
        table=["acc", "nmi"],
        ext=["tsv", "md", "tex"],
    ) + [
        res(f"tables/{paper}_vs_paper.tsv"),
        res(f"tables/{paper}_fidelity.tsv"),
    ]
    outputs += expand(
        res("figures/{paper}/ablation_{dataset}.png"),
        paper=paper,
        dataset=ablation_datasets(),
    )
    if sensitivity_method():
        outputs += expand(
            res("figures/{paper}/sensitivity_{dataset}.png"),
            paper=paper,
            dataset=datasets_of([sensitivity_method()]),
        )
    if readings_method():
        outputs.append(res(f"tables/{paper}_readings.tsv"))
    if convergence_datasets():
        outputs.append(res(f"figures/{paper}/convergence.png"))
    if crossval_plan():
        outputs += [
            res(f"tables/{paper}_crossval.tsv"),
            res(f"tables/{paper}_crossval.md"),
        ]
        if crossval_plan().get("reference"):
            outputs.append(res(f"tables/{paper}_crossval_vs_paper.tsv"))
    return outputs
