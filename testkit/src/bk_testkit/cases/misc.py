"""The required set, type conversion, precision and the remaining metadata features."""

from __future__ import annotations

import numpy as np

import bk
from bk import DType

from .._case import Trial, case

_SAMPLES = (np.array(True), np.arange(3, dtype=np.int32), np.arange(4, dtype=np.int64).reshape(2, 2), np.ones((0, 2), np.float32), np.array([1.5, -2.0]), np.array([1 + 2j], np.complex64))
# NumPy scalars keep their dtype, like arrays: np.float64 subclasses Python's float but is not a Python number
_SCALARS = (np.float64(2.5), np.float32(-1.5), np.int64(7), np.int32(-3), np.bool_(True), np.complex128(1 - 1j))


@case("as_tensor", "numpy", "dtype")
def _round_trip(t: Trial) -> None:
    """as_tensor / numpy / dtype round trip of bool, int, float and complex arrays, 0-d and empty."""
    for array in _SAMPLES:
        if array.dtype == np.float64 and not t.float64:
            continue
        native = t.b.as_tensor(array)
        t.check(native, array, f"numpy(as_tensor({array.dtype} {array.shape}))", dtype=bk.from_numpy_dtype(array.dtype))


@case("as_tensor", name="numpy scalars")
def _numpy_scalars(t: Trial) -> None:
    """NumPy scalars keep their dtype (np.float64 is a subclass of float, yet not a Python number)."""
    for scalar in _SCALARS:
        if scalar.dtype in (np.float64, np.complex128) and not t.float64:
            continue
        native = t.b.as_tensor(scalar)
        t.check(native, np.asarray(scalar), f"as_tensor(np.{scalar.dtype}({scalar}))", dtype=bk.from_numpy_dtype(scalar.dtype))


@case("as_tensor", name="precision")
def _as_tensor_precision(t: Trial) -> None:
    """Floats take the precision's type; ints and bools keep theirs."""
    for p in t.precisions:
        with t.precision(p):
            native = t.b.as_tensor(np.array([0.5, 1.5], np.float32))
            t.expect(t.b.dtype(native) == t.result_float(DType(float, 32)), f"as_tensor(float32) under precision({p})", str(t.b.dtype(native)))
            ints = t.b.as_tensor(np.array([1], np.int64))
            t.expect(t.b.dtype(ints) == DType(int, 64), f"as_tensor(int64) under precision({p})", str(t.b.dtype(ints)))


@case("is_tensor", "staticshape")
def _is_tensor(t: Trial) -> None:
    """Native tensors are tensors (also only_native); numbers and lists are, but not natively."""
    native = t.b.as_tensor(np.ones(2, np.float32))
    t.expect(t.b.is_tensor(native) and t.b.is_tensor(native, only_native=True), "is_tensor(native)", "False")
    t.expect(tuple(t.b.staticshape(native)) == (2,), "staticshape", str(t.b.staticshape(native)))
    t.expect(not t.b.is_tensor("text"), "is_tensor('text')", "True")


@case("is_available")
def _is_available(t: Trial) -> None:
    """Eager tensors are available; lazy values (a lazy backend's results) are not, NumPy constants are."""
    if t.b.compute_count() is None:
        t.expect(bool(t.b.is_available(t.b.as_tensor(np.ones(2)))), "is_available(eager tensor)", "False")
        return
    lazy = t.b.add(t.b.as_tensor(np.ones(2)), 1)
    t.expect(not t.b.is_available(lazy), "is_available(lazy result)", "True before anything was computed")
    t.expect(bool(t.b.is_available(np.ones(2))), "is_available(NumPy constant)", "False")


@case("cast")
def _cast(t: Trial) -> None:
    """Casts between bool, ints, floats and complex; float to int truncates toward zero."""
    x = np.array([-1.7, 0.0, 2.5, 3.0])
    for target in (DType(bool), DType(int, 32), DType(int, 64), *t.floats(), *t.complexes()):
        source = t.tensor(x, DType(float, 32))
        expected = x.astype(np.float32).astype(bk.to_numpy_dtype(target))
        t.check(t.b.cast(source, target), expected, f"cast(float32, {target})", dtype=target)


def _conversion(feature: str, target: DType | None) -> None:
    @case(feature, name="dtypes")
    def run(t: Trial) -> None:
        for array in (np.array([1, 2], np.int32), np.array([1.5, -2.5], np.float32), np.array([True, False])):
            for p in t.precisions:
                with t.precision(p):
                    source = t.tensor(array)
                    got = getattr(t.b, feature)(source)
                    src = t.b.dtype(source)
                    want = target or (t.b.float_type if (p is not None or src.kind is not float) else src)
                    if feature == "to_complex":
                        want = t.b.complex_type if (p is not None or src.kind is not complex) else src
                    t.check(got, array.astype(bk.to_numpy_dtype(want)), f"{feature}({src}) under precision({p})", dtype=want)


