"""The one call path (#31): every rule the core applies around kernels, alike on every installed backend
and on two third-party backends of bare kernels (bare NumPy calls, and bare array-api-strict calls that
compute in whatever dtype they are given). A rule a kernel is left to apply fails here on the bare ones.
A plugin of generic defaults only is in core/tests/test_dispatcher.py."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import bk

_TESTKIT = Path(__file__).parents[1] / "testkit" / "tests"
INSTALLED = [name for name in ("numpy", "torch", "jax", "tf", "dask", "lazy", "strict") if name in bk.backends()]


def _third_party(name: str) -> bk.Backend:
    folder = _TESTKIT / ("plain_plugin" if name == "plain" else "bare_plugin")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    if name == "plain":
        from plain_backend import PlainBackend

        return PlainBackend()
    pytest.importorskip("array_api_strict")
    from bare_backend import BareBackend

    return BareBackend()


@pytest.fixture(params=[*INSTALLED, "plain", "bare"])
def b(request: pytest.FixtureRequest) -> bk.Backend:
    return bk.backend(request.param) if request.param in INSTALLED else _third_party(request.param)


def values(b: bk.Backend, x) -> np.ndarray:
    return np.asarray(b.numpy(x))


def test_sums_of_small_ints_are_computed_in_the_wide_type(b):
    total = b.sum(b.as_tensor(np.array([100, 100], np.int8)))
    assert b.dtype(total) == bk.DType(int, 64) and int(values(b, total)) == 200  # not -56
    if b.supports("cumsum"):
        running = b.cumsum(b.as_tensor(np.array([100, 100], np.int8)), 0)
        assert b.dtype(running) == bk.DType(int, 64)
        np.testing.assert_array_equal(values(b, running), [100, 200])


def test_variances_of_ints_are_computed_in_floats(b):
    if not b.supports("var"):
        pytest.skip(f"{b.name} does not support var")
    result = b.var(b.as_tensor(np.array([1, 2, 3, 4], np.int32)))
    assert b.dtype(result).kind is float
    np.testing.assert_allclose(values(b, result), 1.25, atol=1e-6)


def test_a_reduction_over_no_axes_reduces_nothing(b):
    x = b.as_tensor(np.array([[1, -2], [0, 3]], np.int8))
    for op, expected, dtype in (("sum", [[1, -2], [0, 3]], bk.DType(int, 64)), ("any", [[True, True], [False, True]], bk.DType(bool))):
        result = getattr(b, op)(x, axis=())
        assert b.dtype(result) == dtype, op
        np.testing.assert_array_equal(values(b, result), expected)


def test_complex_values_are_ordered_as_numpy_or_refused(b):
    z = b.as_tensor(np.array([1 + 5j, 2 - 1j, 2 + 0j], np.complex64))
    for op, call, expected in (("max", lambda: b.max(z), 2 + 0j), ("argmax", lambda: b.argmax(z, 0), 2), ("sort", lambda: b.sort(z), [1 + 5j, 2 - 1j, 2 + 0j])):
        if not b.supports(op):
            continue
        try:
            result = call()
        except bk.ArgumentTypeError as error:
            assert str(error).startswith(f"{op}: ")
            assert op in type(b).complex_unordered  # refused only where the backend declares it cannot order
        else:
            np.testing.assert_array_equal(values(b, result), expected)


def test_mixed_operands_reach_the_kernel_in_their_common_type(b):
    if b.supports("matmul"):
        result = b.matmul(b.as_tensor(np.eye(2, dtype=np.float32)), b.as_tensor(np.array([[1.0, 2.0], [3.0, 4.0]])))
        assert b.dtype(result) == bk.DType(float, 64)
        np.testing.assert_allclose(values(b, result), [[1, 2], [3, 4]], atol=1e-12)
    if b.supports("tensordot"):
        result = b.tensordot(b.as_tensor(np.ones((2, 3), np.float32)), (1,), b.as_tensor(np.ones((3, 2))), (0,))
        assert b.dtype(result) == bk.DType(float, 64)


def test_lists_and_python_numbers_are_tensors_for_the_kernel(b):
    x = b.as_tensor(np.array([1, 2], np.int8))
    result = b.add(x, [10, 20])
    np.testing.assert_array_equal(values(b, result), [11, 22])
    result = b.add(x, 3)
    assert b.dtype(result) == bk.DType(int, 8)  # a Python int is weak
    with pytest.raises(OverflowError, match="^add: "):
        b.add(x, 300)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # NumPy's kernels warn, as NumPy does
def test_integer_division_by_zero_gives_zero(b):
    if not b.supports("floordiv"):
        pytest.skip(f"{b.name} does not support floordiv")
    result = b.floordiv(b.as_tensor(np.array([7, 8, 9], np.int8)), [0, 2, 0])
    np.testing.assert_array_equal(values(b, result), [0, 4, 0])


def test_tuple_results_have_the_specs_dtypes(b):
    m = b.as_tensor(np.array([[2.0, 1.0], [1.0, 3.0]], np.float32))
    for op, call in (("eigh", lambda: b.eigh(m)), ("qr", lambda: b.qr(m)), ("svd", lambda: b.svd(m)), ("slogdet", lambda: b.slogdet(m))):
        if not b.supports(op):
            continue
        result = call()
        expected = bk.op_spec(op).infer(bk.ShapeDtype((2, 2), bk.DType(float, 32)))
        assert [b.dtype(r) for r in result] == [t.dtype for t in expected], op


def test_a_bad_call_after_a_valid_one_of_the_same_ranks_is_refused(b):
    """The plan's key holds full shapes: a valid call does not let a bad call of the same ranks through."""
    if b.supports("tensordot"):
        b.tensordot(b.as_tensor(np.ones((3, 4))), (1,), b.as_tensor(np.ones((4, 6))), (0,))
        with pytest.raises(bk.ShapeMismatchError, match="^tensordot: "):
            b.tensordot(b.as_tensor(np.ones((3, 4))), (1,), b.as_tensor(np.ones((5, 6))), (0,))
    if b.supports("solve"):
        b.solve(b.as_tensor(np.tile(np.eye(3), (2, 1, 1))), b.as_tensor(np.ones((2, 3, 2))))
        with pytest.raises(bk.ShapeMismatchError, match="^solve: "):
            b.solve(b.as_tensor(np.tile(np.eye(3), (2, 1, 1))), b.as_tensor(np.ones((2, 2, 2))))
    b.add(b.as_tensor(np.ones(3)), b.as_tensor(np.ones(3)))
    with pytest.raises(bk.ShapeMismatchError, match="^add: "):
        b.add(b.as_tensor(np.ones(3)), b.as_tensor(np.ones(4)))


