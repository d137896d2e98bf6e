"""`Function`: a graph compiled once into Python code that runs on the backend of its arguments."""

from __future__ import annotations

import operator
from typing import Any, Final

import bk
from bk import Backend

from ._compute import compute, device_count, evaluator, on_device, unbound
from ._graph import RANDOM, LazyArray, has_any_dtype, node_key, rebuild, structure_of, topological
from ._program import Program

__all__ = ["CODEGEN_LIMIT", "Function"]

CODEGEN_LIMIT: Final = 1000
"""Graphs of up to this many operations compile to Python code; larger ones run in an interpreter."""


class Function:
    """The graph from `inputs` to `outputs`, compiled once into a Python function.

    Called with tensors of any backend (NumPy, PyTorch, JAX, TensorFlow, or lazy nodes), it runs
    each recorded operation on that backend and returns that backend's tensors, in the structure of
    `outputs`. Compiling merges common subexpressions, drops nodes that no output needs, and (with
    `fold_constants`) evaluates once, now, every part of the graph that depends on no input (such as
    operations on NumPy leaves: constants, as in bk's dispatch).

    Args:
        inputs: The nodes bound to the arguments (usually `Variable`s): a node or a tree of them.
        outputs: The nodes computed: a node or a tree of tuples, lists and dicts of nodes.
        fold_constants: Evaluate the parts that depend on no input once, at compile time.
        jit: Compile with the target backend's `jit_compile` where it supports it.

    Raises:
        UnboundVariableError: when the outputs depend on a `Variable` that is not an input.
    """

    __slots__ = (
        "_checks",
        "_compiled",
        "_constants",
        "_fold",
        "_in_specs",
        "_in_structure",
        "_jit",
        "_n_inputs",
        "_nested",
        "_out_structure",
        "_program",
        "_source",
        "_stats",
    )

    def __init__(self, inputs: Any, outputs: Any, fold_constants: bool = True, jit: bool = False) -> None:
        in_nodes: list[LazyArray] = []
        self._in_structure = structure_of(inputs, in_nodes)
        self._nested = not isinstance(self._in_structure, int) and not (
            isinstance(self._in_structure, (tuple, list)) and all(isinstance(i, int) for i in self._in_structure)
        )
        self._checks: dict[Any, Any] = {}  # per backend, and per type of a single argument: the checked call
        out_nodes: list[LazyArray] = []
        self._out_structure = structure_of(outputs, out_nodes)
        self._fold = fold_constants
        self._jit = jit
        self._n_inputs = len(in_nodes)
        self._in_specs = [(n._name, n._shape, None if has_any_dtype(n) else n._dtype) for n in in_nodes]
        self._compiled: dict[tuple[Backend, Any], Any] = {}
        stop = frozenset(id(n) for n in in_nodes)
        order = topological(out_nodes, stop, deepest=False)
        unbound(order, stop)
        alias = _merge_common(order, stop)
        if alias:  # merged duplicates, and what only they used, are dead
            live = _live(out_nodes, alias, stop)
            order = [n for n in order if id(n) in live and id(n) not in stop]
        else:  # every node reached from the outputs is needed
            order = [n for n in order if id(n) not in stop]
        constant = _constants(order, stop, alias)
        if fold_constants:
            needed = _needed_constants(order, constant, alias, out_nodes)
            folded = [n for n in order if id(n) in needed and n._fn_name is not None]
            leaves = [n for n in order if id(n) in needed and n._fn_name is None]
            fixed = leaves + folded
            values = compute(folded) if folded else []
            self._constants = [n._data for n in leaves] + list(values)
            order = [n for n in order if id(n) not in constant]
        else:
            fixed = [n for n in order if n._fn_name is None]
            self._constants = [n._data for n in fixed]
            order = [n for n in order if n._fn_name is not None]
        self._program = Program(order, in_nodes, fixed, out_nodes, alias)
        self._source: str | None = None
        self._stats = (len(order), len(fixed), sum(1 for n in fixed if n._fn_name is not None))

    # ------------------------------------------------------------ calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the graph on the arguments' backend; returns the outputs in their structure.

        Call it with the inputs' structure: positionally for a node or a flat list or tuple of
        nodes (or with that one sequence), with one tree of the same lists, tuples and dicts, or
        with keywords for a dict of nodes.

        Raises:
            ShapeMismatchError: for an argument whose shape differs from its `Variable`'s (sizes
                left `None` accept any size), naming the argument.
            TypeError: for an argument of another dtype, or arguments not in the inputs' structure.
        """
        if len(args) == 1 and not kwargs:  # one tensor: its type decides the backend (as in bk.choose_backend)
            run = self._checks.get(type(args[0]))
            if run is not None:
                return run(args)
        if kwargs or len(args) != self._n_inputs or self._nested or (args and type(args[0]) in _SEQUENCES):
            args = self._arguments(args, kwargs)
        target = bk.choose_backend(*args) if args else self._default_target()
        run = self._checks.get(target)
        if run is None:
            run = self._checks[target] = self._runner(target)
        if len(args) == 1 and not self._nested and type(args[0]) not in _HOLDS and target.is_tensor(args[0], only_native=True):
            self._checks[type(args[0])] = run
        return run(args)

    def _runner(self, target: Backend) -> Any:
        """The call on `target`'s tensors: argument checks, the compiled function, the outputs' tree.

        On a backend of several devices (PyTorch with a GPU) the constants follow the arguments: the
        function is compiled once per device of the first tensor argument, its constants there.
        """
        if device_count(target) < 2:
            return self._device_runner(target, None)
        per_device: dict[Any, Any] = {}
        is_tensor = target.is_tensor

        def run_on_device(args: tuple[Any, ...]) -> Any:
            first = next((a for a in args if is_tensor(a, only_native=True)), None)
            key = getattr(first, "device", None)  # the framework's own device object: cheap, hashable
            run = per_device.get(key)
            if run is None:
                device = None if first is None else target.get_device(first)
                run = per_device[key] = self._device_runner(target, device)
            return run(args)

        return run_on_device

    def _device_runner(self, target: Backend, device: Any) -> Any:
        """`_runner` for arguments on `device` (`None`: the default one)."""
        checks = _checks_for(target, self._in_specs)
        function = self._compiled.get((target, device)) or self._compile(target, device)
        structure = self._out_structure
        if len(checks) == 1 and type(structure) is int:  # one argument, one output: the common case
            check = checks[0]

            def run_one(args: tuple[Any, ...]) -> Any:
                arg = args[0]
                check(arg)
                return function(arg)

            return run_one

        def run(args: tuple[Any, ...]) -> Any:
            for arg, check in zip(args, checks, strict=True):
                check(arg)
            results = function(*args)
            return results if type(structure) is int else rebuild(structure, results)

        return run

    def _arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """The flat arguments, from a call in any of the forms of the inputs' tree.

        The forms, tried in this order: keywords for a dict of inputs; one argument holding the whole
        tree (`f([a])` for `inputs=[v]`, `f({"a": a})`); the top level of a list or tuple of inputs
        unpacked (`f(a, b)`, `f(a, [b, c])`); every input flat, in the order of the tree.
        """
        structure = self._in_structure
        if type(structure) is int and len(args) == 1 and _boxes(args[0], len(self._in_specs[0][1])):
            return (args[0][0],)  # f([a]) for a Function of one node, as autoray reads it
        if kwargs:
            if args or not isinstance(structure, dict):
                raise TypeError(f"{self!r} takes keyword arguments only when its inputs are a dict of nodes")
            tree: Any = kwargs
        elif len(args) == 1 and self._is_tree(args[0]):
            tree = args[0]
        elif isinstance(structure, _SEQUENCES) and len(args) == len(structure) and _fits(structure, args):
            tree = args
        elif len(args) == self._n_inputs and not any(isinstance(a, dict) for a in args):  # a dict is never a value
            return args
        elif len(args) == 1 and isinstance(args[0], (dict, list, tuple)):  # the tree, wrong somewhere: the error says where
            tree = args[0]
        elif isinstance(structure, _SEQUENCES) and len(args) == len(structure):
            tree = args
        else:
            raise TypeError(
                f"{self!r} takes the tree of its inputs ({_describe(structure)}): as one argument, as the "
                f"items of its top level, or as {self._n_inputs} flat arguments; got {len(args)} arguments"
            )
        flat: list[Any] = [None] * self._n_inputs
        _unflatten(structure, tree, flat, "inputs")
        return tuple(flat)

    def _is_tree(self, arg: Any) -> bool:
        """Whether one argument is the whole tree of the inputs (rather than the first of them).

        For inputs `[v]`, `f([x])` could also be `f(x)` with `x` a list holding `v`'s data: it is the
        tree unless `x`, read as an array, has `v`'s number of dimensions (a tensor inside is always
        the tree).
        """
        structure = self._in_structure
        if not _fits(structure, arg):
            return False
        if isinstance(structure, (tuple, list)) and len(structure) == 1 and type(structure[0]) is int:
            return _rank(arg) != len(self._in_specs[0][1]) or _rank(arg[0]) == len(self._in_specs[0][1])
        return True

    def _default_target(self) -> Backend:
        datas = [c for c in self._constants if not isinstance(c, (int, float, complex, bool, str))]
        return bk.choose_backend(*datas) if datas else bk.backend("numpy")

    def _compile(self, target: Backend, device: Any = None) -> Any:
        constants = [_to(c, target, device) for c in self._constants]
        program = self._program
        single = type(self._out_structure) is int  # the function returns that output as it is
        if len(program.steps) <= CODEGEN_LIMIT:
            params: dict[str, Any] = {}
            source = program.source(params, bare=single)
            self._source = source
            namespace: dict[str, Any] = {}
            exec(compile(source, "<bk_lazy.Function>", "exec"), namespace)
            function = namespace["make"](target, bk.precision, evaluator, *constants, *params.values())
        else:
            functions = [evaluator(target, op) for op in program.ops]

            def function(*args: Any) -> Any:
                results = program.run(functions, args, constants)
                return results[0] if single else results

        if self._jit and target.supports("jit_compile"):
            function = target.jit_compile(function)
        self._compiled[(target, device)] = function
        return function

    # ------------------------------------------------------------ looking at it

    @property
    def source(self) -> str:
        """The Python source of the compiled function: a factory `make(b, precision, constants...)`.

        Graphs of more than `CODEGEN_LIMIT` operations run the same steps in an interpreter instead
        (compiling Python source costs about 25 us per line); their source is written on request.
        """
        if self._source is None:
            self._source = self._program.source({}, bare=type(self._out_structure) is int)
        return self._source

    def print_source(self) -> None:
        """Prints the Python source of the compiled function."""
        print(self.source)

    def __repr__(self) -> str:
        inputs = ", ".join(f"{name or '?'}: {'any dtype' if dtype is None else dtype} {shape}" for name, shape, dtype in self._in_specs)
        operations, fixed, folded = self._stats
        return f"<bk_lazy.Function ({inputs}) -> {_count_outputs(self._out_structure)} output(s); {operations} operations, {fixed} constants ({folded} folded)>"

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__ if name not in ("_compiled", "_checks")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._compiled = {}
        self._checks = {}


_SEQUENCES: Final = (list, tuple)


def _rank(value: Any) -> int:
    """The number of dimensions of a tensor, or of a (nested) list or tuple read as an array."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        try:
            return len(tuple(shape))
        except TypeError:  # a shape of unknown rank
            return -1
    if isinstance(value, _SEQUENCES):
        return 1 + (_rank(value[0]) if value else 0)
    return 0


