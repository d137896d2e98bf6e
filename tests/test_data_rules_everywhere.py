"""The data rules and degenerate arguments the core applies around kernels (issue 39, item 3), alike on every
installed backend and on a backend of bare kernels that records what reaches them: no axes (`axis=()`) never
reach a kernel, shift counts outside `[0, bits)` follow NumPy 2, an empty int range of `random_uniform` is a
ValueError, and `clip`'s kernel sees one dtype."""

from __future__ import annotations

import numpy as np
import pytest

import bk

F32 = bk.DType(float, 32)


def _spy_class():
    """A backend of bare NumPy kernels (as a third party writes them) that records every call reaching them."""
    numpy_backend = pytest.importorskip("bk_numpy._backend").NumPyBackend
    seen: list[tuple[str, tuple]] = []

    def bare(name, function):
        def kernel(self, *args, **kwargs):
            seen.append((name, args))
            return function(*args, **kwargs)

        kernel.__name__ = name
        return kernel

    kernels = {
        "logsumexp": bare("logsumexp", lambda x, axis=None, keepdims=False: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))),
        "squeeze": bare("squeeze", lambda x, axis=None: np.squeeze(x, axis)),
        "flip": bare("flip", lambda x, axes=None: np.flip(x, axes)),
        "roll": bare("roll", lambda x, shift, axis=None: np.roll(x, shift, axis)),
        "moveaxis": bare("moveaxis", lambda x, source, destination: np.moveaxis(x, source, destination)),
        "vector_norm": bare("vector_norm", lambda x, axis=None, keepdims=False, ord=2: np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)),
        "fftshift": bare("fftshift", lambda x, axes=None: np.fft.fftshift(x, axes)),
        # C's shifts: the count modulo the width, as hardware gives it
        "shift_bits_left": bare("shift_bits_left", lambda a, c: np.left_shift(a, np.bitwise_and(c, np.asarray(a).dtype.itemsize * 8 - 1).astype(np.asarray(a).dtype))),
        "shift_bits_right": bare("shift_bits_right", lambda a, c: np.right_shift(a, np.bitwise_and(c, np.asarray(a).dtype.itemsize * 8 - 1).astype(np.asarray(a).dtype))),
        "clip": bare("clip", lambda x, low, high: np.clip(x, low, high)),
        # indices clamped into their dimension, as JAX's gathers do, and scatters that drop what lies outside
        "gather": bare("gather", lambda values, indices, axis: np.take(values, np.where(indices < 0, indices + values.shape[axis], indices), axis=axis, mode="clip")),
        "take_along_axis": bare("take_along_axis", lambda x, indices, axis: np.take_along_axis(x, np.clip(indices, -x.shape[axis], x.shape[axis] - 1), axis)),
        "scatter_nd_scalar": bare("scatter_nd_scalar", _dropping_scatter),
    }
    declared = {"checked_indices": frozenset(), "shifts_every_count": False}  # bare kernels: the core checks indices and shift counts
    return type("Recording", (numpy_backend,), {**kernels, **declared}), seen


def _dropping_scatter(base_grid, indices, values, mode):
    result = np.array(base_grid)
    for index, value in zip(np.asarray(indices), np.broadcast_to(values, (len(indices),)), strict=True):
        if all(-n <= i < n for i, n in zip(index, result.shape, strict=True)):
            result[tuple(index)] = value if mode == "update" else result[tuple(index)] + value
    return result


@pytest.fixture(scope="module")
def spy() -> tuple[bk.Backend, list]:
    cls, seen = _spy_class()
    return cls(), seen


X = np.array([[1.0, -2.0, 3.0], [np.inf, 0.5, 2.0]], np.float32)
NO_AXES = {
    "sum": lambda b, x: b.sum(x, ()),
    "mean": lambda b, x: b.mean(x, ()),
    "max": lambda b, x: b.max(x, ()),
    "logsumexp": lambda b, x: b.logsumexp(x, ()),
    "squeeze": lambda b, x: b.squeeze(x, ()),
    "flip": lambda b, x: b.flip(x, ()),
    "roll": lambda b, x: b.roll(x, (), ()),
    "moveaxis": lambda b, x: b.moveaxis(x, (), ()),
    "fftshift": lambda b, x: b.fftshift(x, ()),
    "ifftshift": lambda b, x: b.ifftshift(x, ()),
    "vector_norm": lambda b, x: b.vector_norm(x, ()),
}
EXPECTED = {"vector_norm": np.abs(X)}


