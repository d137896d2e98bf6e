"""Running bk-numpy on the NumPy blocks of dask arrays, lazily.

A dask array is a grid of NumPy arrays, and bk-numpy is bk's own definition of every operation on
NumPy arrays (weak Python scalars, precision, integer widening, NaN rules). So the Dask backend
builds task graphs whose tasks call bk-numpy on blocks: elementwise operations keep the chunks
(one task per chunk), and operations without a chunked form in `dask.array` run as one task over
whole arrays (`whole_arrays`), which reads its inputs' chunks itself: a call adds its own tasks and
never optimises, culls or copies the graph of its inputs, so loops build graphs that grow linearly.
The precision of the caller is bound into each task, since workers have their own context.

Output dtypes and shapes are found without computing: elementwise operations are probed on empty
arrays, others on zero-valued stand-ins of the inputs' shapes (which never allocate the inputs).
"""

from __future__ import annotations

import operator
import uuid
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import dask.array as da
import numpy as np
from dask._task_spec import List, Task, TaskRef
from dask.array.core import concatenate3
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph, MaterializedLayer

import bk

from ._dtypes import check_operands

__all__ = ["call_with_extra", "elementwise", "kernel", "numpy_backend", "probe", "task", "whole_arrays", "zeros_like_input"]

_NUMPY: list[bk.Backend] = []


def numpy_backend() -> bk.Backend:
    """bk's NumPy backend, loaded once per process (clients and workers alike)."""
    if not _NUMPY:
        _NUMPY.append(bk.backend("numpy"))
    return _NUMPY[0]


def kernel(name: str, precision: int | None, kwargs: tuple[tuple[str, Any], ...], *args: Any) -> Any:
    """`numpy_backend().<name>(*args, **kwargs)` under `precision`: what every task runs."""
    with bk.precision(precision):
        return getattr(numpy_backend(), name)(*args, **dict(kwargs))


def call_with_extra(function: Callable[..., Any], extra: tuple[Any, ...], *arrays: Any) -> Any:
    """`function(*arrays, *extra)`: a block task whose arrays come first and its other arguments after."""
    return function(*arrays, *extra)


