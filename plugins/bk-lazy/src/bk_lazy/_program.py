"""`Program`: the steps of a compiled graph, run by a small interpreter or written as Python source.

Values live in numbered slots: the inputs first, then the constants, then one slot per step. A
step calls one operation with arguments in which `Slot(i)` stands for the value in slot `i`, and
clears the slots whose last use it was, so intermediate results are released as early as in
`compute`. Small programs are written as Python source and compiled (the fastest calls); large ones
are interpreted, because compiling Python source costs about 25 us per line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import bk
from bk.rules import by_position

from ._graph import LazyArray
from ._source import render

__all__ = ["Program", "Slot"]


class Slot(int):
    """A reference to the value in slot `int(self)`, inside a step's arguments."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Slot({int(self)})"


def _template(value: Any, slot_of: dict[int, int]) -> tuple[Any, bool]:
    """`value` with nodes replaced by their `Slot`s, and whether it holds any."""
    if isinstance(value, LazyArray):
        return Slot(slot_of[id(value)]), True
    if isinstance(value, (tuple, list)):
        parts = [_template(v, slot_of) for v in value]
        return type(value)(p for p, _ in parts), any(f for _, f in parts)
    if isinstance(value, dict):
        items = {k: _template(v, slot_of) for k, v in value.items()}
        return {k: p for k, (p, _) in items.items()}, any(f for _, f in items.values())
    return value, False


def _fill(value: Any, slots: list[Any]) -> Any:
    if type(value) is Slot:
        return slots[value]
    if isinstance(value, (tuple, list)):
        return type(value)(_fill(v, slots) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, slots) for k, v in value.items()}
    return value


