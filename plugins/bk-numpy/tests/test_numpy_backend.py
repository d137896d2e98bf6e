"""NumPy-specific behaviour of bk-numpy; conformance of every feature is the testkit's job."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse

import bk
from bk import DType
from bk_numpy._backend import NumPyBackend


@pytest.fixture(scope="module")
def b() -> NumPyBackend:
    return NumPyBackend()


# ---------------------------------------------------------------- plugin and features


def test_plugin_module_imports_neither_scipy_nor_backend() -> None:
    code = "import sys, bk_numpy.plugin as p; p.bk_backends(); print(sorted(m for m in ('scipy', 'bk_numpy._backend') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_loading_the_backend_does_not_import_scipy() -> None:
    code = "import sys, bk; bk.backend('numpy').add(1, 2); print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_kernels_declare_themselves_with_a_reason() -> None:
    """Trust is declared on each kernel (`bk.rules.kernel`), with why: the tuned reductions, the unary
    functions that keep ints and the conversions; the bare kernels are planned, most with a fast call."""
    declared = NumPyBackend.declared_kernels()
    trusted = {op for op, declaration in declared.items() if declaration.trusted}
    assert trusted == NumPyBackend.trusted_operations
    assert {"sum", "mean", "abs", "floor", "square", "as_tensor", "cast"} <= trusted
    assert all(declared[op].why for op in trusted), sorted(op for op in trusted if not declared[op].why)
    assert not trusted & {"add", "div", "where", "sin", "log1p", "trunc", "sigmoid", "matmul"}
    assert declared["add"].fast is not None and declared["sin"].fast is not None and declared["matmul"].fast is not None
    assert [op for op, declaration in declared.items() if declaration.explains] == ["mean"]


def test_registered_under_its_name() -> None:
    backend = bk.backend("numpy")
    assert isinstance(backend, NumPyBackend)
    assert backend.name == "numpy"


@pytest.mark.parametrize(
    "feature",
    ["gradients", "jit", "jacobian", "hessian", "custom_gradient", "jit_compile", "sparse_coo_tensor_batched", "variable"],
)
def test_unsupported_features(b: NumPyBackend, feature: str) -> None:
    assert not b.supports(feature)


@pytest.mark.parametrize(
    "feature",
    [
        "dlpack",
        "sparse",
        "float64",
        "devices",
        "scatter",
        "pad",
        "conv",
        "grid_sample",
        "fft",
        "searchsorted",
        "erf",
        "solve_triangular_sparse",
        "while_loop",
        "seed",
    ],
)
def test_supported_features(b: NumPyBackend, feature: str) -> None:
    assert b.supports(feature)


def test_jacobian_raises(b: NumPyBackend) -> None:
    with pytest.raises(NotImplementedError):
        b.jacobian(lambda x: (x, ()), [0], False, True)


# ---------------------------------------------------------------- tensors, dtypes and precision


def test_is_tensor(b: NumPyBackend) -> None:
    assert b.is_tensor(np.ones(2), only_native=True)
    assert b.is_tensor(np.float32(1), only_native=True)
    assert b.is_tensor(scipy.sparse.csr_array(np.eye(2)), only_native=True)
    assert not b.is_tensor(1.0, only_native=True)
    assert b.is_tensor([[1, 2.0], (3, True)])
    assert not b.is_tensor("a")
    assert not b.is_tensor([1, "a"])


def test_numpy_returns_the_array_itself(b: NumPyBackend) -> None:
    x = np.arange(3)
    assert b.numpy(x) is x
    assert b.as_tensor(x) is x


def test_python_numbers(b: NumPyBackend) -> None:
    assert b.as_tensor(1).dtype == np.int64
    assert b.as_tensor(1.5).dtype == np.float32
    assert b.as_tensor(1j).dtype == np.complex64
    assert b.as_tensor([1.0, 2]).dtype == np.float32
    # a NumPy scalar in a list keeps its dtype, as on every other backend (numpy.float64 subclasses float, yet is strong)
    assert b.as_tensor([np.float64(1.5), 2.0]).dtype == np.float64
    assert b.as_tensor(2, convert_external=False) == 2
    assert b.dtype(1) == DType(int, 32) and b.dtype(1.0) == DType(float, 64) and b.dtype(True) == DType(bool)


def test_precision(b: NumPyBackend) -> None:
    x64 = np.ones(2)
    assert b.as_tensor(x64).dtype == np.float64  # None keeps the input's precision
    with bk.precision(32):
        assert b.as_tensor(x64).dtype == np.float32
        assert b.as_tensor(np.ones(2, np.complex128)).dtype == np.complex64
        assert b.add(x64, x64).dtype == np.float32
        assert b.sin(x64).dtype == np.float32
        assert b.zeros((2,)).dtype == np.float32
    with bk.precision(64):
        assert b.add(np.ones(2, np.float32), np.ones(2, np.float32)).dtype == np.float64
        assert b.as_tensor(1.5).dtype == np.float64
        assert b.random_normal((2,), None).dtype == np.float64
        assert b.as_tensor(np.arange(2)).dtype == np.arange(2).dtype  # ints never change
    assert b.zeros((2,)).dtype == np.float32


def test_promotion_and_weak_python_scalars(b: NumPyBackend) -> None:
    f32, i32 = np.ones(2, np.float32), np.ones(2, np.int32)
    assert b.add(f32, 2.5).dtype == np.float32
    assert b.add(i32, 2).dtype == np.int32
    assert b.add(i32, 2.5).dtype == np.float32
    assert b.add(np.ones(2, np.int64), f32).dtype == np.float32  # int with float gives that float
    assert b.add(np.array([True]), np.array([True])).tolist() == [2]
    assert b.div(i32, i32).dtype == np.float32
    assert b.mul(f32, 1j).dtype == np.complex64


def test_cast_complex_to_real_keeps_real_part_without_warning(b: NumPyBackend) -> None:
    assert b.cast(np.array([1 + 2j]), DType(float, 32)).tolist() == [1.0]


# ---------------------------------------------------------------- devices, memory, randomness


def test_devices(b: NumPyBackend) -> None:
    (cpu,) = b.list_devices()
    assert cpu.device_type == "CPU" and cpu.processor_count >= 1
    x = np.ones(2)
    assert b.get_device(x) == cpu
    assert b.allocate_on_device(x, cpu) is x
    assert b.list_devices("GPU") == []


def test_dlpack_shares_memory(b: NumPyBackend) -> None:
    x = np.arange(4.0)
    y = b.from_dlpack(b.to_dlpack(x))
    x[0] = 42
    assert y[0] == 42


def test_dlpack_accepts_a_raw_capsule(b: NumPyBackend) -> None:
    x = np.arange(3, dtype=np.float32)
    y = b.from_dlpack(x.__dlpack__())
    assert np.shares_memory(x, y)


def test_copy_does_not_share(b: NumPyBackend) -> None:
    x = np.zeros(2)
    y = b.copy(x)
    y[0] = 1
    assert x[0] == 0


def test_seed_reproducible(b: NumPyBackend) -> None:
    b.seed(7)
    first = (b.random_uniform((3,), 0, 1, None), b.random_normal((3,), None), b.random_uniform((3,), 0, 100, DType(int, 64)))
    b.seed(7)
    second = (b.random_uniform((3,), 0, 1, None), b.random_normal((3,), None), b.random_uniform((3,), 0, 100, DType(int, 64)))
    for x, y in zip(first, second, strict=True):
        assert np.array_equal(x, y)
    assert first[2].dtype == np.int64


def test_random_uniform_complex(b: NumPyBackend) -> None:
    z = b.random_uniform((1000,), 0, 1 + 2j, DType(complex, 128))
    assert z.dtype == np.complex128
    assert z.real.min() >= 0 and z.real.max() < 1 and z.imag.min() >= 0 and z.imag.max() < 2 and z.imag.max() > 1


# ---------------------------------------------------------------- indexing


@pytest.mark.parametrize(
    ("mode", "expected"), [("update", [9, 1, 9]), ("add", [18, 1, 11]), ("max", [9, 1, 9]), ("min", [0, 1, 2])]
)
def test_scatter_modes_broadcast_batch_one(b: NumPyBackend, mode: str, expected: list[int]) -> None:
    base = np.tile(np.array([1.0, 1.0, 2.0])[None, :, None], (2, 1, 1))
    base[:, 0] = 0  # base along the spatial axis: [0, 1, 2]
    indices = np.array([[[0], [2], [0]]])  # batch 1: broadcast to both batch entries
    values = np.array([[[9.0]]])  # batch 1, one update, one channel: broadcast
    result = b.scatter(base, indices, values, mode)
    assert result.shape == (2, 3, 1)
    assert result[0, :, 0].tolist() == expected and result[1, :, 0].tolist() == expected
    assert base[0, 0, 0] == 0  # the base grid is not modified


def test_scatter_rejects_unknown_mode(b: NumPyBackend) -> None:
    with pytest.raises(ValueError, match="'update', 'add', 'max' or 'min' but got 'sum'"):
        b.scatter(np.zeros((1, 2, 1)), np.zeros((1, 1, 1), int), np.ones((1, 1, 1)), "sum")


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("constant", [7, 7, 1, 2, 3, 7, 7]),
        ("boundary", [1, 1, 1, 2, 3, 3, 3]),
        ("periodic", [2, 3, 1, 2, 3, 1, 2]),
        ("symmetric", [2, 1, 1, 2, 3, 3, 2]),
        ("reflect", [3, 2, 1, 2, 3, 2, 1]),
    ],
)
def test_pad_modes(b: NumPyBackend, mode: str, expected: list[int]) -> None:
    assert b.pad(np.array([1, 2, 3]), [(2, 2)], mode, constant_values=7).tolist() == expected


def test_pad_unknown_mode_raises_value_error(b: NumPyBackend) -> None:
    with pytest.raises(ValueError, match="pad"):  # docs/semantics.md: an unknown mode is ValueError, on every backend
        b.pad(np.ones(2), [(1, 1)], "mirror")


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_batched(b: NumPyBackend, side: str) -> None:
    sequences = np.array([[1.0, 2.0, 2.0, 5.0], [0.0, 0.0, 3.0, 3.0]])
    values = np.array([[2.0, 6.0, 0.0], [3.0, -1.0, 0.0]])
    expected = [np.searchsorted(s, v, side) for s, v in zip(sequences, values, strict=True)]
    result = b.searchsorted(sequences, values, side, DType(int, 64))
    assert result.dtype == np.int64
    assert result.tolist() == np.stack(expected).tolist()


def test_grid_sample_matches_pad(b: NumPyBackend) -> None:
    grid = np.arange(5.0)[None, :, None]
    padded = {
        m: np.pad(grid[0, :, 0], 6, mode=p)
        for m, p in (("periodic", "wrap"), ("symmetric", "symmetric"), ("reflect", "reflect"), ("boundary", "edge"))
    }
    points = np.array([-4.0, -1.0, 5.0, 8.0])
    for mode, reference in padded.items():
        result = b.grid_sample(grid, points[None, :, None], mode)
        assert result[0, :, 0].tolist() == reference[points.astype(int) + 6].tolist(), mode
    assert b.grid_sample(grid, np.array([[[-0.5], [1.5]]]), "zeros")[0, :, 0].tolist() == [0.0, 1.5]
    # not an extrapolation at all: the spec's error
    with pytest.raises(ValueError, match="^grid_sample: unknown extrapolation 'cubic'"):
        b.grid_sample(grid, np.array([[[0.5]]]), "cubic")


def test_conv_same_matches_scipy(b: NumPyBackend) -> None:
    from scipy.signal import correlate

    rng = np.random.default_rng(1)
    value, kernel = rng.normal(size=(1, 1, 6, 5)), rng.normal(size=(1, 1, 1, 2, 3))
    expected = correlate(value[0, 0], kernel[0, 0, 0], mode="same")
    assert np.allclose(b.conv(value, kernel, True)[0, 0], expected, atol=1e-6)
    assert b.conv(value, kernel, False).shape == (1, 1, 5, 3)


def test_repeat_new_length_pads_with_last_value(b: NumPyBackend) -> None:
    assert b.repeat(np.array([4, 5, 6]), np.array([1, 0, 2]), 0, new_length=5).tolist() == [4, 6, 6, 6, 6]
    assert b.repeat(np.array([4, 5, 6]), np.array([1, 0, 2]), 0, new_length=2).tolist() == [4, 6]


# ---------------------------------------------------------------- sparse


def _dense() -> np.ndarray:
    return np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]])


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
def test_sparse_round_trip_through_disassemble(b: NumPyBackend, fmt: str) -> None:
    dense = _dense()
    if fmt == "coo":
        matrix = b.sparse_coo_tensor(np.argwhere(dense), dense[dense != 0], dense.shape)
    elif fmt == "csr":
        csr = scipy.sparse.csr_array(dense)
        matrix = b.csr_matrix(csr.indices, csr.indptr, csr.data, dense.shape)
    else:
        csc = scipy.sparse.csc_array(dense)
        matrix = b.csc_matrix(csc.indptr, csc.indices, csc.data, dense.shape)
    assert b.is_sparse(matrix) and b.get_sparse_format(matrix) == fmt
    assemble, parts = b.disassemble(matrix)
    assert all(isinstance(p, np.ndarray) for p in parts)
    rebuilt = assemble(b, *parts)
    assert b.get_sparse_format(rebuilt) == fmt
    assert np.array_equal(rebuilt.toarray(), dense)
    assert b.numpy(matrix) is matrix


def test_dense_disassembles_into_itself(b: NumPyBackend) -> None:
    x = _dense()
    assemble, parts = b.disassemble(x)
    assert b.get_sparse_format(x) == "dense" and not b.is_sparse(x)
    assert assemble(b, *parts) is x


def test_sparse_products(b: NumPyBackend) -> None:
    dense = _dense()
    matrix = b.sparse_coo_tensor(np.argwhere(dense), dense[dense != 0], dense.shape)
    vectors = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    assert np.allclose(b.mul_matrix_batched_vector(matrix, vectors), vectors @ dense.T, atol=1e-6)
    rhs = np.ones((1, 3, 1, 2))
    coo = np.argwhere(dense)[None]
    assert np.allclose(
        b.mul_coo_dense(coo, dense[dense != 0][None, :, None], dense.shape, rhs)[0, :, 0], dense @ rhs[0, :, 0], atol=1e-6
    )


def test_solve_triangular_sparse(b: NumPyBackend) -> None:
    lower = np.array([[2.0, 0.0], [1.0, 4.0]])
    x = b.solve_triangular_sparse(scipy.sparse.csr_array(lower), np.array([[2.0, 9.0]]), lower=True, unit_diagonal=False)
    assert np.allclose(x, [[1.0, 2.0]], atol=1e-12)


@pytest.mark.parametrize("name", ["csr_matrix", "csc_matrix"])
def test_compressed_sparse_indices_are_checked(name):
    """SciPy builds these without looking at the indices and later reads out of bounds; bk checks first."""
    b = bk.backend("numpy")
    values = np.array([1.0, 2.0])

    def make(indices):  # csr_matrix takes (indices, pointers, ...), csc_matrix (pointers, indices, ...)
        pointers = np.array([0, 1, 2])
        return getattr(b, name)(*((indices, pointers) if name == "csr_matrix" else (pointers, indices)), values, (2, 2))

    with pytest.raises(bk.IndexOutOfRangeError, match=name):
        make(np.array([0, 5]))
    matrix = make(np.array([0, 1]))
    np.testing.assert_array_equal(matrix.toarray(), np.diag(values))


def test_linspace_of_python_reals_is_numpys_linspace_value_for_value():
    import itertools

    from bk_numpy._backend import _linspace

    starts = [0.0, 1, -3.5, 1e300, -1e300, 5e-324, 2**60, float("inf"), float("nan")]
    stops = [1.0, 0, 7, 1e-320, -2.5, 2**61 + 1, float("inf")]
    for start, stop, number, endpoint in itertools.product(starts, stops, [0, 1, 2, 3, 10, 50], [True, False]):
        for dtype in (np.float16, np.float32, np.float64):
            with np.errstate(all="ignore"):
                ours = _linspace(start, stop, number, endpoint, np.dtype(dtype))
                theirs = np.linspace(start, stop, number, endpoint=endpoint, dtype=dtype)
            assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs, equal_nan=True), (
                start,
                stop,
                number,
                endpoint,
                dtype,
            )


def test_creation_kernels_agree_with_the_generic_defaults():
    b = bk.backend("numpy")
    for dtype in (bk.DType(float, 32), bk.DType(float, 64), bk.DType(int, 8), bk.DType(bool), bk.DType(complex, 64)):
        for fill in (True, 3, -128, 2.5, 1j, 300):
            ours = b.full((2, 3), fill, dtype) if not (dtype.kind is int and fill == 300) else None
            if ours is None:
                with pytest.raises(OverflowError, match="full"):
                    b.full((2, 3), fill, dtype)
                continue
            reference = bk.Backend.full.__wrapped__(b, (2, 3), fill, dtype) if hasattr(bk.Backend.full, "__wrapped__") else None
            if reference is not None:
                assert ours.dtype == reference.dtype and np.array_equal(ours, reference)
            like = b.full_like(np.zeros((2, 3), np.float64), fill, dtype)
            assert like.dtype == ours.dtype and np.array_equal(like, ours)
    assert b.range(0, 10, 3, bk.DType(int, 64)).tolist() == [0, 3, 6, 9]
    assert b.range(10, 0, -4, bk.DType(int, 64)).tolist() == [10, 6, 2]
    assert b.range(5, 5, 1, bk.DType(int, 64)).shape == (0,)
    np.testing.assert_array_equal(b.eye(3, 4, -1, bk.DType(int, 8)), np.eye(3, 4, -1, np.int8))