def _boxes(arg: Any, ndim: int) -> bool:
    """Whether `arg` is a list or tuple of one value of rank `ndim`, which is not itself of rank `ndim`
    (then `[x]` is the tree of one input holding `x`, not that input's data)."""
    return isinstance(arg, _SEQUENCES) and len(arg) == 1 and _rank(arg) != ndim and _rank(arg[0]) == ndim


def _fits(structure: Any, tree: Any) -> bool:
    """Whether `tree` has the lists, tuples (either for either) and dict keys of `structure`."""
    if type(structure) is int:
        return True
    if isinstance(structure, dict):
        return isinstance(tree, dict) and tree.keys() == structure.keys() and all(_fits(p, tree[k]) for k, p in structure.items())
    return (
        isinstance(tree, _SEQUENCES)
        and len(tree) == len(structure)
        and all(_fits(p, t) for p, t in zip(structure, tree, strict=True))
    )


def _describe(structure: Any) -> str:
    """The inputs' tree in words: `[x, {'k': x}]`."""
    if type(structure) is int:
        return "x"
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(p)}" for k, p in structure.items()) + "}"
    inner = ", ".join(_describe(p) for p in structure)
    return f"({inner},)" if isinstance(structure, tuple) and len(structure) == 1 else f"({inner})" if isinstance(structure, tuple) else f"[{inner}]"


