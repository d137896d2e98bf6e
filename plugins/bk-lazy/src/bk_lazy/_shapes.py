"""Shape and dtype inference without data: rules per family, and templates.

Elementwise operations broadcast their inputs' shapes; reductions drop (or keep) their axes;
creation takes its shape from an argument. Their dtype (and every error the operation raises
for its arguments, such as a bad axis or an `OverflowError`) comes from running the same operation
of the NumPy backend on tiny stand-ins ("templates": each size shrunk to at most 1), cached per
signature. Every other operation runs its NumPy version on stand-ins of the real shapes (zeros,
or the data of a small NumPy leaf), which is exact but needs memory, so it is refused for inputs
larger than `TEMPLATE_LIMIT` elements.
"""

from __future__ import annotations

import inspect
import math
import warnings
from typing import Any, Final

import numpy as np

import bk
from bk import ArgumentTypeError, AxisError, Backend, DType, IndexOutOfRangeError, ShapeMismatchError
from bk._axes import normalize_axes, normalize_axis

from ._graph import NO_DATA, LazyArray, Shape

__all__ = ["TEMPLATE_LIMIT", "broadcast", "data_dependent", "infer", "reduce_shape", "spec_of", "template", "template_dtype"]

TEMPLATE_LIMIT: Final = 1 << 20
"""The most elements the stand-ins of one template evaluation may hold together."""

_SMALL_LEAF: Final = 1 << 12  # leaves of NumPy data up to this size are their own stand-ins
_USER_ERRORS: Final = (AxisError, ArgumentTypeError, IndexOutOfRangeError, ShapeMismatchError, OverflowError)
_DTYPES: dict[Any, Any] = {}
_NUMPY: list[Backend] = []


def numpy_backend() -> Backend:
    """The backend templates run on."""
    if not _NUMPY:
        try:
            _NUMPY.append(bk.backend("numpy"))
        except ValueError as error:
            raise RuntimeError(
                "bk-lazy infers shapes and computes with the NumPy backend by default: pip install bk-numpy"
            ) from error
    return _NUMPY[0]


# ---------------------------------------------------------------- rules


def broadcast(op: str, *shapes: Shape) -> Shape:
    """The broadcast shape of `shapes`; `None` sizes stay unknown unless another size fixes them."""
    if len(shapes) == 1:
        return shapes[0]
    ndim = max(len(s) for s in shapes)
    result = []
    for dims in zip(*[(1,) * (ndim - len(s)) + tuple(s) for s in shapes], strict=True):
        size: int | None = 1
        for d in dims:
            if d == 1:
                continue
            if size == 1 or size is None:
                size = d if size == 1 or d is not None else size
            elif d is not None and d != size:
                raise ShapeMismatchError(
                    f"{op}: shapes {' and '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together"
                )
        result.append(size)
    return tuple(result)


