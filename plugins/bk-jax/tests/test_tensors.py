"""Conversion, dtypes, the x64 rule, precision, devices, immutability, random numbers and DLPack."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import bk
from bk import DType
from bk_jax._dtypes import from_jax_dtype, to_jax_dtype, x64_locked_off

ALL_DTYPES = [
    DType(bool),
    DType(float, 16),
    DType(float, 16, brain=True),
    DType(float, 32),
    DType(float, 64),
    DType(complex, 64),
    DType(complex, 128),
]
ALL_DTYPES += [DType(int, n) for n in (8, 16, 32, 64)] + [DType(int, n, signed=False) for n in (8, 16, 32, 64)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtype_round_trip(b: bk.Backend, dtype: DType) -> None:
    assert from_jax_dtype(to_jax_dtype(dtype)) == dtype
    assert b.dtype(b.cast(b.as_tensor([1, 0]), dtype)) == dtype


def test_unsupported_values_are_clear_errors(b: bk.Backend) -> None:
    with pytest.raises(bk.ArgumentTypeError, match="^cast: dtype str is not a numeric dtype"):  # the core's check, before the kernel
        b.cast(b.as_tensor([1]), DType(str))
    with pytest.raises(bk.ArgumentTypeError, match="^as_tensor: x has the NumPy dtype <U1"):
        b.as_tensor(np.array(["a", "b"]))
    with pytest.raises(bk.ArgumentTypeError, match="^cast: dtype must be a bk.DType"):
        b.cast(b.as_tensor([1]), "text")
    assert b.dtype(b.cast(b.as_tensor([1]), "float32")) == DType(float, 32)  # a name, as the spec reads it
    with pytest.raises(TypeError, match="has no bk.DType equivalent"):
        b.dtype(jnp.zeros(2, jnp.float8_e4m3fn))


def test_is_tensor(b: bk.Backend) -> None:
    assert b.is_tensor(jnp.zeros(2), only_native=True)
    assert b.is_tensor(b.sparse_coo_tensor(np.zeros((1, 2), np.int32), np.ones(1, np.float32), (2, 2)), only_native=True)
    assert not b.is_tensor(np.zeros(2), only_native=True) and b.is_tensor(np.zeros(2))
    assert b.is_tensor([1, 2.5]) and b.is_tensor(3) and not b.is_tensor("x") and not b.is_tensor(None)


def test_python_values_and_precision_none(b: bk.Backend) -> None:
    assert bk.get_precision() is None
    assert b.as_tensor(1.5).dtype == jnp.float32 and b.as_tensor(1 + 2j).dtype == jnp.complex64
    assert b.as_tensor([1, 2]).dtype == jnp.int64 and b.as_tensor(True).dtype == jnp.bool_  # NumPy 2's default int
    assert b.as_tensor(3).dtype == jnp.int64 and b.as_tensor(2**40).dtype == jnp.int64
    assert b.as_tensor(np.ones(2, np.float16)).dtype == jnp.float16  # NumPy data keeps its dtype
    assert b.zeros((2,)).dtype == jnp.float32 and b.sqrt(b.as_tensor([4])).dtype == jnp.float32
    assert b.as_tensor(3, convert_external=False) == 3


@pytest.mark.parametrize("bits", [16, 32, 64])
def test_precision_is_applied(b: bk.Backend, bits: int) -> None:
    expected = to_jax_dtype(DType(float, bits))
    with bk.precision(bits):
        assert b.as_tensor(np.ones(2)).dtype == expected and b.as_tensor(jnp.ones(2, jnp.float16)).dtype == expected
        assert b.ones((1,)).dtype == expected and b.linspace(0, 1, 3).dtype == expected
        assert b.random_uniform((2,), 0, 1, None).dtype == expected
        assert b.as_tensor(np.ones(2, complex)).dtype == to_jax_dtype(DType(complex, 2 * max(bits, 32)))
        assert b.as_tensor(np.arange(2, dtype=np.int32)).dtype == jnp.int32  # integers are not floats


def test_python_numbers_are_weak_in_operators(b: bk.Backend, x64_off: Any) -> None:
    f16, i8 = jnp.ones(2, jnp.float16), jnp.ones(2, jnp.int8)
    assert b.add(f16, 1.5).dtype == jnp.float16 and b.mul(2, i8).dtype == jnp.int8  # as in JAX
    assert b.mul(i8, 1.5).dtype == jnp.float32 and b.div(i8, i8).dtype == jnp.float32  # the float type
    assert b.greater_than(i8, 0.5).tolist() == [True, True] and b.add(jnp.array([True]), True).tolist() == [2]
    assert not x64_off.config.jax_enable_x64  # no 64-bit detour for a Python float
    with bk.precision(64):
        assert b.add(jnp.ones(2, jnp.float32), 1.5).dtype == jnp.float64


# ---------------------------------------------------------------- the x64 rule


def test_x64_is_switched_on_when_64_bits_are_asked_for(b: bk.Backend, x64_off: Any) -> None:
    assert b.dtype(b.as_tensor(np.ones(2, np.float32))) == DType(float, 32) and b.dtype(b.zeros((2,))) == DType(float, 32)
    assert not x64_off.config.jax_enable_x64  # 32-bit work leaves JAX's setting alone
    with bk.precision(64):
        assert b.ones((2,)).dtype == jnp.float64
    assert x64_off.config.jax_enable_x64


@pytest.mark.parametrize(
    "request_64",
    [
        lambda b: b.cast(b.as_tensor([1.0]), DType(float, 64)),
        lambda b: b.zeros((2,), DType(int, 64)),
        lambda b: b.as_tensor(np.ones(2, np.int64)),
    ],
)
def test_x64_is_switched_on_by_64_bit_dtypes_and_data(b: bk.Backend, x64_off: Any, request_64: Any) -> None:
    assert b.dtype(request_64(b)).bits == 64
    assert x64_off.config.jax_enable_x64


def test_an_explicit_environment_choice_is_respected(b: bk.Backend, x64_off: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAX_ENABLE_X64", "0")
    assert x64_locked_off()
    with pytest.raises(TypeError, match="JAX_ENABLE_X64='0' keeps it off"):
        b.cast(b.as_tensor([1.0]), DType(float, 64))
    with pytest.raises(TypeError, match="64-bit mode"), bk.precision(64):
        b.ones((2,))
    assert b.as_tensor(np.ones(2)).dtype == jnp.float32  # as JAX converts 64-bit data with x64 off
    assert not x64_off.config.jax_enable_x64


def test_a_thread_local_choice_is_respected(b: bk.Backend, x64_off: Any) -> None:
    with x64_off.enable_x64(False), pytest.raises(TypeError, match="switched off for this thread"):
        b.zeros((1,), DType(complex, 128))
    assert not x64_off.config.jax_enable_x64


# ---------------------------------------------------------------- tracers and immutability


def test_tracers_are_not_available(b: bk.Backend) -> None:
    seen: list[Any] = []

    def record(x: Any) -> Any:
        seen.append((b.is_available(x), b.staticshape(x)))
        with pytest.raises(TypeError, match="NumPy value of a JAX tracer"):
            b.numpy(x)
        return x * 2

    jax.jit(record)(jnp.ones(3))
    b.jacobian(lambda x: (b.sum(record(x)),), [0], False, True)(jnp.ones(3))
    b.vectorized_call(record, jnp.ones((2, 3)))
    assert seen == [(False, (3,))] * 2 + [(False, (3,))]
    assert b.is_available(jnp.ones(3)) and b.is_available(np.ones(3))


def test_scatter_returns_a_new_array(b: bk.Backend) -> None:
    base = jnp.zeros((1, 3, 1))
    result = b.scatter(base, jnp.array([[[1]]]), jnp.array([[[5.0]]]), "add")
    assert result.tolist() == [[[0.0], [5.0], [0.0]]] and base.tolist() == [[[0.0]] * 3]
    assert b.copy(base, only_mutable=True) is base and b.copy(base) is not base


def test_numpy_shares_memory_read_only(b: bk.Backend) -> None:
    array = b.numpy(jnp.arange(3.0))
    assert not array.flags.writeable and array.tolist() == [0.0, 1.0, 2.0]


def test_bad_arguments_are_clear_errors(b: bk.Backend) -> None:
    x = jnp.ones((2, 2))
    with pytest.raises(ValueError, match="^pad: unknown mode"):
        b.pad(x, ((1, 1), (1, 1)), "wrap")
    with pytest.raises(ValueError, match=r"^pad: pad_width must hold 2 \(lower, upper\) pairs"):
        b.pad(x, ((1, 1),))
    with pytest.raises(ValueError, match="^scatter: .*mode"):
        b.scatter(jnp.zeros((1, 2, 1)), jnp.zeros((1, 1, 1), int), jnp.ones((1, 1, 1)), "mul")
    with pytest.raises(ValueError, match="^searchsorted: .*'left'"):
        b.searchsorted(jnp.arange(3), jnp.ones(1), "middle")
    with pytest.raises(ValueError, match="^random_uniform: "):
        b.random_uniform((2,), 0, 1, DType(bool))


# ---------------------------------------------------------------- devices


def test_cpu_device(b: bk.Backend) -> None:
    cpu = b.list_devices("CPU")[0]
    assert cpu.device_type == "CPU" and cpu.processor_count >= 1 and cpu.ref.platform == "cpu"
    assert b.get_device(b.zeros((1,))) == b.get_default_device()
    moved = b.allocate_on_device(np.ones(2), cpu)
    assert moved.devices() == {cpu.ref} and b.get_device(moved) == cpu
    assert b.get_device(b.sparse_coo_tensor(np.zeros((1, 2), np.int32), np.ones(1, np.float32), (2, 2))) == b.get_default_device()


def test_default_device_is_jax_default(b: bk.Backend) -> None:
    assert b.get_default_device().ref == jax.devices()[0]
    assert len(b.list_devices()) == len(jax.devices("cpu")) + len([d for d in jax.devices() if d.platform != "cpu"])


def test_set_default_device_gpu(b: bk.Backend) -> None:
    if not b.list_devices("GPU"):
        with pytest.warns(RuntimeWarning, match="no GPU device"):
            assert b.set_default_device("GPU") is False
        return
    original = b.get_default_device()
    try:
        assert b.set_default_device("GPU")
        assert b.get_device(b.zeros((2,))) == b.get_default_device()
    finally:
        b.set_default_device(original)


def test_foreign_device_is_rejected(b: bk.Backend) -> None:
    with pytest.raises(ValueError, match="not a device of the jax backend"):
        b.allocate_on_device(jnp.ones(1), bk.OBJECTS.get_default_device())


# ---------------------------------------------------------------- random numbers


def test_seed_and_ranges(b: bk.Backend) -> None:
    b.seed(7)
    first = b.random_uniform((50,), -2, 3, None)
    b.seed(7)
    assert jnp.array_equal(first, b.random_uniform((50,), -2, 3, None))
    assert not jnp.array_equal(first, b.random_uniform((50,), -2, 3, None))  # every call splits the key
    assert first.min() >= -2 and first.max() < 3
    ints = b.random_uniform((100,), 2, 5, DType(int, 32))
    assert ints.dtype == jnp.int32 and set(ints.tolist()) <= {2, 3, 4}
    z = b.random_uniform((10,), 0, 1 + 1j, DType(complex, 64))
    assert z.dtype == jnp.complex64 and bool(jnp.all((z.imag >= 0) & (z.imag < 1)))


def test_random_numbers_inside_jit_are_constants_of_the_trace(b: bk.Backend) -> None:
    noisy = b.jit_compile(lambda x: x + b.random_normal((3,), None))
    first = noisy(jnp.zeros(3))
    assert jnp.array_equal(first, noisy(jnp.zeros(3)))  # documented: pass keys for fresh numbers
    assert b.is_available(b._key)  # the backend's key never becomes a tracer


# ---------------------------------------------------------------- DLPack


def test_dlpack_shares_memory_with_numpy(b: bk.Backend) -> None:
    buffer = np.empty(4 + 16)
    start = (-buffer.ctypes.data % 64) // 8
    array = buffer[start : start + 4]
    array[:] = np.arange(4.0)
    tensor = b.from_dlpack(array)
    array[0] = 42
    assert float(tensor[0]) == 42  # JAX reads the NumPy buffer it shares
    back = np.from_dlpack(b.to_dlpack(tensor))
    assert np.shares_memory(back, array)


def test_dlpack_copies_strided_views_and_rejects_capsules(b: bk.Backend) -> None:
    strided = np.arange(12.0)[::3]
    assert b.from_dlpack(strided).tolist() == strided.tolist()
    with pytest.raises(TypeError, match="not PyCapsule"):
        b.from_dlpack(np.arange(3.0).__dlpack__())
    with pytest.raises(TypeError, match="no buffer to share"):
        b.to_dlpack(b.sparse_coo_tensor(np.zeros((1, 2), np.int32), np.ones(1, np.float32), (2, 2)))
