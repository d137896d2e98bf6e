"""PyTorch-specific work behind the rules of docs/semantics.md: what PyTorch cannot do directly.

The rules themselves are checked by the testkit (`testkit certify torch`); these tests cover how
bk-torch gets there: unsigned ints wider than 8 bits (almost no PyTorch kernels), the cached CSR
copy of sparse matrices, integer division by zero, negative slice steps, NaN in searchsorted and
unique, and complex sorting.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
import scipy.sparse
import torch

import bk

BIG = np.array([0, 2**63 - 1, 2**63, 2**64 - 1, 5], np.uint64)  # beyond int64: the order trick must be exact


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_wide_unsigned_operators(b: bk.Backend, dtype: type) -> None:
    x, y = np.array([7, 0, 3], dtype), np.array([2, 5, 3], dtype)
    tx, ty = b.as_tensor(x), b.as_tensor(y)
    for name, expected in [
        ("add", x + y), ("sub", x - y), ("mul", x * y), ("maximum", np.maximum(x, y)), ("minimum", np.minimum(x, y)),
        ("floordiv", x // y), ("mod", x % y), ("xor", x ^ y), ("greater_than", x > y), ("greater_or_equal", x >= y),
    ]:
        result = getattr(b, name)(tx, ty)
        assert b.dtype(result) == bk.from_numpy_dtype(expected.dtype), name
        np.testing.assert_array_equal(b.numpy(result), expected, err_msg=name)
    np.testing.assert_array_equal(b.numpy(b.invert(tx)), ~x)
    np.testing.assert_array_equal(b.numpy(b.sort(tx)), np.sort(x))
    np.testing.assert_array_equal(b.numpy(b.max(tx)), x.max())
    np.testing.assert_array_equal(b.numpy(b.sum(tx)), np.sum(x))


def test_uint64_order_beyond_int64(b: bk.Backend) -> None:
    x = b.as_tensor(BIG)
    np.testing.assert_array_equal(b.numpy(b.sort(x)), np.sort(BIG))
    np.testing.assert_array_equal(b.numpy(b.argsort(x)), np.argsort(BIG, kind="stable"))
    assert int(b.numpy(b.max(x))) == 2**64 - 1 and int(b.numpy(b.argmin(x))) == 0
    np.testing.assert_array_equal(b.numpy(b.greater_than(x, b.as_tensor(np.full(5, 2**63 - 1, np.uint64)))), BIG > 2**63 - 1)
    np.testing.assert_array_equal(b.numpy(b.clip(x, 3, 2**63)), np.clip(BIG, 3, 2**63))
    np.testing.assert_array_equal(b.numpy(b.unique(x, False, False, None)[0]), np.unique(BIG))


def test_clip_bounds_outside_the_integer_range(b: bk.Backend) -> None:
    result = b.clip(b.as_tensor(np.array([0, 100, 255], np.uint8)), -5, 200)
    assert result.dtype == torch.uint8
    np.testing.assert_array_equal(b.numpy(result), [0, 100, 200])


def test_integer_division_by_zero_is_zero(b: bk.Backend) -> None:
    x, y = b.as_tensor(np.array([7, -7, 3], np.int32)), b.as_tensor(np.array([0, 2, 0], np.int32))
    np.testing.assert_array_equal(b.numpy(b.floordiv(x, y)), [0, -4, 0])
    np.testing.assert_array_equal(b.numpy(b.mod(x, y)), [0, 1, 0])


def test_shape_errors_are_translated(b: bk.Backend) -> None:
    x, y = b.as_tensor(np.ones((2, 3), np.float32)), b.as_tensor(np.ones(4, np.float32))
    with pytest.raises(bk.ShapeMismatchError, match="^add: "):
        b.add(x, y)
    with pytest.raises(bk.ShapeMismatchError, match="^where: "):
        b.where(b.as_tensor(np.ones(5, bool)), y, y)
    with pytest.raises(bk.ShapeMismatchError, match="^concat: "):
        b.concat([x, y[None]], 0)


def test_multi_slice_negative_steps(b: bk.Backend) -> None:
    array = np.arange(60).reshape(3, 4, 5)
    x = b.as_tensor(array)
    for slices in [(slice(None, None, -1),), (1, slice(3, 0, -2)), (Ellipsis, slice(None, None, -3)), (slice(None), None, slice(-1, None, -1))]:
        np.testing.assert_array_equal(b.numpy(b.multi_slice(x, slices)), array[slices], err_msg=str(slices))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_nan_after_inf(b: bk.Backend, side: str) -> None:
    sequence = np.array([-np.inf, 1.0, 2.0, np.inf, np.inf, np.nan, np.nan])
    values = np.array([np.nan, np.inf, 1.5, -np.inf, 2.0])
    result = b.searchsorted(b.as_tensor(sequence), b.as_tensor(values), side, bk.DType(int, 64))
    np.testing.assert_array_equal(b.numpy(result), np.searchsorted(sequence, values, side))


def test_unique_one_nan_with_inverse_and_counts(b: bk.Backend) -> None:
    x = np.array([[3.0, np.nan], [1.0, 3.0], [np.nan, np.nan]])
    values, inverse, counts = b.unique(b.as_tensor(x), True, True, None)
    expected = np.unique(x, return_inverse=True, return_counts=True, equal_nan=True)
    np.testing.assert_array_equal(b.numpy(values), expected[0])
    np.testing.assert_array_equal(b.numpy(inverse), np.reshape(expected[1], -1))  # flat, as on every backend (docs/semantics.md)
    np.testing.assert_array_equal(b.numpy(counts), expected[2])


def test_complex_sort_is_lexicographic(b: bk.Backend) -> None:
    x = np.array([[1 + 2j, 1 + 1j, 5j, 1 + 1j], [3, 2j, -1j, 0]])
    np.testing.assert_array_equal(b.numpy(b.sort(b.as_tensor(x), -1)), np.sort(x, -1))
    np.testing.assert_array_equal(b.numpy(b.argsort(b.as_tensor(x), 0)), np.argsort(x, 0, kind="stable"))


def test_indexed_segment_sum_ignores_elements_before_the_first_start(b: bk.Backend) -> None:
    x = np.arange(1.0, 7.0)[None]
    result = b.indexed_segment_sum(b.as_tensor(x), b.as_tensor(np.array([[2, 4]])), 1)
    np.testing.assert_array_equal(b.numpy(result), np.add.reduceat(x, [2, 4], axis=1))


def test_as_tensor_layouts(b: bk.Backend) -> None:
    import ml_dtypes

    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    for variant in (array[::-1, ::-2], array.astype(">f4"), array.T):
        result = b.as_tensor(variant)
        assert result.dtype == torch.float32
        np.testing.assert_array_equal(b.numpy(result), variant)
    brain = b.as_tensor(array.astype(ml_dtypes.bfloat16)[:, ::-1])
    assert brain.dtype == torch.bfloat16
    np.testing.assert_array_equal(b.numpy(brain).astype(np.float32), array[:, ::-1])


# ---------------------------------------------------------------- sparse products through a cached CSR copy


def _poisson_coo(b: bk.Backend, n: int = 6) -> tuple[torch.Tensor, scipy.sparse.csr_matrix]:
    one_d = scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    matrix = scipy.sparse.csr_matrix(scipy.sparse.kron(one_d, scipy.sparse.identity(n)) + scipy.sparse.kron(scipy.sparse.identity(n), one_d))
    return b.sparse_coo_tensor(np.stack(matrix.nonzero(), -1), matrix.data, matrix.shape), matrix


def test_sparse_product_uses_a_cached_csr_copy(b: bk.Backend) -> None:
    coo, matrix = _poisson_coo(b)
    vectors = np.random.default_rng(0).normal(size=(3, matrix.shape[0]))
    for batch in (vectors[:1], vectors):
        np.testing.assert_allclose(b.numpy(b.mul_matrix_batched_vector(coo, b.as_tensor(batch))), batch @ matrix.T, atol=1e-12)
    from bk_torch._linalg import _CSR_CACHE

    cached = _CSR_CACHE[id(coo)][2]
    assert cached.layout == torch.sparse_csr
    assert cached.crow_indices().dtype == cached.col_indices().dtype == torch.int32  # fit: PyTorch's products read them faster
    b.mul_matrix_batched_vector(coo, b.as_tensor(vectors))
    assert _CSR_CACHE[id(coo)][2] is cached  # converted once
    copied = copy.deepcopy(coo)  # the cache is no attribute: CSR tensors cannot be deep-copied
    np.testing.assert_allclose(b.numpy(b.mul_matrix_batched_vector(copied, b.as_tensor(vectors))), vectors @ matrix.T, atol=1e-12)
    identity = id(coo)
    del coo, copied
    assert identity not in _CSR_CACHE  # the entry left with its matrix


def test_sparse_cache_follows_in_place_changes(b: bk.Backend) -> None:
    coo, matrix = _poisson_coo(b)
    vector = np.ones((1, matrix.shape[0]))
    b.mul_matrix_batched_vector(coo, b.as_tensor(vector))
    coo.mul_(2.0)  # bumps the tensor's version counter
    np.testing.assert_allclose(b.numpy(b.mul_matrix_batched_vector(coo, b.as_tensor(vector))), 2 * vector @ matrix.T, atol=1e-12)


def test_sparse_product_keeps_gradients_of_the_values(b: bk.Backend) -> None:
    values = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    matrix = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1], [0, 0, 1]]), values, (2, 2), check_invariants=True)
    result = b.mul_matrix_batched_vector(matrix, torch.tensor([[1.0, 10.0]], dtype=torch.float64))
    result.sum().backward()
    np.testing.assert_allclose(values.grad.numpy(), [1.0, 1.0, 10.0], atol=1e-6)


# ---------------------------------------------------------------- the eager CG fast path


@pytest.mark.parametrize("layout", ["coo", "dense", "coo32"])
@pytest.mark.parametrize(("x0_scale", "max_iter", "rtol", "atol"), [(0.0, 1000, 1e-6, 0.0), (1.0, 5, 1e-6, 0.0), (0.0, np.array([7]), 0.0, 1e-3)])
def test_cg_fast_path_equals_the_core_iteration(b: bk.Backend, layout: str, x0_scale: float, max_iter: Any, rtol: float, atol: float) -> None:
    coo, matrix = _poisson_coo(b)
    dtype = np.float32 if layout == "coo32" else np.float64
    lin = torch.tensor(matrix.toarray()) if layout == "dense" else coo.to(torch.float32) if layout == "coo32" else coo
    rng = np.random.default_rng(2)
    y = b.as_tensor(rng.normal(size=(1, matrix.shape[0])).astype(dtype))
    x0 = b.as_tensor((x0_scale * rng.normal(size=(1, matrix.shape[0]))).astype(dtype))
    fast = b.conjugate_gradient(lin, y, x0, rtol, atol, max_iter, None, None)
    core = bk.Backend.conjugate_gradient(b, lin, y, x0, rtol, atol, max_iter, None, None)
    # float32 dot products may round differently (another summation order): one iteration more or less
    exact = dtype == np.float64
    assert fast.method == core.method and (fast.message == core.message or not exact)
    for field in ("x", "residual", "iterations", "function_evaluations", "converged", "diverged"):
        ours, theirs = getattr(fast, field), getattr(core, field)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, field
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-9 if exact else 1 if field in ("iterations", "function_evaluations") else 1e-3, err_msg=field)


def test_cg_zero_right_hand_side_and_batches(b: bk.Backend) -> None:
    coo, matrix = _poisson_coo(b)
    n = matrix.shape[0]
    result = b.linear_solve("CG", coo, b.as_tensor(np.zeros((1, n))), b.as_tensor(np.zeros((1, n))), 1e-5, 0.0, 100, None, None)
    assert int(result.iterations[0]) == 0 and bool(result.converged[0])
    y = np.random.default_rng(3).normal(size=(2, n))  # two systems: the core's batched loop
    result = b.linear_solve("CG", coo, b.as_tensor(y), b.as_tensor(np.zeros((2, n))), 1e-8, 0.0, 1000, None, None)
    np.testing.assert_allclose(b.numpy(result.x) @ matrix.T.toarray(), y, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_wide_unsigned_moves_and_products(b: bk.Backend, dtype: type) -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype)
    tx = b.as_tensor(x)
    np.testing.assert_array_equal(b.numpy(b.flip(tx, (-1,))), x[:, ::-1])
    np.testing.assert_array_equal(b.numpy(b.einsum("ij,kj->ik", tx, tx)), x @ x.T)
    np.testing.assert_array_equal(b.numpy(b.tensordot(tx, [1], tx, [1])), x @ x.T)
    grid, indices, values = b.as_tensor(x[None, :, :, None]), b.as_tensor(np.array([[[0, 1], [1, -1]]])), b.as_tensor(np.array([[[7], [9]]], dtype))
    expected = x.copy()
    expected[0, 1], expected[1, 2] = 7, 9
    np.testing.assert_array_equal(b.numpy(b.scatter(grid, indices, values, "update"))[0, ..., 0], expected)
    expected = x.copy()
    expected[0, 1], expected[1, 2] = 2 + 7, 6 + 9
    np.testing.assert_array_equal(b.numpy(b.scatter(grid, indices, values, "add"))[0, ..., 0], expected)
    np.testing.assert_array_equal(b.numpy(b.nonzero(b.sub(tx, 1))), np.argwhere(x - 1))


def test_bool_products_as_numpy(b: bk.Backend) -> None:
    x = np.array([[True, False], [False, False]])
    np.testing.assert_array_equal(b.numpy(b.einsum("ij,jk->ik", b.as_tensor(x), b.as_tensor(x))), np.einsum("ij,jk->ik", x, x))
    np.testing.assert_array_equal(b.numpy(b.tensordot(b.as_tensor(x), [1], b.as_tensor(x), [0])), np.tensordot(x, x, ([1], [0])))


def test_jit_graph_errors_are_the_operations_errors(b: bk.Backend) -> None:
    gather = b.jit_compile(lambda x, i: b.gather_1d(x, i))
    x = b.as_tensor(np.arange(5.0))
    np.testing.assert_array_equal(b.numpy(gather(x, b.as_tensor(np.array([1, -1])))), [1.0, 4.0])
    with pytest.raises(bk.IndexOutOfRangeError, match="^gather_1d: "):
        gather(x, b.as_tensor(np.array([7, 0])))  # the traced graph refuses; eagerly, the operation says why


def test_comparisons_with_python_ints_outside_the_range(b: bk.Backend) -> None:
    x = np.array([1, -5], np.int8)
    for value in (300, -300, 2**70):
        np.testing.assert_array_equal(b.numpy(b.greater_than(b.as_tensor(x), value)), x > value)
        np.testing.assert_array_equal(b.numpy(b.greater_or_equal(value, b.as_tensor(x))), value >= x)
        np.testing.assert_array_equal(b.numpy(b.equal(b.as_tensor(x), value)), x == value)
    with pytest.raises(OverflowError):
        b.add(b.as_tensor(x), 300)


# ---------------------------------------------------------------- NumPy's rules at the edges (differential run)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
def test_integer_only_operations_refuse_floats_and_complex(b: bk.Backend, dtype: type) -> None:
    """R1: bitwise operations and shifts take integers and booleans only; ArgumentTypeError naming the operation."""
    x, ints = b.as_tensor(np.array([1, 2], dtype)), b.as_tensor(np.array([1, 2], np.int32))
    for name in ("and_", "or_", "xor", "shift_bits_left", "shift_bits_right"):
        for args in ((x, x), (x, 1), (ints, x), (ints, 1.5)):
            with pytest.raises(bk.ArgumentTypeError, match=f"^{name}:"):
                getattr(b, name)(*args)
    with pytest.raises(bk.ArgumentTypeError, match="^invert:"):
        b.invert(x)


def test_real_only_operations_refuse_complex(b: bk.Backend) -> None:
    """R1: floordiv, mod, floor, ceil (and softplus, log_gamma, arctan2) do not compute on complex values;
    sign refuses booleans and gives 0 or 1 for unsigned ints."""
    z = b.as_tensor(np.array([1.5 + 2j, -1j], np.complex64))
    for name, args in [("floordiv", (z, z)), ("mod", (z, 2)), ("floordiv", (b.as_tensor(np.array([3])), 1j)), ("arctan2", (z, 1.0))]:
        with pytest.raises(bk.ArgumentTypeError, match=f"^{name}:"):
            getattr(b, name)(*args)
    for name in ("floor", "ceil", "softplus", "log_gamma"):
        with pytest.raises(bk.ArgumentTypeError, match=f"^{name}:"):
            getattr(b, name)(z)
    halves = np.array([1.5 + 2.5j, -0.5 - 1.2j], np.complex64)  # NumPy rounds complex values part by part
    np.testing.assert_array_equal(b.numpy(b.round(b.as_tensor(halves))), np.round(halves))
    with pytest.raises(bk.ArgumentTypeError, match="^sign:"):
        b.sign(b.as_tensor(np.array([True, False])))
    for dtype in (np.uint8, np.uint16, np.uint64):
        result = b.sign(b.as_tensor(np.array([0, 1, 200], dtype)))
        assert b.dtype(result) == bk.from_numpy_dtype(np.dtype(dtype))
        np.testing.assert_array_equal(b.numpy(result), [0, 1, 1])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint16, np.uint64])
def test_shifts_outside_the_bit_width(b: bk.Backend, dtype: type) -> None:
    """R2: counts outside [0, bits) give 0, or -1 for a negative value shifted right; bool shifts as int8."""
    bits = np.dtype(dtype).itemsize * 8
    x = np.array([5, 5, 5, 1, 2**bits - 1 if np.dtype(dtype).kind == "u" else -5], dtype)
    counts = np.array([0, bits - 1, bits, bits + 3, bits], dtype if np.dtype(dtype).kind == "u" else np.int64).astype(dtype)
    for name, function in (("shift_bits_left", np.left_shift), ("shift_bits_right", np.right_shift)):
        result = getattr(b, name)(b.as_tensor(x), b.as_tensor(counts))
        np.testing.assert_array_equal(b.numpy(result), function(x, counts), err_msg=name)
    if np.dtype(dtype).kind == "i":
        negative = b.as_tensor(np.array([-5, 5], dtype))
        np.testing.assert_array_equal(b.numpy(b.shift_bits_right(negative, b.as_tensor(np.array([-1, -1], dtype)))), [-1, 0])
        np.testing.assert_array_equal(b.numpy(b.shift_bits_left(negative, b.as_tensor(np.array([-1, 70 % 128], dtype)))), [0, 0])
    bools = b.as_tensor(np.array([True, False]))
    result = b.shift_bits_left(bools, bools)
    assert b.dtype(result) == bk.DType(int, 8)
    np.testing.assert_array_equal(b.numpy(result), [2, 0])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint16, np.bool_])
def test_integer_division_by_zero(b: bk.Backend, dtype: type) -> None:
    """R3: integer and bool floordiv/mod by zero give 0; of two bools the result is int8."""
    x, y = np.array([1, 0, 1], dtype), np.array([0, 0, 1], dtype)
    expected = np.int8 if dtype is np.bool_ else dtype
    for name in ("floordiv", "mod"):
        result = getattr(b, name)(b.as_tensor(x), b.as_tensor(y))
        assert b.dtype(result) == bk.from_numpy_dtype(np.dtype(expected)), name
        np.testing.assert_array_equal(b.numpy(result), [0, 0, 1] if name == "floordiv" else [0, 0, 0], err_msg=name)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint16, np.uint64, np.bool_])
def test_clip_keeps_the_dtype(b: bk.Backend, dtype: type) -> None:
    """R4: Python bounds, float ones too, keep the tensor's dtype (NumPy's clip, cast back)."""
    values = np.array([0, 1, 5, 127], dtype) if dtype is not np.bool_ else np.array([True, False])
    for low, high in [(-1.5, 2.5), (0.5, 2.5), (0, 5), (-300, 2**70), (-np.inf, 1.5)]:
        result = b.clip(b.as_tensor(values), low, high)
        assert b.dtype(result) == bk.from_numpy_dtype(values.dtype), (low, high)
        np.testing.assert_array_equal(b.numpy(result), np.clip(values.astype(np.float64), low, high).astype(dtype), err_msg=str((low, high)))
    np.testing.assert_array_equal(b.numpy(b.clip(b.as_tensor(np.array([-128, 5], np.int8)), -1.5, 2.5)), [-1, 2])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint16])
def test_comparisons_with_ints_outside_the_range(b: bk.Backend, dtype: type) -> None:
    """R5: comparing with a Python int the dtype cannot hold compares the values, no OverflowError."""
    x = b.as_tensor(np.array([0, 1], dtype))
    np.testing.assert_array_equal(b.numpy(b.equal(x, 300)), [False, False])
    np.testing.assert_array_equal(b.numpy(b.not_equal(x, 2**70)), [True, True])
    np.testing.assert_array_equal(b.numpy(b.greater_than(x, -1)), [True, True])
    np.testing.assert_array_equal(b.numpy(b.greater_or_equal(-(2**70), x)), [False, False])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_quantile_of_nan_is_nan(b: bk.Backend, dtype: type) -> None:
    """R6: NaN among the values gives NaN; a 0-d tensor has no last axis (AxisError)."""
    result = b.numpy(b.quantile(b.as_tensor(np.array([[1, np.nan, 3], [1, 2, 3]], dtype)), [0.5, 0.1]))
    assert np.isnan(result[:, 0]).all() and not np.isnan(result[:, 1]).any()
    with pytest.raises(bk.AxisError, match="^quantile:"):
        b.quantile(b.as_tensor(np.float32(1)), 0.5)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint16, np.bool_])
def test_integer_powers(b: bk.Backend, dtype: type) -> None:
    """R7: negative integer exponents of integers raise ValueError, as NumPy; other powers wrap as NumPy's."""
    base = b.as_tensor(np.array([2, 3], dtype) if dtype is not np.bool_ else np.array([True, False]))
    with pytest.raises(OverflowError if np.dtype(dtype).kind == "u" else ValueError):  # -1 does not fit unsigned ints (NEP 50)
        b.pow(base, -1)
    with pytest.raises(ValueError, match="negative integer powers"):
        b.pow(base, b.as_tensor(np.array([1, -1], np.int8)))
    with pytest.raises(ValueError, match="negative integer powers"):
        b.pow(2, b.as_tensor(np.array([1, -1], np.int8)))
    np.testing.assert_array_equal(b.numpy(b.pow(b.as_tensor(np.array([3, 2], np.int8)), b.as_tensor(np.array([7, 9], np.int8)))), np.array([3, 2], np.int8) ** np.array([7, 9], np.int8))
    np.testing.assert_allclose(b.numpy(b.pow(b.as_tensor(np.array([2.0], np.float32)), -1)), [0.5])