def reduce_shape(op: str, shape: Shape, axis: Any, keepdims: bool) -> Shape:
    """The shape of reducing `shape` over `axis` (None: every axis)."""
    axes = normalize_axes(axis, len(shape), op)
    if axes is None:
        return (1,) * len(shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def arg_shape(op: str, shape: Shape, axis: Any, keepdims: bool) -> Shape:
    """The shape of `argmax`/`argmin` along one axis (or all axes for `None`)."""
    if axis is None:
        return (1,) * len(shape) if keepdims else ()
    index = normalize_axis(axis, len(shape), op)
    return tuple((1 if keepdims else None) if i == index else s for i, s in enumerate(shape) if keepdims or i != index)


def creation_shape(op: str, shape: Any) -> Shape:
    """The shape argument of a creation operation as a tuple of ints."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        result = tuple(int(s) for s in shape)
    except TypeError:
        raise ArgumentTypeError(f"{op}: shape must be a sequence of ints, got {shape!r}") from None
    if any(s < 0 for s in result):
        raise ValueError(f"{op}: negative size in shape {result}")
    return result


# ---------------------------------------------------------------- templates


def _stand_in(value: Any, shrink: bool | dict[int, int], unknown: int, filler: str) -> Any:
    """A NumPy stand-in of a node: zeros of its shape, or with sizes shrunk to <= 1 (`shrink=True`), or
    with sizes replaced by `shrink[size]` (a dict), or the node's own data (a small NumPy leaf)."""
    if isinstance(value, LazyArray):
        if value._shape is None:
            raise TypeError(f"{value!r} has several results; index it (node[i]) for one")
        data = value._data
        if (
            shrink is False
            and value._fn_name is None
            and data is not NO_DATA
            and isinstance(data, (np.ndarray, np.generic))
            and np.size(data) <= _SMALL_LEAF
        ):
            return data
        if isinstance(shrink, dict):
            shape = tuple(unknown if s is None else shrink.get(s, s) for s in value._shape)
        else:
            shape = tuple(unknown if s is None else (min(s, 1) if shrink else s) for s in value._shape)
        dtype = bk.to_numpy_dtype(value._dtype)
        if filler == "random" and dtype.kind in "fc":
            return np.random.default_rng(0).uniform(0.5, 1.5, shape).astype(dtype) + (
                np.eye(*shape[-2:], dtype=dtype) if len(shape) >= 2 else 0
            )
        return np.zeros(shape, dtype)
    if isinstance(value, tuple):
        return tuple(_stand_in(v, shrink, unknown, filler) for v in value)
    if isinstance(value, list):
        return [_stand_in(v, shrink, unknown, filler) for v in value]
    if isinstance(value, dict):
        return {k: _stand_in(v, shrink, unknown, filler) for k, v in value.items()}
    return value


def _elements(value: Any) -> int:
    if isinstance(value, LazyArray):
        return math.prod(2 if s is None else s for s in value._shape or ())
    if isinstance(value, (tuple, list)):
        return sum(_elements(v) for v in value)
    if isinstance(value, dict):
        return sum(_elements(v) for v in value.values())
    return 0


def _has_unknown(value: Any) -> bool:
    if isinstance(value, LazyArray):
        return value._shape is not None and None in value._shape
    if isinstance(value, (tuple, list)):
        return any(_has_unknown(v) for v in value)
    if isinstance(value, dict):
        return any(_has_unknown(v) for v in value.values())
    return False


def _run(op: str, args: tuple[Any, ...], kwargs: dict[str, Any], shrink: bool | dict[int, int], unknown: int) -> Any:
    numpy = numpy_backend()
    function = getattr(numpy, op)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return function(*_stand_in(args, shrink, unknown, "zeros"), **_stand_in(kwargs, shrink, unknown, "zeros"))
        except _USER_ERRORS:
            raise
        except Exception as first:  # zeros can be singular matrices: retry with generic values
            try:
                return function(*_stand_in(args, shrink, unknown, "random"), **_stand_in(kwargs, shrink, unknown, "random"))
            except Exception:
                raise first from None


def _specs(numpy: Backend, result: Any) -> Any:
    if isinstance(result, (tuple, list)):
        return [_specs(numpy, r) for r in result]
    return tuple(numpy.staticshape(result)), numpy.dtype(result)


SIZE_PRESERVING: Final = frozenset({"einsum", "tensordot", "mul_matrix_batched_vector", "transpose", "expand_dims", "stack"})
"""Operations whose result sizes are sizes of their inputs (or counts of them), in the same order: their
templates run on inputs whose sizes are renumbered 2, 3, 4, ... (keeping their order) and mapped back."""


def _sizes(value: Any, found: set[int | None]) -> None:
    if isinstance(value, LazyArray):
        found.update(value._shape or ())
    elif isinstance(value, (tuple, list)):
        for v in value:
            _sizes(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            _sizes(v, found)


def _renumbered(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`template` on inputs with renumbered sizes, or `None` where that cannot be mapped back."""
    found: set[int | None] = set()
    _sizes((args, kwargs), found)
    if None in found:
        return None
    big = sorted(s for s in found if s is not None and s > 1)
    counts = len(args[0]) + 2 if op == "stack" and isinstance(args[0], (tuple, list)) else 2
    small = {size: counts + 2 * i for i, size in enumerate(big)}  # even gaps: sums of two sizes stay apart
    back = {v: k for k, v in small.items()}
    numpy = numpy_backend()
    specs = _specs(numpy, _run(op, args, kwargs, small, 1))
    items = specs if isinstance(specs, list) else [specs]
    mapped = []
    for shape, dtype in items:
        sizes = []
        for d in shape:
            if d in back:
                sizes.append(back[d])
            elif d < counts:  # 0, 1, or a count of inputs
                sizes.append(d)
            else:
                return None  # a size the operation computed (a concatenation): not mappable
        mapped.append((tuple(sizes), dtype))
    return mapped if isinstance(specs, list) else mapped[0]


def template(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`(shape, dtype)` of `op` on these arguments, or a list of them for several results, by running
    the NumPy backend's `op` on stand-ins of the real shapes.

    Raises:
        ValueError: when the inputs are too large to stand in for (more than `TEMPLATE_LIMIT` elements).
    """
    elements = _elements(args) + _elements(kwargs)
    if op in SIZE_PRESERVING and elements > 64:
        specs = _renumbered(op, args, kwargs)
        if specs is not None:
            return specs
    if elements > TEMPLATE_LIMIT:
        raise ValueError(
            f"{op}: bk_lazy infers the shape of {op} by running it on stand-ins of the inputs' shapes, which it refuses "
            f"for {elements} elements (more than {TEMPLATE_LIMIT}); compute the inputs first, or use smaller ones"
        )
    numpy = numpy_backend()
    specs = _specs(numpy, _run(op, args, kwargs, False, 2))
    if _has_unknown(args) or _has_unknown(kwargs):  # sizes that follow an unknown size are unknown
        other = _specs(numpy, _run(op, args, kwargs, False, 3))
        specs = _merge(specs, other)
    return specs


def _merge(a: Any, b: Any) -> Any:
    if isinstance(a, list):
        return [_merge(x, y) for x, y in zip(a, b, strict=True)]
    return tuple(s if s == t else None for s, t in zip(a[0], b[0], strict=True)), a[1]


def _signature(value: Any) -> Any:
    if isinstance(value, LazyArray):
        return ("L", value._dtype, tuple(1 if s is None else min(s, 1) for s in value._shape or ()))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, *[_signature(v) for v in value])
    if isinstance(value, dict):
        return ("dict", *[(k, _signature(v)) for k, v in sorted(value.items())])
    if isinstance(value, float) and value != value:
        return ("nan",)
    if type(value) in (float, complex):
        return type(value)  # weak: only the kind matters
    if isinstance(value, slice):
        return ("slice", value.start, value.stop, value.step)
    return (type(value), value)


def template_dtype(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> DType:
    """The dtype of `op` on these arguments, from the NumPy backend on inputs shrunk to sizes <= 1.

    Also raises the errors the operation raises for its arguments (axes, dtypes, overflowing ints).
    Cached per signature (dtypes, shrunk shapes, the other arguments, the precision).
    """
    try:
        key = (op, _signature(args), _signature(kwargs) if kwargs else None, bk.get_precision())
        found = _DTYPES.get(key)
    except TypeError:  # an argument that is not hashable
        key, found = None, None
    if found is not None:
        return found  # type: ignore[no-any-return]
    result = _run(op, args, kwargs, True, 1)
    dtype = numpy_backend().dtype(result)
    if key is not None:
        _DTYPES[key] = dtype
    return dtype


# ---------------------------------------------------------------- sizes that depend on the data


_SIGNATURES: dict[str, inspect.Signature] = {}


def _bind(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    signature = _SIGNATURES.get(op)
    if signature is None:
        signature = _SIGNATURES[op] = inspect.signature(getattr(Backend, op))
    bound = signature.bind(None, *args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def data_dependent(op: str, args: tuple[Any, ...], kwargs: dict[str, Any], specs: Any) -> Any:
    """`specs` with the sizes that depend on the data (not the shapes) set to `None`."""
    if op not in ("nonzero", "boolean_mask", "unique", "repeat", "where"):
        return specs
    bound = _bind(op, args, kwargs)
    if (op == "nonzero" and bound["length"] is None) or (op == "where" and bound["x"] is None and bound["y"] is None):
        return _unknown(specs, 0)
    if op == "boolean_mask" and bound["new_length"] is None:
        x = bound["x"]
        return _unknown(specs, normalize_axis(bound["axis"], len(x.shape if isinstance(x, LazyArray) else np.shape(x)), op))
    if op == "repeat" and bound["new_length"] is None and isinstance(bound["repeats"], LazyArray) and bound["repeats"].ndim > 0:
        x = bound["x"]
        return _unknown(specs, normalize_axis(bound["axis"], len(x.shape), op))
    if op == "unique":
        x = bound["x"]
        axis = bound["axis"]
        specs = list(specs)
        flat = axis is None
        specs[0] = _unknown(specs[0], 0 if flat else normalize_axis(axis, len(x.shape), op))
        if bound["return_counts"]:
            specs[-1] = _unknown(specs[-1], 0)
        return tuple(specs) if isinstance(specs, tuple) else specs
    return specs


def _unknown(spec: Any, axis: int) -> Any:
    if isinstance(spec, list):
        return [_unknown(s, axis) for s in spec]
    shape, dtype = spec
    if not shape:
        return spec
    return tuple(None if i == axis else s for i, s in enumerate(shape)), dtype


# ---------------------------------------------------------------- operation specs


def spec_of(op: str) -> Any:
    """The core's operation spec of `op` (`bk.op_spec`), or `None` where the core has none."""
    specs = getattr(bk, "op_specs", None)
    if specs is None:
        return None
    return specs().get(op)


def _from_template(result: Any) -> Any:
    if isinstance(result, (tuple, list)):
        return [(tuple(r.shape), r.dtype) for r in result]
    return tuple(result.shape), result.dtype


def infer(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`(shape, dtype)` of `op` on these arguments (nodes among them), or a list of them for several
    results, from the core's operation spec; raises the bk error the call deserves."""
    spec = spec_of(op)
    if spec is not None:
        return _from_template(spec.infer(*args, **kwargs))
    return legacy_infer(op, args, kwargs)  # until every spec exists


_L_UNARY: Final = [
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
    "cast",
]
_L_BROADCAST: Final = [
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
_L_REDUCTIONS: Final = ("sum", "mean", "std", "max", "min", "any", "all", "prod")
_L_ARG: Final = ("argmax", "argmin")
_L_CREATION: Final = ("zeros", "ones", "random_uniform", "random_normal")
_L_TEMPLATED: Final = [
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
    "where",
]
LEGACY: Final = frozenset(_L_UNARY + _L_BROADCAST + list(_L_REDUCTIONS + _L_ARG + _L_CREATION) + _L_TEMPLATED)
"""Operations bk-lazy recorded before the core had specs (their rules below go once every spec exists)."""


def legacy_infer(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The rules bk-lazy 0.1 used: shapes by family, dtypes from NumPy on stand-ins."""
    if op in _L_UNARY:
        return args[0].shape, template_dtype(op, args, kwargs)
    if op in _L_BROADCAST:
        nodes = [a for a in args if isinstance(a, LazyArray)]
        if not nodes:
            raise ArgumentTypeError(f"{op}: no tensor among the arguments")
        return broadcast(op, *[n.shape for n in nodes]), template_dtype(op, args, kwargs)
    if op in _L_REDUCTIONS or op in _L_ARG:
        bound = _bind(op, args, kwargs)
        x = list(bound.values())[1]
        rule = reduce_shape if op in _L_REDUCTIONS else arg_shape
        shape = rule(op, x.shape if isinstance(x, LazyArray) else np.shape(x), bound["axis"], bound.get("keepdims", False))
        return shape, template_dtype(op, args, kwargs)
    if op in _L_CREATION:
        shape = creation_shape(op, args[0])
        return shape, template_dtype(op, ((0,) * len(shape), *args[1:]), kwargs)
    return data_dependent(op, args, kwargs, template(op, args, kwargs))
