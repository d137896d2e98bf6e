"""`LazyArray`, the graph node; leaves (`array`, `Variable`, `call`); traversal; sharing.

A node records the name of a bk catalogue operation (`fn_name`), its arguments (which may hold
other nodes), and the shape and `DType` its result will have. Leaves hold data of any backend
(`array`) or nothing at all (`Variable`, a placeholder bound when a `Function` is called).

Layers: `LazyArray` takes Python's operators from `_operators`, the only module this one imports. The
modules that compute, compile and draw graphs (`_compute`, `_function`, `_draw`) sit above it and are
never imported here: a node's methods `compute`, `get_function`, `show`, ... call their functions as
`bk_lazy._backend` registered them (`register_above`).
"""

from __future__ import annotations

import contextvars
import math
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final

import bk
from bk import Backend, DType

from ._operators import Operators, _as_dtype, _lazy

__all__ = [
    "AUTORAY_NAMES",
    "LazyArray",
    "UnboundVariableError",
    "Variable",
    "array",
    "ascend",
    "call",
    "descend",
    "flatten",
    "register_above",
    "shared_intermediates",
    "to_device",
]

Shape = tuple[int | None, ...]


class _NoData:
    """The marker of a leaf that holds no data (a `Variable`)."""

    def __repr__(self) -> str:
        return "NO_DATA"

    def __reduce__(self) -> str:
        return "NO_DATA"


NO_DATA: Final = _NoData()
RANDOM: Final = frozenset({"random_uniform", "random_normal"})
"""Operations that draw random numbers: never folded or merged; `compute` draws once per node and backend."""
_SHARED: contextvars.ContextVar[dict[Any, LazyArray] | None] = contextvars.ContextVar("bk_lazy_shared", default=None)


class UnboundVariableError(TypeError, ValueError):
    """Raised when a graph is computed while it still depends on a `Variable` that has no value.

    A `TypeError` (a placeholder is not a value); also a `ValueError`, as in bk-lazy 0.1.
    """