@pytest.mark.parametrize("op", sorted(NO_AXES))
def test_no_axes_give_the_input(b, op):
    if not b.supports(op):
        pytest.skip(f"{b.name} does not support {op}")
    result = NO_AXES[op](b, b.as_tensor(X))
    assert b.dtype(result) == F32 and tuple(b.staticshape(result)) == X.shape
    np.testing.assert_array_equal(b.numpy(result), EXPECTED.get(op, X))


@pytest.mark.parametrize("op", ["fft", "ifft"])
def test_transforms_of_no_axes_give_the_input_as_complex(b, op):
    if not b.supports(op):
        pytest.skip(f"{b.name} does not support {op}")
    result = getattr(b, op)(b.as_tensor(X), ())
    assert b.dtype(result) == bk.DType(complex, 64)
    np.testing.assert_array_equal(b.numpy(result), X.astype(np.complex64))


@pytest.mark.parametrize("op", ["logsumexp", "squeeze", "flip", "roll", "moveaxis", "fftshift", "vector_norm"])
def test_no_axes_never_reach_a_kernel(spy, op):
    backend, seen = spy
    seen.clear()
    result = NO_AXES[op](backend, X)
    np.testing.assert_array_equal(np.asarray(result), EXPECTED.get(op, X))
    assert not [name for name, _ in seen if name == op]


def test_vector_norm_of_no_axes_counts_for_ord_0(b):
    x = b.as_tensor(np.array([0.0, -2.0, 3.0], np.float32))
    np.testing.assert_array_equal(b.numpy(b.vector_norm(x, (), False, 0)), [0.0, 1.0, 1.0])


SHIFT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _shift_cases(dt):
    bits = np.dtype(dt).itemsize * 8
    if np.dtype(dt).kind == "u":
        return np.array([1, 3, 5, 7, 1, 3], dt), np.array([bits, bits + 1, 2 * bits + 3, 0, bits - 1, 1], dt)
    return np.array([1, -3, 5, -8, -1, 7], dt), np.array([bits, bits + 1, -1, bits * 2 - 1, bits - 1, -5], dt)