def test_flip_takes_an_int_axis(b: bk.Backend) -> None:
    """R8: one axis as an int, or a tuple/list; out-of-range axes raise AxisError."""
    x = np.arange(6, dtype=np.uint16).reshape(2, 3)
    for axes in (1, -1, (1,), [0, 1], None):
        np.testing.assert_array_equal(b.numpy(b.flip(b.as_tensor(x), axes)), np.flip(x, axes), err_msg=str(axes))
    for axes in (2, (0, 5), (0, 0)):
        with pytest.raises(bk.AxisError, match="^flip:"):
            b.flip(b.as_tensor(x), axes)


def test_gather_refuses_bool_indices(b: bk.Backend) -> None:
    """R9: booleans are no indices (PyTorch would take them as a mask)."""
    values, mask = b.as_tensor(np.array([1.0, 2.0])), b.as_tensor(np.array([True, False]))
    with pytest.raises(bk.ArgumentTypeError, match="^gather: indices must be integers"):
        b.gather(values, mask, 0)
    with pytest.raises(bk.ArgumentTypeError, match="^gather_1d: indices must be integers"):
        b.gather_1d(values, mask)
    assert b.staticshape(b.gather(values, [], 0)) == (0,)


def test_bincount_and_unravel_index_check_their_domain(b: bk.Backend) -> None:
    """R10: negative values in bincount, flat indices outside [0, size) in unravel_index: ValueError."""
    with pytest.raises(ValueError, match="^bincount:"):
        b.bincount(b.as_tensor(np.array([1, -1])), None, 4)
    for index in ([-1], [6], [0, 7]):
        with pytest.raises(ValueError, match="^unravel_index:"):
            b.unravel_index(b.as_tensor(np.array(index)), (2, 3))
    np.testing.assert_array_equal(b.numpy(b.bincount(b.as_tensor(np.array([1, 1, 5])), None, 4)), [0, 2, 0, 0])
    np.testing.assert_array_equal(b.numpy(b.unravel_index(b.as_tensor(np.array([0, 5])), (2, 3))), [[0, 0], [1, 2]])