def test_out_of_range_indices_raise(b):
    if not b.supports("scatter"):
        pytest.skip(f"{b.name} does not support scatter")
    grid = b.as_tensor(np.zeros((1, 4, 1), np.float32))
    with pytest.raises(bk.IndexOutOfRangeError, match="^scatter: "):
        b.numpy(b.scatter(grid, b.as_tensor(np.array([[[7]]])), b.as_tensor(np.ones((1, 1, 1), np.float32)), "update"))


def test_a_dtype_without_a_kernel_is_computed_one_size_up(b):
    """TensorFlow's igamma has no float16 kernel (declared in `lacking_kernels`); every backend computes it."""
    if not b.supports("gamma_inc_l") or bk.DType(float, 16) in type(b).unsupported_dtypes:
        pytest.skip(f"{b.name} does not support gamma_inc_l of float16")
    a = b.as_tensor(np.array([1.0, 2.0], np.float16))
    result = b.gamma_inc_l(a, b.as_tensor(np.array([2.0, 1.0], np.float16)))
    assert b.dtype(result) == bk.DType(float, 16)
    np.testing.assert_allclose(values(b, result).astype(np.float64), [1 - np.exp(-2.0), 1 - 2 * np.exp(-1.0)], atol=2e-3)


def test_a_list_of_ints_stays_ints_beside_float_tensors(b):
    """Indices given as a list are int64 for the kernel, never raised to the float of the tensor beside them."""
    x = b.as_tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    if b.supports("gather"):
        np.testing.assert_array_equal(values(b, b.gather(x, [1, 0], 0)), [[3.0, 4.0], [1.0, 2.0]])
    if b.supports("quantile"):  # while a list of floats is weak beside them (NEP 50)
        assert b.dtype(b.quantile(b.as_tensor(np.array([1.0, 2.0, 3.0])), [0.5])) == bk.DType(float, 64)


def test_a_python_float_fills_a_float64_tensor_exactly(b):
    # the generic default converted the fill to the default float32 first: full_like(float64, 0.1) gave 0.10000000149
    if not b.supports("float64"):
        pytest.skip(f"{b.name} has no float64")
    f64, c128 = bk.DType(float, 64), bk.DType(complex, 128)
    x = b.as_tensor(np.ones(2))
    for result in (b.full_like(x, 0.1) if b.supports("full_like") else None, b.full((2,), 0.1, f64) if b.supports("full") else None):
        if result is not None:
            assert b.dtype(result) == f64 and values(b, result).tolist() == [0.1, 0.1]
    if b.supports("full") and c128 not in getattr(b, "unsupported_dtypes", frozenset()):
        assert values(b, b.full((1,), 0.1 + 0.2j, c128)).tolist() == [0.1 + 0.2j]


