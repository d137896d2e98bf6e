"""Plugins reach bk only through its public modules (DESIGN.md: "A plugin author's API is public").

What a kernel may call is exported by `bk` (axis normalisation, error classes, dtype helpers) and
`bk.rules` (the rules of docs/semantics.md, for kernels that apply them themselves), so that a third
party can do whatever a first-party plugin does. Read with `ast`: nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(ROOT.glob("plugins/*/src/**/*.py"))
PUBLIC = {"bk", "bk.rules", "bk.hookspecs"}
# bk-arrayapi hosts plugins of its own (Array-API namespaces declared in its entry-point group) and
# scans for them with the core's entry-point reader, as bk's discovery does: plugin infrastructure,
# not something a kernel calls.
INFRASTRUCTURE = {("bk_arrayapi/plugin.py", "bk._entrypoints")}


def _bk_imports(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.split(".")[0] == "bk":
            found += [(node.module, node.lineno)] + [(f"{node.module}.{a.name}", node.lineno) for a in node.names if node.module == "bk" and a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "bk"]
    return found


def test_the_plugins_are_read():
    assert len(SOURCES) > 50 and any(p.name == "_backend.py" for p in SOURCES)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT / "plugins")))
def test_plugin_imports_only_public_bk_modules(path: Path):
    where = f"{path.parent.name}/{path.name}"
    private = [f"{where}:{line} imports {module}" for module, line in _bk_imports(path) if module not in PUBLIC and (where, module) not in INFRASTRUCTURE]
    assert not private, "use bk or bk.rules instead: " + "; ".join(private)
