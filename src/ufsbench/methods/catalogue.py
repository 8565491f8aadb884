"""The table of every registered method that README.md shows, generated from the registry.

Kept apart from ``registry.py``: selection jobs hash the registry's source, and the
README's table is no reason to re-run them.
"""

from __future__ import annotations

from .registry import REGISTRY

_GRAPHS = {
    None: "–",
    "heat": "shared k-NN, heat",
    "binary": "shared k-NN, 0-1",
    "param": "shared k-NN, 0-1 or heat (`weight`)",
}


def method_table() -> str:
    """The Markdown table of every registered method, as README.md shows it.

    One row per method in registry order: config name, display name, the shared sample
    graph it uses (``–``: none, or a graph of its own), what kind of solver it is, and its
    first reference. README's table is this text (``tests/test_methods.py`` checks it);
    regenerate it with ``python -c "from ufsbench.methods.catalogue import method_table;
    print(method_table())"``.
    """
    lines = ["| name | method | graph | kind | reference |", "|---|---|---|---|---|"]
    for name, spec in REGISTRY.items():
        kind = ["iterative" if spec.iterative else "non-iterative"]
        if spec.count_dependent:
            kind.append("one run per feature count")
        if spec.uses_all_features:
            kind = ["baseline: every feature"]
        reference = spec.references[0] if spec.references else ""
        cells = [f"`{name}`", spec.title, _GRAPHS[spec.graph], ", ".join(kind), reference]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"