class LazyArray(Operators):
    """A node of a computational graph: a bk operation and its arguments, with known shape and dtype.

    Create leaves with `bk_lazy.array(x)` or `bk_lazy.Variable(shape, dtype)`, and nodes by calling
    operations of `bk.backend("lazy")` (or Python operators) on them. Nothing is computed until
    `compute` (or `numpy`, `bool`, `float`) asks for values.

    Python's operators, conversions and array methods come from its base class `Operators`
    (`_operators`); `compute`, `compute_constants`, `get_function`, `show` and `draw` call the
    functions of the modules above this one, registered with `register_above`.
    """

    __slots__ = (
        "__weakref__",
        "_args",
        "_data",
        "_deps",
        "_depth",
        "_dtype",
        "_fn_name",
        "_kwargs",
        "_name",
        "_precision",
        "_shape",
    )

    def __init__(
        self,
        fn_name: str | None,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        deps: tuple[LazyArray, ...],
        shape: Shape | None,
        dtype: DType | None,
        data: Any = NO_DATA,
        name: str | None = None,
        precision: int | None = None,
    ) -> None:
        self._fn_name = fn_name
        self._args = args
        self._kwargs = kwargs
        self._deps = deps
        self._depth = (deps[0]._depth + 1 if len(deps) == 1 else 1 + max([d._depth for d in deps])) if deps else 0
        self._shape = shape
        self._dtype = dtype
        self._data = data
        self._name = name
        self._precision = precision

    # ------------------------------------------------------------ what the node is

    @property
    def fn_name(self) -> str | None:
        """The bk operation that computes this node; `None` for a leaf."""
        return self._fn_name

    @property
    def args(self) -> tuple[Any, ...]:
        """Positional arguments of the operation (nodes among them)."""
        return self._args

    @property
    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments of the operation."""
        return self._kwargs

    @property
    def deps(self) -> tuple[LazyArray, ...]:
        """The distinct nodes this node's arguments hold, in order of appearance."""
        return self._deps

    @property
    def depth(self) -> int:
        """The longest distance to a leaf (0 for leaves)."""
        return self._depth

    @property
    def shape(self) -> Shape:
        """The shape, known without data; `None` for a size that depends on the data."""
        if self._shape is None:
            raise TypeError(f"{self!r} has several results; index it (node[i]) for one")
        return self._shape

    @property
    def dtype(self) -> DType:
        """The `DType`, known without data."""
        if self._dtype is None:
            raise TypeError(f"{self!r} has several results; index it (node[i]) for one")
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int | None:
        """The number of elements, `None` when a size depends on the data."""
        shape = self.shape
        return None if None in shape else math.prod(shape)  # type: ignore[arg-type]

    @property
    def nbytes(self) -> int | None:
        """The bytes the computed value occupies, `None` when a size depends on the data."""
        size = self.size
        itemsize = self.dtype.itemsize
        return None if size is None or itemsize is None else size * itemsize

    @property
    def name(self) -> str | None:
        """The name of a `Variable` (or `None`)."""
        return self._name

    @property
    def is_leaf(self) -> bool:
        return self._fn_name is None

    @property
    def is_variable(self) -> bool:
        """Whether this is a placeholder leaf without data."""
        return self._fn_name is None and self._data is NO_DATA

    @property
    def data(self) -> Any:
        """The data of a leaf made by `array` (`NO_DATA` for variables and operation nodes)."""
        return self._data

    @classmethod
    def from_data(cls, data: Any) -> LazyArray:
        """A leaf holding `data` (`bk_lazy.array`)."""
        return array(data)

    @classmethod
    def from_shape(cls, shape: Any, dtype: Any = None) -> LazyArray:
        """A placeholder leaf (`bk_lazy.Variable`)."""
        return Variable(shape, dtype)

    def __repr__(self) -> str:
        if self.is_variable:
            what = f"Variable {self._name!r}" if self._name else "Variable"
        elif self.is_leaf:
            what = f"leaf of {type(self._data).__module__.partition('.')[0]}"
        else:
            what = self._fn_name
        if self._shape is None:
            return f"<LazyArray {what}, {len(self._args)} args, several results>"
        return f"<LazyArray {what}, shape={self._shape}, dtype={self._dtype}>"

    # ------------------------------------------------------------ computing

    def compute(self, backend: Backend | str | None = None) -> Any:
        """`bk_lazy.compute(self, backend)`."""
        return _above("compute")(self, backend)

    def to_device(self, device: Any = None, /, *, stream: Any = None) -> LazyArray:
        """`bk_lazy.to_device(self, device)`: a `to_device` node (the Array API's `x.to_device`)."""
        if stream is not None:
            raise ValueError("to_device: bk-lazy has no streams; leave stream=None")
        return to_device(self, device)

    def get_function(self, variables: Any, fold_constants: bool = True) -> Any:
        """autoray's `lz.get_function(variables)`: `bk_lazy.Function(variables, self, fold_constants)`."""
        return _above("Function")(variables, self, fold_constants=fold_constants)

    def compute_constants(self) -> LazyArray:
        """`bk_lazy.compute_constants(self)`: the parts that depend on no `Variable` become leaves."""
        _above("compute_constants")(self)
        return self

    # ------------------------------------------------------------ history statistics

    def history_num_nodes(self) -> int:
        """The number of distinct nodes (leaves included) this node depends on, itself included."""
        return sum(1 for _ in ascend(self))

    def history_fn_frequencies(self, names: str = "bk") -> dict[str, int]:
        """How often each operation appears in the graph.

        Args:
            names: `'bk'`: bk's operation names, leaves as `'array'` and `'Variable'`; `'autoray'`:
                the function names autoray.lazy records for the same graph (`'truediv'` for `div`,
                `'absolute'` for `abs`, `'getitem'` for `multi_slice`, leaves as `'None'`; see
                `AUTORAY_NAMES`).
        """
        return self.history_stats("count", names=names)  # type: ignore[return-value]

    def history_max_size(self) -> int:
        """The largest number of elements of any node (sizes that depend on data count as 0)."""
        return max((n.size or 0) for n in ascend(self) if n._shape is not None)

    def history_total_size(self) -> int:
        """The number of elements of all distinct nodes together."""
        return sum((n.size or 0) for n in ascend(self) if n._shape is not None)

    def history_size_footprint(self, include_inputs: bool = True) -> list[int]:
        """The elements held after each step of `compute` (intermediates released after their last use)."""
        return footprint(self, include_inputs, bytes_=False)

    def history_peak_size(self, include_inputs: bool = True) -> int:
        """The most elements held at once while computing, predicted without data."""
        return max(footprint(self, include_inputs, bytes_=False, during=True), default=0)

    def history_peak_memory(self, include_inputs: bool = False) -> int:
        """The most bytes held at once by `compute` on this node, predicted without data.

        Counts every intermediate result from its creation until its last consumer has run (as
        `compute` releases them); the inputs' data only with `include_inputs` (they exist before).
        """
        return max(footprint(self, include_inputs, bytes_=True, during=True), default=0)

    def history_stats(self, fn: str | Callable[[LazyArray], float], names: str = "bk") -> dict[str, float]:
        """Sums `fn` over the nodes of each operation: `'count'`, `'sizein'`, `'sizeout'` or a function.

        Args:
            names: `'bk'` or `'autoray'`, as in `history_fn_frequencies`.
        """
        measures: dict[str, Callable[[LazyArray], float]] = {
            "count": lambda n: 1,
            "sizeout": lambda n: (n.size or 0) if n._shape is not None else 0,
            "sizein": lambda n: sum((d.size or 0) for d in n._deps if d._shape is not None),
        }
        if isinstance(fn, str) and fn not in measures:
            raise ValueError(f"history_stats: fn must be 'count', 'sizein', 'sizeout' or a function, got {fn!r}")
        if names not in ("bk", "autoray"):
            raise ValueError(f"history_stats: names must be 'bk' or 'autoray', got {names!r}")
        measure = measures[fn] if isinstance(fn, str) else fn
        name_of = autoray_name if names == "autoray" else bk_name
        stats: dict[str, float] = {}
        for node in ascend(self):
            name = name_of(node)
            stats[name] = stats.get(name, 0) + measure(node)
        return stats

    def show(self, filler: str = " ", max_lines: int | None = None, max_depth: int | None = None, show_args: bool = True) -> None:
        """`bk_lazy.show(self, ...)`: prints the graph as a tree of text, one node a line."""
        _above("show")(self, filler=filler, max_lines=max_lines, max_depth=max_depth, show_args=show_args)

    def draw(self, filename: str | None = None, **options: Any) -> Any:
        """`bk_lazy.draw(self, filename, ...)`: a Graphviz picture of the graph (needs `bk-lazy[draw]`)."""
        return _above("draw")(self, filename, **options)

    def plot_history_size_footprint(self, include_inputs: bool = True) -> Any:
        """A matplotlib figure of `history_size_footprint` (needs matplotlib)."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as error:
            raise ImportError("plot_history_size_footprint needs matplotlib: pip install matplotlib") from error
        figure, axes = plt.subplots()
        axes.plot(self.history_size_footprint(include_inputs))
        axes.set_xlabel("step")
        axes.set_ylabel("elements held")
        return figure


AUTORAY_NAMES: Final = {
    "div": "truediv",
    "abs": "absolute",
    "conj": "conjugate",
    "cast": "astype",
    "multi_slice": "getitem",
    "concat": "concatenate",
    "greater_than": "gt",
    "greater_or_equal": "ge",
    "equal": "eq",
    "not_equal": "ne",
}
"""bk operation names whose autoray.lazy function has another name (the others are the same)."""


def bk_name(node: LazyArray) -> str:
    """The name `history_fn_frequencies` gives a node: its operation; `'array'` or `'Variable'` for a leaf."""
    return node._fn_name or ("Variable" if node._data is NO_DATA else "array")


def autoray_name(node: LazyArray) -> str:
    """The function name autoray.lazy records for the same node: `'None'` for a leaf, the callable's
    name for a `call` node, `AUTORAY_NAMES` where autoray's name differs from bk's."""
    name = node._fn_name
    if name is None:
        return "None"
    if name == "call":
        return str(getattr(node._args[0], "__name__", "call"))
    return AUTORAY_NAMES.get(name, name)


def to_device(x: Any, device: Any = None) -> LazyArray:
    """A `to_device` node: `x` moved to `device` when computed.

    `device` is a `bk.ComputeDevice` of the backend the graph computes on, or a string matched
    against that backend's devices when it computes (`'cpu'`, `'gpu'`, `'gpu:1'`, a device's
    name); `None` leaves the value where it is computed (as autoray's `to_device(x, None)`). The
    node has `x`'s shape and dtype; an unknown device raises `ValueError` when it computes.
    """
    if device is not None and not isinstance(device, (str, bk.ComputeDevice)):
        raise TypeError(f"to_device: device must be a bk.ComputeDevice, a string or None, got {type(device).__name__}")
    node = _lazy()._operand(x, "to_device")
    return make_node("to_device", (node, device), {}, (node,), node.shape, node.dtype)


# ---------------------------------------------------------------- what the modules above do with a node

_ABOVE: dict[str, Callable[..., Any]] = {}
"""`compute`, `compute_constants`, `Function`, `show` and `draw`: what a node's methods `compute`,
`compute_constants`, `get_function`, `show` and `draw` call.

They live in the modules above this one (`_compute`, `_function`, `_draw`), which import it: it imports
none of them. `bk_lazy._backend` registers them here (`register_above`) when it is imported, as
`bk._backend` registers `Backend` with `bk._kernels`.
"""


def register_above(**functions: Callable[..., Any]) -> None:
    """Called once by `bk_lazy._backend`: the functions of the modules above this one that nodes' methods call."""
    _ABOVE.update(functions)


def _above(name: str) -> Callable[..., Any]:
    """The registered function `name`; the first time, loads the lazy backend (`_lazy()`), whose module registers them."""
    function = _ABOVE.get(name)
    if function is None:
        _lazy()
        function = _ABOVE[name]
    return function


# ---------------------------------------------------------------- making nodes


def make_node(
    fn_name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    deps: tuple[LazyArray, ...],
    shape: Shape | None,
    dtype: DType | None,
    precision: Any = NO_DATA,
) -> LazyArray:
    """A new node, or the identical one made before inside `shared_intermediates()`."""
    cache = _SHARED.get()
    if precision is NO_DATA:
        precision = bk.get_precision()
    if cache is None:
        return LazyArray(fn_name, args, kwargs, deps, shape, dtype, precision=precision)
    key = node_key(fn_name, args, kwargs, precision, id)
    if key is None:
        return LazyArray(fn_name, args, kwargs, deps, shape, dtype, precision=precision)
    node = cache.get(key)
    if node is None:
        node = cache[key] = LazyArray(fn_name, args, kwargs, deps, shape, dtype, precision=precision)
    return node


def multi_output(
    fn_name: str, args: tuple[Any, ...], kwargs: dict[str, Any], deps: tuple[LazyArray, ...], specs: list[tuple[Shape, DType]]
) -> tuple[LazyArray, ...]:
    """A node for an operation with several results, and one `getitem` node per result."""
    parent = make_node(fn_name, args, kwargs, deps, None, None)
    if not isinstance(parent._data, tuple):
        items = tuple(
            LazyArray("getitem", (parent, i), {}, (parent,), shape, dtype, precision=parent._precision)
            for i, (shape, dtype) in enumerate(specs)
        )
        parent._data = items  # the parts, so that shared parents share parts (not data: it never computes)
    return parent._data  # type: ignore[no-any-return]


def node_key(
    fn_name: str, args: tuple[Any, ...], kwargs: dict[str, Any], precision: int | None, ident: Callable[[LazyArray], Any]
) -> Any:
    """A hashable key of an operation on its inputs (nodes by `ident`), or `None` if an argument is not hashable."""
    try:
        key = (fn_name, _key(args, ident), _key(tuple(sorted(kwargs.items())), ident) if kwargs else (), precision)
        hash(key)
    except TypeError:
        return None
    return key


def _key(value: Any, ident: Callable[[LazyArray], Any]) -> Any:
    if isinstance(value, LazyArray):
        return ("node", ident(value))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, *[_key(v, ident) for v in value])
    if isinstance(value, dict):
        return ("dict", *[(k, _key(v, ident)) for k, v in sorted(value.items())])
    if isinstance(value, slice):
        return ("slice", _key(value.start, ident), _key(value.stop, ident), _key(value.step, ident))
    if isinstance(value, float) and value != value:
        return ("nan",)
    if hasattr(value, "__array__") or hasattr(value, "__dlpack__"):
        raise TypeError("arrays are keyed by identity only as nodes")
    return (type(value), value)