def _unflatten(structure: Any, tree: Any, flat: list[Any], path: str) -> None:
    """Puts the values of `tree` into `flat` at the indices `structure` holds; raises `TypeError`
    naming the place where the two differ."""
    if isinstance(structure, int):
        flat[structure] = tree
    elif isinstance(structure, dict):
        if not isinstance(tree, dict) or set(tree) != set(structure):
            got = sorted(tree) if isinstance(tree, dict) else type(tree).__name__
            raise TypeError(f"bk_lazy.Function: {path} must be a dict with keys {sorted(structure)}, got {got}")
        for key, part in structure.items():
            _unflatten(part, tree[key], flat, f"{path}[{key!r}]")
    else:
        if not isinstance(tree, (tuple, list)) or len(tree) != len(structure):
            got = f"{type(tree).__name__} of {len(tree)}" if isinstance(tree, (tuple, list)) else type(tree).__name__
            raise TypeError(f"bk_lazy.Function: {path} must be a sequence of {len(structure)}, got {got}")
        for i, part in enumerate(structure):
            _unflatten(part, tree[i], flat, f"{path}[{i}]")


_HOLDS: Final = {bool: (bool, int, float, complex), int: (int, float, complex), float: (float, complex), complex: (complex,)}


def _checks_for(target: Backend, specs: list[tuple[str | None, Any, Any]]) -> list[Any]:
    """One function per input that raises unless an argument fits its `Variable` (shape and dtype)."""
    return [_check(target, name or f"#{i}", shape, dtype) for i, (name, shape, dtype) in enumerate(specs)]


