"""The elementwise, statistical, manipulation, searching and set functions of `bk.array_namespace`, each a factory
`(backend, namespace) -> function`.

Adapters translate arguments only (`keepdims=`, axes, argument order, tuples of results); every value comes from
catalogue operations. Creation and data types are in `_namespace_creation.py`, linear algebra and FFT in
`_namespace_linalg.py`, what they share in `_namespace_common.py`; `_namespace_table.py` says which standard name
uses which factory.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ._axes import normalize_axes, normalize_axis
from ._namespace_common import (
    _BOOL,
    _INT64,
    Factory,
    UniqueAllResult,
    UniqueCountsResult,
    UniqueInverseResult,
    _accumulation_dtype,
    _as_shape,
    _checked_keywords,
    _honoured,
    _kept,
    _shape_of,
    bound_method,
    check_correction,
    int_sequence,
    refuse_keywords,
    shortcut,
)

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
            check_correction(correction, "var" if squared else "std")
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
        return kernel(x, int_sequence(axes, "permute_dims", "axes"))

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
        reps = (repetitions,) if isinstance(repetitions, int) else int_sequence(repetitions, "tile", "repetitions")  # an int: as NumPy's tile
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
