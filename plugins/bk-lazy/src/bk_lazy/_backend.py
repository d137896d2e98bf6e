"""`LazyBackend`: every claimed operation records a graph node with its shape and dtype.

A node's shape and dtype come from the core's operation spec (`bk.op_spec(name).infer`), which
works on templates and never allocates data; its verdict is memoised per signature (shapes,
dtypes, the other arguments, the precision), so the spec runs once per signature. One generic
builder records every operation that has a spec; a few are special: `cast`, `transpose` and
`reshape` simplify while building, `matmul` is a node of its own, `numpy_call` takes its result from
the caller. Each recorded node is evaluated later, by `compute` or a `Function`, with the
operation of the same name of the target backend.

This module is the top layer of bk-lazy (bk loads it for `bk.backend("lazy")`): it imports the others,
and registers with `_graph` (`register_above`) the functions of `_compute`, `_function` and `_draw` that
a node's methods `compute`, `compute_constants`, `get_function`, `show` and `draw` call.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable
from typing import Any, ClassVar, Final

import numpy as np

import bk
from bk import ArgumentTypeError, Backend, DType, check_tensor_argument, get_precision
from bk.rules import INDEX_OPERATIONS, PYTHON_NUMBERS, is_python_number, kernel

from ._compute import compute, compute_constants, compute_count
from ._devices import graph_device
from ._draw import draw, show
from ._function import Function
from ._graph import NO_DATA, LazyArray, array, find_deps, make_node, multi_output, register_above, shared_cache
from ._operators import _lazy
from ._shapes import infer, numpy_backend, spec_of

__all__ = ["LazyBackend"]

Tensor = Any

ELEMENTWISE_UNARY: Final = (
    "abs", "sign", "round", "ceil", "floor", "sqrt", "exp", "erf", "softplus", "log_gamma", "sigmoid", "sin",
    "arcsin", "cos", "arccos", "tan", "arctan", "sinh", "arcsinh", "cosh", "arccosh", "tanh", "arctanh", "log",
    "log2", "log10", "isfinite", "isnan", "isinf", "real", "imag", "conj", "invert", "stop_gradient", "factorial",
    "zeros_like", "ones_like", "copy", "log1p", "expm1", "trunc", "reciprocal", "signbit", "square", "positive",
    "negative", "logical_not",
)  # fmt: skip
"""Operations of one tensor whose result has its shape: a fast path of one memo lookup."""

BINARY: Final = (
    "maximum", "minimum", "arctan2", "gamma_inc_l", "gamma_inc_u", "divide_no_nan", "equal", "not_equal",
    "greater_than", "greater_or_equal", "add", "sub", "mul", "div", "pow", "mod", "floordiv", "and_", "or_", "xor",
    "shift_bits_left", "shift_bits_right", "hypot", "logaddexp", "copysign", "nextafter",
)  # fmt: skip
"""Broadcasting operations of two operands: a fast path for a node and a node or a Python number."""

NOT_RECORDED: Final = frozenset(
    {
        # arguments that are functions, control flow, autodiff, compilation: not graph nodes
        "while_loop", "linear", "linear_solve", "conjugate_gradient", "conjugate_gradient_adaptive",
        "bi_conjugate_gradient", "minimize", "numpy_call", "jit_compile", "jacobian", "hessian", "custom_gradient",
        "jit_compile_grad", "jit_compile_hessian", "vectorized_call", "stop_gradient_tree", "call",
        # trees, devices, memory, interchange, sparse storage, state
        "copy_leaves", "stack_leaves", "block_until_ready", "allocate_on_device", "deallocate", "to_dlpack",
        "from_dlpack", "sparse_coo_tensor", "sparse_coo_tensor_batched", "csr_matrix", "csr_matrix_batched",
        "csc_matrix", "csc_matrix_batched", "mul_coo_dense", "coo_to_dense", "csr_to_coo", "mul_csr_dense",
        "csr_to_dense", "solve_triangular_sparse", "is_sparse", "get_sparse_format", "disassemble", "variable",
        "seed", "is_module",
        # questions about a tensor, answered without a node; casts go through `cast` (which simplifies)
        "shape", "ndims", "size", "sizeof", "determine_size", "is_tensor", "as_tensor", "is_available", "numpy",
        "dtype", "staticshape", "combine_types", "auto_cast", "to_float", "to_int32", "to_int64", "to_complex",
    }
)  # fmt: skip
"""Catalogue names the generic builder never records, even where the core has a spec for them."""

_RECORDS: Final = (
    "records a graph node and computes nothing: the node's shape and dtype come from the operation's spec "
    "(bk.op_spec(op).infer, memoised per signature), which raises the call's bk error when the node is recorded "
    "(so the recorders of _install are registered explains=True: nothing is put in front of them); "
    "a plan would ask the spec a second time and its casts would record cast nodes of their own. The node is "
    "computed later by the evaluating backend's kernel, behind that backend's own plan"
)
"""Why the recorders (`_install`'s and the hand-written `cast`, `transpose`, `reshape`, `matmul`) are trusted kernels."""
_LEAVES: Final = (
    "takes a node as it is (cast to a set precision) and makes NumPy values, Python numbers and lists constant "
    "leaves with the NumPy backend's as_tensor, which applies docs/semantics.md's number rules: a plan's "
    "conversions would only repeat them"
)
"""Why `as_tensor` is a trusted kernel."""

_MEMO: dict[Any, Any] = {}  # signature -> spec verdict ((shape, dtype) or a list of them)
_MEMO_LIMIT: Final = 1 << 16


def _remember(key: Any, value: Any) -> Any:
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[key] = value
    return value


class LazyBackend(Backend):
    """Graph nodes instead of values: `bk.backend("lazy")`.

    Native tensors are `bk_lazy.LazyArray`. NumPy arrays and Python numbers next to them are
    constants (leaves). Tensors of other frameworks are not mixed in silently: wrap them with
    `bk_lazy.array(x)` or `bk.convert(x, "lazy")`, which keeps their data (so the graph computes on
    their framework).
    """

    # Recording a node asks the spec already (shape, dtype, errors), and computing it runs the evaluator's
    # kernels behind their own plans: `as_tensor`, `cast` and the shape operations written out here are trusted
    # (`@kernel(trusted=True, why=...)`), the other methods written out here take the core's plan; the recorders
    # of every other operation (`_install`, made after the class exists) are registered trusted with
    # `LazyBackend.register_kernel`.
    checked_indices = INDEX_OPERATIONS  # its gathers and scatters refuse an index outside its dimension themselves

    native_types: ClassVar[tuple[type, ...] | None] = (LazyArray,)
    computing_operations: ClassVar[frozenset[str]] = frozenset(
        {"while_loop", "linear_solve", "conjugate_gradient", "conjugate_gradient_adaptive", "bi_conjugate_gradient", "minimize"}
    )
    """Loops whose number of iterations depends on the data: they compute their condition each iteration."""

    def __init__(self) -> None:
        device = graph_device(self)
        super().__init__("lazy", [device], device)

    # ------------------------------------------------------------ required set

    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        """Native: `LazyArray`; else also NumPy values, Python numbers and (nested) lists of them."""
        if isinstance(x, LazyArray):
            return True
        if only_native:
            return False
        return numpy_backend().is_tensor(x)

    @kernel(trusted=True, why=_LEAVES)
    def as_tensor(self, x: Any, convert_external: bool = True) -> Tensor:
        """A node as it is (cast to a set precision); NumPy values, numbers and lists as constant leaves.

        Tensors of another framework become leaves that keep their data (as `bk_lazy.array`).
        """
        if isinstance(x, LazyArray):
            if x._shape is not None and bk.get_precision() is not None and x._dtype.kind in (float, complex):
                return self.cast(x, self.float_type if x._dtype.kind is float else self.complex_type)
            return x
        if not convert_external and isinstance(x, numbers.Number):
            return x
        numpy = numpy_backend()
        if numpy.is_tensor(x):
            data = numpy.as_tensor(x)
            return LazyArray(None, (), {}, (), tuple(data.shape), numpy.dtype(data), data=data)
        return array(x)

    def is_available(self, tensor: Tensor) -> bool:
        """False for operation nodes and variables (no value until computed); True for leaves holding data."""
        if isinstance(tensor, LazyArray):
            return tensor._fn_name is None and tensor._data is not NO_DATA
        return True

    def numpy(self, tensor: Tensor) -> np.ndarray:
        """Computes `tensor` (on the backend of its leaves' data) and returns the value as NumPy.

        Raises:
            UnboundVariableError: (a `TypeError`) when the graph depends on a `Variable`, naming it;
                nothing is computed then.
        """
        if not isinstance(tensor, LazyArray):
            return numpy_backend().numpy(tensor)
        from ._compute import target_backend, unbound
        from ._graph import topological

        order = topological([tensor], deepest=False)
        unbound(order)
        target = target_backend(order)
        return target.numpy(compute(tensor, target))

    def dtype(self, array: Tensor) -> DType:
        """The node's `DType`, known without data."""
        if isinstance(array, LazyArray):
            return array.dtype
        return numpy_backend().dtype(array)

    def staticshape(self, tensor: Tensor) -> tuple[int | None, ...]:
        """The node's shape; `None` for a size that depends on the data."""
        if isinstance(tensor, LazyArray):
            return tensor.shape
        return numpy_backend().staticshape(tensor)

    def compute_count(self) -> int:
        """How many times lazy values have been computed in this process (`bk_lazy.compute_count()`)."""
        return compute_count()

    # ------------------------------------------------------------ operations that simplify while building

    @kernel(trusted=True, why=_RECORDS)
    def cast(self, x: Tensor, dtype: DType) -> Tensor:
        """A `cast` node. Simplifies: `x` itself when it has that dtype; a cast of a cast whose first
        step keeps every value exactly (a widening) casts the original once."""
        if not isinstance(dtype, DType):
            raise ArgumentTypeError(f"cast: dtype must be a bk.DType, got {type(dtype).__name__}")
        x = self._operand(x, "cast")
        if x._dtype is dtype:
            return x
        while x._fn_name == "cast" and _exact(x._args[0]._dtype, x._dtype):
            x = x._args[0]  # the intermediate cast changed no value
            if x._dtype is dtype:
                return x
        shape, result = self._infer("cast", (x, dtype), {})
        return make_node("cast", (x, dtype), {}, (x,), shape, result)

    @kernel(trusted=True, why=_RECORDS)
    def transpose(self, tensor: Tensor, axes: Any) -> Tensor:
        """A `transpose` node. Simplifies: the identity permutation is `tensor` itself, and a
        transpose of a transpose is one transpose of the original (or the original)."""
        x = self._operand(tensor, "transpose")
        axes = tuple(axes) if isinstance(axes, (list, range)) else axes
        key = ("transpose", x._shape, x._dtype, axes, get_precision())
        found = _MEMO.get(key) if type(axes) is tuple else None
        if found is None:
            shape, dtype = self._infer("transpose", (x, axes), {})
            perm = tuple(int(a) % len(shape) for a in axes) if shape else ()
            found = (shape, dtype, perm, perm == tuple(range(len(perm))))
            if type(axes) is tuple:
                _remember(key, found)
        shape, dtype, perm, identity = found
        if identity:
            return x
        if x._fn_name == "transpose":
            inner = x._args[0]
            composed = tuple(x._args[1][p] % len(shape) for p in perm)
            if composed == tuple(range(len(composed))):
                return inner
            x, perm = inner, composed
        return make_node("transpose", (x, perm), {}, (x,), shape, dtype)

    @kernel(trusted=True, why=_RECORDS)
    def reshape(self, value: Tensor, shape: Any) -> Tensor:
        """A `reshape` node. Simplifies: a reshape to the same (known) shape is `value` itself, and
        a reshape of a reshape reshapes the original."""
        x = self._operand(value, "reshape")
        shape = tuple(shape) if isinstance(shape, (list, range)) else shape
        result, dtype = self._infer("reshape", (x, shape), {})
        if result == x._shape and None not in result:
            return x
        while x._fn_name == "reshape" and None not in result:
            x = x._args[0]
            if result == x._shape:
                return x
        return make_node("reshape", (x, shape), {}, (x,), result, dtype)

    @kernel(trusted=True, why=_RECORDS)
    def matmul(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`x1 @ x2` with NumPy's rules (batched, 1-D operands): a `matmul` node, computed by the
        target backend's `matmul` (or the `@` of its tensors)."""
        a = self._operand(x1, "matmul")
        b = self._operand(x2, "matmul")
        key = ("matmul", a._shape, a._dtype, b._shape, b._dtype, get_precision())
        found = _MEMO.get(key)
        if found is None:
            found = _remember(key, infer("matmul", (a, b), {}))
        return make_node("matmul", (a, b), {}, (a, b) if a is not b else (a,), *found)

    def full(self, shape: Any, fill_value: Any, dtype: DType | None = None) -> Tensor:
        """A `full` node. A NumPy scalar fill value stays a scalar (of its own dtype unless `dtype`
        says otherwise, as on bk-numpy), never a 0-d leaf, which the spec refuses as a fill value."""
        if isinstance(fill_value, np.generic):
            args = (_plain(shape), fill_value, dtype)
            return make_node("full", args, {}, (), *self._infer("full", args, {}))
        return self._record("full", (shape, fill_value, dtype), {})

    def multi_slice(self, tensor: Tensor, slices: Any) -> Tensor:
        """`tensor[slices]` as NumPy indexes (ints, slices with any step, None, `...`, integer and bool
        arrays and lists, in any combination): a `multi_slice` node. A bool mask whose values are
        known (a NumPy array, a list of bools, a leaf holding one) indexes as its `nonzero()` integer
        arrays, as NumPy does, so the node's shape is NumPy's; a mask without data (a node) leaves its
        sizes `None`."""
        x = self._operand(tensor, "multi_slice")
        key = slices if isinstance(slices, tuple) else (slices,)
        if any(_known_mask(k) is not None for k in key):
            self._infer("multi_slice", (x, self._leaves(key)), {})  # the mask's shape is checked as it is given
            key = _masks_as_indices(key)
        return self._record("multi_slice", (x, key), {})

    # ------------------------------------------------------------ recording

    def _operand(self, x: Any, op: str = "") -> LazyArray:
        if type(x) is LazyArray:
            return x
        check_tensor_argument(x, op)  # None, strings and bytes
        return self.as_tensor(x)  # type: ignore[no-any-return]

    def _leaves(self, value: Any) -> Any:
        """NumPy arrays and scalars, and tensors of other frameworks, inside arguments as leaves."""
        kind = type(value)
        if kind is LazyArray or kind in PYTHON_NUMBERS or value is None or kind is str:
            return value
        if isinstance(value, (np.ndarray, np.generic)):
            return self.as_tensor(value)
        if kind is tuple:
            return tuple([self._leaves(v) for v in value])
        if kind is list:
            return [self._leaves(v) for v in value]
        if hasattr(value, "__dlpack__") and hasattr(value, "shape"):  # a framework's tensor
            return array(value)
        return value

    def _infer(self, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The spec's verdict for `op` on these arguments, memoised by signature."""
        try:
            key = (op, _signature(args), _signature(kwargs) if kwargs else None, get_precision())
            found = _MEMO.get(key)
        except TypeError:  # an argument that is not hashable: ask the spec every time
            return infer(op, args, kwargs)
        if found is None:
            found = _remember(key, infer(op, args, kwargs))
        return found

    def _record(self, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        positional, variadic, named = _kinds(op)
        args = tuple(
            [
                _plain(a) if (positional[i] if i < len(positional) else variadic) in _PLAIN_KINDS else self._leaves(a)
                for i, a in enumerate(args)
            ]
        )
        if kwargs:
            kwargs = {k: _plain(v) if named.get(k) in _PLAIN_KINDS else self._leaves(v) for k, v in kwargs.items()}
        specs = self._infer(op, args, kwargs)
        found: dict[int, LazyArray] = {}
        find_deps(args, found)
        if kwargs:
            find_deps(kwargs, found)
        deps = tuple(found.values())
        if isinstance(specs, list):
            return multi_output(op, args, kwargs, deps, specs)
        return make_node(op, args, kwargs, deps, *specs)

    # ------------------------------------------------------------ compilation

    def jit_compile(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """`f` traced once per signature (shapes and dtypes of the tensor arguments, values of the
        others) into a `bk_lazy.Function`, which then builds each call's graph from its compiled
        steps: common subexpressions merged, dead nodes dropped, constant parts folded. The result
        pickles (with its traced Functions) where `f` does."""
        return Traced(f)

    # ------------------------------------------------------------ operations that compute by design

    def while_loop(self, loop: Callable[..., Any], values: tuple[Any, ...], max_iter: Any) -> Any:
        """Runs `loop` while any entry of its first value is true. Computes: the condition is computed
        at every iteration (the number of iterations depends on the data)."""
        return super().while_loop(loop, values, max_iter)

    def linear_solve(self, *args: Any, **kwargs: Any) -> Any:
        """Solves a linear system iteratively. Computes: its loop condition (see `while_loop`)."""
        return super().linear_solve(*args, **kwargs)

    def conjugate_gradient(self, *args: Any, **kwargs: Any) -> Any:
        """Conjugate gradient. Computes: its loop condition (see `while_loop`)."""
        return super().conjugate_gradient(*args, **kwargs)

    def conjugate_gradient_adaptive(self, *args: Any, **kwargs: Any) -> Any:
        """Adaptive conjugate gradient. Computes: its loop condition (see `while_loop`)."""
        return super().conjugate_gradient_adaptive(*args, **kwargs)

    def bi_conjugate_gradient(self, *args: Any, **kwargs: Any) -> Any:
        """BiCG-stab(n). Computes: its loop condition (see `while_loop`)."""
        return super().bi_conjugate_gradient(*args, **kwargs)

    def minimize(self, *args: Any, **kwargs: Any) -> Any:
        """Minimizes a function with SciPy or gradient descent. Computes: SciPy needs values at each step."""
        return super().minimize(*args, **kwargs)

    def numpy_call(self, f: Callable[..., Any], output_shapes: Any, output_dtypes: Any, *args: Any, **aux_args: Any) -> Any:
        """Records a node that calls `f` on NumPy values when computed; the shapes and dtypes are given."""
        args = tuple(a if is_python_number(a) else self._operand(a, "numpy_call") for a in args)
        deps = tuple({id(a): a for a in args if isinstance(a, LazyArray)}.values())
        every = (f, output_shapes, output_dtypes, *args)
        if isinstance(output_dtypes, (tuple, list)):
            specs = [(tuple(s), d) for s, d in zip(output_shapes, output_dtypes, strict=True)]
            return multi_output("numpy_call", every, aux_args, deps, specs)
        return make_node("numpy_call", every, aux_args, deps, tuple(output_shapes), output_dtypes)


class Traced:
    """What `LazyBackend.jit_compile(f)` returns: `f`, traced into one `bk_lazy.Function` per signature."""

    def __init__(self, f: Callable[..., Any], traced: dict[Any, Any] | None = None) -> None:
        self.f = f
        self.traced: dict[Any, Any] = {} if traced is None else traced
        self.__name__ = getattr(f, "__name__", "compiled")
        self.__doc__ = getattr(f, "__doc__", None)

    def __call__(self, *args: Any) -> Any:
        lazy = _lazy()
        values = [a if is_python_number(a) else lazy._operand(a, "jit_compile") for a in args]
        key = tuple((v._shape, v._dtype) if isinstance(v, LazyArray) else (type(v), v) for v in values)
        function = self.traced.get(key)
        if function is None:
            from ._graph import Variable

            stand_ins = [Variable(v.shape, v.dtype, name=f"arg{i}") if isinstance(v, LazyArray) else v for i, v in enumerate(values)]
            inputs = [v for v in stand_ins if isinstance(v, LazyArray)]
            function = self.traced[key] = Function(inputs, self.f(*stand_ins))
        return function(*[v for v in values if isinstance(v, LazyArray)])

    def __reduce__(self) -> tuple[Any, ...]:
        return (Traced, (self.f, self.traced))


# ---------------------------------------------------------------- signatures and rules


def _known_mask(item: Any) -> np.ndarray | None:
    """The values of a bool mask index that holds data (NumPy, a list of bools, a leaf), else `None`."""
    if type(item) is LazyArray:
        item = item._data if item._fn_name is None else NO_DATA
        if item is NO_DATA or not isinstance(item, (np.ndarray, np.generic)):
            return None
    if isinstance(item, (np.ndarray, np.generic)):
        return item if item.dtype == np.bool_ else None  # type: ignore[return-value]
    if isinstance(item, (list, tuple)):
        try:
            values = np.asarray(item)
        except (ValueError, TypeError):
            return None
        return values if values.dtype == np.bool_ else None
    return None


def _masks_as_indices(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """`key` with each mask of known values replaced by its `nonzero()` integer arrays (a 0-d one by
    a Python bool, which the spec reads as NumPy does)."""
    out: list[Any] = []
    for item in key:
        mask = _known_mask(item)
        if mask is None:
            out.append(item)
        elif mask.ndim == 0:
            out.append(bool(mask))
        else:
            out.extend(np.nonzero(mask))
    return tuple(out)

_PLAIN_KINDS: Final = frozenset({"Axis", "Axes", "Shape", "int", "bool", "str"})
"""Argument kinds of the specs that are Python values, never tensors: NumPy integers there are ints."""
_KINDS: dict[str, tuple[tuple[str, ...], str, dict[str, str]]] = {}


def _kinds(op: str) -> tuple[tuple[str, ...], str, dict[str, str]]:
    """The kinds of `op`'s positional parameters, of its `*args` (or `''`), and by name."""
    found = _KINDS.get(op)
    if found is None:
        params = spec_of(op).params
        positional = tuple(kind for name, kind in params if not name.startswith("*"))
        variadic = next((kind for name, kind in params if name.startswith("*") and not name.startswith("**")), "")
        if variadic:  # parameters after *args are keyword-only
            index = next(i for i, (name, _) in enumerate(params) if name.startswith("*"))
            positional = tuple(kind for _, kind in params[:index])
        found = _KINDS[op] = (positional, variadic, {name.lstrip("*"): kind for name, kind in params})
    return found


def _plain(value: Any) -> Any:
    """`value` with NumPy scalars and arrays as Python numbers and lists (for axes, shapes, counts)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if type(value) is tuple:
        return tuple([_plain(v) for v in value])
    if type(value) is list:
        return [_plain(v) for v in value]
    return value


def _signature(value: Any) -> Any:
    """What of an argument decides the spec's verdict: a node's shape and dtype, a value otherwise.

    Raises:
        TypeError: for an argument that is not hashable (the verdict is then not memoised).
    """
    kind = type(value)
    if kind is LazyArray:
        return (LazyArray, value._shape, value._dtype)
    if kind is tuple or kind is list:
        return (kind, *[_signature(v) for v in value])
    if kind is dict:
        return (dict, *[(k, _signature(v)) for k, v in sorted(value.items())])
    if kind is slice:
        return (slice, _signature(value.start), _signature(value.stop), _signature(value.step))
    hash(value)
    return (kind, value)


def _scalar_key(value: Any) -> Any:
    """What of a Python scalar decides an elementwise verdict: its kind, and an int's value where it
    may not fit the integer tensor beside it."""
    kind = type(value)
    if kind is int and not 0 <= value < 128:
        return (int, value)
    return kind


_EXACT_INT_IN_FLOAT: Final = {16: 11, 32: 24, 64: 53}  # mantissa bits (with the implicit one) by float size


def _exact(source: DType, middle: DType) -> bool:
    """Whether casting `source` to `middle` keeps every value exactly (so a cast after it may start
    from `source` instead)."""
    if source.kind is bool:
        return True
    sk, mk = source.kind, middle.kind
    sbits, mbits = source.bits or 0, middle.bits or 0
    if sk is int and mk is int:
        if source.signed == middle.signed:
            return mbits >= sbits
        return middle.signed and mbits > sbits  # unsigned into a wider signed type
    if sk is int and mk in (float, complex):
        part = mbits if mk is float else mbits // 2
        return (sbits - (1 if source.signed else 0)) <= _EXACT_INT_IN_FLOAT.get(part, 0) and not getattr(middle, "brain", False)
    if sk is float and mk in (float, complex):
        part = mbits if mk is float else mbits // 2
        return part >= sbits and not getattr(middle, "brain", False) and not getattr(source, "brain", False)
    if sk is complex and mk is complex:
        return mbits >= sbits
    return False


# ---------------------------------------------------------------- the families


def _unary(op: str) -> Callable[..., Any]:
    def method(self: LazyBackend, x: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or type(x) is not LazyArray:
            return self._record(op, (x, *args), kwargs)
        precision = get_precision()
        key = (op, x._shape, x._dtype, precision)
        found = _MEMO.get(key)
        if found is None:
            found = _remember(key, infer(op, (x,), {}))
        if shared_cache() is None:
            return LazyArray(op, (x,), {}, (x,), found[0], found[1], precision=precision)
        return make_node(op, (x,), {}, (x,), found[0], found[1], precision)

    return method


def _binary(op: str) -> Callable[..., Any]:
    def method(self: LazyBackend, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 2 and not kwargs:
            a, b = args
            if type(a) is LazyArray and a._shape is not None:
                tb = type(b)
                if tb is LazyArray and b._shape is not None:
                    return _binary_node(op, a, b, (op, a._shape, a._dtype, b._shape, b._dtype), (a, b) if a is not b else (a,))
                if tb in PYTHON_NUMBERS:
                    return _binary_node(op, a, b, (op, a._shape, a._dtype, _scalar_key(b)), (a,))
            elif type(a) in PYTHON_NUMBERS and type(b) is LazyArray and b._shape is not None:
                return _binary_node(op, a, b, (op, _scalar_key(a), b._shape, b._dtype), (b,))
        return self._record(op, args, kwargs)

    return method


def _binary_node(op: str, a: Any, b: Any, key: tuple[Any, ...], deps: tuple[LazyArray, ...]) -> LazyArray:
    precision = get_precision()
    key = (*key, precision)
    found = _MEMO.get(key)
    if found is None:
        found = _remember(key, infer(op, (a, b), {}))
    if shared_cache() is None:
        return LazyArray(op, (a, b), {}, deps, found[0], found[1], precision=precision)
    return make_node(op, (a, b), {}, deps, found[0], found[1], precision)


_SIMPLE: Final = (int, float, bool, str, type(None))


def _generic(op: str) -> Callable[..., Any]:
    def method(self: LazyBackend, *args: Any, **kwargs: Any) -> Any:
        if not kwargs:  # the hot path: nodes and plain Python values (axes, flags) only
            key: list[Any] = [op, get_precision()]
            deps: list[LazyArray] = []
            for a in args:
                kind = type(a)
                if kind is LazyArray and a._shape is not None:
                    key.append((LazyArray, a._shape, a._dtype))
                    if all(a is not d for d in deps):  # by identity: `in` would call the nodes' elementwise ==
                        deps.append(a)
                elif kind in _SIMPLE or (kind is tuple and all(type(i) is int for i in a)):
                    key.append((kind, a))
                else:
                    break
            else:
                fast = tuple(key)
                found = _MEMO.get(fast)
                if found is None:
                    found = _remember(fast, infer(op, args, {}))
                if isinstance(found, list):
                    return multi_output(op, args, {}, tuple(deps), found)
                return make_node(op, args, {}, tuple(deps), *found)
        return self._record(op, args, kwargs)

    return method


def recorded_operations() -> list[str]:
    """The catalogue operations the generic builder records: those with a core spec that the NumPy
    backend, the default evaluator, supports."""
    names = set(bk.op_specs())
    numpy = numpy_backend()
    own = _OWN
    result = []
    for name in sorted(names):
        if name in NOT_RECORDED or name in own or name.startswith("_") or not hasattr(Backend, name):
            continue
        try:
            if not numpy.supports(name):
                continue
        except (KeyError, ValueError):
            continue
        result.append(name)
    return result


_OWN: Final = frozenset(LazyBackend.__dict__)  # the operations written out above
RECORDED: list[str] = []
"""The operations recorded by the generic builder (and its fast paths for elementwise operations)."""


def _install() -> None:
    RECORDED[:] = recorded_operations()
    for name in RECORDED:
        factory = _unary if name in ELEMENTWISE_UNARY else _binary if name in BINARY else _generic
        method = factory(name)
        method.__name__ = name
        method.__qualname__ = f"LazyBackend.{name}"
        doc = (getattr(Backend, name).__doc__ or "").strip().splitlines()
        method.__doc__ = f"{doc[0] if doc else name} Records a graph node (shape and dtype from the operation's spec)."
        method.__signature__ = inspect.signature(getattr(Backend, name))  # type: ignore[attr-defined]  # not (*args, **kwargs)
        LazyBackend.register_kernel(name, method, trusted=True, explains=True, why=_RECORDS)


_install()
# what a node's methods `compute`, `compute_constants`, `get_function`, `show` and `draw` call (`_graph` imports none of them)
register_above(compute=compute, compute_constants=compute_constants, Function=Function, show=show, draw=draw)