shared_cache: Final = _SHARED.get
"""The cache of the innermost `shared_intermediates()` context, or `None`."""


@contextmanager
def shared_intermediates(cache: dict[Any, LazyArray] | None = None) -> Iterator[dict[Any, LazyArray]]:
    """Context in which the same operation on the same inputs returns the same node.

    Args:
        cache: A dict from an earlier context, to go on sharing with its nodes.

    Yields:
        The cache; nodes in it stay alive as long as it does.
    """
    cache = {} if cache is None else cache
    token = _SHARED.set(cache)
    try:
        yield cache
    finally:
        _SHARED.reset(token)


# ---------------------------------------------------------------- leaves


def array(x: Any) -> LazyArray:
    """A leaf holding `x`, a tensor of any installed backend (or a NumPy array or Python number).

    Computing a graph runs on the backend of its leaves' data: NumPy leaves are constants that lose
    to the tensors of any framework (as in `bk.choose_backend`).
    """
    if isinstance(x, LazyArray):
        return x
    owner = bk.choose_backend(x)
    if owner.name == "lazy":
        raise TypeError(f"cannot make a leaf of {type(x).__name__}")
    data = owner.as_tensor(x)
    shape = tuple(owner.staticshape(data))
    return LazyArray(None, (), {}, (), shape, owner.dtype(data), data=data)


