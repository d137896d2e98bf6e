"""Every distribution declares every module its `src/` tree imports (issue 24, clean installs).

The imports are read from the source with `ast` (nothing is imported). A module imported at module
level, outside `try`, must be in `dependencies`; one imported only inside a function or a `try`
(an optional feature) may instead be in an extra of `optional-dependencies`. `.ci/clean_installs.py`
proves the same by installing each distribution alone into a fresh virtual environment.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = sorted(p.parent for p in [ROOT / "core" / "pyproject.toml", ROOT / "testkit" / "pyproject.toml", *ROOT.glob("plugins/*/pyproject.toml")] if p.exists())
# Import name -> the distributions that provide it, where the names differ beyond case, `_` and `-`.
PROVIDERS = {"bk": ("bk-core",), "tensorflow": ("tensorflow", "tensorflow-cpu"), "yaml": ("pyyaml",)}
# A framework that a plugin takes through an extra on purpose (its modules beyond plugin.py import it
# when the backend loads): bk-tf[cpu] installs tensorflow-cpu, bk-tf[gpu] tensorflow.
FRAMEWORK_EXTRAS = {"bk-tf": "tensorflow"}


class Import(NamedTuple):
    module: str  # the top-level module
    where: str  # file:line
    eager: bool  # at module level and outside `try`: runs whenever the file is imported


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    return _normalized(re.split(r"[\s<>=!~;\[@]", requirement.strip(), maxsplit=1)[0])


def imports(source_dir: Path) -> list[Import]:
    """The absolute imports of non-standard-library modules in every `.py` file under `source_dir`."""
    found = []
    for path in sorted(source_dir.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += _imports_of(tree, f"{path.relative_to(ROOT)}")
    return found


def _imports_of(tree: ast.AST, filename: str) -> list[Import]:
    found: list[Import] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                names = [child.module]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "__future__":
                    found.append(Import(top, f"{filename}:{child.lineno}", not lazy))
            deeper = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Try, ast.Lambda))
            deeper = deeper or (isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            visit(child, deeper)

    visit(tree, False)
    return found


def _declared(dist: Path) -> tuple[set[str], set[str]]:
    project = tomllib.loads((dist / "pyproject.toml").read_text())["project"]
    required = {_requirement_name(r) for r in project.get("dependencies", [])}
    optional = {_requirement_name(r) for extra in project.get("optional-dependencies", {}).values() for r in extra}
    return required | {_normalized(project["name"])}, optional


def _providers(module: str) -> set[str]:
    return {_normalized(d) for d in PROVIDERS.get(module, (module,))}


@pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=lambda d: d.name)
def test_every_import_is_declared(dist: Path) -> None:
    required, optional = _declared(dist)
    problems = []
    for imp in imports(dist / "src"):
        providers = _providers(imp.module)
        if providers & required or (imp.module == FRAMEWORK_EXTRAS.get(dist.name) and providers & optional):
            continue
        if imp.eager:
            problems.append(f"{imp.where}: imports {imp.module!r} when the module is imported, but 'dependencies' lacks {sorted(providers)}")
        elif not providers & optional:
            problems.append(f"{imp.where}: imports {imp.module!r}, which neither 'dependencies' nor an extra declares")
    assert not problems, f"{dist.name}/pyproject.toml:\n" + "\n".join(problems)


def test_the_check_sees_lazy_and_eager_imports() -> None:
    source = "import numpy\nimport os\ntry:\n    import scipy\nexcept ImportError:\n    pass\ndef f():\n    from hypothesis import given\n"
    found = _imports_of(ast.parse(source), "x.py")
    assert found == [Import("numpy", "x.py:1", True), Import("scipy", "x.py:4", False), Import("hypothesis", "x.py:8", False)]