def probe(function: Callable[..., Any], *args: Any) -> Any:
    """`function(*args)` on stand-ins, with NumPy's warnings silenced (stand-ins hold zeros)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return function(*args)


def _empty(x: Any) -> Any:
    """A stand-in with the dtype and dimensions of an array and no elements (0-d: one zero)."""
    if isinstance(x, (da.Array, np.ndarray)):
        return np.zeros((), x.dtype) if x.ndim == 0 else np.empty((0,) * x.ndim, x.dtype)
    return x


def _zeros(x: Any, what: str, unknown_size: int | None = None) -> Any:
    """A read-only stand-in of zeros with the shape and dtype of `x`, allocating nothing; sizes not
    known until computed (NaN) become `unknown_size`, or raise when it is None."""
    if isinstance(x, (list, tuple)):
        return type(x)(_zeros(e, what, unknown_size) for e in x)
    if not isinstance(x, da.Array):
        return x
    if any(np.isnan(s) for s in x.shape):
        if unknown_size is None:
            raise ValueError(
                f"{what}() needs to know the shape of its dask input, but it depends on data not computed yet {x.shape}; "
                "call x.compute_chunk_sizes() first"
            )
        return np.broadcast_to(np.zeros((), x.dtype), tuple(unknown_size if np.isnan(s) else int(s) for s in x.shape))
    return np.broadcast_to(np.zeros((), x.dtype), x.shape)


def _has_unknown_size(x: Any) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_has_unknown_size(e) for e in x)
    return isinstance(x, da.Array) and any(np.isnan(s) for s in x.shape)


def _probe_unknown(function: Callable[..., Any], name: str, args: Sequence[Any], single: bool) -> tuple[Any, dict[int, set[int]]]:
    """The output of `function` on stand-ins of inputs whose sizes are partly unknown (NaN), and the
    output axes that depend on them: run on stand-ins with those sizes 2 and 3, the axes whose sizes
    differ. An operation that accepts neither raises what it needs (the shape)."""
    try:
        outputs = [probe(function, *[_zeros(a, name, size) for a in args]) for size in (2, 3)]
    except Exception:  # the unknown sizes matter to the operation itself: it needs them known
        _zeros(next(a for a in args if _has_unknown_size(a)), name)  # raises the ValueError naming the operation
        raise
    first, second = ([o] if single else list(o) for o in outputs)
    unknown: dict[int, set[int]] = {}
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        a, b = np.shape(a), np.shape(b)
        if len(a) != len(b):
            _zeros(next(x for x in args if _has_unknown_size(x)), name)
        unknown[index] = {axis for axis, (m, n) in enumerate(zip(a, b, strict=True)) if m != n}
    return outputs[0], unknown


def elementwise(name: str, *args: Any, **kwargs: Any) -> da.Array:
    """bk-numpy's `name` applied block by block (with broadcasting): one task per output chunk.

    Raises:
        bk.ShapeMismatchError: for shapes that cannot be broadcast together.
    """
    check_operands(name.rstrip("_"), *args)
    precision = bk.get_precision()
    if not any(isinstance(a, (da.Array, np.ndarray, list, tuple)) for a in args):  # only numbers: a constant
        return da.asarray(np.asarray(kernel(name, precision, tuple(sorted(kwargs.items())), *args)))
    args = tuple(da.asarray(np.asarray(a)) if isinstance(a, (list, tuple, np.ndarray)) else a for a in args)
    arrays = [a for a in args if isinstance(a, da.Array)]
    shape = _broadcast_shape(name, [a.shape for a in arrays])
    args = _common_chunks(args, shape)
    bound = tuple(sorted(kwargs.items()))
    function = partial(kernel, name, precision, bound)
    dtype = np.asarray(probe(function, *[_empty(a) for a in args])).dtype
    ndim = len(shape)
    pairs: list[Any] = []
    for a in args:
        pairs += [a, tuple(range(ndim - a.ndim, ndim))] if isinstance(a, da.Array) else [a, None]
    key = f"{name.rstrip('_')}-{tokenize(name, precision, bound, *args)}"  # tasks named after the bk operation
    return da.blockwise(function, tuple(range(ndim)), *pairs, dtype=dtype, meta=np.empty((0,) * ndim, dtype), name=key, align_arrays=True)


def _common_chunks(args: tuple[Any, ...], shape: tuple[float, ...]) -> tuple[Any, ...]:
    """The arrays rechunked to the chunks of the first one that spans each output axis (broadcast
    axes of size 1 stay as they are).

    Without this, dask aligns differently chunked operands on the union of their chunk boundaries,
    so a stencil (`u[2:] + u[:-2]`, `pad` then slices) splits its chunks further at every step, and
    a loop of such steps builds a graph that grows quadratically. Rechunking moves only the few
    elements at the boundaries, and the chunks of the result are those of the leading operand.
    """
    arrays = [a for a in args if isinstance(a, da.Array)]
    if len(arrays) < 2 or any(np.isnan(s) for s in shape) or all(a.chunks == arrays[0].chunks for a in arrays):
        return args
    ndim = len(shape)
    target: list[Any] = []
    for axis in range(ndim):
        spanning = [a.chunks[axis - ndim + a.ndim] for a in arrays if a.ndim >= ndim - axis and a.shape[axis - ndim + a.ndim] == shape[axis]]
        target.append(spanning[0] if spanning else None)

    def aligned(a: Any) -> Any:
        if not isinstance(a, da.Array):
            return a
        chunks = tuple(
            c if a.shape[i] != shape[ndim - a.ndim + i] or target[ndim - a.ndim + i] is None else target[ndim - a.ndim + i]
            for i, c in enumerate(a.chunks)
        )
        return a if chunks == a.chunks else a.rechunk(chunks)

    return tuple(aligned(a) for a in args)


def _broadcast_shape(name: str, shapes: list[tuple[float, ...]]) -> tuple[float, ...]:
    if any(np.isnan(s) for shape in shapes for s in shape):  # sizes that depend on data: dask checks later
        return max(shapes, key=len)
    try:
        return tuple(np.broadcast_shapes(*shapes))  # type: ignore[arg-type]
    except ValueError:
        raise bk.ShapeMismatchError(f"{name}: shapes {', '.join(str(tuple(int(x) for x in s)) for s in shapes)} cannot be broadcast together") from None


def task(
    name: str,
    args: Sequence[Any],
    kwargs: dict[str, Any] | None = None,
    unknown: dict[int, Sequence[int]] | None = None,
    single: bool = True,
    standins: Sequence[Any] | None = None,
) -> Any:
    """bk-numpy's `name` as one task over whole arrays: for operations without a chunked form.

    The task reads the chunks of its dask inputs and joins them itself, so the call adds one task
    (and one per output of a tuple) to the graph whatever the inputs' graphs hold: nothing upstream
    is optimised, culled or copied (`dask.delayed` on a dask array would do all three, every call).

    Args:
        name: The operation.
        args: Its positional arguments; dask arrays (also inside lists) become NumPy arrays in the task.
        kwargs: Keyword arguments (no dask arrays).
        unknown: `{output: axes}` whose sizes depend on the data (NaN in dask, `None` in `staticshape`).
        single: False when the operation returns a tuple of arrays.
        standins: The arguments to find output shapes and dtypes with (default: zeros of the inputs' shapes).

    Returns:
        A dask array with one chunk, or a tuple of them.
    """
    check_operands(name, *args)
    precision = bk.get_precision()
    bound = tuple(sorted((kwargs or {}).items()))
    function = partial(kernel, name, precision, bound)
    depends: dict[int, set[int]] = {}
    if standins is None and _has_unknown_size(list(args)):  # inputs of sizes found when computed (nonzero, unique, masks)
        example, depends = _probe_unknown(function, name, args, single)
    else:
        example = probe(function, *(standins if standins is not None else [_zeros(a, name) for a in args]))
    outputs = []
    for index, out in enumerate([example] if single else list(example)):
        out = np.asarray(out)
        axes = {*(unknown or {}).get(index, ()), *depends.get(index, ())}
        outputs.append((tuple(np.nan if axis in axes else size for axis, size in enumerate(out.shape)), out.dtype))
    return whole_arrays(name, function, args, outputs, single)


class _Slot:
    """Where the `index`-th dask input goes back into the arguments of a task."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"_Slot({self.index})"

    def __dask_tokenize__(self) -> Any:
        return ("bk-dask-slot", self.index)


def _template(tree: Any, arrays: list[da.Array]) -> Any:
    """`tree` (lists and tuples of arguments) with its dask arrays replaced by `_Slot`s, gathered in `arrays`."""
    if isinstance(tree, da.Array):
        arrays.append(tree)
        return _Slot(len(arrays) - 1)
    if isinstance(tree, (list, tuple)) and not hasattr(tree, "_fields"):
        return type(tree)(_template(e, arrays) for e in tree)
    return tree


def _filled(tree: Any, values: Sequence[Any]) -> Any:
    if isinstance(tree, _Slot):
        return values[tree.index]
    if isinstance(tree, (list, tuple)) and not hasattr(tree, "_fields"):
        return type(tree)(_filled(e, values) for e in tree)
    return tree


def _joined(blocks: Any) -> Any:
    """The NumPy array of one dask input: its only block, or its blocks (nested lists) joined."""
    return concatenate3(blocks) if isinstance(blocks, list) else blocks


def _run_whole(function: Callable[..., Any], template: Any, *blocks: Any) -> Any:
    """What the task of `whole_arrays` runs: `function(*args)` on the inputs' joined blocks."""
    return function(*_filled(template, [_joined(b) for b in blocks]))


def _block_refs(x: da.Array) -> Any:
    """References to the blocks of `x`: one for a one-chunk array, else nested lists (dask joins none)."""
    keys = x.__dask_keys__()
    if x.ndim == 0 or x.npartitions == 1:
        while isinstance(keys, list):
            keys = keys[0]
        return TaskRef(keys)

    def nest(k: Any) -> Any:
        return List(*[nest(e) for e in k]) if isinstance(k, list) else TaskRef(k)

    return nest(keys)


def whole_arrays(
    label: str, function: Callable[..., Any], args: Sequence[Any], outputs: Sequence[tuple[tuple[float, ...], Any]], single: bool = True, pure: bool = True
) -> Any:
    """`function(*args)` as one task over whole arrays, returning arrays of the given `(shape, dtype)`s
    (NaN sizes: unknown until computed), one chunk each.

    The dask arrays in `args` (also inside lists and tuples) are passed to the task as references to
    their blocks, joined there; the graph of the result is the inputs' graphs plus this task (and one
    task per output when `single` is False), never materialised, optimised or culled here.
    """
    arrays: list[da.Array] = []
    template = _template(list(args), arrays)
    token = tokenize(function, template, *arrays) if pure else uuid.uuid4().hex
    name = f"{label}-{token}"
    call = partial(_run_whole, function, template)
    inputs = [_block_refs(a) for a in arrays]

    def array(out_name: str, graph: HighLevelGraph, shape: tuple[float, ...], dtype: Any) -> da.Array:
        dtype = np.dtype(dtype)
        return da.Array(graph, out_name, tuple((s,) for s in shape), dtype=dtype, meta=np.empty((0,) * len(shape), dtype))

    if single:
        shape, dtype = outputs[0]
        key = (name, *(0,) * len(shape))
        graph = HighLevelGraph.from_collections(name, {key: Task(key, call, *inputs)}, dependencies=arrays)
        return array(name, graph, shape, dtype)
    base = HighLevelGraph.from_collections(name, {name: Task(name, call, *inputs)}, dependencies=arrays)
    results = []
    for index, (shape, dtype) in enumerate(outputs):
        part = f"{name}-{index}"
        key = (part, *(0,) * len(shape))
        layers = {**base.layers, part: MaterializedLayer({key: Task(key, operator.getitem, TaskRef(name), index)})}
        graph = HighLevelGraph(layers, {**base.dependencies, part: {name}})
        results.append(array(part, graph, shape, dtype))
    return tuple(results)


def zeros_like_input(x: Any, what: str) -> Any:
    """The default stand-in of one argument (public for operations that replace some stand-ins)."""
    return _zeros(x, what)
