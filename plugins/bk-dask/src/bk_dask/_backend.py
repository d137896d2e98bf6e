"""`DaskBackend`: the bk backend for `dask.array` arrays, lazy and chunked.

The operations live in mixins by topic (`_math`, `_indexing`, `_linalg`); this module holds the
required set, counting computes, devices, creation, randomness, shape manipulation, and the
operations that compute by design (loops, solvers, minimisation). Nothing here starts a cluster:
work runs wherever dask's own rules send it (the active `distributed.Client`, else threads).
"""

from __future__ import annotations

import numbers
import operator
import threading
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final

import dask
import dask.array as da
import numpy as np
from dask.callbacks import Callback

from bk import (
    Backend,
    ComputeDevice,
    DType,
    ShapeMismatchError,
    SolveResult,
    check_tensor_argument,
    combine_types,
    from_numpy_dtype,
    get_precision,
    normalize_axes,
    normalize_axis,
    reraise_as,
    to_numpy_dtype,
)
from bk.rules import INDEX_OPERATIONS, kernel

from ._blocks import numpy_backend, task, whole_arrays
from ._devices import ARRAY_DEVICE, active_client, configured_workers, local_device, worker_devices
from ._dtypes import as_dask, check_operands, to_precision
from ._indexing import IndexingMixin
from ._linalg import LinalgMixin
from ._math import MathMixin
from ._standard import StandardMixin

__all__ = ["DaskBackend"]

Tensor = Any

_COMPUTING: Final = frozenset(
    {
        "while_loop",
        "linear_solve",
        "conjugate_gradient",
        "conjugate_gradient_adaptive",
        "bi_conjugate_gradient",
        "minimize",
        "allocate_on_device",
    }
)