_VARIABLES = [0]


def call(
    fn: Callable[..., Any], *args: Any, shape: Any, dtype: Any, kwargs: dict[str, Any] | None = None
) -> LazyArray | tuple[LazyArray, ...]:
    """A node that computes `fn(*args, **kwargs)`, an arbitrary Python callable, with a declared result.

    Like autoray's `LazyArray(fn=...)`: bk-lazy cannot look inside `fn`, so you declare the shape
    and dtype of its result (nothing checks them until it runs). Nodes among `args` and `kwargs`
    are replaced by their values, which are tensors of the backend the graph computes on.

    Args:
        fn: Any callable; it must be picklable for a `Function` holding it to pickle.
        shape: The result's shape (`None` for a size that depends on the data); a list of shapes
            for a callable that returns a tuple (then `dtype` is a list too).
        dtype: The result's `DType` (or a NumPy dtype or name).
        kwargs: Keyword arguments of `fn`.

    Returns:
        The node, or a tuple of nodes for several results.
    """
    if not callable(fn):
        raise TypeError(f"call: fn must be callable, got {type(fn).__name__}")
    lazy = _lazy()
    args = tuple(a if isinstance(a, (LazyArray, bool, int, float, complex, str)) or a is None else lazy._leaves(a) for a in args)
    kwargs = dict(kwargs or {})
    found: dict[int, LazyArray] = {}
    find_deps(args, found)
    find_deps(kwargs, found)
    deps = tuple(found.values())
    if isinstance(shape, list):
        if not isinstance(dtype, (list, tuple)) or len(dtype) != len(shape):
            raise ValueError(f"call: {len(shape)} result shapes need as many dtypes, got {dtype!r}")
        specs = [(_as_shape(s), _as_dtype(d)) for s, d in zip(shape, dtype, strict=True)]
        return multi_output("call", (fn, *args), kwargs, deps, specs)
    return make_node("call", (fn, *args), kwargs, deps, _as_shape(shape), _as_dtype(dtype))