def _check(target: Backend, name: str, shape: tuple[int | None, ...], dtype: Any) -> Any:
    import numpy as np

    exact = None not in shape
    numpy_dtype = bk.to_numpy_dtype(dtype) if dtype is not None and dtype.kind is not object else None

    def fail_shape(got: Any) -> None:
        raise bk.ShapeMismatchError(
            f"bk_lazy.Function: argument {name!r} must have shape {shape} (None: any size), as its Variable, got {tuple(got)}"
        )

    def fail_dtype(got: Any) -> None:
        raise TypeError(f"bk_lazy.Function: argument {name!r} must have dtype {dtype}, as its Variable, got {got}")

    def slow(arg: Any) -> None:
        if type(arg) in _HOLDS:  # a Python number: fits a 0-d Variable of a kind that holds it
            if shape:
                fail_shape(())
            if dtype is not None and dtype.kind not in _HOLDS[type(arg)]:
                fail_dtype(type(arg).__name__)
            return
        owner = target if target.is_tensor(arg, only_native=True) else bk.choose_backend(arg)
        got = tuple(owner.staticshape(arg))
        if len(got) != len(shape) or any(s is not None and g is not None and g != s for g, s in zip(got, shape, strict=True)):
            fail_shape(got)
        if dtype is not None:
            got_dtype = owner.dtype(arg)
            if got_dtype != dtype:
                fail_dtype(got_dtype)

    ndim = len(shape)
    known = [i for i, s in enumerate(shape) if s is not None]
    pick = operator.itemgetter(*known) if len(known) > 1 else None
    sizes = tuple(shape[i] for i in known)
    first = known[0] if len(known) == 1 else -1
    size = shape[first] if first >= 0 else None

    def fits(got: tuple[int, ...]) -> bool:
        if len(got) != ndim:
            return False
        if pick is not None:
            return pick(got) == sizes  # type: ignore[no-any-return]
        return first < 0 or got[first] == size

    ndarray = np.ndarray

    any_dtype = dtype is None

    def check(arg: Any) -> None:
        if type(arg) is ndarray:  # the common case, in a few attribute reads
            if not any_dtype and arg.dtype is not numpy_dtype and arg.dtype != numpy_dtype:
                fail_dtype(bk.from_numpy_dtype(arg.dtype))
            got = arg.shape
            if got != shape and (exact or not fits(got)):
                fail_shape(got)
            return
        slow(arg)

    def check_rank(arg: Any) -> None:  # every size unknown: only the number of dimensions counts
        if type(arg) is ndarray:
            if not any_dtype and arg.dtype is not numpy_dtype and arg.dtype != numpy_dtype:
                fail_dtype(bk.from_numpy_dtype(arg.dtype))
            if arg.ndim != ndim:
                fail_shape(arg.shape)
            return
        slow(arg)

    return check_rank if not known else check


