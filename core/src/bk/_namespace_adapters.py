"""The adapters of `bk.array_namespace`: the standard's signatures on top of catalogue operations.

Each factory takes a backend and its namespace and returns one function of the standard. Adapters
translate arguments only (`dtype=`, `keepdims=`, `copy=`, `device=`, axes, argument order, named
tuples of results); every value comes from catalogue operations. The table that says which
standard name uses which factory is `_namespace_table.py`.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn

import numpy as np

from ._axes import normalize_axes, normalize_axis
from ._context import GLOBALS, get_precision, precision
from ._dtype import DType, to_numpy_dtype
from ._errors import ArgumentTypeError
from ._rules.arguments import is_python_number
from ._rules.weak import weak_result

Factory = Callable[[Any, Any], Callable[..., Any]]

_BOOL: Final = DType(bool)
_INT64: Final = DType(int, 64)
_FLOAT32: Final = DType(float, 32)
_COMPLEX64: Final = DType(complex, 64)


# ---------------------------------------------------------------- helpers


def _shape_of(b: Any, x: Any) -> tuple[int, ...]:
    return tuple(b.staticshape(x))


def bound_method(backend: Any, op: str) -> Any:
    """The backend's method `op`; a C method (the dispatcher's front, bk-numpy's operators) as its bound
    copy (`bind`), which is called without a method object in between."""
    method = getattr(type(backend), op)
    if not callable(getattr(type(method), "bind", None)):
        return getattr(backend, op)
    bound = method.bind(backend)
    bound.__signature__ = inspect.signature(getattr(backend, op))  # the bound method's: without `self`
    return bound


def shortcut(
    adapter: Callable[..., Any],
    nargs: int,
    fast: Callable[..., Any],
    extra: tuple[Any, ...] = (),
    shape_at: int = -1,
    kinds: tuple[type | None, ...] | None = None,
    dtypes: dict[Any, Any] | None = None,
    dtype_at: int = -1,
    precision_free: bool = False,
) -> Callable[..., Any]:
    """`adapter`, whose call with `nargs` positional arguments and no keywords is the catalogue call
    `fast(*args, *extra)`, a shape at position `shape_at` (where given) a tuple or an int (made a 1-tuple), each
    argument of the exact type `kinds` names at its position (where given; None: any): with the dispatcher's C
    front built, such a call goes to `fast` without the adapter's Python frame (`_fastplan.Shortcut`), every
    other call (a list as shape, keywords) to the adapter. With `dtypes` (the namespace's dtypes -> `DType`) and
    `dtype_at`, a call with the one keyword `dtype=` naming one of them is such a call too, its `DType` at
    `extra[dtype_at]`. With `precision_free`, only while no precision is set (the catalogue call's result follows
    a precision; the namespace's does not). Name, docs and signature are the adapter's."""
    from ._dispatcher import _FASTPLAN

    if _FASTPLAN is None:
        return adapter
    settings = GLOBALS if precision_free else None
    function = _FASTPLAN.Shortcut(fast, adapter, nargs, extra, shape_at, kinds, dtypes, dtype_at, settings)
    functools.update_wrapper(function, adapter)
    return function  # type: ignore[no-any-return]


def _as_shape(shape: Any) -> tuple[int, ...]:
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _kept(b: Any, result: Any, shape: tuple[int, ...], axis: Any, op: str) -> Any:
    """`result` of a reduction over `axis` reshaped as with keepdims."""
    axes = normalize_axes(axis, len(shape), op)
    axes = tuple(range(len(shape))) if axes is None else axes
    return b.reshape(result, tuple(1 if i in axes else s for i, s in enumerate(shape)))


class _Placement:
    """`device=` of one namespace: new arrays moved to a device given in any of its spellings.

    Creation functions call it only when a device is given, so `device=None` costs nothing.
    """

    def __init__(self, b: Any, ns: Any) -> None:
        self.b, self.devices = b, ns._devices
        self._single: bool | None = None  # whether the backend has one device only (asked once)

    def new(self, x: Any, device: Any, op: str) -> Any:
        """`x`, just created on the default device, on `device`."""
        target = self.devices.resolve(device, op)
        return x if target == self.b.get_default_device() else self._move(x, target, op)

    def existing(self, x: Any, device: Any, op: str) -> Any:
        """`x`, an array of the namespace, on `device` (itself when it is there already)."""
        target = self.devices.resolve(device, op)
        return x if target == self.b.get_device(x) else self._move(x, target, op)

    def like(self, result: Any, x: Any) -> Any:
        """`result`, created on the default device, on the device of `x` (`*_like` with `device=None`)."""
        if self._single is None:
            self._single = len(self.b.list_devices()) <= 1
        if self._single:
            return result
        source = self.b.get_device(x)
        return result if source == self.b.get_default_device() else self._move(result, source, "like")

    def _move(self, x: Any, target: Any, op: str) -> Any:
        if not self.b.supports("allocate_on_device"):
            raise ValueError(
                f"{op}: the {self.b.name!r} backend cannot place arrays on {target.name!r}; it creates them on its default device"
            )
        return self.b.allocate_on_device(x, target)


def _placer(b: Any, ns: Any) -> _Placement:
    """The namespace's `_Placement` (one per namespace)."""
    placement: _Placement | None = vars(ns).get("_placement")
    if placement is None:
        placement = ns._placement = _Placement(b, ns)
    return placement


def refuse_keywords(name: str, keywords: dict[str, Any], backend: str) -> NoReturn:
    """The error for keywords outside the standard's signature of `name` that this namespace does not honour."""
    from ._namespace_table import NATIVE_KEYWORDS

    names = ", ".join(repr(k) for k in keywords)
    what = f"keyword {names} is not an argument" if len(keywords) == 1 else f"keywords {names} are not arguments"
    elsewhere = sorted(b for b, table in NATIVE_KEYWORDS.items() if set(keywords) <= set(table.get(name, ())))
    hint = f" (the {' and '.join(repr(b) for b in elsewhere)} namespace does)" if elsewhere else ""
    raise ArgumentTypeError(
        f"{name}: {what} of the Array API standard's {name}, and the {backend!r} namespace does not honour "
        f"{'it' if len(keywords) == 1 else 'them'}{hint}; see inspect.signature(xp.{name})"
    )


def _default_dtype(value: Any) -> DType:
    """The default dtype of a Python scalar fill value."""
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):
        return _INT64
    if isinstance(value, complex):
        return _COMPLEX64
    return _FLOAT32


def _accumulation_dtype(x_dtype: DType, dtype: DType | None) -> DType:
    """The result dtype of `sum`, `prod`, `cumulative_sum`, ... with `dtype=None`: 64-bit ints widen."""
    if dtype is not None:
        return dtype
    if x_dtype.kind is int:
        return DType(int, 64, signed=x_dtype.signed)
    if x_dtype.kind is bool:
        return _INT64
    return x_dtype


# ---------------------------------------------------------------- creation


def _asarray(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)
    is_native = b.is_tensor
    numpy_dtypes: dict[DType, Any] = {}  # DType -> NumPy dtype, for conversions of Python values

    def same_dtype(x: Any, target: DType) -> bool:
        native = getattr(x, "dtype", None)  # the framework's own dtype compares without a bk call
        if native is not None and native == ns._native.get(target):
            return True
        return bool(b.dtype(x) == target)

    def asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords("asarray", keywords, b.name)
        target = None if dtype is None else ns.as_dtype(dtype, "asarray")
        if type(obj) in _PYTHON_VALUES:
            fresh = True
        elif isinstance(obj, np.generic):  # a NumPy scalar: a new, writeable 0-d array
            if copy is False:
                raise ValueError(
                    f"asarray: copy=False, but a NumPy scalar ({type(obj).__name__}) becomes an array only by a copy"
                )
            obj, copy, fresh = np.array(obj), None, True
        else:
            fresh = not is_native(obj, only_native=True)
        if not fresh:
            result = obj if target is None or same_dtype(obj, target) else b.cast(obj, target)
        elif target is None:
            result = b.as_tensor(obj)
        else:
            numpy_dtype = numpy_dtypes.get(target)
            if numpy_dtype is None:
                numpy_dtype = numpy_dtypes[target] = to_numpy_dtype(target)
            result = b.as_tensor(np.asarray(obj, dtype=numpy_dtype))
            if not same_dtype(result, target):  # a framework without the dtype, or a precision in effect
                result = b.cast(result, target)
        if fresh and isinstance(result, np.generic):  # NumPy reduces 0-d results to read-only scalars
            result = np.array(result)
        if copy is False and result is not obj:
            raise ValueError(f"asarray: copy=False, but converting this {type(obj).__name__} needs a copy")
        if copy and (result is obj or (fresh and _may_share(obj))):
            result = b.copy(result)
        if device is None:
            return result
        moved = place.existing(result, device, "asarray")
        if copy is False and moved is not result:
            raise ValueError(f"asarray: copy=False, but moving the array to {device!r} needs a copy")
        return moved

    return asarray


_PYTHON_VALUES: Final = frozenset((list, tuple, bool, int, float, complex))


def _may_share(obj: Any) -> bool:
    """Whether a converted object may share its memory with the result (buffers do; Python values never)."""
    return not isinstance(obj, (bool, int, float, complex, list, tuple))


def _arange(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)
    kernel = bound_method(b, "range")

    def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords("arange", keywords, b.name)
        if dtype is None:
            ints = type(start) is int and type(step) is int and (stop is None or type(stop) is int)
            target = _INT64 if ints else _FLOAT32
        else:
            target = ns.as_dtype(dtype, "arange")
        if stop is None:
            start, stop = 0, start
        if target.kind is int and target is not _INT64:  # frameworks count in fewer int types than they store (DTypes are interned)
            result = b.cast(kernel(start, stop, step, _INT64), target)
        else:
            result = kernel(start, stop, step, target)  # positional arguments: the dispatcher's C front takes no keywords
        return result if device is None else place.new(result, device, "arange")

    return shortcut(arange, 1, kernel, (None, 1, _INT64), kinds=(int,))  # arange(n): range(n) of int64


def _filled(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        make = bound_method(b, op)
        place = _placer(b, ns)
        lookup = ns.as_dtype

        def filled(shape: Any, *, dtype: Any = None, device: Any = None, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(op, keywords, b.name)
            result = make((shape,) if type(shape) is int else tuple(shape), _FLOAT32 if dtype is None else lookup(dtype, op))
            return result if device is None else place.new(result, device, op)

        return shortcut(filled, 1, make, (_FLOAT32,), shape_at=0, dtypes=ns._dtypes, dtype_at=0)  # zeros(n), zeros(n, dtype=xp.int8)

    return factory


def _filled_like(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        make, like = getattr(b, op), bound_method(b, f"{op}_like")
        place = _placer(b, ns)
        name = f"{op}_like"

        def filled_like(x: Any, /, *, dtype: Any = None, device: Any = None, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(name, keywords, b.name)
            if dtype is None:
                result = like(x)  # on the device of x
                return result if device is None else place.existing(result, device, name)
            result = make(_shape_of(b, x), ns.as_dtype(dtype, name))
            return place.like(result, x) if device is None else place.new(result, device, name)

        return shortcut(filled_like, 1, like)

    return factory


def _exact(value: Any, dtype: DType) -> Any:
    """A Python float or complex fill value as a NumPy scalar of the (inexact) `dtype`, so that no
    backend rounds it through its default float32 first (16777217.0 as float64 stays 16777217.0);
    float32 and complex64 values need not (rounding to them first is rounding once)."""
    if dtype.precision != 32 and type(value) in (float, complex) and dtype.kind in (float, complex):
        return np.asarray(value, dtype=to_numpy_dtype(dtype))[()]
    return value


def _full(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)
    kernel = bound_method(b, "full")

    def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords("full", keywords, b.name)
        if dtype is None:
            target = _FLOAT32 if type(fill_value) is float else _default_dtype(fill_value)
        else:
            target = ns.as_dtype(dtype, "full")
        if target is not _FLOAT32:
            fill_value = _exact(fill_value, target)
        result = kernel((shape,) if type(shape) is int else tuple(shape), fill_value, target)
        return result if device is None else place.new(result, device, "full")

    return shortcut(full, 2, kernel, (_FLOAT32,), shape_at=0, kinds=(None, float))  # full(n, 2.0): the default float


def _full_like(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)
    kernel = bound_method(b, "full_like")

    def full_like(x: Any, /, fill_value: Any, *, dtype: Any = None, device: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords("full_like", keywords, b.name)
        target = _dtype_of(b, ns, x) if dtype is None else ns.as_dtype(dtype, "full_like")
        if target is not _FLOAT32:
            fill_value = _exact(fill_value, target)
        result = kernel(x, fill_value, target)  # on the device of x
        return result if device is None else place.existing(result, device, "full_like")

    return shortcut(full_like, 2, kernel)  # the catalogue's full_like fills x's dtype exactly too


def _dtype_of(b: Any, ns: Any, x: Any) -> DType:
    """The `DType` of an array of the namespace: its native dtype looked up, or the backend's `dtype`."""
    try:
        found: DType | None = ns._dtypes.get(x.dtype)
    except (AttributeError, TypeError):  # no dtype attribute, or an unhashable one
        found = None
    return b.dtype(x) if found is None else found


def _empty(b: Any, ns: Any) -> Callable[..., Any]:
    return _filled("empty")(b, ns)


def _empty_like(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)
    kernel = bound_method(b, "empty_like")

    def empty_like(x: Any, /, *, dtype: Any = None, device: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords("empty_like", keywords, b.name)
        result = kernel(x, None if dtype is None else ns.as_dtype(dtype, "empty_like"))  # on the device of x
        return result if device is None else place.existing(result, device, "empty_like")

    return shortcut(empty_like, 1, kernel)


def _eye(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)
    kernel = bound_method(b, "eye")

    def eye(
        n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None, device: Any = None, **keywords: Any
    ) -> Any:
        if keywords:
            refuse_keywords("eye", keywords, b.name)
        result = kernel(n_rows, n_cols, k, _FLOAT32 if dtype is None else ns.as_dtype(dtype, "eye"))
        return result if device is None else place.new(result, device, "eye")

    return shortcut(eye, 1, kernel, (None, 0, _FLOAT32))


def _linspace(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)
    with_last, without_last = bound_method(b, "linspace"), bound_method(b, "linspace_without_last")

    def linspace(
        start: Any, stop: Any, /, num: int, *, dtype: Any = None, device: Any = None, endpoint: bool = True, **keywords: Any
    ) -> Any:
        if keywords:
            refuse_keywords("linspace", keywords, b.name)
        target = _FLOAT32 if dtype is None else ns.as_dtype(dtype, "linspace")
        wanted = 32 if target is _FLOAT32 else target.precision or 32
        kernel = with_last if endpoint else without_last
        if (GLOBALS.precision_free and wanted == 32) or (get_precision() or 32) == wanted:
            values = kernel(start, stop, num)
        else:
            with precision(wanted):  # computed in the precision of the dtype asked for
                values = kernel(start, stop, num)
        if _dtype_of(b, ns, values) is not target:  # DTypes are interned
            values = b.cast(values, target)
        return values if device is None else place.new(values, device, "linspace")

    # two real Python floats and a count, no precision set: the catalogue's linspace, float32 as the default
    return shortcut(linspace, 3, with_last, kinds=(float, float, int), precision_free=True)


def _meshgrid(b: Any, ns: Any) -> Callable[..., Any]:
    def meshgrid(*arrays: Any, indexing: str = "xy", **keywords: Any) -> list[Any]:
        if keywords:
            refuse_keywords(meshgrid.__name__, keywords, b.name)
        if indexing not in ("xy", "ij"):
            raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
        if indexing == "ij" or len(arrays) < 2:
            return list(b.meshgrid(*arrays))
        grids = b.meshgrid(arrays[1], arrays[0], *arrays[2:])  # 'xy' is 'ij' with the first two arrays swapped
        return [grids[1], grids[0], *grids[2:]]

    return meshgrid


def _triangle(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def triangle(x: Any, /, *, k: int = 0, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(triangle.__name__, keywords, b.name)
            return kernel(x, k)

        return triangle

    return factory


def _from_dlpack(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)

    def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(from_dlpack.__name__, keywords, b.name)
        result = b.from_dlpack(x)
        if copy:
            result = b.copy(result)
        return result if device is None else place.existing(result, device, "from_dlpack")

    return from_dlpack


def _device(b: Any, ns: Any) -> Callable[..., Any]:
    of = ns._devices.of

    def device(x: Any, /, **keywords: Any) -> Any:
        """The device `x` lives on, as the framework spells it (`x.device` where arrays carry one)."""
        if keywords:
            refuse_keywords(device.__name__, keywords, b.name)
        return of(x)

    return device


def _to_device(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)

    def to_device(x: Any, device: Any, /, *, stream: Any = None, **keywords: Any) -> Any:
        """`x` on `device` (any spelling of one of the namespace's devices); `x` itself when it is there."""
        if keywords:
            refuse_keywords(to_device.__name__, keywords, b.name)
        if stream is not None:
            raise ValueError(f"to_device: the {b.name!r} namespace takes no stream; pass stream=None")
        if not b.is_tensor(x, only_native=True):
            raise ArgumentTypeError(f"to_device: expected an array of the {b.name!r} namespace but got {type(x).__name__}")
        return place.existing(x, device, "to_device")

    return to_device


# ---------------------------------------------------------------- data types


def _astype(b: Any, ns: Any) -> Callable[..., Any]:
    place = _placer(b, ns)

    def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(astype.__name__, keywords, b.name)
        target = ns.as_dtype(dtype, "astype")
        result = (b.copy(x) if copy else x) if b.dtype(x) == target else b.cast(x, target)
        return result if device is None else place.existing(result, device, "astype")

    return astype


def _result_type(b: Any, ns: Any) -> Callable[..., Any]:
    def result_type(*arrays_and_dtypes: Any, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(result_type.__name__, keywords, b.name)
        if not arrays_and_dtypes:
            raise ValueError("result_type: at least one array or dtype is required")
        scalars = [v for v in arrays_and_dtypes if is_python_number(v)]
        strong = [ns.dtype_of(v) for v in arrays_and_dtypes if not is_python_number(v)]
        if not strong:
            raise ValueError("result_type: at least one array or dtype is required beside Python scalars")
        result = (
            weak_result(tuple(strong), tuple(type(v) for v in scalars), get_precision()) if scalars else b.combine_types(*strong)
        )
        return ns.as_native(result)

    return result_type


def _can_cast(b: Any, ns: Any) -> Callable[..., Any]:
    def can_cast(from_: Any, to: Any, /, **keywords: Any) -> bool:
        if keywords:
            refuse_keywords(can_cast.__name__, keywords, b.name)
        source, target = ns.dtype_of(from_), ns.as_dtype(to, "can_cast")
        if source.kind is not target.kind and not (
            source.kind is bool or (source.kind, target.kind) in ((int, float), (int, complex), (float, complex))
        ):
            return False
        if (source.kind, target.kind) in ((int, float), (int, complex)):
            return False  # the standard promotes no integer to a float
        return bool(b.combine_types(source, target) == target)

    return can_cast


def _finfo(b: Any, ns: Any) -> Callable[..., Any]:
    from ._namespace import finfo as info

    def finfo(type: Any, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(finfo.__name__, keywords, b.name)
        return info(ns, ns.dtype_of(type) if b.is_tensor(type, only_native=True) else ns.as_dtype(type, "finfo"))

    return finfo


def _iinfo(b: Any, ns: Any) -> Callable[..., Any]:
    from ._namespace import iinfo as info

    def iinfo(type: Any, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(iinfo.__name__, keywords, b.name)
        return info(ns, ns.dtype_of(type) if b.is_tensor(type, only_native=True) else ns.as_dtype(type, "iinfo"))

    return iinfo


def _isdtype(b: Any, ns: Any) -> Callable[..., Any]:
    from ._namespace import is_kind

    def isdtype(dtype: Any, kind: Any) -> bool:
        return is_kind(ns.as_dtype(dtype, "isdtype"), kind, ns)

    return isdtype


# ---------------------------------------------------------------- elementwise


def _swapped(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def swapped(x1: Any, x2: Any, /, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(swapped.__name__, keywords, b.name)
            return kernel(x2, x1)

        return swapped

    return factory


def _negative(b: Any, ns: Any) -> Callable[..., Any]:
    def negative(x: Any, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(negative.__name__, keywords, b.name)
        dtype = b.dtype(x)
        if dtype.kind is int and not dtype.signed:
            return b.sub(0, x)  # wraps as the standard asks
        return b.mul(x, -1)  # -0.0 for 0.0, which 0 - x would not give

    return negative


def _positive(b: Any, ns: Any) -> Callable[..., Any]:
    def positive(x: Any, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(positive.__name__, keywords, b.name)
        return x

    return positive


def _square(b: Any, ns: Any) -> Callable[..., Any]:
    mul = b.mul

    def square(x: Any, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(square.__name__, keywords, b.name)
        return mul(x, x)

    return square


def _clip(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.clip

    def clip(x: Any, /, min: Any = None, max: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(clip.__name__, keywords, b.name)
        if max is None:
            return x if min is None else b.maximum(x, min)
        if min is None:
            return b.minimum(x, max)
        return kernel(x, min, max)

    return clip


# ---------------------------------------------------------------- reductions and statistics


def _accumulate(op: str, keepdims_native: bool) -> Factory:
    """`sum` and `prod`: the catalogue's already widen integers to 64 bits, as the standard asks for
    `dtype=None`; a `dtype` casts the input and the result."""

    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def reduce(x: Any, axis: Any, keepdims: bool) -> Any:
            if keepdims_native:
                return kernel(x, axis, keepdims)
            result = kernel(x, axis)
            return _kept(b, result, _shape_of(b, x), axis, op) if keepdims else result

        def accumulate(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(accumulate.__name__, keywords, b.name)
            if dtype is None and keepdims_native:
                return kernel(x, axis, keepdims)  # the fast path: one call
            if dtype is None:
                return reduce(x, axis, keepdims)
            target = ns.as_dtype(dtype, op)
            return b.cast(reduce(b.cast(x, target), axis, keepdims), target)

        return shortcut(accumulate, 1, bound_method(b, op))  # sum(x): the catalogue's call of its defaults

    return factory


def _reduce(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def reduce(x: Any, /, *, axis: Any = None, keepdims: bool = False, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(reduce.__name__, keywords, b.name)
            return kernel(x, axis, keepdims)

        return shortcut(reduce, 1, bound_method(b, op))  # max(x): the catalogue's call of its defaults

    return factory


def _spread(squared: bool) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        std = b.std

        def spread(x: Any, /, *, axis: Any = None, correction: float = 0.0, keepdims: bool = False, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(spread.__name__, keywords, b.name)
            result = std(x, axis, keepdims)
            if squared:
                result = b.mul(result, result)
            if correction:
                shape = _shape_of(b, x)
                axes = normalize_axes(axis, len(shape), "var" if squared else "std")
                n = math.prod(shape[i] for i in (range(len(shape)) if axes is None else axes))
                scale = n / (n - correction) if n > correction else math.inf
                result = b.mul(result, scale if squared else math.sqrt(scale))
            return result

        return spread

    return factory


def _arg_reduce(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def arg_reduce(x: Any, /, *, axis: int | None = None, keepdims: bool = False, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(arg_reduce.__name__, keywords, b.name)
            if axis is not None:
                return kernel(x, axis, keepdims)
            shape = _shape_of(b, x)
            result = kernel(b.reshape(x, (-1,)), 0)
            return b.reshape(result, (1,) * len(shape)) if keepdims else result

        return arg_reduce

    return factory


def _cumulative(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)
        name = "cumulative_sum" if op == "cumsum" else op

        def cumulative(
            x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False, **keywords: Any
        ) -> Any:
            if keywords:
                refuse_keywords(cumulative.__name__, keywords, b.name)
            shape = _shape_of(b, x)
            if axis is None:
                if len(shape) != 1:
                    raise ValueError(f"{name}: axis is required for a {len(shape)}-d array")
                axis = 0
            axis = normalize_axis(axis, len(shape), name)
            x_dtype = b.dtype(x)
            target = _accumulation_dtype(x_dtype, None if dtype is None else ns.as_dtype(dtype, name))
            if target != x_dtype:
                x = b.cast(x, target)
            result = kernel(x, axis) if shape[axis] else x
            if include_initial:
                start = (b.zeros if op == "cumsum" else b.ones)(tuple(1 if i == axis else s for i, s in enumerate(shape)), target)
                result = b.concat([start, result], axis)
            return b.cast(result, target)

        return cumulative

    return factory


def _diff(b: Any, ns: Any) -> Callable[..., Any]:
    def diff(x: Any, /, *, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(diff.__name__, keywords, b.name)
        return b.diff(x, axis=axis, n=n, prepend=prepend, append=append)

    return diff


def _count_nonzero(b: Any, ns: Any) -> Callable[..., Any]:
    def count_nonzero(x: Any, /, *, axis: Any = None, keepdims: bool = False, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(count_nonzero.__name__, keywords, b.name)
        return b.count_nonzero(x, axis=axis, keepdims=keepdims)

    return count_nonzero


# ---------------------------------------------------------------- manipulation


def _concat(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.concat

    def concat(arrays: Sequence[Any], /, *, axis: int | None = 0, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(concat.__name__, keywords, b.name)
        if axis is None:
            return kernel([b.reshape(a, (-1,)) for a in arrays], 0)
        return kernel(list(arrays), axis)

    return concat


def _stack(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.stack

    def stack(arrays: Sequence[Any], /, *, axis: int = 0, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(stack.__name__, keywords, b.name)
        return kernel(list(arrays), axis)

    return stack


def _unstack(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.unstack

    def unstack(x: Any, /, *, axis: int = 0, **keywords: Any) -> tuple[Any, ...]:
        if keywords:
            refuse_keywords(unstack.__name__, keywords, b.name)
        return tuple(kernel(x, axis))

    return unstack


def _expand_dims(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.expand_dims

    def expand_dims(x: Any, /, axis: int = 0, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(expand_dims.__name__, keywords, b.name)
        ndim = len(b.staticshape(x))
        return kernel(x, normalize_axis(axis, ndim + 1, "expand_dims"))

    return expand_dims


def _squeeze(b: Any, ns: Any) -> Callable[..., Any]:
    def squeeze(x: Any, /, axis: Any, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(squeeze.__name__, keywords, b.name)
        shape = _shape_of(b, x)
        axes = normalize_axes(axis, len(shape), "squeeze") or ()
        for i in axes:
            if shape[i] != 1:
                raise ValueError(f"squeeze: axis {i} has size {shape[i]}, not 1")
        return b.reshape(x, tuple(s for i, s in enumerate(shape) if i not in axes))

    return squeeze


def _squeeze_catalogue(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.squeeze

    def squeeze(x: Any, /, axis: Any, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(squeeze.__name__, keywords, b.name)
        return kernel(x, axis)

    return squeeze


def _permute_dims(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.transpose

    def permute_dims(x: Any, /, axes: tuple[int, ...], **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(permute_dims.__name__, keywords, b.name)
        return kernel(x, tuple(axes))

    return permute_dims


def _reshape(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = bound_method(b, "reshape")

    def reshape(x: Any, /, shape: tuple[int, ...], *, copy: bool | None = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords("reshape", keywords, b.name)
        result = kernel(x, shape if type(shape) is tuple else _as_shape(shape))
        return b.copy(result) if copy else result

    return shortcut(reshape, 2, kernel, shape_at=1)


def _flip(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.flip

    def flip(x: Any, /, *, axis: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(flip.__name__, keywords, b.name)
        return kernel(x, tuple(range(len(b.staticshape(x)))) if axis is None else axis)

    return flip


def _tile(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.tile

    def tile(x: Any, repetitions: tuple[int, ...], /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(tile.__name__, keywords, b.name)
        reps = tuple(repetitions)
        missing = len(b.staticshape(x)) - len(reps)
        return kernel(x, (1,) * missing + reps if missing > 0 else reps)

    return tile


def _repeat(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.repeat

    def repeat(x: Any, repeats: Any, /, *, axis: int | None = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(repeat.__name__, keywords, b.name)
        if axis is None:
            x, axis = b.reshape(x, (-1,)), 0
        return kernel(x, repeats, axis)

    return repeat


def _roll(b: Any, ns: Any) -> Callable[..., Any]:
    def roll(x: Any, /, shift: Any, *, axis: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(roll.__name__, keywords, b.name)
        return b.roll(x, shift, axis=axis)

    return roll


def _moveaxis(b: Any, ns: Any) -> Callable[..., Any]:
    def moveaxis(x: Any, source: Any, destination: Any, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(moveaxis.__name__, keywords, b.name)
        return b.moveaxis(x, source, destination)

    return moveaxis


def _broadcast_to(b: Any, ns: Any) -> Callable[..., Any]:
    def broadcast_to(x: Any, /, shape: tuple[int, ...], **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(broadcast_to.__name__, keywords, b.name)
        return b.broadcast_to(x, _as_shape(shape))

    return broadcast_to


def _broadcast_arrays(b: Any, ns: Any) -> Callable[..., Any]:
    def broadcast_arrays(*arrays: Any, **keywords: Any) -> list[Any]:
        if keywords:
            refuse_keywords(broadcast_arrays.__name__, keywords, b.name)
        return list(b.broadcast_arrays(*arrays))

    return broadcast_arrays


# ---------------------------------------------------------------- searching, sorting, sets, indexing


def _sort(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.sort

    def sort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(sort.__name__, keywords, b.name)
        result = kernel(x, axis)
        return b.flip(result, axis) if descending else result

    return sort


def _argsort(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.argsort

    def argsort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(argsort.__name__, keywords, b.name)
        if not descending:
            return kernel(x, axis)
        # stable descending: ascending order of the reversed array, reversed, as indices of x
        n = _shape_of(b, x)[normalize_axis(axis, len(_shape_of(b, x)), "argsort")]
        reversed_order = b.flip(kernel(b.flip(x, axis), axis), axis)
        return b.sub(n - 1, reversed_order)

    return argsort


def _honoured(b: Any, name: str) -> frozenset[str]:
    """The keywords outside the standard's signature of `name` that this backend's namespace takes."""
    from ._namespace_table import NATIVE_KEYWORDS

    return frozenset(NATIVE_KEYWORDS.get(b.name, {}).get(name, ()))


def _checked_keywords(b: Any, name: str, keywords: dict[str, Any], honoured: frozenset[str]) -> None:
    unknown = {k: v for k, v in keywords.items() if k not in honoured}
    if unknown:
        refuse_keywords(name, unknown, b.name)


def _nonzero(b: Any, ns: Any) -> Callable[..., Any]:
    honoured = _honoured(b, "nonzero")

    def nonzero(x: Any, /, **keywords: Any) -> tuple[Any, ...]:
        if keywords:
            _checked_keywords(b, "nonzero", keywords, honoured)
        if not b.staticshape(x):
            raise ValueError("nonzero: a 0-d array has no indices; use xp.reshape(x, (1,)) first")
        size, fill_value = keywords.get("size"), keywords.get("fill_value")
        indices = b.nonzero(x) if size is None else b.nonzero(x, size, 0 if fill_value is None else fill_value)
        return tuple(b.unstack(indices, 1))

    return nonzero


def _where(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = bound_method(b, "where")

    def where(condition: Any, x1: Any, x2: Any, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords("where", keywords, b.name)
        return kernel(condition, x1, x2)

    return shortcut(where, 3, kernel)


def _searchsorted(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.searchsorted

    def searchsorted(x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(searchsorted.__name__, keywords, b.name)
        if sorter is not None:
            x1 = b.gather(x1, sorter, 0)
        return kernel(x1, x2, side, _INT64)

    return searchsorted


def _unique(kind: str) -> Factory:
    """`unique_values`, `unique_counts`, `unique_inverse`, `unique_all`: every NaN is a distinct value, as
    the standard says (the catalogue's `unique` merges NaNs, as `numpy.unique`'s default does)."""

    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        name = f"unique_{kind}"
        honoured = _honoured(b, name)
        inverse, counts = kind in ("inverse", "all"), kind in ("counts", "all")

        def unique(x: Any, /, **keywords: Any) -> Any:
            if keywords:
                _checked_keywords(b, name, keywords, honoured)
            shape = _shape_of(b, x)
            flat = b.reshape(x, (-1,))
            if b.dtype(flat).kind in (float, complex):
                values, inverse_flat, counts_of, first = _unique_nans_apart(b, flat, inverse, counts, kind == "all")
            else:
                values, inverse_flat, counts_of, first = _unique_parts(b, flat, inverse, counts, kind == "all")
            size = keywords.get("size")
            if size is not None:
                values, counts_of, first = _sized(b, values, counts_of, first, size, keywords.get("fill_value"))
            if kind == "values":
                return values
            if kind == "counts":
                return UniqueCountsResult(values, counts_of)
            inverse_indices = b.reshape(inverse_flat, shape)
            if kind == "inverse":
                return UniqueInverseResult(values, inverse_indices)
            return UniqueAllResult(values, first, inverse_indices, counts_of)

        return unique

    return factory


def _unique_parts(b: Any, flat: Any, inverse: bool, counts: bool, first: bool) -> tuple[Any, Any, Any, Any]:
    """The catalogue's `unique` of a 1-d array: values, inverse, counts and first indices (those asked for)."""
    results = b.unique(flat, inverse or first, counts or first, 0)
    values = results[0]
    inverse_of = results[1] if inverse or first else None
    counts_of = results[-1] if counts or first else None
    first_of = None
    if first:  # the first index of each group in a stable sort by group
        order = b.argsort(inverse_of, 0)
        first_of = b.gather(order, b.sub(b.cumsum(counts_of, 0), counts_of), 0)
    return values, inverse_of, counts_of, first_of


def _unique_nans_apart(b: Any, flat: Any, inverse: bool, counts: bool, first: bool) -> tuple[Any, Any, Any, Any]:
    """`_unique_parts` with each NaN a value of its own, after the others (as `numpy.unique_values`).

    The catalogue's `unique` merges NaNs (`docs/semantics.md`), so the values are the elements of a stable
    sort that differ from their predecessor, and NaN differs from everything. Every operation whose size
    depends on the data takes an input of known size, so lazy backends (Dask) run it too.
    """
    n = b.staticshape(flat)[0]
    if n is None:
        raise ValueError(
            "unique: a float array whose size is not known yet; compute its size first (dask: x.compute_chunk_sizes())"
        )
    if n == 0:
        return _unique_parts(b, flat, inverse, counts, first)
    if b.dtype(flat).kind is complex:  # by real part, then imaginary part (NumPy's order), from stable sorts
        by_imag = b.argsort(b.imag(flat), 0)
        order = b.gather(by_imag, b.argsort(b.gather(b.real(flat), by_imag, 0), 0), 0)
    else:
        order = b.argsort(flat, 0)  # stable: NaNs last, equal values in the order they come
    ordered = b.gather(flat, order, 0)
    starts = b.full((1,), True, _BOOL)
    if n > 1:
        later, earlier = (
            b.gather(ordered, b.range(1, n, 1, dtype=_INT64), 0),
            b.gather(ordered, b.range(0, n - 1, 1, dtype=_INT64), 0),
        )
        starts = b.concat([starts, b.not_equal(later, earlier)], 0)  # the first element of each value (each NaN)
    values = b.boolean_mask(ordered, starts, 0)
    group = b.sub(b.cumsum(b.cast(starts, _INT64), 0), 1) if inverse or counts else None  # of each sorted element
    inverse_of = b.gather(group, b.argsort(order, 0), 0) if inverse else None
    counts_of = None
    if counts:
        per_group = b.bincount(group, None, n)
        counts_of = b.boolean_mask(per_group, b.greater_than(per_group, 0), 0)
    first_of = b.boolean_mask(order, starts, 0) if first else None
    return values, inverse_of, counts_of, first_of


def _head(b: Any, x: Any, k: int) -> Any:
    """The first `k` elements of a 1-d array (`None` stays `None`)."""
    return None if x is None else b.gather(x, b.range(0, k, 1, dtype=_INT64), 0)


def _sized(b: Any, values: Any, counts: Any, first: Any, size: int, fill_value: Any) -> tuple[Any, Any, Any]:
    """JAX's `size=`: the first `size` unique values, padded with `fill_value` (default: the smallest value);
    counts padded with 0 and first indices with that of the smallest value, as `jax.numpy.unique_all`."""
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError(f"unique: size must be a non-negative int, not {size!r}")
    n = b.staticshape(values)[0]
    if n is None:
        raise ValueError("unique: size= needs the number of unique values, which this backend does not know before computing")
    if n >= size:
        return _head(b, values, size), _head(b, counts, size), _head(b, first, size)
    if n == 0 and fill_value is None:
        raise ValueError("unique: size= pads with the smallest value, but there is none; pass fill_value")
    pad = (size - n,)
    fill = b.full(pad, fill_value, b.dtype(values)) if fill_value is not None else b.tile(_head(b, values, 1), pad)
    values = b.concat([values, fill], 0)
    if counts is not None:
        counts = b.concat([counts, b.zeros(pad, b.dtype(counts))], 0)
    if first is not None:
        first = b.concat([first, b.tile(_head(b, first, 1), pad)], 0)
    return values, counts, first


def _take(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.gather

    def take(x: Any, indices: Any, /, *, axis: int | None = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(take.__name__, keywords, b.name)
        if axis is None:
            if len(b.staticshape(x)) != 1:
                raise ValueError("take: axis is required for arrays that are not 1-d")
            axis = 0
        return kernel(x, indices, axis)

    return take


def _take_along_axis(b: Any, ns: Any) -> Callable[..., Any]:
    def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(take_along_axis.__name__, keywords, b.name)
        return b.take_along_axis(x, indices, axis)

    return take_along_axis


# ---------------------------------------------------------------- linear algebra


def _matmul_tensordot(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.tensordot

    def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(tensordot.__name__, keywords, b.name)
        if isinstance(axes, int):
            if axes < 0:
                raise ValueError(f"tensordot: axes must be non-negative, not {axes}")
            n1 = len(b.staticshape(x1))
            return kernel(x1, list(range(n1 - axes, n1)), x2, list(range(axes)))
        return kernel(x1, list(axes[0]), x2, list(axes[1]))

    return tensordot


def _diagonal(b: Any, ns: Any) -> Callable[..., Any]:
    def diagonal(x: Any, /, *, offset: int = 0, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(diagonal.__name__, keywords, b.name)
        shape = _shape_of(b, x)
        if len(shape) < 2:
            raise ValueError(f"diagonal: a matrix or a stack of matrices is required, not a {len(shape)}-d array")
        stacked = b.reshape(x, (-1, shape[-2], shape[-1], 1))  # bk: (batch, rows, cols, channels)
        result = b.get_diagonal(stacked, offset)
        return b.reshape(result, (*shape[:-2], -1))

    return diagonal


def _matrix_rank(b: Any, ns: Any) -> Callable[..., Any]:
    def matrix_rank(x: Any, /, *, rtol: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(matrix_rank.__name__, keywords, b.name)
        if rtol is not None:
            raise NotImplementedError(
                f"matrix_rank: {b.name} computes the rank with the framework's default tolerance; rtol is not supported"
            )
        return b.matrix_rank_dense(x)

    return matrix_rank


def _svd(b: Any, ns: Any) -> Callable[..., Any]:
    def svd(x: Any, /, *, full_matrices: bool = True, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(svd.__name__, keywords, b.name)
        return SVDResult(*b.svd(x, full_matrices))

    return svd


# ---------------------------------------------------------------- results with named fields

QRResult = namedtuple("QRResult", ["Q", "R"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _named(op: str, result: Any) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def named(x: Any, /, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(named.__name__, keywords, b.name)
            return result(*kernel(x))

        return named

    return factory


def _cholesky(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.cholesky

    def cholesky(x: Any, /, *, upper: bool = False, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(cholesky.__name__, keywords, b.name)
        return kernel(x, upper)

    return cholesky


def _qr(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.qr

    def qr(x: Any, /, *, mode: str = "reduced", **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(qr.__name__, keywords, b.name)
        return QRResult(*kernel(x, mode))

    return qr


def _cross(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.cross

    def cross(x1: Any, x2: Any, /, *, axis: int = -1, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(cross.__name__, keywords, b.name)
        return kernel(x1, x2, axis)

    return cross


def _vecdot(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.vecdot

    def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(vecdot.__name__, keywords, b.name)
        return kernel(x1, x2, axis)

    return vecdot


def _diagonal_catalogue(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.diagonal

    def diagonal(x: Any, /, *, offset: int = 0, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(diagonal.__name__, keywords, b.name)
        return kernel(x, offset)

    return diagonal


def _rtol(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def with_rtol(x: Any, /, *, rtol: Any = None, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(with_rtol.__name__, keywords, b.name)
            return kernel(x, rtol)

        return with_rtol

    return factory


def _matrix_norm(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.matrix_norm

    def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro", **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(matrix_norm.__name__, keywords, b.name)
        return kernel(x, keepdims, ord)

    return matrix_norm


def _vector_norm(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.vector_norm

    def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(vector_norm.__name__, keywords, b.name)
        return kernel(x, axis, keepdims, ord)

    return vector_norm


def _trace(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.trace

    def trace(x: Any, /, *, offset: int = 0, dtype: Any = None, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(trace.__name__, keywords, b.name)
        return kernel(x, offset, None if dtype is None else ns.as_dtype(dtype, "trace"))

    return trace


def _matrix_power(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.matrix_power

    def matrix_power(x: Any, n: int, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(matrix_power.__name__, keywords, b.name)
        return kernel(x, n)

    return matrix_power


def _var(b: Any, ns: Any) -> Callable[..., Any]:
    kernel = b.var

    def var(x: Any, /, *, axis: Any = None, correction: float = 0.0, keepdims: bool = False, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(var.__name__, keywords, b.name)
        result = kernel(x, axis, keepdims)
        return _corrected(b, result, x, axis, correction, "var") if correction else result

    return var


def _corrected(b: Any, result: Any, x: Any, axis: Any, correction: float, op: str) -> Any:
    """`result` (a population variance or standard deviation) with `correction` degrees of freedom."""
    shape = _shape_of(b, x)
    axes = normalize_axes(axis, len(shape), op)
    n = math.prod(shape[i] for i in (range(len(shape)) if axes is None else axes))
    scale = n / (n - correction) if n > correction else math.inf
    return b.mul(result, scale if op == "var" else math.sqrt(scale))


def _catalogue_cumulative(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def cumulative(
            x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False, **keywords: Any
        ) -> Any:
            if keywords:
                refuse_keywords(cumulative.__name__, keywords, b.name)
            if dtype is None:
                return kernel(x, axis, include_initial)
            target = ns.as_dtype(dtype, op)
            return b.cast(kernel(b.cast(x, target), axis, include_initial), target)

        return cumulative

    return factory


# ---------------------------------------------------------------- FFT


def _fft_1d(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def one_axis(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward", **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(one_axis.__name__, keywords, b.name)
            return kernel(x, None if n is None else (n,), (axis,), norm)

        return one_axis

    return factory


def _fft_nd(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def n_axes(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward", **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(n_axes.__name__, keywords, b.name)
            return kernel(x, s, axes, norm)

        return n_axes

    return factory


def _fft_real(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def real_1d(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward", **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(real_1d.__name__, keywords, b.name)
            return kernel(x, n, axis, norm)

        return real_1d

    return factory


def _fft_freq(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)
        place = _placer(b, ns)

        def freq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(freq.__name__, keywords, b.name)
            result = kernel(n, d, _FLOAT32 if dtype is None else ns.as_dtype(dtype, op))
            return result if device is None else place.new(result, device, op)

        return freq

    return factory


def _fft_shift(op: str) -> Factory:
    def factory(b: Any, ns: Any) -> Callable[..., Any]:
        kernel = getattr(b, op)

        def shift(x: Any, /, *, axes: Any = None, **keywords: Any) -> Any:
            if keywords:
                refuse_keywords(shift.__name__, keywords, b.name)
            return kernel(x, axes)

        return shift

    return factory