def _as_shape(shape: Any) -> Shape:
    shape = (shape,) if isinstance(shape, int) else tuple(None if s is None else int(s) for s in shape)
    if any(s is not None and s < 0 for s in shape):
        raise ValueError(f"sizes must be >= 0, got shape {shape}")
    return shape


_UNTYPED: Final[weakref.WeakValueDictionary[int, LazyArray]] = weakref.WeakValueDictionary()
"""The `Variable`s made without a dtype, by `id` (a `WeakSet` would compare nodes with their
elementwise `==`): a `Function` binds them to values of any dtype."""


def has_any_dtype(node: LazyArray) -> bool:
    """Whether `node` is a `Variable` made without a dtype (it takes values of any dtype)."""
    return _UNTYPED.get(id(node)) is node


def Variable(shape: Any, dtype: Any = None, name: str | None = None) -> LazyArray:
    """A placeholder leaf that has a shape and a dtype but never data; bound by `Function` calls.

    Args:
        shape: Its shape; `None` for a size not known in advance.
        dtype: Its `DType` (or a NumPy dtype or name). `None`: any dtype, as a `None` size is any
            size; a `Function` then takes values of any dtype for it, and the graph is built as if it
            had the default float type (what `dtype` reports).
        name: Shown in the source code and in errors; `v0`, `v1`, ... when `None`.
    """
    if name is None:
        name = f"v{_VARIABLES[0]}"
        _VARIABLES[0] += 1
    elif not name.isidentifier():
        raise ValueError(f"Variable: name must be a Python identifier, got {name!r}")
    untyped = dtype is None
    dtype = _lazy().float_type if untyped else _as_dtype(dtype)
    try:
        shape = _as_shape(shape)
    except ValueError as error:
        raise ValueError(f"Variable: {error}") from None
    node = LazyArray(None, (), {}, (), shape, dtype, name=name)
    if untyped:
        _UNTYPED[id(node)] = node
    return node