def test_scatter_with_indices_of_the_wrong_shape(b: bk.Backend) -> None:
    """An index vector of the wrong length, or batch sizes that differ, are ShapeMismatchError."""
    grid = b.zeros((1, 4, 1))
    with pytest.raises(bk.ShapeMismatchError, match="^scatter:"):
        b.scatter(grid, b.as_tensor(np.zeros((1, 2, 2), np.int64)), b.ones((1, 2, 1)), "add")
    with pytest.raises(bk.ShapeMismatchError, match="^scatter:"):
        b.scatter(b.zeros((2, 4, 1)), b.as_tensor(np.zeros((3, 2, 1), np.int64)), b.ones((1, 2, 1)), "add")


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64, np.int16, np.float16, np.complex128, np.bool_])
def test_shape_operations_take_every_dtype(b: bk.Backend, dtype: type) -> None:
    """R11: tile, repeat, sort, concat, flip and friends work for every dtype the backend has."""
    x = np.array([[2, 0, 1], [1, 1, 0]]).astype(dtype)
    t = b.as_tensor(x)
    np.testing.assert_array_equal(b.numpy(b.tile(t, (2, 1))), np.tile(x, (2, 1)))
    np.testing.assert_array_equal(b.numpy(b.repeat(t, 2, 1)), np.repeat(x, 2, 1))
    np.testing.assert_array_equal(b.numpy(b.sort(t, 1)), np.sort(x, 1))
    np.testing.assert_array_equal(b.numpy(b.concat([t, t], 1)), np.concatenate([x, x], 1))
    np.testing.assert_array_equal(b.numpy(b.flip(t, 0)), np.flip(x, 0))