class _ComputeCounter(Callback):  # type: ignore[misc]
    """Counts the graphs that dask's local schedulers (threads, processes, sync) evaluate in this process."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self._lock = threading.Lock()

    def _start(self, dsk: Any) -> None:
        with self._lock:
            self.count += 1


_COUNTER: Final = _ComputeCounter()
_COUNTER.register()  # process-wide and cheap: one call per evaluated graph


def _on_cluster() -> bool:
    """Whether dask.compute goes to a `distributed.Client` now (the local counter does not see those)."""
    client = active_client()
    if client is None:
        return False
    scheduler = dask.base.get_scheduler()
    return getattr(scheduler, "__self__", None) is client


def _leaves(tree: Any) -> list[Any]:
    if isinstance(tree, (tuple, list)):
        return [leaf for e in tree for leaf in _leaves(e)]
    if isinstance(tree, dict):
        return [leaf for e in tree.values() for leaf in _leaves(e)]
    return [tree] if isinstance(tree, da.Array) else []


def _replace(tree: Any, new: dict[int, Any]) -> Any:
    if isinstance(tree, (tuple, list)):
        return type(tree)(_replace(e, new) for e in tree)
    if isinstance(tree, dict):
        return {k: _replace(e, new) for k, e in tree.items()}
    return new.get(id(tree), tree)


def _call_numpy(f: Callable[..., Any], dtypes: Any, aux: dict[str, Any], *args: Any) -> Any:
    output = f(*args, **aux)
    if isinstance(output, (tuple, list)):
        return tuple(np.asarray(o).astype(to_numpy_dtype(d), copy=False) for o, d in zip(output, dtypes, strict=True))
    return np.asarray(output).astype(to_numpy_dtype(dtypes), copy=False)


class DaskBackend(StandardMixin, MathMixin, IndexingMixin, LinalgMixin, Backend):
    """Dask arrays: lazy, chunked NumPy computed by threads or a `dask.distributed` cluster.

    Native tensors are `dask.array.Array`; NumPy arrays and Python numbers are constants.
    Operations build task graphs and compute nothing, except those in `computing_operations`
    (loops, solvers, minimisation), which say so. `numpy()` computes.
    """

    # Kernels declare themselves where they are defined (`bk.rules.kernel`): the elementwise operations run on
    # bk-numpy, the reductions, `as_tensor` and `cast` apply docs/semantics.md themselves and are trusted.
    checked_indices = INDEX_OPERATIONS  # its gathers and scatters refuse an index outside its dimension themselves

    computing_operations = _COMPUTING
    native_types = (da.Array,)

    def __init__(self) -> None:
        local = local_device(self)
        super().__init__("dask", [local], local)
        self._rng = da.random.default_rng()
        self._cluster_computes = 0

    # ------------------------------------------------------------ computing

    def compute_count(self) -> int:
        """Evaluations of dask graphs in this process so far: every one run by dask's local
        schedulers, and those this backend sends to a `distributed.Client`."""
        return _COUNTER.count + self._cluster_computes

    def _compute(self, *arrays: da.Array) -> tuple[Any, ...]:
        if _on_cluster():
            self._cluster_computes += 1
        return dask.compute(*arrays)  # type: ignore[no-any-return]

    def _persist(self, tree: Any) -> Any:
        """`tree` with its dask arrays evaluated once, kept in memory (on the workers with a client)."""
        leaves = _leaves(tree)
        if not leaves:
            return tree
        if _on_cluster():
            self._cluster_computes += 1
        persisted = dask.persist(*leaves)
        return _replace(tree, {id(old): new for old, new in zip(leaves, persisted, strict=True)})

    # ------------------------------------------------------------ required set

    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        """Native: dask arrays; else also NumPy arrays, Python numbers and (nested) lists of them."""
        if isinstance(x, da.Array):
            return True
        if only_native:
            return False
        if isinstance(x, (list, tuple)):
            return all(self.is_tensor(e) for e in x)
        return isinstance(x, (np.ndarray, np.generic, numbers.Number))

    @kernel(trusted=True, why="converts as bk-numpy's as_tensor (the rules of Python numbers), then chunks with dask")
    def as_tensor(self, x: Any, convert_external: bool = True) -> Tensor:
        """`x` as a dask array with dask's automatic chunks; values convert as in bk-numpy.

        Python floats become the float type of the precision (float32 when it is `None`), ints int64.

        Raises:
            TypeError: for SciPy sparse matrices and objects NumPy cannot convert.
        """
        if isinstance(x, da.Array):
            return to_precision(x, get_precision())
        if isinstance(x, numbers.Number) and not convert_external:
            return x
        check_operands("as_tensor", x)
        if hasattr(x, "tocoo") and hasattr(x, "nnz"):
            raise TypeError("bk-dask holds dense arrays only; sparse matrices are not supported (see the bk-dask README)")
        array = np.asarray(numpy_backend().as_tensor(x))
        if not array.dtype.isnative:  # dask's reductions pass the dtype to ufuncs, which refuse a byte order
            array = array.astype(array.dtype.newbyteorder("="))
        return da.from_array(array, chunks="auto")

    def is_available(self, tensor: Tensor) -> bool:
        """False for dask arrays (their values exist only once computed), True for constants."""
        return not isinstance(tensor, da.Array)

    def numpy(self, tensor: Tensor) -> np.ndarray:
        """Computes a dask array (on the active client, if any) into a NumPy array."""
        if isinstance(tensor, da.Array):
            return np.asarray(self._compute(tensor)[0])
        return np.asarray(tensor)

    def dtype(self, array: Tensor) -> DType:
        """The `DType` of a tensor; Python numbers as the reference defines: int is int32, float float64."""
        if isinstance(array, da.Array):
            return from_numpy_dtype(array.dtype)
        return numpy_backend().dtype(array)

    def staticshape(self, tensor: Tensor) -> tuple[int | None, ...]:
        """The shape, with `None` for sizes that depend on data not computed yet (dask's NaN)."""
        if isinstance(tensor, da.Array):
            return tuple(None if np.isnan(s) else int(s) for s in tensor.shape)
        return tuple(np.shape(tensor))

    @kernel(trusted=True, why="checks its operand itself; complex to bool tests != 0, to other real types keeps the real part")
    def cast(self, x: Tensor, dtype: DType) -> Tensor:
        """`x` as `dtype` (lazily); `x` itself when it already has it. Complex to bool tests `!= 0`; to
        other real types it keeps the real part."""
        np_dtype = to_numpy_dtype(dtype)
        check_tensor_argument(x, "cast")
        x = as_dask(x)
        if x.dtype == np_dtype:
            return x
        if x.dtype.kind == "c" and np_dtype.kind == "b":
            return x != 0
        if x.dtype.kind == "c" and np_dtype.kind != "c":
            x = x.real
        return x.astype(np_dtype)

    # ------------------------------------------------------------ devices

    def list_devices(self, device_type: str | None = None) -> list[ComputeDevice]:
        """The workers of the active `distributed.Client` (name, memory limit, threads), else those of the
        scheduler that dask's configuration names (`DASK_SCHEDULER_ADDRESS`), else this machine.

        Raises:
            ValueError: for a device type other than 'CPU', 'GPU', 'TPU' or None.
        """
        if device_type not in (None, "CPU", "GPU", "TPU"):
            raise ValueError(f"device_type must be 'CPU', 'GPU', 'TPU' or None but got {device_type!r}")
        client = active_client()
        devices = worker_devices(self, client) if client is not None else configured_workers(self) or [self._devices[0]]
        return [d for d in devices if device_type in (None, d.device_type)]

    def get_device_by_ref(self, ref: Any) -> ComputeDevice:
        """The device with native reference `ref`: a worker address, or 'local' for this machine (also
        spelled `'cpu'`, as Dask arrays report their device through `array_api_compat.device`).

        Raises:
            KeyError: if no device has that reference.
        """
        if ref == ARRAY_DEVICE and isinstance(ref, str):
            return self._devices[0]
        for device in (*self.list_devices(), self._devices[0]):
            if device.ref == ref:
                return device
        raise KeyError(f"dask has no device with ref {ref!r}; available: {[d.ref for d in self.list_devices()]}")

    def array_api_device(self, device: ComputeDevice) -> str:
        """The device that arrays on `device` report in `bk.array_namespace('dask')`: `'cpu'` for every
        device, as `array_api_compat.device` says of every NumPy-backed Dask array (Dask arrays carry no
        `device` of their own, and one computed on a worker is a NumPy array like any other)."""
        return ARRAY_DEVICE

    def allocate_on_device(self, tensor: Tensor, device: ComputeDevice) -> Tensor:
        """`tensor` placed on `device`: the local device leaves it as it is (lazy).

        Computes for a worker device: the chunks are evaluated on that worker and kept there
        (`Client.persist(workers=...)`), so later tasks that read them run there as well.

        The plan checks that `device` is one of this backend's (`bk.rules.check_device`).

        Raises:
            ValueError: for a worker without an active client.
        """
        tensor = self.as_tensor(tensor)
        if device.ref == "local":
            return tensor
        client = active_client()
        if client is None:
            raise ValueError(f"allocate_on_device: {device.name} is a worker of a cluster, but no distributed.Client is active")
        self._cluster_computes += 1
        return client.persist(tensor, workers=[device.ref], allow_other_workers=False)

    def copy(self, tensor: Tensor, only_mutable: bool = False) -> Tensor:
        """A new dask array of the same values (dask arrays are immutable, so nothing is copied)."""
        if isinstance(tensor, da.Array):
            return tensor if only_mutable else tensor.copy()
        if only_mutable and isinstance(tensor, (np.generic, numbers.Number)):
            return tensor
        return self.as_tensor(np.array(tensor))

    def stop_gradient(self, value: Tensor) -> Tensor:
        """`value` itself: dask arrays carry no gradient."""
        return value

    def is_module(self, obj: Any) -> bool:
        """False: dask has no modules (networks)."""
        return False

    def numpy_call(self, f: Callable[..., Any], output_shapes: Any, output_dtypes: Any, *args: Tensor, **aux_args: Any) -> Any:
        """`f` on NumPy values as one lazy task; its outputs have the given shapes and dtypes (the task
        reads the chunks of dask inputs itself: one task more in the graph, nothing upstream copied)."""
        multiple = isinstance(output_shapes, list) or (
            isinstance(output_shapes, tuple) and output_shapes and isinstance(output_shapes[0], (tuple, list))
        )
        function = partial(_call_numpy, f, output_dtypes, aux_args)
        if not multiple:
            return whole_arrays("numpy_call", function, args, [(tuple(output_shapes), to_numpy_dtype(output_dtypes))], pure=False)
        outputs = [(tuple(s), to_numpy_dtype(d)) for s, d in zip(output_shapes, output_dtypes, strict=True)]
        return whole_arrays("numpy_call", function, args, outputs, single=False, pure=False)

    # ------------------------------------------------------------ creation

    def zeros(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """Zeros in automatic chunks; `dtype` defaults to the float type of the current precision."""
        return da.zeros(_shape(shape), dtype=to_numpy_dtype(dtype or self.float_type), chunks="auto")

    def zeros_like(self, tensor: Tensor) -> Tensor:
        """Zeros of the shape, dtype and chunks of `tensor`."""
        return da.zeros_like(as_dask(tensor))

    def ones(self, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """Ones in automatic chunks; `dtype` defaults to the float type of the current precision."""
        return da.ones(_shape(shape), dtype=to_numpy_dtype(dtype or self.float_type), chunks="auto")

    def ones_like(self, tensor: Tensor) -> Tensor:
        """Ones of the shape, dtype and chunks of `tensor`."""
        return da.ones_like(as_dask(tensor))

    def range(self, start: Any, limit: Any = None, delta: Any = 1, dtype: DType = DType(int, 32)) -> Tensor:
        """Evenly spaced values in `[start, limit)`; `range(n)` counts from 0 to n-1."""
        from bk.rules import range_plan  # NumPy's arange length and dtype, bk's precision

        plan = range_plan(start, limit, delta, dtype, self.float_type)
        if plan.dtype.kind is int:
            return da.arange(
                plan.start, plan.start + plan.count * plan.delta, plan.delta, dtype=to_numpy_dtype(plan.dtype), chunks="auto"
            )
        steps = da.arange(plan.count, dtype=np.float64, chunks="auto")
        return (steps * plan.delta + plan.start).astype(to_numpy_dtype(plan.dtype))

    def linspace(self, start: Any, stop: Any, number: int) -> Tensor:
        """`number` evenly spaced floats of the current float type from `start` to `stop`, both included
        (bounds that are dask arrays: one task of bk-numpy's `linspace`, which reads them when computed;
        `dask.array.linspace` would compute them now)."""
        if isinstance(start, da.Array) or isinstance(stop, da.Array):
            return task("linspace", [start, stop, number])
        return da.linspace(start, stop, number, dtype=to_numpy_dtype(self.float_type), chunks="auto")

    def linspace_without_last(self, start: Any, stop: Any, number: int) -> Tensor:
        """`number` evenly spaced floats from `start` to `stop`, `stop` excluded (lazy bounds as `linspace`)."""
        if isinstance(start, da.Array) or isinstance(stop, da.Array):
            return task("linspace_without_last", [start, stop, number])
        return da.linspace(start, stop, number, endpoint=False, dtype=to_numpy_dtype(self.float_type), chunks="auto")

    def meshgrid(self, *coordinates: Tensor) -> list[Tensor]:
        """Coordinate grids with matrix ('ij') indexing, in automatic chunks of the grid's shape
        (`array.chunk-size`): the coordinates are rechunked first, so no chunk of the grids is larger
        than that, however long the coordinates (dask alone would make one chunk of their whole product)."""
        arrays = [self.as_tensor(c) for c in coordinates]
        if arrays and all(a.ndim == 1 and not np.isnan(a.shape[0]) for a in arrays):
            shape = tuple(a.shape[0] for a in arrays)
            # the widest dtype, for the chunk size only (no promotion: bfloat16 has none)
            dtype = max((a.dtype for a in arrays), key=lambda d: d.itemsize)
            counts = [len(c) for c in da.core.normalize_chunks("auto", shape, dtype=dtype)]  # chunks per axis
            arrays = [a.rechunk(_even(size, n)) for a, size, n in zip(arrays, shape, counts, strict=True)]
        return list(da.meshgrid(*arrays, indexing="ij"))

    # ------------------------------------------------------------ randomness

    def seed(self, seed: int) -> None:
        """Restarts this backend's `dask.array.random.Generator`: the same calls then give the same
        values, on any workers (each chunk's stream is derived from the seed)."""
        self._rng = da.random.default_rng(seed)

    def random_uniform(self, shape: Sequence[int], low: Any, high: Any, dtype: DType | None) -> Tensor:
        """Uniform values in `[low, high)`: integers for int dtypes, independent real and imaginary parts for complex.

        The graph is the one a `dask.array.random.Generator` call gives (one layer, one task per
        chunk): `random(dtype=...)` for `[0, 1)`, `uniform(low, high)` for other float64 bounds,
        `integers` for ints; other float32 bounds scale `random`'s values as `x * (high - low) + low`.

        Bounds that are dask arrays stay lazy (a `[0, 1)` call scaled as `x * (high - low) + low`,
        floored for ints, each part for complex), and an empty int range among them is not refused.

        Raises:
            ValueError: for bool and non-numeric dtypes.
        """
        dtype = dtype or self.float_type
        np_dtype = to_numpy_dtype(dtype)
        shape = tuple(shape)
        if isinstance(low, da.Array) or isinstance(high, da.Array):
            return self._uniform_between_lazy_bounds(shape, as_dask(low), as_dask(high), dtype, np_dtype)
        if dtype.kind is int:
            from bk.rules import int_uniform_bounds

            low, high = int_uniform_bounds(low, high)
            return self._rng.integers(low, high, size=shape, dtype=np_dtype, chunks="auto")
        if dtype.kind is float:
            return self._uniform(shape, low, high, np_dtype, "auto")
        # complex (the spec refuses bool and other dtypes): real and imaginary parts side by side in a last axis, viewed as complex
        part = to_numpy_dtype(DType(float, dtype.precision))
        low, high = complex(low), complex(high)
        pairs = self._uniform(
            (*shape, 2), np.array([low.real, low.imag]), np.array([high.real, high.imag]), part, ("auto",) * len(shape) + (2,)
        )
        return pairs.view(np_dtype)[..., 0]

    def _uniform_between_lazy_bounds(
        self, shape: tuple[int, ...], low: da.Array, high: da.Array, dtype: DType, np_dtype: np.dtype[Any]
    ) -> Any:
        """`random_uniform` between bounds that are dask arrays, without computing them."""
        if dtype.kind is complex:
            part = to_numpy_dtype(DType(float, dtype.precision))
            real = self._uniform_between_lazy_bounds(shape, da.real(low), da.real(high), DType(float, dtype.precision), part)
            imag = self._uniform_between_lazy_bounds(shape, da.imag(low), da.imag(high), DType(float, dtype.precision), part)
            return (real + 1j * imag).astype(np_dtype)
        generated = np_dtype if np_dtype in (np.float32, np.float64) and dtype.kind is float else np.dtype(np.float64)
        values = self._rng.random(shape, dtype=generated, chunks="auto")
        if dtype.kind is int:  # int bounds as int() takes them (toward zero); values floored into [low, high)
            low, high = da.trunc(low.astype(np.float64)), da.trunc(high.astype(np.float64))
            return da.minimum(da.floor(values * (high - low)) + low, high - 1).astype(np_dtype)
        low, high = low.astype(generated), high.astype(generated)
        return (values * (high - low) + low).astype(np_dtype)

    def _uniform(self, shape: tuple[int, ...], low: Any, high: Any, np_dtype: np.dtype[Any], chunks: Any) -> Any:
        unit = bool(np.all(np.asarray(low) == 0) and np.all(np.asarray(high) == 1))
        if np_dtype == np.float64 and not unit and np.ndim(low) == 0 and np.ndim(high) == 0:
            return self._rng.uniform(float(low), float(high), size=shape, chunks=chunks)
        generated = np_dtype if np_dtype in (np.float32, np.float64) else np.dtype(np.float64)
        values = self._rng.random(shape, dtype=generated, chunks=chunks)
        if not unit:
            low, high = np.asarray(low, generated), np.asarray(high, generated)
            values = values * (high - low) + low
        return values.astype(np_dtype)  # dask returns `values` itself when the dtype is already right

    def random_normal(self, shape: Sequence[int], dtype: DType | None) -> Tensor:
        """Standard normal values; for complex dtypes each part has variance 1/2.

        The graph is the one `dask.array.random.Generator.standard_normal(dtype=...)` gives (one layer);
        float16 converts float32 values; complex views pairs of `normal(scale=sqrt(1/2))` values.

        Raises:
            ValueError: for bool, int and non-numeric dtypes.
        """
        dtype = dtype or self.float_type
        np_dtype = to_numpy_dtype(dtype)
        shape = tuple(shape)
        if dtype.kind is float:
            generated = np_dtype if np_dtype in (np.float32, np.float64) else np.dtype(np.float32)
            return self._rng.standard_normal(shape, dtype=generated, chunks="auto").astype(np_dtype)
        # complex (the spec refuses bool, int and other dtypes)
        part = to_numpy_dtype(DType(float, dtype.precision))
        pairs = self._rng.standard_normal((*shape, 2), dtype=part, chunks=("auto",) * len(shape) + (2,)) * part.type(np.sqrt(0.5))
        return pairs.view(np_dtype)[..., 0]

    # ------------------------------------------------------------ shape manipulation

    def reshape(self, value: Tensor, shape: Sequence[int]) -> Tensor:
        """`value` with a new shape; -1 infers one size (dask merges chunks where it must).

        Raises:
            ShapeMismatchError: if the number of elements differs.
        """
        try:
            return da.reshape(as_dask(value), tuple(shape))
        except ValueError as error:
            reraise_as(ShapeMismatchError, "reshape", error)

    def flatten(self, x: Tensor) -> Tensor:
        """`x` as a 1-D array."""
        return da.reshape(as_dask(x), (-1,))

    def transpose(self, tensor: Tensor, axes: Sequence[int]) -> Tensor:
        """`tensor` with its dimensions permuted to `axes`.

        Raises:
            AxisError: for axes that are not a permutation of the tensor's axes.
        """
        tensor = as_dask(tensor)
        return da.transpose(tensor, tuple(normalize_axis(a, tensor.ndim, "transpose") for a in axes))

    def expand_dims(self, a: Tensor, axis: int = 0, number: int = 1) -> Tensor:
        """`a` with `number` new dimensions of size 1 inserted at `axis` (in `[-ndim - 1, ndim]`).

        Raises:
            ValueError: for a negative `number`.
            AxisError: for an axis outside `[-ndim - 1, ndim]`.
        """
        a = as_dask(a)
        for _ in range(number):
            a = da.expand_dims(a, axis)
        return a

    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Stacks equally shaped tensors along a new axis (floats follow a set precision).

        Raises:
            ShapeMismatchError: for tensors of different shapes.
            AxisError: for an axis outside `[-ndim - 1, ndim]`.
        """
        arrays = _promoted([as_dask(v) for v in values])
        try:
            return to_precision(da.stack(arrays, axis=axis), get_precision())
        except ValueError as error:
            reraise_as(ShapeMismatchError, "stack", error)

    def concat(self, values: Sequence[Tensor], axis: int) -> Tensor:
        """Concatenates tensors along an existing axis (floats follow a set precision).

        Raises:
            ShapeMismatchError: for tensors whose other dimensions differ.
            AxisError: for an axis out of range.
        """
        arrays = _promoted([as_dask(v) for v in values])
        try:
            return to_precision(da.concatenate(arrays, axis=axis), get_precision())
        except ValueError as error:
            reraise_as(ShapeMismatchError, "concat", error)

    def tile(self, value: Tensor, multiples: Sequence[int]) -> Tensor:
        """Repeats the whole tensor `multiples[i]` times along axis i; extra multiples add outer axes.

        Axes of size 1 (what `broadcast_to` tiles) are broadcast into chunks of dask's automatic size
        (`dask.array.tile` would make one chunk per repetition: a task per element of the new axis)."""
        x, reps = as_dask(value), tuple(int(m) for m in multiples)
        if any(r < 0 for r in reps) or any(np.isnan(s) for s in x.shape):
            return da.tile(x, reps)  # dask's own answer (and error)
        if len(reps) > x.ndim:
            x = da.reshape(x, (1,) * (len(reps) - x.ndim) + x.shape)
        reps = (1,) * (x.ndim - len(reps)) + reps
        unit = [n == 1 and r != 1 for n, r in zip(x.shape, reps, strict=True)]
        if any(unit):
            shape = tuple(r if u else n for n, r, u in zip(x.shape, reps, unit, strict=True))
            chunks = tuple((r,) if u else c for c, r, u in zip(x.chunks, reps, unit, strict=True))
            if 0 not in shape:  # dask's automatic size for the new chunks (it cannot size empty arrays)
                chunks = da.core.normalize_chunks(
                    tuple("auto" if u else c for c, u in zip(x.chunks, unit, strict=True)), shape, dtype=x.dtype
                )
            x = da.broadcast_to(x, shape, chunks=chunks)
            reps = tuple(1 if u else r for r, u in zip(reps, unit, strict=True))
        return da.tile(x, reps) if any(r != 1 for r in reps) else x

    def flip(self, value: Tensor, axes: Sequence[int]) -> Tensor:
        """`value` reversed along `axes`, an int or a sequence of ints; `None` reverses every axis.

        Raises:
            AxisError: for an axis out of range or named twice.
        """
        value = as_dask(value)
        chosen = normalize_axes(axes, value.ndim, "flip")
        return da.flip(value, tuple(range(value.ndim)) if chosen is None else chosen)

    # ------------------------------------------------------------ operations that compute by design

    def while_loop(self, loop: Callable[..., Any], values: tuple[Any, ...], max_iter: int | Sequence[int] | None) -> Any:
        """Runs `values = loop(*values)` while any element of `values[0]` is true.

        Computes: after every iteration the loop state is evaluated once, together with the
        condition, and kept (in memory, or on the workers with a client), so each iteration is
        evaluated exactly once and the task graph does not grow with the iterations.
        """
        values, go = self._settle(tuple(values))
        if isinstance(max_iter, (tuple, list)):
            checkpoints = list(max_iter)
            trajectory = [values] if 0 in checkpoints else []
            for i in range(1, max(checkpoints) + 1):
                if not go:
                    break
                values, go = self._settle(tuple(loop(*values)))
                if i in checkpoints:
                    trajectory.append(values)
            if not trajectory:  # no checkpoint reached (the condition was false from the start)
                trajectory.append(values)
            trajectory.extend([trajectory[-1]] * (len(checkpoints) - len(trajectory)))  # as bk.Backend.while_loop
            return self.stack_leaves(trajectory)
        i = 0
        while (max_iter is None or i < max_iter) and go:  # type: ignore[operator]
            values, go = self._settle(tuple(loop(*values)))
            i += 1
        return values

    def _settle(self, values: tuple[Any, ...]) -> tuple[tuple[Any, ...], bool]:
        """The loop state evaluated and kept, and whether any element of its condition is true."""
        condition = values[0]
        if not isinstance(condition, da.Array):
            return self._persist(values), bool(np.any(condition))
        if _on_cluster():
            values = self._persist(values)
            return values, bool(self._compute(da.any(values[0]))[0])
        leaves = _leaves(values)
        go, *results = dask.compute(da.any(condition), *leaves)  # one evaluation per iteration
        kept = {
            id(old): da.from_array(new, chunks=old.chunks, name=f"state-{uuid.uuid4().hex}")
            for old, new in zip(leaves, results, strict=True)
        }
        return _replace(values, kept), bool(go)

    def linear_solve(self, method: str, lin: Any, y: Tensor, *args: Any, **kwargs: Any) -> SolveResult:
        """Solves the batched linear systems `A x = y` (arguments as `bk.Backend.linear_solve`).

        Computes. The native methods ('auto', 'CG', 'CG-adaptive', 'biCG-stab(n)') run on dask
        arrays and evaluate the solver state once per iteration (see `while_loop`); the result
        holds persisted dask arrays and the messages. The 'scipy-*' methods compute `y`, `x0` and
        a dask matrix to NumPy and solve there (SciPy is not distributed); a linear function is
        evaluated on dask arrays for every product SciPy asks for.
        """
        if method.startswith("scipy-"):
            return self._scipy_solve(method, lin, y, *args, **kwargs)
        result = super().linear_solve(method, lin, y, *args, **kwargs)
        if result.message != "" or isinstance(result.iterations, (list, tuple)):
            return result
        iterations, converged, diverged = (
            np.asarray(v) for v in self._compute(result.iterations, result.converged, result.diverged)
        )
        messages = np.vectorize(_message, otypes=[object])(iterations, converged, diverged)
        return result._replace(message=messages.tolist() if messages.ndim else str(messages))

    def _scipy_solve(self, method: str, lin: Any, y: Tensor, *args: Any, **kwargs: Any) -> SolveResult:
        def to_numpy(value: Any) -> Any:
            return self.numpy(value) if isinstance(value, da.Array) else value

        if isinstance(lin, (list, tuple)):
            lin_np: Any = [to_numpy(m) for m in lin]
        elif callable(lin) and not isinstance(lin, da.Array):

            def lin_np(v: np.ndarray) -> np.ndarray:
                return self.numpy(lin(self.as_tensor(v)))
        else:
            lin_np = to_numpy(lin)
        args = tuple(to_numpy(a) for a in args)
        kwargs = {k: to_numpy(v) for k, v in kwargs.items()}
        result = numpy_backend().linear_solve(method, lin_np, to_numpy(y), *args, **kwargs)
        tensors = [self.as_tensor(v) if isinstance(v, np.ndarray) else v for v in result[1:7]]
        return SolveResult(result.method, *tensors, result.message)

    def minimize(
        self, method: str, f: Callable[[Tensor], Tensor], x0: Tensor, atol: Any, max_iter: Any, trj: bool
    ) -> SolveResult | list[SolveResult]:
        """Minimises `f` with a SciPy method (dask has no gradients, so 'GD' is not available).

        Computes: SciPy asks for the loss at NumPy points; each evaluation runs `f` on dask arrays
        and computes its value once.
        """
        return super().minimize(method, f, x0, atol, max_iter, trj)


def _even(size: int, count: int) -> tuple[int, ...]:
    """`size` split into `count` chunks whose sizes differ by one at most."""
    return tuple(size // count + (i < size % count) for i in range(count)) if size else (0,)


def _message(iterations: Any, converged: Any, diverged: Any) -> str:
    if converged:
        return f"converged after {iterations} iterations"
    if diverged:
        return f"diverged after {iterations} iterations (non-finite residual)"
    return f"not converged within {iterations} iterations"


def _promoted(arrays: list[da.Array]) -> list[da.Array]:
    """`arrays` in the dtype `bk.combine_types` gives them (the spec's promotion, not NumPy's: complex64
    with uint32 stays complex64, and bfloat16 promotes at all), unchanged when they share one dtype."""
    if len({a.dtype for a in arrays}) <= 1:
        return arrays
    dtype = to_numpy_dtype(combine_types(*[from_numpy_dtype(a.dtype) for a in arrays]))
    return [a.astype(dtype) for a in arrays]


def _shape(shape: Any) -> tuple[int, ...]:
    """A shape argument as a tuple: a sequence of ints, or one int (the spec takes both, as NumPy)."""
    return tuple(shape) if hasattr(shape, "__iter__") else (operator.index(shape),)