def test_a_range_of_python_ints_is_numpys_arange_empty_ones_included(b):
    # bk-torch's int64 shortcut once handed PyTorch an empty range of the other sign, which it refuses
    if not b.supports("range"):
        pytest.skip(f"{b.name} does not support range")
    i64 = bk.DType(int, 64)
    for args in [(-2,), (0, -2, 1), (5, 5, 1), (3,), (10, 0, -3), (0, 10, -1), (2, 9, 3)]:
        expected = np.arange(*args).tolist()
        result = b.range(args[0], dtype=i64) if len(args) == 1 else b.range(*args, i64)
        assert values(b, result).tolist() == expected and b.dtype(result) == i64, args


def test_an_integer_power_of_an_empty_base_computes_nothing_and_raises_nothing(b):
    # as NumPy's: the negative exponent is never used (testkit diff numpy tf found numpy, torch and jax raising)
    if not b.supports("pow"):
        pytest.skip(f"{b.name} does not support pow")
    base, exp = b.as_tensor(np.empty((1, 2, 0, 2), np.int32)), b.as_tensor(np.array([1, -1], np.int32))
    assert tuple(b.staticshape(b.pow(base, exp))) == (1, 2, 0, 2)


def test_a_device_of_another_backend_is_refused_by_the_core(b):
    if not b.supports("allocate_on_device"):
        pytest.skip(f"{b.name} does not support allocate_on_device")
    x = b.as_tensor(np.ones(2, np.float32))
    foreign = bk.OBJECTS.get_default_device()  # a device of the `object` backend: never this one's
    with pytest.raises(ValueError, match=f"allocate_on_device: .* is not a device of the {b.name} backend"):
        b.allocate_on_device(x, foreign)
    with pytest.raises(bk.ArgumentTypeError, match="allocate_on_device: expected a bk.ComputeDevice"):
        b.allocate_on_device(x, "cpu")
    own = b.get_default_device()
    assert b.get_device(b.allocate_on_device(x, own)) == own


def test_binary_operators_keep_the_tensor_dtype_beside_weak_python_numbers(b):
    """The operators' fast paths (one framework call) and the plan give the same dtypes: a Python number that
    fits keeps the tensor's dtype (NEP 50); one beyond an int tensor's range is refused, or compared by value."""
    i8, f32 = b.as_tensor(np.array([1, 100], np.int8)), b.as_tensor(np.array([1.5, 2.5], np.float32))
    assert b.dtype(b.add(i8, 27)) == bk.DType(int, 8) and b.dtype(b.mul(f32, 2)) == bk.DType(float, 32)
    assert b.dtype(b.sub(f32, 2.0)) == bk.DType(float, 32) and b.dtype(b.add(i8, i8)) == bk.DType(int, 8)
    np.testing.assert_array_equal(values(b, b.add(i8, 27)), [28, 127])
    np.testing.assert_array_equal(values(b, b.greater_than(i8, 300)), [False, False])  # by value, as NumPy 2
    assert b.dtype(b.add(i8, 2.0)) == bk.DType(float, 32)  # a Python float beside ints: the default float
    with pytest.raises(OverflowError, match="add"):
        b.add(i8, 300)


def test_numpy_arrays_beside_the_backends_tensors_are_converted_for_the_kernel(b):
    """A NumPy array is a tensor of its dtype to every backend's operations (strong: its dtype counts)."""
    x = b.as_tensor(np.array([1.0, 4.0], np.float32))
    np.testing.assert_allclose(values(b, b.sqrt(np.array([1.0, 4.0], np.float32))), [1.0, 2.0], atol=1e-6)
    total = b.add(x, np.array([2.0, 3.0], np.float32))
    assert b.dtype(total) == bk.DType(float, 32)
    np.testing.assert_allclose(values(b, total), [3.0, 7.0], atol=1e-6)
    if b.supports("mean"):
        np.testing.assert_allclose(values(b, b.mean(np.array([1, 2], np.int32))), 1.5, atol=1e-6)