def test_uint64_shift_right_is_logical(b: bk.Backend) -> None:
    """uint64 shifts right without copying the top bit (computed through int64)."""
    x = np.array([2**63, 2**64 - 1, 5, 2**63 + 5], np.uint64)
    counts = np.array([1, 70, 1, 63], np.uint64)
    np.testing.assert_array_equal(b.numpy(b.shift_bits_right(b.as_tensor(x), b.as_tensor(counts))), x >> counts)


def test_complex_unique_searchsorted_argmax_argmin_order_as_numpy(b: bk.Backend) -> None:
    z = np.array([3 + 1j, 1 - 1j, np.nan + 0j, 3 + 1j, 1j * np.nan, 0j], np.complex64)  # NaN-holding values: one, last
    got = b.unique(b.as_tensor(z), True, True, None)
    for part, expected in zip(got, np.unique(z, return_inverse=True, return_counts=True, equal_nan=True), strict=True):
        np.testing.assert_array_equal(b.numpy(part), np.reshape(expected, -1))
    ordered = np.array([1j, 1 - 1j, 1 + 1j, 2 + 0j, np.nan + 0j], np.complex64)  # NumPy's order, NaN last
    values = np.array([1 + 0j, 1 + 1j, 3j, np.nan, 5 + 0j], np.complex64)
    for side in ("left", "right"):
        got = b.searchsorted(b.as_tensor(ordered), b.as_tensor(values), side, bk.DType(int, 64))
        np.testing.assert_array_equal(b.numpy(got), np.searchsorted(ordered, values, side))
    x = np.array([[1 + 5j, 2 - 1j, 2 + 0j], [np.nan, 0, 3j]], np.complex64)  # PyTorch's argmax/argmin refuse complex values
    for axis in (0, 1):
        np.testing.assert_array_equal(b.numpy(b.argmax(b.as_tensor(x), axis)), np.argmax(x, axis))
        np.testing.assert_array_equal(b.numpy(b.argmin(b.as_tensor(x), axis)), np.argmin(x, axis))



