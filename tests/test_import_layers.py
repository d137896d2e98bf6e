"""Import circles among a package's modules, counting imports inside functions (issue 38, point 7).

The imports are read from the source with `ast` (nothing is imported): `import m`, `from m import x`
and relative imports, at module level or inside functions; `from pkg import sub` counts as an import
of the submodule `sub`. Imports under `if TYPE_CHECKING:` are left out: they only name the class an
annotation refers to, run nothing, and cannot make one module wait for another (import-linter's
`exclude_type_checking_imports`). A module that imports another one back (directly or through others) forms a
circle; a reader then cannot learn the modules one layer at a time.

The core (`bk`) forms no circle: `bk._backend` imports the dispatcher, the specs, the rules and the
catalogue, and none of them imports it back (they ask `bk._kernels.core_backend()` for the class).
No module of the core is over 800 lines. Nor does bk-lazy form a circle, and none of its modules is
over 800 lines: `LazyArray` imports no module that computes, compiles or draws (`bk_lazy._backend`
registers their functions with `bk_lazy._graph`). `KNOWN` lists the circles still open (none): a new
one fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"bk": ROOT / "core" / "src" / "bk", "bk_lazy": ROOT / "plugins" / "bk-lazy" / "src" / "bk_lazy"}

# The circles still open (issue 38): none; a new one fails.
# fmt: off
KNOWN: dict[str, frozenset[str]] = {
    "bk": frozenset(),
    "bk_lazy": frozenset(),
}
# fmt: on


def _modules(package: str, root: Path) -> dict[str, Path]:
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join([package, *parts])] = path
    return found


def _compiled(root: Path, prefix: str, name: str) -> bool:
    """Whether `prefix.name` is an extension module built from C (`_fastplan.c`): no Python source to follow."""
    folder = root.joinpath(*prefix.split(".")[1:])
    return (folder / f"{name}.c").exists()


def _type_checking(node: ast.AST) -> bool:
    """Whether `node` is an `if TYPE_CHECKING:` block (`typing.TYPE_CHECKING` included)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_graph(package: str, root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (anywhere in its source)."""
    modules = _modules(package, root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        tree = ast.parse(path.read_text())
        annotations_only = {
            id(inner)
            for block in ast.walk(tree)
            if _type_checking(block)
            for statement in block.body
            for inner in ast.walk(statement)
        }  # type: ignore[attr-defined]
        for node in ast.walk(tree):
            if id(node) in annotations_only:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                prefix = (
                    ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
                    if node.level
                    else node.module or ""
                )
                targets = [
                    f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in modules else prefix
                    for alias in node.names
                    if not _compiled(root, prefix, alias.name)
                ]
            else:
                continue
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def test_circles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(graph) == [frozenset({"a", "b", "c"})]


def test_imports_inside_functions_count_and_annotation_imports_do_not(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .high import High\n")
    (package / "high.py").write_text("def f():\n    from .low import x\n")
    assert import_graph("pkg", package) == {"pkg": set(), "pkg.low": set(), "pkg.high": {"pkg.low"}}
    (package / "low.py").write_text("def g():\n    from . import high\n")
    assert circles(import_graph("pkg", package)) == [frozenset({"pkg.low", "pkg.high"})]


def test_the_core_forms_no_import_circle() -> None:
    assert circles(import_graph("bk", PACKAGES["bk"])) == []


def test_no_core_module_is_over_800_lines() -> None:
    for path in sorted(PACKAGES["bk"].rglob("*.py")):
        lines = path.read_text().count("\n")
        assert lines <= 800, f"{path.relative_to(ROOT)} has {lines} lines"


def test_bk_lazy_forms_no_import_circle() -> None:
    assert circles(import_graph("bk_lazy", PACKAGES["bk_lazy"])) == []


def test_no_bk_lazy_module_is_over_800_lines() -> None:
    for path in sorted(PACKAGES["bk_lazy"].rglob("*.py")):
        lines = path.read_text().count("\n")
        assert lines <= 800, f"{path.relative_to(ROOT)} has {lines} lines"


def test_no_new_import_circle() -> None:
    for package, root in PACKAGES.items():
        for circle in circles(import_graph(package, root)):
            assert circle <= KNOWN[package], (
                f"a new import circle in {package}: {sorted(circle - KNOWN[package])} in {sorted(circle)}"
            )


def test_the_namespace_modules_form_no_circle_and_stay_small() -> None:
    graph = import_graph("bk", PACKAGES["bk"])
    namespace = {name for name in graph if name.startswith("bk._namespace")}
    assert len(namespace) >= 5
    for circle in circles(graph):
        assert not circle & namespace, f"namespace modules in an import circle: {sorted(circle)}"
    for name in namespace:
        lines = (PACKAGES["bk"] / f"{name.removeprefix('bk.')}.py").read_text().count("\n")
        assert lines <= 800, f"{name} has {lines} lines"


def test_no_source_module_anywhere_is_over_800_lines() -> None:
    """The core, the testkit and every plugin, Python and C alike (issue 38, point 7)."""
    sources = [ROOT / "core" / "src", ROOT / "testkit" / "src", *sorted((ROOT / "plugins").glob("*/src"))]
    assert len(sources) >= 9
    checked = set()
    for folder in sources:
        for path in sorted(p for pattern in ("*.py", "*.c", "*.h") for p in folder.rglob(pattern)):
            lines = path.read_text().count("\n")
            assert lines <= 800, f"{path.relative_to(ROOT)} has {lines} lines"
            checked.add(path.suffix)
    assert checked == {".py", ".c", ".h"}  # the C fronts' files are among them


# The core's layers, lowest first, as docs/concepts.md ("Where each part lives") shows them: a module imports modules
# of its own layer or of layers below it. Modules above `bk._backend` (plugins, dispatch, namespaces) are not ordered.
CORE_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("values", ("bk._dtype", "bk._errors", "bk._axes", "bk._context", "bk._device", "bk._names", "bk._markers", "bk._entrypoints", "bk._version", "bk._features")),
    ("declarations", ("bk._kernels",)),
    ("rules", ("bk._rules",)),
    ("specs", ("bk._specs",)),
    ("registry", ("bk._operations",)),
    ("call path", ("bk._explain", "bk._conversions", "bk._plans", "bk._dispatcher")),
    ("catalogue", (
        "bk._catalogue_core", "bk._catalogue_algorithms", "bk._catalogue_dtypes", "bk._catalogue_linalg", "bk._catalogue_shapes", "bk._catalogue_standard",
        "bk._defaults", "bk._defaults_algorithms", "bk._linalg", "bk._minimize", "bk._solve",
    )),
    ("backend", ("bk._backend",)),
)  # fmt: skip


def _layer(module: str) -> int | None:
    for index, (_, names) in enumerate(CORE_LAYERS):
        if any(module == name or module.startswith(f"{name}.") for name in names):
            return index
    return None


def test_the_core_imports_only_its_own_layer_or_those_below() -> None:
    graph = import_graph("bk", PACKAGES["bk"])
    upward = []
    for module, targets in sorted(graph.items()):
        own = _layer(module)
        for target in sorted(targets):
            other = _layer(target)
            if own is not None and (other is None or other > own):
                upward.append(f"{module} ({CORE_LAYERS[own][0]}) imports {target}")
    assert not upward, upward
    assert _layer("bk._rules.linalg") == 2 and _layer("bk._backend") == 7