def _count_outputs(structure: Any) -> int:
    if isinstance(structure, int):
        return 1
    values = structure.values() if isinstance(structure, dict) else structure
    return sum(_count_outputs(v) for v in values)


def _to(value: Any, target: Backend, device: Any = None) -> Any:
    """A constant as a tensor of `target` (on `device` where one is given), or as it is when it is
    not a tensor (a number, a function passed to an operation)."""
    if isinstance(value, (int, float, complex, bool, str)):
        return value
    if not target.is_tensor(value, only_native=True):
        try:
            owner = bk.choose_backend(value)
        except bk.NoBackendFound:
            return value  # a function or another object passed to an operation
        if owner is not target:
            if target.name == "lazy":
                from ._graph import array

                return array(value)
            value = bk.convert(value, target)
    return on_device(target, value, device)


def _merge_common(order: list[LazyArray], stop: frozenset[int]) -> dict[int, LazyArray]:
    """Maps each node that repeats an earlier one (same operation, same inputs) to that one."""
    alias: dict[int, LazyArray] = {}
    first: dict[Any, LazyArray] = {}

    def ident(node: LazyArray) -> int:
        return id(alias.get(id(node), node))

    for node in order:
        if id(node) in stop or node._fn_name is None or node._fn_name in RANDOM:
            continue
        key = _fast_key(node, alias) if not node._kwargs else None
        if key is None:
            key = node_key(node._fn_name, node._args, node._kwargs, node._precision, ident)
        if key is None:
            continue
        seen = first.setdefault(key, node)
        if seen is not node:
            alias[id(node)] = seen
    return alias


_SIMPLE = (int, float, bool, str, type(None))


def _fast_key(node: LazyArray, alias: dict[int, LazyArray]) -> Any:
    """The key of a node whose arguments are nodes and simple scalars, or `None` for other nodes."""
    key: list[Any] = [node._fn_name, node._precision]
    for arg in node._args:
        kind = type(arg)
        if kind is LazyArray:
            key.append(id(alias.get(id(arg), arg)))
        elif kind in _SIMPLE:
            key.append((kind, arg))
        else:
            return None
    return tuple(key)


def _live(outputs: list[LazyArray], alias: dict[int, LazyArray], stop: frozenset[int]) -> set[int]:
    """`id`s of the (representative) nodes the outputs need."""
    live: set[int] = set()
    stack = [alias.get(id(o), o) for o in outputs]
    while stack:
        node = stack.pop()
        if id(node) in live:
            continue
        live.add(id(node))
        if id(node) not in stop:
            stack.extend(alias.get(id(d), d) for d in node._deps)
    return live


def _constants(order: list[LazyArray], stop: frozenset[int], alias: dict[int, LazyArray]) -> set[int]:
    """`id`s of the nodes that depend on no input (and draw no random numbers)."""
    constant: set[int] = set()
    for node in order:
        if id(node) in stop:
            continue
        if node._fn_name is None or (
            node._fn_name not in RANDOM and all(id(alias.get(id(d), d)) in constant for d in node._deps)
        ):
            constant.add(id(node))
    return constant


def _needed_constants(
    order: list[LazyArray], constant: set[int], alias: dict[int, LazyArray], outputs: list[LazyArray]
) -> set[int]:
    """`id`s of the constant nodes that are outputs or feed a node that is not constant."""
    needed = {id(alias.get(id(o), o)) for o in outputs} & constant
    for node in order:
        if id(node) not in constant:
            needed.update(i for i in (id(alias.get(id(d), d)) for d in node._deps) if i in constant)
    return needed
