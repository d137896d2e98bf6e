"""Indices beyond an axis, mapped back into it: `grid_sample`'s extrapolation and `pad`'s modes.

One rule for every backend (docs/semantics.md, `pad` and `grid_sample`): 'periodic' wraps around,
'symmetric' mirrors with the edge repeated, 'reflect' mirrors without it (an axis of size 1 reflects
as its edge), 'boundary' (and 'zeros', 'undefined', whose values the caller masks or leaves) clamps
to the edge. `pad_source_indices` gives the map of a padded axis on the host (NumPy, as the pad
widths are Python ints); `extrapolate_index` maps a tensor of indices with catalogue operations, so
it runs on any backend, inside `jit` too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = ["extrapolate_index", "pad_composite", "pad_source_indices"]


def _period(size: int, mode: str) -> int | None:
    """The period of the index map of `mode` on an axis of `size`, or None where it clamps."""
    if mode == "periodic" or mode == "circular":
        return size
    if mode == "symmetric":
        return 2 * size
    if mode == "reflect" and size > 1:
        return 2 * size - 2
    return None


def pad_source_indices(size: int, lower: int, upper: int, mode: str) -> np.ndarray:
    """The source index of every position of an axis of `size` padded by `lower` and `upper` in `mode`
    ('boundary', 'periodic' or 'circular', 'symmetric', 'reflect'): an int64 NumPy array of length
    `lower + size + upper`, to gather the padded axis with."""
    positions = np.arange(-lower, size + upper, dtype=np.int64)
    period = _period(size, mode)
    if period is None:
        return np.clip(positions, 0, size - 1)
    folded = positions % period
    return folded if period == size else np.where(folded < size, folded, period - 1 - folded if mode == "symmetric" else period - folded)


def extrapolate_index(backend: Backend, index: Any, size: int, mode: str) -> tuple[Any, Any]:
    """Integer indices (a tensor of `backend`) mapped into `[0, size)` by `grid_sample`'s extrapolation
    `mode`, and a bool tensor of which were inside the axis already ('zeros' masks the others).

    Built from catalogue operations (`mod`, `where`, `clip`, comparisons), so every backend gets the
    same map."""
    inside = backend.and_(backend.greater_or_equal(index, 0), backend.greater_than(size, index))
    period = _period(size, mode)
    if period is None:
        return backend.clip(index, 0, size - 1), inside
    folded = backend.mod(index, period)
    if period == size:
        return folded, inside
    mirror = period - 1 if mode == "symmetric" else period
    return backend.where(backend.greater_or_equal(folded, size), backend.sub(mirror, folded), folded), inside


def pad_composite(backend: Backend, value: Any, pad_width: Any, mode: str = "constant", constant_values: Any = 0) -> Any:
    """`pad` built from catalogue operations: each padded axis gathered through `pad_source_indices` ('boundary',
    'periodic' or 'circular', 'symmetric', 'reflect'), or, for 'constant', concatenated with blocks of
    `constant_values` (`full`). What the core computes where a backend's `pad` kernel returns `NotImplemented`
    for a mode it does not support (the catalogue's docstring allows it).

    Raises:
        NotImplementedError: naming the operations the composite needs where the backend lacks one.
    """
    needs = ("full", "concat") if mode == "constant" else ("gather",)
    missing = [n for n in needs if not backend.supports(n)]
    if missing:
        raise NotImplementedError(f"pad: {backend.name} does not support mode {mode!r} (its kernel returned NotImplemented), and the core's composite needs {', '.join(missing)}")
    x = value if backend.is_tensor(value, only_native=True) else backend.as_tensor(value)
    dtype = backend.dtype(x)
    for axis, (lower, upper) in enumerate(pad_width):
        lower, upper = int(lower), int(upper)
        if lower == 0 and upper == 0:
            continue
        shape = list(backend.staticshape(x))
        if mode == "constant":
            parts = [backend.full((*shape[:axis], n, *shape[axis + 1 :]), constant_values, dtype) for n in (lower, upper)]  # type: ignore[arg-type]  # a size unknown under tracing (None) is passed on unchecked, as before
            x = backend.concat([parts[0], x, parts[1]], axis)
        else:
            x = backend.gather(x, backend.as_tensor(pad_source_indices(int(shape[axis]), lower, upper, mode)), axis)  # type: ignore[arg-type]  # a size unknown under tracing (None) is passed on unchecked, as before
    return x
