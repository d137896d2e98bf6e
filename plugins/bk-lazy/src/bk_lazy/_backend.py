"""`LazyBackend`: every claimed operation records a graph node with its shape and dtype.

Operations are grouped by how their result's shape is found without data (see `_shapes.py`):
elementwise (broadcasting), reductions, creation, and templates for the rest. Each recorded node
is evaluated later, by `compute` or a `Function`, with the operation of the same name of the
target backend.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, ClassVar, Final

import numpy as np

import bk
from bk import ArgumentTypeError, Backend, DType, get_precision

from ._devices import graph_device
from ._graph import NO_DATA, LazyArray, array, compute, compute_count, find_deps, make_node, multi_output, shared_cache
from ._shapes import arg_shape, broadcast, creation_shape, data_dependent, numpy_backend, reduce_shape, template, template_dtype

__all__ = ["LazyBackend"]

Tensor = Any

UNARY: Final = [
    "abs",
    "sign",
    "round",
    "ceil",
    "floor",
    "sqrt",
    "exp",
    "erf",
    "softplus",
    "log_gamma",
    "sigmoid",
    "sin",
    "arcsin",
    "cos",
    "arccos",
    "tan",
    "arctan",
    "sinh",
    "arcsinh",
    "cosh",
    "arccosh",
    "tanh",
    "arctanh",
    "log",
    "log2",
    "log10",
    "isfinite",
    "isnan",
    "isinf",
    "real",
    "imag",
    "conj",
    "invert",
    "stop_gradient",
    "factorial",
    "zeros_like",
    "ones_like",
    "copy",
    "cumsum",
    "sort",
    "argsort",
]
"""Operations whose result has the shape of their first argument."""

BROADCAST: Final = [
    "maximum",
    "minimum",
    "arctan2",
    "gamma_inc_l",
    "gamma_inc_u",
    "divide_no_nan",
    "equal",
    "not_equal",
    "greater_than",
    "greater_or_equal",
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "mod",
    "floordiv",
    "and_",
    "or_",
    "xor",
    "shift_bits_left",
    "shift_bits_right",
    "clip",
]
"""Operations whose result has the broadcast shape of their tensor arguments."""

REDUCTIONS: Final = ["sum", "mean", "std", "max", "min", "any", "all", "prod"]
ARG_REDUCTIONS: Final = ("argmax", "argmin")
CREATION: Final = ("zeros", "ones", "random_uniform", "random_normal")

TEMPLATED: Final = [
    "range",
    "linspace",
    "meshgrid",
    "reshape",
    "transpose",
    "expand_dims",
    "stack",
    "concat",
    "tile",
    "repeat",
    "pad",
    "get_diagonal",
    "multi_slice",
    "quantile",
    "searchsorted",
    "nonzero",
    "boolean_mask",
    "unique",
    "histogram1d",
    "bincount",
    "unravel_index",
    "gather",
    "batched_gather_nd",
    "scatter",
    "indexed_segment_sum",
    "tensordot",
    "einsum",
    "mul_matrix_batched_vector",
    "matrix_solve_least_squares",
    "solve_triangular_dense",
    "matrix_rank_dense",
    "eigvals",
    "eig",
    "svd",
    "fft",
    "ifft",
    "conv",
    "grid_sample",
]
"""Operations whose shape and dtype come from a template evaluation on stand-ins of the real shapes."""


_NUMBERS: Final = (bool, int, float, complex)


def _is_number(x: Any) -> bool:
    return type(x) in _NUMBERS


class LazyBackend(Backend):
    """Graph nodes instead of values: `bk.backend("lazy")`.

    Native tensors are `bk_lazy.LazyArray`. NumPy arrays and Python numbers next to them are
    constants (leaves). Tensors of other frameworks are not mixed in silently: wrap them with
    `bk_lazy.array(x)` or `bk.convert(x, "lazy")`, which keeps their data (so the graph computes on
    their framework).
    """

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
        """Computes `tensor` (on the backend of its leaves' data) and returns the value as NumPy."""
        if not isinstance(tensor, LazyArray):
            return numpy_backend().numpy(tensor)
        roots = [tensor]
        from ._graph import ascend, target_backend

        target = target_backend(list(ascend(roots)))
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

    def cast(self, x: Tensor, dtype: DType) -> Tensor:
        """A `cast` node (or `x` itself when it has that dtype already)."""
        if not isinstance(dtype, DType):
            raise ArgumentTypeError(f"cast: dtype must be a bk.DType, got {type(dtype).__name__}")
        x = self._operand(x)
        if x._dtype == dtype:
            return x
        template_dtype("cast", (x, dtype), {})
        return make_node("cast", (x, dtype), {}, (x,), x.shape, dtype)

    def compute_count(self) -> int:
        """How many times lazy values have been computed in this process (`bk_lazy.compute_count()`)."""
        return compute_count()

    # ------------------------------------------------------------ recording

    def _operand(self, x: Any, op: str = "") -> LazyArray:
        if isinstance(x, LazyArray):
            return x
        if x is None or isinstance(x, (str, bytes)):
            raise ArgumentTypeError(f"{op}: expected a tensor, got {type(x).__name__} {x!r}")
        return self.as_tensor(x)  # type: ignore[no-any-return]

    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """Elementwise `x if condition else y` (broadcasting); `where(condition)` alone gives the indices
        of the true entries, whose number depends on the data. Records a graph node."""
        if x is None and y is None:
            return self._record_templated("where", (condition,), {})
        return _BROADCAST_WHERE(self, condition, x, y)

    # ------------------------------------------------------------ compilation

    def jit_compile(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """`f` traced once per signature (shapes and dtypes of the tensor arguments, values of the
        others) into a `bk_lazy.Function`, which then builds each call's graph from its compiled
        steps: common subexpressions merged, dead nodes dropped, constant parts folded."""
        from ._function import Function
        from ._graph import Variable

        traced: dict[Any, Function] = {}

        def compiled(*args: Any) -> Any:
            values = [a if _is_number(a) else self._operand(a, "jit_compile") for a in args]
            key = tuple((v._shape, v._dtype) if isinstance(v, LazyArray) else (type(v), v) for v in values)
            function = traced.get(key)
            if function is None:
                stand_ins = [
                    Variable(v.shape, v.dtype, name=f"arg{i}") if isinstance(v, LazyArray) else v for i, v in enumerate(values)
                ]
                inputs = [v for v in stand_ins if isinstance(v, LazyArray)]
                function = traced[key] = Function(inputs, f(*stand_ins))
            return function(*[v for v in values if isinstance(v, LazyArray)])

        compiled.__name__ = getattr(f, "__name__", "compiled")
        compiled.__doc__ = getattr(f, "__doc__", None)
        return compiled

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
        args = tuple(a if _is_number(a) else self._operand(a, "numpy_call") for a in args)
        deps = tuple({id(a): a for a in args if isinstance(a, LazyArray)}.values())
        every = (f, output_shapes, output_dtypes, *args)
        if isinstance(output_dtypes, (tuple, list)):
            specs = [(tuple(s), d) for s, d in zip(output_shapes, output_dtypes, strict=True)]
            return multi_output("numpy_call", every, aux_args, deps, specs)
        return make_node("numpy_call", every, aux_args, deps, tuple(output_shapes), output_dtypes)

    def _leaves(self, value: Any) -> Any:
        """NumPy arrays (not numbers, not lists) inside arguments as constant leaves."""
        if isinstance(value, (np.ndarray, np.generic)):
            return self.as_tensor(value)
        if isinstance(value, tuple):
            return tuple(self._leaves(v) for v in value)
        if isinstance(value, list):
            return [self._leaves(v) for v in value]
        return value

    def _record_templated(self, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        args = self._leaves(args)
        kwargs = {k: self._leaves(v) for k, v in kwargs.items()} if kwargs else {}
        found: dict[int, LazyArray] = {}
        find_deps(args, found)
        find_deps(kwargs, found)
        specs = data_dependent(op, args, kwargs, template(op, args, kwargs))
        deps = tuple(found.values())
        if isinstance(specs, list):
            return multi_output(op, args, kwargs, deps, specs)
        return make_node(op, args, kwargs, deps, *specs)


_FAST: dict[Any, DType] = {}  # (op, signatures..., precision) -> result dtype, for the hot paths below


def _scalar_key(value: Any) -> Any:
    """What of a Python scalar decides the dtype (and errors) of an operation: its type, and an int's size."""
    kind = type(value)
    if kind is int and not 0 <= value < 128:
        return (int, value)  # may overflow the integer tensor beside it
    return kind


def _unary(op: str) -> Callable[..., Any]:
    def method(self: LazyBackend, x: Any, *args: Any, **kwargs: Any) -> Any:
        if type(x) is not LazyArray:
            x = self._operand(x, op)
        precision = get_precision()
        if args or kwargs or x._shape is None:
            dtype = template_dtype(op, (x, *args), kwargs)
            return make_node(op, (x, *args), kwargs, (x,), x.shape, dtype, precision)
        key = (op, x._dtype, x._shape, precision)
        dtype = _FAST.get(key)
        if dtype is None:
            dtype = _FAST[key] = template_dtype(op, (x,), {})
        if shared_cache() is None:
            return LazyArray(op, (x,), {}, (x,), x._shape, dtype, precision=precision)
        return make_node(op, (x,), {}, (x,), x._shape, dtype, precision)

    return method


def _broadcasting(op: str) -> Callable[..., Any]:
    def method(self: LazyBackend, *args: Any) -> Any:
        if len(args) == 2:  # the hot path: a node and a node or a Python number
            a, b = args
            ta, tb = type(a), type(b)
            if ta is LazyArray and a._shape is not None and ((tb is LazyArray and b._shape is not None) or tb in _NUMBERS):
                return _binary_node(op, a, b, tb is LazyArray)
        args = tuple(a if type(a) is LazyArray or _is_number(a) else self._operand(a, op) for a in args)
        nodes = [a for a in args if type(a) is LazyArray]
        if not nodes:
            raise ArgumentTypeError(f"{op}: no tensor among the arguments")
        shape = nodes[0]._shape if len(nodes) == 1 else broadcast(op, *[n.shape for n in nodes])
        dtype = template_dtype(op, args, {})
        deps = (
            tuple(nodes)
            if len(nodes) == 1 or (len(nodes) == 2 and nodes[0] is not nodes[1])
            else tuple({id(n): n for n in nodes}.values())
        )
        return make_node(op, args, {}, deps, shape, dtype)

    return method


def _binary_node(op: str, a: LazyArray, b: Any, node: bool) -> LazyArray:
    precision = get_precision()
    if node:
        shape = a._shape if a._shape == b._shape else broadcast(op, a._shape, b._shape)
        key = (op, a._dtype, b._dtype, len(a._shape) == len(b._shape), precision)
        deps = (a, b) if a is not b else (a,)
    else:
        shape = a._shape
        key = (op, a._dtype, _scalar_key(b), precision)
        deps = (a,)
    dtype = _FAST.get(key)
    if dtype is None:
        dtype = template_dtype(op, (a, b), {})
        if 0 not in a._shape and (not node or 0 not in b._shape):  # empty inputs raise for some operations only
            _FAST[key] = dtype
    if shared_cache() is None:
        return LazyArray(op, (a, b), {}, deps, shape, dtype, precision=precision)  # type: ignore[arg-type]
    return make_node(op, (a, b), {}, deps, shape, dtype, precision)


def _reduction(op: str) -> Callable[..., Any]:
    def method(self: LazyBackend, x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        x = self._operand(x, op)
        kwargs = {"keepdims": True} if keepdims else {}
        shape = reduce_shape(op, x.shape, axis, keepdims)
        dtype = template_dtype(op, (x, axis), kwargs)
        return make_node(op, (x, axis), kwargs, (x,), shape, dtype)

    return method


def _arg_reduction(op: str) -> Callable[..., Any]:
    def method(self: LazyBackend, x: Any, axis: int, keepdims: bool = False) -> Any:
        x = self._operand(x, op)
        kwargs = {"keepdims": True} if keepdims else {}
        shape = arg_shape(op, x.shape, axis, keepdims)
        dtype = template_dtype(op, (x, axis), kwargs)
        return make_node(op, (x, axis), kwargs, (x,), shape, dtype)

    return method


def _creation(op: str) -> Callable[..., Any]:
    def method(self: LazyBackend, shape: Any, *args: Any, **kwargs: Any) -> Any:
        shape = creation_shape(op, shape)
        dtype = template_dtype(op, ((0,) * len(shape), *args), kwargs)
        return make_node(op, (shape, *args), kwargs, (), shape, dtype)

    return method


def _templated(op: str) -> Callable[..., Any]:
    def method(self: LazyBackend, *args: Any, **kwargs: Any) -> Any:
        return self._record_templated(op, args, kwargs)

    return method


def _install(names: list[str] | tuple[str, ...], factory: Callable[[str], Callable[..., Any]]) -> None:
    for name in names:
        method = factory(name)
        method.__name__ = name
        method.__qualname__ = f"LazyBackend.{name}"
        doc = (getattr(Backend, name).__doc__ or "").strip().splitlines()
        method.__doc__ = f"{doc[0] if doc else name} Records a graph node (shape and dtype known without data)."
        setattr(LazyBackend, name, method)


_install(UNARY, _unary)
_install(BROADCAST, _broadcasting)
_install(REDUCTIONS, _reduction)
_install(ARG_REDUCTIONS, _arg_reduction)
_install(CREATION, _creation)
_install(TEMPLATED, _templated)
_BROADCAST_WHERE: Final = _broadcasting("where")