class Program:
    """The steps computing `outputs` from `inputs` and `constants`.

    Args:
        order: The nodes to compute, dependencies first (inputs and constants excluded).
        inputs: Nodes whose values are the call's arguments.
        constants: Nodes whose values are fixed (leaves' data and folded results).
        outputs: The nodes returned, in order.
        alias: Maps a node's `id` to the node that replaces it (merged duplicates).
    """

    __slots__ = ("input_names", "n_constants", "n_inputs", "n_slots", "ops", "outputs", "precisions", "steps")

    def __init__(
        self,
        order: Sequence[LazyArray],
        inputs: Sequence[LazyArray],
        constants: Sequence[LazyArray],
        outputs: Sequence[LazyArray],
        alias: dict[int, LazyArray],
    ) -> None:
        slot_of: dict[int, int] = {}
        for node in (*inputs, *constants):
            slot_of.setdefault(id(node), len(slot_of))
        self.n_inputs, self.n_constants = len(inputs), len(constants)
        self.input_names = [node._name for node in inputs]
        for duplicate, kept in alias.items():  # dead duplicates of inputs or constants
            if id(kept) in slot_of:
                slot_of[duplicate] = slot_of[id(kept)]
        last: dict[int, int] = {}
        slot = len(slot_of)
        for step, node in enumerate(order):  # dependencies come first: their slots exist
            for dep in node._deps:
                dep_slot = slot_of.get(id(dep))
                if dep_slot is None:
                    dep_slot = slot_of[id(dep)] = slot_of[id(alias[id(dep)])]
                last[dep_slot] = step
            slot_of[id(node)] = slot
            slot += 1
        self.n_slots = slot
        fixed = set(range(self.n_inputs + self.n_constants)) | {slot_of[id(alias.get(id(o), o))] for o in outputs}
        frees: dict[int, list[int]] = {}
        for released, step in last.items():
            if released not in fixed:
                frees.setdefault(step, []).append(released)
        ops: dict[str, int] = {}
        steps: list[tuple[Any, ...]] = []
        append = steps.append
        for step, node in enumerate(order):
            op = node._fn_name
            index = ops.get(op)  # type: ignore[arg-type]
            if index is None:
                index = ops[op] = len(ops)  # type: ignore[index]
            args = node._args
            fills: list[tuple[int, int]] = []
            nested = False
            for position, arg in enumerate(args):
                kind = type(arg)
                if kind is LazyArray:
                    fills.append((position, slot_of[id(arg)]))
                elif kind is tuple or kind is list or kind is dict:
                    nested = True
            if nested:  # nodes inside containers: Slot markers, filled recursively
                template, _ = _template(args, slot_of)
                fills = []
            else:  # nodes only at the top level: `None` placeholders, filled by position
                template = tuple([None if type(a) is LazyArray else a for a in args]) if fills else args
            kwargs, nested_kw = _template(node._kwargs, slot_of) if node._kwargs else ({}, False)
            free = tuple(sorted(frees[step])) if step in frees else ()
            append((index, template, tuple(fills), nested or nested_kw, kwargs, slot_of[id(node)], free, node._precision))
        self.steps = steps
        self.precisions = {node._precision for node in order}
        self.ops = list(ops)
        self.outputs = [slot_of[id(alias.get(id(o), o))] for o in outputs]

    # ------------------------------------------------------------ running

    def run(self, functions: Sequence[Any], args: Sequence[Any], constants: Sequence[Any]) -> tuple[Any, ...]:
        """The outputs, computed by calling `functions[op]` for each step."""
        slots: list[Any] = [*args, *constants, *([None] * (self.n_slots - self.n_inputs - self.n_constants))]
        for index, template, fills, nested, kwargs, out, free, precision in self.steps:
            if nested:
                values = _fill(template, slots)
                kw = _fill(kwargs, slots)
            else:
                values = list(template)
                for position, slot in fills:
                    values[position] = slots[slot]
                kw = kwargs
            if precision is None:
                slots[out] = functions[index](*values, **kw)
            else:
                with bk.precision(precision):
                    slots[out] = functions[index](*values, **kw)
            for slot in free:
                slots[slot] = None
        return tuple(slots[o] for o in self.outputs)

    # ------------------------------------------------------------ as Python source

    def names(self) -> list[str]:
        """The variable name of each slot in the source."""
        names = [n if n and _usable(n) else f"a{i}" for i, n in enumerate(self.input_names)]
        if len(set(names)) != len(names):
            names = [f"a{i}" for i in range(self.n_inputs)]
        names += [f"c{i}" for i in range(self.n_constants)]
        return names + [f"x{i}" for i in range(len(names), self.n_slots)]

    def source(self, params: dict[str, Any], bare: bool = False) -> str:
        """The factory `make(b, precision, evaluator, c0, ..., <params>)` returning the compiled function.

        Objects that are not literals are added to `params` (and become factory arguments). The
        function returns a tuple of the outputs; with `bare`, a single output as it is.
        """
        names = self.names()
        ops = set(self.ops)
        for i in range(self.n_inputs):
            if names[i] in ops:
                names[i] = f"a{i}"
        body = []
        for index, template, fills, _, kwargs, out, free, precision in self.steps:
            op = self.ops[index]
            args = list(template)
            for position, slot in fills:
                args[position] = Slot(slot)
            if op == "getitem":
                line = f"{names[out]} = {names[args[0]]}[{args[1]!r}]"
            else:
                args, kwargs = by_position(op, tuple(args), kwargs)  # as a direct call passes them (`sum(x, 0)`)
                parts = [render(a, {}, params, names) for a in args]
                parts += [f"{k}={render(v, {}, params, names)}" for k, v in kwargs.items()]
                line = f"{names[out]} = {op}({', '.join(parts)})"
            body += [f"with precision({precision}):", f"    {line}"] if precision is not None else [line]
            if free:
                body.append(f"del {', '.join(names[s] for s in free)}")
        outputs = ", ".join(names[o] for o in self.outputs)
        if len(self.outputs) == 1:
            body.append(f"return {outputs}" if bare else f"return ({outputs},)")
        else:
            body.append(f"return ({outputs})")
        constants = [names[self.n_inputs + i] for i in range(self.n_constants)]
        lines = [f"def make({', '.join(['b', 'precision', 'evaluator', *constants, *params])}):"]
        lines += [f"    {op} = evaluator(b, {op!r})" for op in self.ops if op != "getitem"]
        lines.append(f"    def function({', '.join(names[: self.n_inputs])}):")
        lines += [f"        {line}" for line in body]
        lines.append("    return function")
        return "\n".join(lines) + "\n"


def _usable(name: str) -> bool:
    import keyword

    if keyword.iskeyword(name) or name in ("b", "precision", "evaluator", "make", "function"):
        return False
    return not (name[0] in "xca" and name[1:].isdigit())

