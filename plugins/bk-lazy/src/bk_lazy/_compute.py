"""Computing graphs: `compute`, the evaluator shared with `Function`, and `compute_constants`.

Each node is evaluated exactly once, dependencies first, by the bk operation it records on the
target backend (`evaluator` finds the function); an intermediate result is released as soon as its
last consumer has run.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import partial
from typing import Any, Final

import bk
from bk import Backend

from ._graph import NO_DATA, RANDOM, LazyArray, UnboundVariableError, _consumers, flatten, topological

__all__ = [
    "compute",
    "compute_constants",
    "compute_count",
    "device_count",
    "evaluate",
    "evaluator",
    "leaf_device",
    "move_to_device",
    "on_device",
    "resolve_device",
    "substitute",
    "target_backend",
    "unbound",
]

_COUNTER: list[int] = [0]  # computes so far (a list: mutated in place, read by compute_count)


def compute_count() -> int:
    """How many times lazy values have been computed in this process (calls of `compute`)."""
    return _COUNTER[0]


def compute(nodes: Any, backend: Backend | str | None = None) -> Any:
    """The values of `nodes` (a node, or a tree of tuples, lists and dicts of nodes).

    Each node is evaluated exactly once, dependencies first, by the bk operation it records on the
    target backend; an intermediate result is released as soon as its last consumer has run.

    Args:
        nodes: What to compute.
        backend: Where to compute; by default the backend of the leaves' data (NumPy leaves are
            constants that lose to any framework's tensors; NumPy when there are none).

    Raises:
        UnboundVariableError: when the graph depends on a `Variable`, naming it.
        NoBackendFound: when leaves hold tensors of two frameworks.
    """
    roots, rebuild = flatten(nodes)
    order = topological(roots, deepest=False)
    unbound(order)  # before anything is counted or computed
    target = target_backend(order) if backend is None else bk.backend(backend) if isinstance(backend, str) else backend
    _COUNTER[0] += 1
    values = evaluate(order, roots, target)
    return rebuild([values[id(r)] for r in roots])


_DEVICE_COUNTS: dict[Backend, int] = {}


def device_count(target: Backend) -> int:
    """How many devices `target` has (asked once per backend)."""
    count = _DEVICE_COUNTS.get(target)
    if count is None:
        try:
            count = len(target.list_devices())
        except NotImplementedError:
            count = 1
        count = _DEVICE_COUNTS[target] = count
    return count


def on_device(target: Backend, value: Any, device: Any) -> Any:
    """`value`, a tensor of `target`, moved to `device` unless it is there (or `device` is `None`)."""
    if device is None or not target.supports("allocate_on_device") or target.get_device(value) == device:
        return value
    return target.allocate_on_device(value, device)


def leaf_device(order: list[LazyArray], target: Backend) -> Any:
    """Where the converted leaves of a graph go: the device of its first leaf that is already a
    tensor of `target` (a GPU tensor), on a backend of several devices; else `None` (the default)."""
    if device_count(target) < 2:
        return None
    for node in order:
        if node._fn_name is None and node._data is not NO_DATA and target.is_tensor(node._data, only_native=True):
            return target.get_device(node._data)
    return None


def target_backend(order: list[LazyArray]) -> Backend:
    """The backend of the leaves' data, NumPy's when there is none."""
    datas = [n._data for n in order if n._fn_name is None and n._data is not NO_DATA]
    if datas:
        chosen = bk.choose_backend(*datas)
        if chosen.name != "lazy":
            return chosen
    return bk.backend("numpy")


def unbound(order: list[LazyArray], known: frozenset[int] = frozenset()) -> None:
    """Raises `UnboundVariableError` for the first `Variable` in `order` that is not in `known`."""
    for node in order:
        if node._fn_name is None and node._data is NO_DATA and id(node) not in known:
            raise UnboundVariableError(
                f"Variable {node._name!r} (shape {node._shape}, {node._dtype}) has no value; "
                f"bind it by calling bk_lazy.Function([{node._name}, ...], outputs) with its value"
            )


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


def _matmul_kernel(target: Backend, function: Any) -> Callable[..., Any]:
    """The backend's `matmul`; where that is the core's generic one, the `@` of two tensors of one
    dtype outside a precision context (what the generic does once its checks pass: the graph's
    were made when the node was built, and `Function` checks its arguments)."""
    if function is None:
        return operator.matmul
    if getattr(type(target), "matmul", None) is not getattr(Backend, "matmul", None):
        return function  # type: ignore[no-any-return]
    get_precision = bk.get_precision

    def matmul(x1: Any, x2: Any) -> Any:
        if type(x1) is type(x2) and x1.dtype == x2.dtype and get_precision() is None:
            return x1 @ x2
        return function(x1, x2)

    return matmul


def move_to_device(target: Backend, value: Any, device: Any = None) -> Any:
    """What a `to_device` node computes: `value` (a tensor of `target`) on `device`, or as it is
    for `None` (it stays where it was computed, as autoray's `to_device(x, None)`)."""
    if device is None:
        return value
    return target.allocate_on_device(value, resolve_device(target, device))


def resolve_device(target: Backend, device: Any) -> bk.ComputeDevice:
    """The device of `target` that `device` names: a `ComputeDevice` of that backend, or a string
    matched against its devices' `ref`, name or type (`'cpu'`, `'gpu'`, `'gpu:1'`; any case).

    Raises:
        ValueError: for a device of another backend, or a name that matches none of `target`'s devices.
    """
    devices = target.list_devices()
    if isinstance(device, bk.ComputeDevice):
        if device.backend is target or device in devices:
            return device
        raise ValueError(
            f"to_device: {device} belongs to backend {getattr(device.backend, 'name', '?')!r}, but this graph "
            f"computes on {target.name!r}; name the device by type ('cpu', 'gpu') instead"
        )
    if not isinstance(device, str):
        raise TypeError(f"to_device: device must be a bk.ComputeDevice, a string or None, got {type(device).__name__}")
    wanted = device.lower()
    for candidate in devices:
        if wanted in (str(candidate.ref).lower(), str(candidate.name).lower()):
            return candidate
    kind, _, number = wanted.partition(":")
    of_kind = [d for d in devices if str(d.device_type).lower() == kind]
    if number.isdigit() and int(number) < len(of_kind):
        return of_kind[int(number)]
    if of_kind and not number:
        return of_kind[0]
    listed = ", ".join(f"{d.device_type}:{d.ref}" for d in devices)
    raise ValueError(f"to_device: backend {target.name!r} has no device {device!r}; its devices: {listed}")


def evaluator(target: Backend, name: str) -> Callable[..., Any]:
    """The function that evaluates a node of operation `name` on `target`.

    `getitem` (a part of a node with several results) and `call` (a Python callable, see `call`)
    are not backend operations; `matmul` runs as the backend's `matmul`, or as the `@` operator of
    its tensors where the backend has no such operation.
    """
    if name == "getitem":
        return operator.getitem
    if name == "call":
        return _call
    if name == "to_device":
        return partial(move_to_device, target)
    function = getattr(target, name, None)
    if name == "matmul":
        return _matmul_kernel(target, function)
    if function is None:
        raise NotImplementedError(f"backend {target.name!r} has no operation {name!r} to compute this graph with")
    return function  # type: ignore[no-any-return]


def evaluate(
    order: list[LazyArray], roots: list[LazyArray], target: Backend, bound: dict[int, Any] | None = None
) -> dict[int, Any]:
    """Evaluates `order` (dependencies first) on `target`; returns the values of `roots` by `id`.

    Args:
        bound: Values of nodes given by the caller (`Function` inputs), by `id`.
    """
    bound = bound or {}
    unbound(order, frozenset(bound))
    remaining = _consumers(order)
    for root in roots:
        remaining[id(root)] = remaining.get(id(root), 0) + 1
    values: dict[int, Any] = {}
    evaluators: dict[str, Callable[..., Any]] = {}
    current = bk.get_precision()
    device = leaf_device(order, target)
    for node in order:
        key = id(node)
        if key in bound:
            values[key] = bound[key]
            continue
        name = node._fn_name
        if name is None:
            data = node._data
            values[key] = data if target.is_tensor(data, only_native=True) else on_device(target, bk.convert(data, target), device)
        elif name in RANDOM:  # a node is one value: drawn once per target backend, then kept
            cached = node._data
            if cached is NO_DATA or cached[0] is not target:
                cached = node._data = (target, getattr(target, name)(*substitute(node._args, values), **node._kwargs))
            values[key] = cached[1]
        else:
            function = evaluators.get(name)
            if function is None:
                function = evaluators[name] = evaluator(target, name)
            args = [values[id(a)] if type(a) is LazyArray else a for a in node._args]
            for i, a in enumerate(args):
                if type(a) in _CONTAINERS:
                    args[i] = substitute(a, values)
            kwargs = substitute(node._kwargs, values) if node._kwargs else {}
            if node._precision == current:
                values[key] = function(*args, **kwargs)
            else:
                with bk.precision(node._precision):
                    values[key] = function(*args, **kwargs)
        for dep in node._deps:
            left = remaining[id(dep)] - 1
            remaining[id(dep)] = left
            if left == 0:
                del values[id(dep)]
    return values


def compute_constants(nodes: Any) -> None:
    """Evaluates, in place, every part of the graph of `nodes` that depends on no `Variable`.

    Each constant node that a node depending on a `Variable` uses (or that is one of `nodes`)
    becomes a leaf holding its value, computed once now on the backend of the leaves' data; the
    constant nodes only they used are released. Random nodes stay nodes (a `Function` draws new
    numbers on every call). Nothing changes in a graph without constant operation nodes.
    """
    roots, _ = flatten(nodes)
    order = topological(roots)
    constant: set[int] = set()
    for node in order:
        if node._fn_name is None:
            if node._data is not NO_DATA:
                constant.add(id(node))
        elif (node._fn_name not in RANDOM and node._fn_name != "getitem" and all(id(d) in constant for d in node._deps)) or (
            node._fn_name == "getitem" and id(node._args[0]) in constant
        ):
            constant.add(id(node))
    needed = {id(r) for r in roots} & constant
    for node in order:
        if id(node) not in constant:
            needed.update(id(d) for d in node._deps if id(d) in constant)
    # a node with several results stays: its parts (`getitem` nodes) become the leaves
    folded = [n for n in order if id(n) in needed and n._fn_name is not None and n._shape is not None]
    if not folded:
        return
    values = compute(folded)
    for node, value in zip(folded, values, strict=True):
        node._fn_name, node._args, node._kwargs, node._deps, node._depth, node._data = None, (), {}, (), 0, value


_CONTAINERS: Final = (tuple, list, dict)


def substitute(value: Any, values: dict[int, Any]) -> Any:
    """`value` with every node replaced by its computed value."""
    if isinstance(value, LazyArray):
        return values[id(value)]
    if isinstance(value, tuple):
        return tuple([substitute(v, values) for v in value])
    if isinstance(value, list):
        return [substitute(v, values) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, values) for k, v in value.items()}
    return value