# ---------------------------------------------------------------- traversal


def flatten(tree: Any) -> tuple[list[LazyArray], Callable[[list[Any]], Any]]:
    """The nodes of a tree of tuples, lists and dicts, and a function that rebuilds it from new leaves."""
    if isinstance(tree, LazyArray):
        return [tree], _first
    nodes: list[LazyArray] = []
    structure = structure_of(tree, nodes)
    return nodes, lambda values: rebuild(structure, values)


def _first(values: list[Any]) -> Any:
    return values[0]


def structure_of(tree: Any, nodes: list[LazyArray]) -> Any:
    """`tree` with each node replaced by its index in `nodes` (appended); picklable."""
    if isinstance(tree, LazyArray):
        nodes.append(tree)
        return len(nodes) - 1
    if isinstance(tree, (tuple, list)):
        return type(tree)(structure_of(v, nodes) for v in tree)
    if isinstance(tree, dict):
        return {k: structure_of(v, nodes) for k, v in tree.items()}
    raise TypeError(f"expected LazyArray nodes in tuples, lists and dicts, got {type(tree).__name__}")


def rebuild(structure: Any, values: Any) -> Any:
    """The tree `structure` (from `structure_of`) with index `i` replaced by `values[i]`."""
    if isinstance(structure, int):
        return values[structure]
    if isinstance(structure, (tuple, list)):
        return type(structure)(rebuild(p, values) for p in structure)
    return {k: rebuild(p, values) for k, p in structure.items()}