def test_complex_values_compare_and_clip_in_numpys_order(b: bk.Backend) -> None:
    """PyTorch orders no complex values; the kernels of the comparisons, maximum and minimum order them as NumPy
    does (real parts first, NaN-holding values compare false and propagate), so clip of complex values works too."""
    nan = float("nan")
    x = np.array([1 + 2j, 1 + 2j, complex(nan, 0), 1 + 0j, complex(0, nan), complex(nan, 1), 2 + 0j, complex(2, nan)], np.complex64)
    y = np.array([1 + 3j, 0 + 5j, 1 + 0j, complex(nan, 0), 1 + 0j, complex(nan, 2), 2 + 0j, 1 + 0j], np.complex64)
    with np.errstate(invalid="ignore"):
        for op, reference in (("greater_than", np.greater), ("greater_or_equal", np.greater_equal), ("maximum", np.maximum), ("minimum", np.minimum)):
            result = getattr(b, op)(b.as_tensor(x), b.as_tensor(y))
            np.testing.assert_array_equal(b.numpy(result), reference(x, y), err_msg=op)
    clipped = b.clip(b.as_tensor(np.array([1 + 1j, 1j], np.complex64)), 0, 1)
    np.testing.assert_array_equal(b.numpy(clipped), np.clip(np.array([1 + 1j, 1j], np.complex64), 0, 1))
