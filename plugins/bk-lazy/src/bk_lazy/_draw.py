"""`draw`: a picture of a graph, rendered by Graphviz (the optional extra `bk-lazy[draw]`)."""

from __future__ import annotations

from typing import Any

from ._graph import NO_DATA, LazyArray, flatten, topological

__all__ = ["draw"]

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
