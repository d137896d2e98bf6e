"""Python source of an unravelled graph: one line per node, calling bk backend operations."""

from __future__ import annotations

import keyword
from collections.abc import Sequence
from typing import Any

from bk import DType

from ._graph import LazyArray, ascend, flatten

__all__ = ["Program", "get_source", "render"]

_LITERALS = (type(None), bool, int, str)


def render(value: Any, names: dict[int, str], params: dict[str, Any], slots: Sequence[str] = ()) -> str:
    """Source that evaluates to `value`: nodes by name, literals as such, anything else as a parameter.

    Args:
        names: Variable names of nodes, by `id`.
        slots: Variable names of the slots of a plan (for its `Slot` references).
    """
    if isinstance(value, LazyArray):
        return names[id(value)]
    if slots and type(value).__name__ == "Slot":
        return slots[value]
    if type(value) in _LITERALS:
        return repr(value)
    if type(value) in (float, complex) and value == value and abs(value) != float("inf"):
        return repr(value)
    if value is Ellipsis:
        return "..."
    if isinstance(value, slice):
        return f"slice({render(value.start, names, params, slots)}, {render(value.stop, names, params, slots)}, {render(value.step, names, params, slots)})"
    if type(value) is tuple:
        parts = [render(v, names, params, slots) for v in value]
        return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
    if type(value) is list:
        return f"[{', '.join(render(v, names, params, slots) for v in value)}]"
    if type(value) is dict and all(type(k) is str for k in value):
        return "{" + ", ".join(f"{k!r}: {render(v, names, params, slots)}" for k, v in value.items()) + "}"
    base = _param_name(value)
    name, i = base, 1
    while name in params and params[name] is not value:
        name, i = f"{base}_{i}", i + 1
    params[name] = value
    return name


def _param_name(value: Any) -> str:
    if isinstance(value, DType):
        return value.name.replace("-", "_")
    kind = getattr(value, "__name__", None)
    if isinstance(kind, str) and kind.isidentifier():
        return f"f_{kind}"
    return "c"


def _usable(name: str | None, taken: set[str]) -> bool:
    if not name or name in taken or keyword.iskeyword(name) or name in ("b", "precision"):
        return False
    return not (name[0] in "xca" and name[1:].isdigit())


class Program:
    """The statements computing `outputs` from `inputs`, constants and leaves.

    Args:
        order: The nodes to emit, dependencies first (inputs and constants excluded).
        inputs: Nodes bound to the function's parameters.
        constants: Nodes whose values are given (folded results and leaves), as parameters.
        outputs: The nodes returned.
        alias: Map from a node's `id` to the node that replaces it (merged common subexpressions).
        call: `'b.{op}'` writes `b.add(...)`; `'{op}'` writes `add(...)` for functions bound beforehand.
    """

    def __init__(
        self,
        order: Sequence[LazyArray],
        inputs: Sequence[LazyArray],
        constants: Sequence[LazyArray],
        outputs: Sequence[LazyArray],
        alias: dict[int, LazyArray] | None = None,
        call: str = "b.{op}",
    ) -> None:
        self.params: dict[str, Any] = {}
        self.ops: list[str] = []
        self.lines: list[str] = []
        names: dict[int, str] = {}
        taken = set()
        for i, node in enumerate(inputs):
            name = node._name if _usable(node._name, taken) else f"a{i}"
            names[id(node)] = name
            taken.add(name)
        self.input_names = [names[id(n)] for n in inputs]
        self.constant_names = []
        for i, node in enumerate(constants):
            names[id(node)] = f"c{i}"
            self.constant_names.append(f"c{i}")
        alias = alias or {}
        last_use: dict[int, int] = {}
        emitted = [n for n in order if id(n) not in names]
        for step, node in enumerate(emitted):
            for dep in node._deps:
                last_use[id(alias.get(id(dep), dep))] = step
        keep = {id(alias.get(id(o), o)) for o in outputs} | set(names)
        released: dict[int, list[int]] = {}
        for node_id, step in last_use.items():
            if node_id not in keep:
                released.setdefault(step, []).append(node_id)
        for step, node in enumerate(emitted):
            name = f"x{len(names)}"
            line = self._line(node, name, names, alias, call)
            names[id(node)] = name
            if node._precision is not None:
                self.lines.append(f"with precision({node._precision}):")
                self.lines.append(f"    {line}")
            else:
                self.lines.append(line)
            done = [names[d] for d in released.get(step, ())]
            if done:
                self.lines.append(f"del {', '.join(sorted(done))}")
        self.output_names = [names[id(alias.get(id(o), o))] for o in outputs]
        taken_ops = set(self.input_names) | set(self.constant_names) | set(self.params)
        clash = [op for op in self.ops if op in taken_ops] if call == "{op}" else []
        if clash:
            raise ValueError(f"Variable names {clash} clash with operation names; rename the variables")

    def _line(self, node: LazyArray, name: str, names: dict[int, str], alias: dict[int, LazyArray], call: str) -> str:
        for dep in node._deps:
            rep = alias.get(id(dep))
            if rep is not None:
                names[id(dep)] = names[id(rep)]  # a merged duplicate is written as its representative
        if node._fn_name == "getitem":
            return f"{name} = {names[id(node._args[0])]}[{node._args[1]}]"
        op = node._fn_name
        assert op is not None
        args = [render(a, names, self.params) for a in node._args]
        args += [f"{k}={render(v, names, self.params)}" for k, v in node._kwargs.items()]
        if op == "call":  # a Python callable (`bk_lazy.call`): called as it is
            return f"{name} = {args[0]}({', '.join(args[1:])})"
        if op == "to_device" and call != "{op}":  # not a backend method: the evaluator's function, given `b`
            from ._compute import move_to_device

            self.params["to_device"] = move_to_device
            return f"{name} = to_device(b, {', '.join(args)})"
        if op not in self.ops:
            self.ops.append(op)
        return f"{name} = {call.format(op=op)}({', '.join(args)})"

    def body(self, indent: str = "") -> str:
        """The statements and the return line."""
        result = ", ".join(self.output_names)
        lines = [*self.lines, f"return ({result},)" if len(self.output_names) == 1 else f"return ({result})"]
        return "\n".join(indent + line for line in lines)


def get_source(nodes: Any, params: dict[str, Any] | None = None) -> str:
    """Python source of the unravelled graph of `nodes` (a node or a tree of them).

    Each line calls one operation of the backend `b` (`x3 = b.add(x1, x2)`); variables appear by
    name, leaves' data and other objects as parameters added to `params`. `exec` the source with
    `params` and `b` (and `precision = bk.precision` where nodes were made under a precision) in
    its namespace; the last line assigns the results to `result`.
    """
    params = {} if params is None else params
    roots, _ = flatten(nodes)
    order = list(ascend(roots))
    variables = [n for n in order if n.is_variable]
    leaves = [n for n in order if n.is_leaf and not n.is_variable]
    program = Program(order, variables, leaves, roots)
    for name, node in zip(program.constant_names, leaves, strict=True):
        params[name] = node._data
    params.update(program.params)
    lines = [*program.lines, f"result = {', '.join(program.output_names)}"]
    return "\n".join(lines) + "\n"