for _feature, _target in (("to_float", None), ("to_int32", DType(int, 32)), ("to_int64", DType(int, 64)), ("to_complex", None)):
    _conversion(_feature, _target)


@case("combine_types")
def _combine_types(t: Trial) -> None:
    """NumPy promotion for ints; int with float gives the float; precision applies to floats."""
    pairs = (((DType(int, 8), DType(int, 16)), DType(int, 16)), ((DType(int, 32), DType(float, 32)), DType(float, 32)), ((DType(float, 32), DType(complex, 64)), DType(complex, 64)))
    for dtypes, want in pairs:
        got = t.b.combine_types(*dtypes)
        t.expect(got == want, f"combine_types{dtypes}", f"{got}, expected {want}")
    with t.precision(64):
        t.expect(t.b.combine_types(DType(float, 32)) == DType(float, 64), "combine_types(float32) under precision(64)", str(t.b.combine_types(DType(float, 32))))


@case("auto_cast")
def _auto_cast(t: Trial) -> None:
    """Casts to the common type; bool_to_int and int_to_float."""
    a, b = t.tensor(np.array([1], np.int32)), t.tensor(np.array([2.0], np.float32))
    t.expect([t.b.dtype(v) for v in t.b.auto_cast(a, b)] == [DType(float, 32)] * 2, "auto_cast(int32, float32)", "not float32")
    flags = t.b.auto_cast(t.tensor(np.array([True])), bool_to_int=True)
    t.expect(t.b.dtype(flags[0]) == DType(int, 32), "auto_cast(bool, bool_to_int=True)", str(t.b.dtype(flags[0])))
    floats = t.b.auto_cast(a, int_to_float=True)
    t.expect(t.b.dtype(floats[0]) == t.b.float_type, "auto_cast(int32, int_to_float=True)", str(t.b.dtype(floats[0])))


@case("determine_size")
def _determine_size(t: Trial) -> None:
    """Common size where 1 broadcasts; mismatches raise ValueError."""
    a, b = t.tensor(np.ones((1, 3))), t.tensor(np.ones((4, 3)))
    t.expect(t.b.determine_size([a, b], 0) == 4, "determine_size", str(t.b.determine_size([a, b], 0)))
    try:
        t.b.determine_size([b, t.tensor(np.ones((2, 3)))], 0)
    except ValueError:
        return
    t.fail("determine_size(sizes 4 and 2)", "did not raise ValueError")


@case("is_module", "prefers_channels_last", "requires_fixed_shapes_when_tracing")
def _flags(t: Trial) -> None:
    """Answers are booleans; a tensor is not a module."""
    t.expect(t.b.is_module(t.tensor(np.ones(2))) is False, "is_module(tensor)", "not False")
    t.expect(isinstance(t.b.prefers_channels_last(), bool), "prefers_channels_last()", "not a bool")
    t.expect(isinstance(t.b.requires_fixed_shapes_when_tracing(), bool), "requires_fixed_shapes_when_tracing()", "not a bool")


@case("nn_library")
def _nn_library(t: Trial) -> None:
    """Returns a module object (not None)."""
    t.expect(t.b.nn_library() is not None, "nn_library()", "returned None")


@case("float64")
def _float64(t: Trial) -> None:
    """float64 tensors keep 64-bit precision (1 + 1e-12 differs from 1)."""
    if not t.float64:
        raise NotImplementedError(f"{t.b.name} declares float64_supported = False")
    x = np.array([1.0 + 1e-12, 1.0])
    native = t.b.as_tensor(x)
    values = t.check(native, x, "as_tensor(float64)", dtype=DType(float, 64))
    t.expect(values[0] != values[1], "float64", "1 + 1e-12 was rounded to 1")


@case("deallocate")
def _deallocate(t: Trial) -> None:
    """Frees a tensor's memory: True the first time, False after; using the tensor afterwards raises."""
    x = t.b.add(t.tensor(np.arange(6, dtype=np.float32)), 1.0)
    t.expect(t.b.deallocate(x) is True, "deallocate(x)", "the first call must return True")
    t.expect(t.b.deallocate(x) is False, "deallocate(x) again", "a second call must return False")
    try:
        t.b.numpy(x)
    except Exception:  # the framework's own error for a freed buffer
        return
    t.fail("numpy(x) after deallocate(x)", "returned values from freed memory instead of raising")
