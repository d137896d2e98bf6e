"""The creation and data-type functions of `bk.array_namespace`, each a factory `(backend, namespace) -> function`.

Adapters translate arguments only (`dtype=`, `copy=`, `device=`); every value comes from catalogue operations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

from ._context import GLOBALS, get_precision, precision
from ._dtype import DType, to_numpy_dtype
from ._errors import ArgumentTypeError
from ._namespace_common import (
    _FLOAT32,
    _INT64,
    Factory,
    _as_shape,
    _default_dtype,
    _placer,
    _shape_of,
    bound_method,
    refuse_keywords,
    shortcut,
)
from ._namespace_dtypes import finfo as _finfo_of
from ._namespace_dtypes import iinfo as _iinfo_of
from ._namespace_dtypes import is_kind
from ._rules.arguments import is_python_number
from ._rules.weak import weak_result

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
            result = make(_as_shape(shape), _FLOAT32 if dtype is None else lookup(dtype, op))
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
        result = kernel(_as_shape(shape), fill_value, target)
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
    info = _finfo_of

    def finfo(type: Any, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(finfo.__name__, keywords, b.name)
        return info(ns, ns.dtype_of(type) if b.is_tensor(type, only_native=True) else ns.as_dtype(type, "finfo"))

    return finfo


def _iinfo(b: Any, ns: Any) -> Callable[..., Any]:
    info = _iinfo_of

    def iinfo(type: Any, /, **keywords: Any) -> Any:
        if keywords:
            refuse_keywords(iinfo.__name__, keywords, b.name)
        return info(ns, ns.dtype_of(type) if b.is_tensor(type, only_native=True) else ns.as_dtype(type, "iinfo"))

    return iinfo


def _isdtype(b: Any, ns: Any) -> Callable[..., Any]:
    def isdtype(dtype: Any, kind: Any) -> bool:
        return is_kind(ns.as_dtype(dtype, "isdtype"), kind, ns)

    return isdtype