def test_where_wraps_a_python_int_beyond_the_other_branch_as_numpy_where(b):
    condition, x = b.as_tensor(np.array([True, False])), b.as_tensor(np.array([1, 2], np.int8))
    expected = np.where(np.array([True, False]), np.array([1, 2], np.int8), 300)  # docs/semantics.md: wrapped
    result = b.where(condition, x, 300)
    assert b.dtype(result) == bk.DType(int, 8)
    np.testing.assert_array_equal(values(b, result), expected)


def test_least_squares_of_ints_is_computed_in_floats(b):
    if not b.supports("matrix_solve_least_squares"):
        pytest.skip(f"{b.name} does not support matrix_solve_least_squares")
    matrix = b.as_tensor(np.array([[[1, 0], [0, 2], [0, 0]]], np.int32))
    rhs = b.as_tensor(np.array([[[1], [4], [0]]], np.int32))
    solution = b.matrix_solve_least_squares(matrix, rhs)[0]
    assert b.dtype(solution).kind is float
    np.testing.assert_allclose(values(b, solution), [[[1.0], [2.0]]], atol=1e-5)


def test_dispatched_methods_pickle_by_reference(b):
    """A dispatched kernel is named as its backend class's attribute (`NumPyBackend.add`), not as the mixin's raw
    kernel it wraps, so pickle and cloudpickle find the dispatched method itself (dask and multiprocessing ship them)."""
    import pickle

    cloudpickle = pytest.importorskip("cloudpickle")
    if getattr(sys.modules.get(type(b).__module__), type(b).__qualname__, None) is not type(b):
        pytest.skip(f"{type(b).__qualname__} is made at run time (bk-arrayapi's class per namespace): nothing to find by reference")
    method = type(b).add
    assert method.__qualname__ == f"{type(b).__qualname__}.add"
    assert pickle.loads(pickle.dumps(method)) is method and cloudpickle.loads(cloudpickle.dumps(method)) is method
    x = b.as_tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(values(b, cloudpickle.loads(cloudpickle.dumps(method))(b, x, x)), [2.0, 4.0], atol=1e-6)


def test_operands_given_by_keyword_are_planned_as_positional_ones(b):
    flags = b.as_tensor(np.array([True, True]))
    by_position, by_keyword = b.add(flags, flags), b.add(a=flags, b=flags)
    assert b.dtype(by_keyword) == b.dtype(by_position)
    np.testing.assert_array_equal(values(b, by_keyword), values(b, by_position))
    small = b.as_tensor(np.array([100, 100], np.int8))
    assert int(values(b, b.sum(value=small))) == 200  # the wide accumulator, as sum(small)


def test_a_set_precision_applies_to_the_operands_not_only_to_the_result(b):
    """Under bk.precision(64), float32 operands of an operation whose result is float64 are computed in float64:
    1e8 + 1 - 1e8 is 1, where float32 arithmetic cast up afterwards gives 0."""
    if not b.supports("matmul"):
        pytest.skip(f"{b.name} does not support matmul")
    row, ones = np.array([[1e8, 1.0, -1e8]], np.float32), np.ones((3, 1), np.float32)
    with bk.precision(64):
        a, v = b.cast(b.as_tensor(row), bk.DType(float, 32)), b.cast(b.as_tensor(ones), bk.DType(float, 32))
        product = b.matmul(a, v)
        assert b.dtype(product) == bk.DType(float, 64)
        np.testing.assert_allclose(values(b, product), [[1.0]], atol=1e-9)


def test_complex_max_and_min_follow_numpy_over_any_axes_or_are_refused(b):
    """NumPy's order of complex values in `max`/`min` (real parts first; the first NaN-holding value propagates),
    over every axis choice; refused only by a backend that declares it cannot order complex values."""
    nan = float("nan")
    x = np.array([[1 + 2j, 3 + 0j, 3 + 1j], [complex(nan, 0), 5 + 0j, complex(1, nan)], [2 + 0j, 2 + 5j, 2 - 1j]])
    for op, reference in (("max", np.max), ("min", np.min)):
        if not b.supports(op):
            continue
        if op in type(b).complex_unordered:
            with pytest.raises(bk.ArgumentTypeError, match=f"^{op}: "):
                getattr(b, op)(b.as_tensor(x))
            continue
        for axis in (None, 0, 1, (0, 1)):
            for keepdims in (False, True):
                result = values(b, getattr(b, op)(b.as_tensor(x), axis, keepdims))
                expected = reference(x, axis=axis, keepdims=keepdims)
                assert result.shape == expected.shape
                np.testing.assert_array_equal(result, expected, err_msg=f"{op} {axis} {keepdims}")