def ascend(nodes: Any, stop: frozenset[int] = frozenset()) -> Iterator[LazyArray]:
    """Each distinct node from the leaves up to `nodes` (a node or a tree), dependencies first.

    Among the dependencies of a node the deepest is visited first, as autoray does.

    Args:
        stop: `id`s of nodes treated as leaves (their dependencies are not visited).
    """
    yield from topological(flatten(nodes)[0], stop)


def topological(roots: list[LazyArray], stop: frozenset[int] = frozenset(), deepest: bool = True) -> list[LazyArray]:
    """The list `ascend` yields, for the roots `roots`.

    Args:
        deepest: Visit the deepest dependency of a node first (autoray's order); `False` visits
            the shallowest first, the order `compute` and `Function` run in: a long chain with a
            side result at each step (a running sum) then runs step by step, releasing each
            intermediate at once, where the deepest-first order would keep them all until the end.
    """
    order: list[LazyArray] = []
    append = order.append
    seen: set[int] = set()
    stack: list[Any] = list(reversed(roots))  # a node to expand, or a 1-tuple: a node to emit
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if type(node) is tuple:
            append(node[0])
            continue
        key = id(node)
        if key in seen:
            continue
        seen.add(key)
        push((node,))
        deps = node._deps
        if not deps or (stop and key in stop):
            continue
        if len(deps) == 1:
            push(deps[0])
        elif len(deps) == 2:  # the common case, without a sort; the deepest ends on top of the stack
            first, second = deps
            if (first._depth > second._depth) is deepest:
                push(second)
                push(first)
            else:
                push(first)
                push(second)
        else:
            stack.extend(sorted(deps, key=_depth_of, reverse=not deepest))
    return order


def _depth_of(node: LazyArray) -> int:
    return node._depth


def descend(nodes: Any) -> Iterator[LazyArray]:
    """Each distinct node from `nodes` (a node or a tree) down to the leaves, users before what they use."""
    roots, _ = flatten(nodes)
    seen: set[int] = set()
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(reversed(node._deps))


def footprint(nodes: Any, include_inputs: bool, bytes_: bool, during: bool = False) -> list[int]:
    """What `evaluate` holds after (or, with `during`, while computing) each node, in elements or bytes."""
    order = topological(flatten(nodes)[0], deepest=False)
    remaining = _consumers(order)
    roots, _ = flatten(nodes)
    for root in roots:
        remaining[id(root)] = remaining.get(id(root), 0) + 1  # outputs are never released
    sizes: dict[int, int] = {}
    held = 0
    steps = []
    for node in order:
        if node._shape is None:  # several results: held together until the last part is used
            size = sum(_measure(p, bytes_) for p in node._data) if isinstance(node._data, tuple) else 0
        elif node._fn_name == "getitem":
            size = 0  # a part of its parent's results, counted there
        else:
            size = _measure(node, bytes_)
        if node._fn_name is None and not include_inputs:
            size = 0
        sizes[id(node)] = size
        held += size
        if during:
            steps.append(held)
        for dep in node._deps:
            remaining[id(dep)] -= 1
            if remaining[id(dep)] == 0:
                held -= sizes[id(dep)]
        if not during:
            steps.append(held)
    return steps


def _measure(node: LazyArray, bytes_: bool) -> int:
    size = node.size or 0
    if bytes_:
        return size * (node.dtype.itemsize or 0)
    return size


def _consumers(order: list[LazyArray]) -> dict[int, int]:
    remaining: dict[int, int] = {}
    for node in order:
        for dep in node._deps:
            remaining[id(dep)] = remaining.get(id(dep), 0) + 1
    return remaining


def find_deps(value: Any, found: dict[int, LazyArray]) -> None:
    """Collects the nodes inside `value` (nested tuples, lists and dicts), in order."""
    if isinstance(value, LazyArray):
        found.setdefault(id(value), value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            find_deps(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            find_deps(v, found)
