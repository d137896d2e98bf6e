"""Looking at a graph: `draw`, a picture rendered by Graphviz (the optional extra `bk-lazy[draw]`),
and `show`, the same graph as a tree of text lines (no extra)."""

from __future__ import annotations

import sys
from typing import IO, Any

import numpy as np

from ._graph import NO_DATA, LazyArray, flatten, topological

__all__ = ["draw", "format_graph", "show"]

_INSTALL = (
    "bk_lazy.draw needs the graphviz Python package: pip install bk-lazy[draw] "
    "(rendering also needs Graphviz's dot program: apt-get install graphviz, brew install graphviz, or graphviz.org)"
)


def _graphviz() -> Any:
    try:
        import graphviz
    except ImportError as error:
        raise ImportError(_INSTALL) from error
    return graphviz


def label(node: LazyArray) -> str:
    """What a node's box says: its operation (or kind of leaf), shape and dtype."""
    if node._fn_name is None:
        if node._data is NO_DATA:
            what = f"Variable {node._name}" if node._name else "Variable"
        else:
            what = f"array ({type(node._data).__module__.partition('.')[0]})"
    elif node._fn_name == "getitem":
        what = f"[{node._args[1]}]"
    elif node._fn_name == "call":
        what = f"call {getattr(node._args[0], '__name__', type(node._args[0]).__name__)}"
    else:
        what = node._fn_name
    if node._shape is None:
        return f"{what}\nseveral results"
    shape = "(" + ", ".join("?" if s is None else str(s) for s in node._shape) + ("," if len(node._shape) == 1 else "") + ")"
    return f"{what}\n{shape} {node._dtype}"


def draw(nodes: Any, filename: str | None = None, format: str = "svg", direction: str = "TB", **graph_attr: str) -> Any:
    """A picture of the graph of `nodes` (a node or a tree of them), drawn by Graphviz.

    Each distinct node is one box showing its operation, shape and dtype (`?` for a size that
    depends on the data); a subgraph used several times is drawn once, with an arrow to each user.
    Leaves are grey (variables dashed), the requested nodes bold.

    Args:
        nodes: What to draw.
        filename: Where to render the picture (Graphviz's `dot` program must be installed); `None`
            renders nothing: the returned object shows itself in Jupyter, or call its `pipe()`.
        format: The file format Graphviz writes: `'svg'`, `'png'`, `'pdf'`, ...
        direction: `'TB'` (leaves on top) or `'LR'` (leaves on the left).
        **graph_attr: More Graphviz graph attributes (`size="8,8"`, `dpi="150"`, ...).

    Returns:
        The `graphviz.Digraph`.

    Raises:
        ImportError: without the graphviz package, saying `pip install bk-lazy[draw]`.
    """
    graphviz = _graphviz()
    roots, _ = flatten(nodes)
    wanted = {id(r) for r in roots}
    picture = graphviz.Digraph("bk_lazy", format=format, graph_attr={"rankdir": direction, **graph_attr})
    picture.attr("node", shape="box", style="rounded", fontname="Helvetica", fontsize="11")
    names: dict[int, str] = {}
    for node in topological(roots):
        name = names[id(node)] = f"n{len(names)}"
        style = {}
        if node._fn_name is None:
            style = {"style": "rounded,filled,dashed" if node._data is NO_DATA else "rounded,filled", "fillcolor": "#e8e8e8"}
        if id(node) in wanted:
            style["penwidth"] = "2"
        picture.node(name, label(node), **style)
        for dep in node._deps:
            picture.edge(names[id(dep)], name)
    if filename is not None:
        picture.render(outfile=filename, format=format, cleanup=True)
    return picture


# ---------------------------------------------------------------- text


def show(
    nodes: Any,
    filler: str = " ",
    max_lines: int | None = None,
    max_depth: int | None = None,
    show_args: bool = True,
    file: IO[str] | None = None,
) -> None:
    """Prints the graph of `nodes` (a node or a tree of them) as a tree of text, as autoray's `show`.

    Each line is numbered and shows one node: its operation with its arguments (`#` for another
    node) and its shape and dtype, under the node that uses it (`├─`, `╰─`); a leaf starts with `←`.
    A node already shown is not expanded again: the line points to where it was (`... [from line 3]`).
    Of a node's dependencies the deepest comes first.

    Args:
        filler: The character that fills the indentation.
        max_lines: Stop after this many lines.
        max_depth: Do not expand nodes deeper than this below a root.
        show_args: Show each operation's arguments (else its name only).
        file: Where to print (standard output by default).
    """
    print(format_graph(nodes, filler, max_lines, max_depth, show_args), file=file or sys.stdout)


def format_graph(
    nodes: Any, filler: str = " ", max_lines: int | None = None, max_depth: int | None = None, show_args: bool = True
) -> str:
    """The text `show` prints."""
    roots, _ = flatten(nodes)
    lines: list[str] = []
    first_line: dict[int, int] = {}
    stack: list[tuple[LazyArray, tuple[bool, ...]]] = [(r, ()) for r in reversed(roots)]
    limit = float("inf") if max_lines is None else max_lines
    depth_limit = float("inf") if max_depth is None else max_depth
    while stack and len(lines) < limit:
        node, lasts = stack.pop()
        prefix = "".join(filler * 2 if last else "│" + filler for last in lasts[:-1])
        if lasts:
            prefix += "╰─" if lasts[-1] else "├─"
        item = _text(node, show_args)
        seen = first_line.get(id(node))
        if seen is not None:
            lines.append(f"{len(lines):>4} {prefix}... [{item} from line {seen}]")
            continue
        first_line[id(node)] = len(lines)
        lines.append(f"{len(lines):>4} {prefix}{item}")
        if len(lasts) < depth_limit and node._deps:
            deps = sorted(node._deps, key=lambda d: d._depth, reverse=True)  # the deepest first
            for i in reversed(range(len(deps))):
                stack.append((deps[i], (*lasts, i == len(deps) - 1)))
    return "\n".join(lines)


def _text(node: LazyArray, show_args: bool) -> str:
    """One line of `show`: the operation (with its arguments), shape and dtype."""
    result = "several results" if node._shape is None else f"{_shape_text(node._shape)} {node._dtype}"
    if node._fn_name is None:
        if node._data is NO_DATA:
            return f"← {node._name or 'Variable'} {result}"
        return f"← {type(node._data).__module__.partition('.')[0]} {result}"
    name = node._fn_name
    if name == "getitem":
        return f"[{node._args[1]}] → {result}"
    if name == "call":
        name = getattr(node._args[0], "__name__", type(node._args[0]).__name__)
        args = node._args[1:]
    else:
        args = node._args
    if not show_args:
        return f"{name} → {result}"
    parts = [_arg_text(a) for a in args] + [f"{k}={_arg_text(v)}" for k, v in node._kwargs.items()]
    return f"{name}({', '.join(parts)}) → {result}"


def _shape_text(shape: tuple[int | None, ...]) -> str:
    return "[" + ", ".join("?" if s is None else str(s) for s in shape) + "]"


def _arg_text(value: Any) -> str:
    if isinstance(value, LazyArray):
        return "#"
    if isinstance(value, slice):
        parts = ["" if p is None else _arg_text(p) for p in (value.start, value.stop, value.step)]
        return ":".join(parts[:2] if value.step is None else parts)
    if value is Ellipsis:
        return "..."
    if isinstance(value, tuple):
        return "(" + ", ".join(_arg_text(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_arg_text(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return f"array{_shape_text(value.shape)}"
    if callable(value):
        return str(getattr(value, "__name__", type(value).__name__))
    return repr(value)