@pytest.mark.parametrize("dt", SHIFT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(("op", "reference"), [("shift_bits_left", np.left_shift), ("shift_bits_right", np.right_shift)])
def test_shift_counts_outside_the_width_follow_numpy(b, dt, op, reference):
    a, counts = _shift_cases(dt)
    result = getattr(b, op)(b.as_tensor(a), b.as_tensor(counts))
    np.testing.assert_array_equal(b.numpy(result), reference(a, counts))
    bits = np.dtype(dt).itemsize * 8
    np.testing.assert_array_equal(b.numpy(getattr(b, op)(b.as_tensor(a), bits)), reference(a, dt(bits)))


@pytest.mark.parametrize("dt", SHIFT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(("op", "reference"), [("shift_bits_left", np.left_shift), ("shift_bits_right", np.right_shift)])
def test_a_kernel_only_sees_shift_counts_in_range(spy, dt, op, reference):
    backend, seen = spy
    seen.clear()
    a, counts = _shift_cases(dt)
    np.testing.assert_array_equal(np.asarray(getattr(backend, op)(a, counts)), reference(a, counts))
    bits = np.dtype(dt).itemsize * 8
    for name, args in seen:
        if name == op:
            assert np.all((np.asarray(args[1]) >= 0) & (np.asarray(args[1]) < bits)), args[1]


def test_a_backend_whose_shifts_take_every_count_gets_tensors_of_counts_as_they_are():
    """`Backend.shifts_every_count`: no composite around a tensor of counts (the framework gives NumPy's results), but
    a Python int count outside `[0, bits)` still takes it."""
    cls, seen = _spy_class()
    backend = type("EveryCount", (cls,), {"shifts_every_count": True})()
    a, counts = _shift_cases(np.int8)
    backend.shift_bits_left(a, counts)
    assert [np.asarray(args[1]).tolist() for name, args in seen if name == "shift_bits_left"] == [counts.tolist()]
    seen.clear()
    np.testing.assert_array_equal(np.asarray(backend.shift_bits_left(a, 9)), np.left_shift(a, np.int8(9)))
    assert all(np.min(args[1]) >= 0 and np.max(args[1]) < 8 for name, args in seen if name == "shift_bits_left")


@pytest.mark.parametrize(("low", "high", "dtype"), [(2, 2, bk.DType(int, 64)), (3, 2, bk.DType(int, 32)), (0, 300, bk.DType(int, 8)), (-1, 5, bk.DType(int, 8, signed=False))])
def test_random_uniform_refuses_an_empty_or_unrepresentable_int_range(b, low, high, dtype):
    with pytest.raises(ValueError, match="^random_uniform: the int range"):
        b.random_uniform((3,), low, high, dtype)


def test_random_uniform_of_a_one_value_range(b):
    np.testing.assert_array_equal(b.numpy(b.random_uniform((3,), 2, 3, bk.DType(int, 64))), [2, 2, 2])
    np.testing.assert_array_equal(b.numpy(b.random_uniform((3,), 1.0, 1.0, F32)), [1.0, 1.0, 1.0])


CLIPS = [
    (np.array([1.0, 250.0, np.nan], np.float32), np.array(3, np.int64), np.array(9, np.int64)),
    (np.array([1.0, 250.0], np.float32), np.array([3.5], np.float64), 9),
    (np.array([True, False]), np.array(0.5, np.float32), np.array(2, np.int64)),
    (np.array([1, 500, -7], np.int16), 300, np.array(400.5, np.float32)),
    (np.array([1, 500, -7], np.int16), np.array([-3], np.int32), 300.7),
]


@pytest.mark.parametrize("case", range(len(CLIPS)))
def test_clip_keeps_x_dtype_for_bounds_of_any_dtype(b, case):
    x, low, high = CLIPS[case]
    as_bound = lambda v: v if isinstance(v, (int, float)) else b.as_tensor(v)  # noqa: E731
    result = b.clip(b.as_tensor(x), as_bound(low), as_bound(high))
    want = np.clip(x.astype(np.float64), np.asarray(low, np.float64), np.asarray(high, np.float64))
    want = want != 0 if x.dtype == bool else np.trunc(want).astype(x.dtype) if x.dtype.kind == "i" else want.astype(x.dtype)
    assert b.dtype(result) == bk.from_numpy_dtype(x.dtype)
    np.testing.assert_array_equal(b.numpy(result), want)


@pytest.mark.parametrize("case", range(len(CLIPS)))
def test_clip_kernels_see_one_dtype(spy, case):
    backend, seen = spy
    seen.clear()
    backend.clip(*CLIPS[case])
    for name, args in seen:
        if name == "clip":
            dtypes = {np.asarray(a).dtype for a in args if isinstance(a, np.ndarray)}
            assert len(dtypes) <= 1, (name, dtypes)


@pytest.mark.parametrize("mode", ["constant", "boundary", "periodic", "circular", "symmetric", "reflect"])
def test_a_pad_kernel_may_return_not_implemented(mode):
    """The catalogue's `pad` allows `NotImplemented` for a mode a framework lacks: the core pads with its composite."""
    numpy_backend = pytest.importorskip("bk_numpy._backend").NumPyBackend

    class ConstantOnly(numpy_backend):
        def pad(self, value, pad_width, mode="constant", constant_values=0):
            return NotImplemented if mode != "constant" else np.pad(value, pad_width, constant_values=constant_values)

    class NoPad(numpy_backend):
        def pad(self, value, pad_width, mode="constant", constant_values=0):
            return NotImplemented

    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    numpy_mode = {"constant": "constant", "boundary": "edge", "periodic": "wrap", "circular": "wrap", "symmetric": "symmetric", "reflect": "reflect"}[mode]
    want = np.pad(x, ((1, 2), (2, 1)), numpy_mode, **({"constant_values": 7.0} if mode == "constant" else {}))
    for cls in (ConstantOnly, NoPad):
        result = cls().pad(x, ((1, 2), (2, 1)), mode, 7.0) if mode == "constant" else cls().pad(x, ((1, 2), (2, 1)), mode)
        assert result.dtype == np.float32
        np.testing.assert_array_equal(result, want)


def _indices(b, values):
    return b.as_tensor(np.array(values, np.int64))


OUT_OF_RANGE = {
    "gather": lambda b: b.gather(b.zeros((3, 4), F32), _indices(b, [0, 4]), 1),
    "gather negative": lambda b: b.gather(b.zeros((3, 4), F32), _indices(b, [0, -5]), 1),
    "gather_1d": lambda b: b.gather_1d(b.zeros((3,), F32), _indices(b, [3])),
    "take_along_axis": lambda b: b.take_along_axis(b.zeros((2, 3), F32), _indices(b, [[3]]), 1),
    "batched_gather_1d": lambda b: b.batched_gather_1d(b.zeros((1, 3), F32), _indices(b, [[3]])),
    "batched_gather_nd": lambda b: b.batched_gather_nd(b.zeros((1, 3, 2), F32), _indices(b, [[[3]]])),
    "scatter": lambda b: b.scatter(b.zeros((1, 3, 1), F32), _indices(b, [[[3]]]), b.ones((1, 1, 1), F32), "update"),
    "scatter_nd": lambda b: b.scatter_nd(b.zeros((3, 1), F32), _indices(b, [[5]]), b.ones((1, 1), F32), "update"),
    "scatter_1d_scalar": lambda b: b.scatter_1d_scalar(b.zeros((3,), F32), _indices(b, [5]), b.ones((1,), F32), "update"),
    "scatter_nd_scalar": lambda b: b.scatter_nd_scalar(b.zeros((3,), F32), _indices(b, [[5]]), b.ones((1,), F32), "update"),
    "scatter_nd_scalar negative": lambda b: b.scatter_nd_scalar(b.zeros((3,), F32), _indices(b, [[-4]]), b.ones((1,), F32), "add"),
    "indexed_segment_sum": lambda b: b.indexed_segment_sum(b.ones((1, 3), F32), _indices(b, [[0, -1]]), 1),
}


@pytest.mark.parametrize("case", sorted(OUT_OF_RANGE))
def test_an_index_outside_its_dimension_raises(b, case):
    op = case.split()[0]
    if not b.supports(op):
        pytest.skip(f"{b.name} does not support {op}")
    # bk-dask raises when the value is computed, naming the operation its blocks ran (the mapping of errors raised
    # on read is issue 39's item 5): the class is checked there, the name everywhere else
    with pytest.raises(bk.IndexOutOfRangeError, match=None if b.name == "dask" else f"^{op}: "):
        b.numpy(OUT_OF_RANGE[case](b))


@pytest.mark.parametrize("case", ["gather", "gather negative", "take_along_axis", "scatter_nd_scalar", "scatter_nd_scalar negative"])
def test_the_core_checks_indices_before_a_kernel_that_clamps_or_drops(spy, case):
    backend, seen = spy
    seen.clear()
    with pytest.raises(bk.IndexOutOfRangeError, match=f"^{case.split()[0]}: "):
        OUT_OF_RANGE[case](backend)
    assert not [name for name, _ in seen if name == case.split()[0]]  # refused before the kernel


def test_indices_in_range_still_reach_the_kernels(spy):
    backend, _ = spy
    np.testing.assert_array_equal(backend.gather(np.arange(4.0), np.array([-1, 0]), 0), [3.0, 0.0])
    np.testing.assert_array_equal(backend.scatter_nd_scalar(np.zeros(3), np.array([[-1]]), np.ones(1), "update"), [0.0, 0.0, 1.0])
