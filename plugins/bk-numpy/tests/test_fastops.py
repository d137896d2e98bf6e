"""The fast calls of bk-numpy's bare kernels (`bk.rules.kernel(fast=fast_call(ufunc))`: `_fastops.UfuncCall` in C, or
the core's call, with dtypes derived from the plans) give exactly what the core's plan gives with the kernel, and
leave it the rest."""

from __future__ import annotations

import inspect
import itertools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bk
from bk_numpy import _math
from bk_numpy._backend import NumPyBackend

OPERATORS = ("add", "sub", "mul", "div")
WITH_FAST_PATHS = (*OPERATORS, "equal", "not_equal", "greater_than", "greater_or_equal", "maximum", "minimum")
COMPILED = any(p.suffix in (".so", ".pyd") for p in Path(_math.__file__).parent.glob("_fastops*"))


@pytest.fixture(scope="module")
def b() -> NumPyBackend:
    return bk.backend("numpy")  # type: ignore[return-value]


def _operands() -> list[object]:
    values: list[object] = []
    for code in "?bhilqBHILQefdFD":
        values.append(np.arange(1, 4).astype(code))
    values += [
        np.arange(6, dtype=np.float32).reshape(2, 3).T[::-1],  # not contiguous
        np.ones((2, 1), np.float32),  # broadcasts against (3,)
        np.ones(2, np.float32),  # does not broadcast against (3,)
        np.empty((0, 3), np.float32),
        np.asarray(2.5, np.float32),  # 0-d
        np.arange(3, dtype=">f4"),  # big-endian
        np.array([0.0, -0.0, np.nan], np.float64),
        np.array([np.inf, -np.inf, 1.0], np.float32),
        np.array([255, 0, 1], np.uint8),
        np.array([1, 2, 3], object),
        np.ma.masked_array([1.0, 2.0, 3.0], [0, 1, 0]).astype(np.float32),
        np.float32(2.0),
        np.int8(-3),
        2,
        -1.5,
        True,
        1 + 2j,
        [1.0, 2.0, 3.0],
        None,
        "text",
    ]
    try:
        import ml_dtypes

        values.append(np.arange(3).astype(ml_dtypes.bfloat16))
    except ImportError:
        pass
    return values


def _outcome(function: object, *args: object) -> object:
    try:
        with np.errstate(all="ignore"):
            result = function(*args)  # type: ignore[operator]
    except Exception as error:  # the exception is the outcome to compare
        return type(error), str(error)
    return (
        type(result),
        getattr(result, "dtype", None),
        np.shape(result),
        np.asarray(result).tobytes() if np.asarray(result).dtype != object else repr(result),
    )


_NOT_TAKEN = (type(NotImplemented), None, (), repr(NotImplemented))


def _fast(name: str) -> Any:
    """The fast call of `name` as the core bound it (its tables derived)."""
    return getattr(NumPyBackend, name).__bk_fast_call__


def _planned(b: NumPyBackend, name: str) -> object:
    """The operation without its fast path: the core takes fast paths only while `SETTINGS.precision_free`
    holds, and with it off (but no precision set) it serves every call with the plan of precision None."""
    from bk.rules import SETTINGS

    def call(*args: object) -> object:
        before, SETTINGS.precision_free = SETTINGS.precision_free, False
        try:
            return getattr(b, name)(*args)
        finally:
            SETTINGS.precision_free = before

    return call


@pytest.mark.skipif(
    not COMPILED, reason="bk-numpy was installed without its C fast path (no C compiler, or BK_NUMPY_PURE_PYTHON=1)"
)
def test_the_compiled_fast_call_is_used(b: NumPyBackend) -> None:
    if os.environ.get("BK_NUMPY_PURE_PYTHON", "") not in ("", "0"):
        pytest.skip("BK_NUMPY_PURE_PYTHON is set")
    assert _math.C_FAST_PATH
    for name in (*WITH_FAST_PATHS, "where", "sin", "exp"):
        assert type(_fast(name)).__name__ == "UfuncCall", name
        assert name not in type(b).trusted_operations


@pytest.mark.parametrize("name", WITH_FAST_PATHS)
def test_every_operand_pair_gives_what_the_plan_gives(b: NumPyBackend, name: str) -> None:
    fast, planned = _fast(name), _planned(b, name)
    operands = _operands()
    for precision in (None, 32, 64):
        with bk.precision(precision):
            for x, y in itertools.product(operands, repeat=2):
                expected = _outcome(planned, x, y)
                assert _outcome(getattr(b, name), x, y) == expected, (name, precision, x, y)
                taken = _outcome(fast, b, x, y) if precision is None else None  # the core takes it while no precision is set
                if taken not in (None, _NOT_TAKEN) and taken[0] is not ValueError:  # ValueError: explained by the core
                    assert taken == expected, (name, precision, x, y)


def test_where_and_functions_of_floats_give_what_the_plan_gives(b: NumPyBackend) -> None:
    operands = [o for o in _operands() if not isinstance(o, str)]
    conditions = [np.array([True, False, True]), np.array(True), np.array([1.0, 0.0, 2.0]), [True, False, True]]
    for precision in (None, 64):
        with bk.precision(precision):
            for condition, x, y in itertools.product(conditions, operands, operands):
                expected = _outcome(_planned(b, "where"), condition, x, y)
                assert _outcome(b.where, condition, x, y) == expected, (precision, condition, x, y)
            for name, x in itertools.product(("sin", "exp", "sqrt", "log"), operands):
                assert _outcome(getattr(b, name), x) == _outcome(_planned(b, name), x), (name, precision, x)


def test_the_fast_call_takes_the_common_case_and_leaves_the_rest(b: NumPyBackend) -> None:
    a = np.ones(3, np.float32)
    assert _fast("add")(b, a, a).dtype == np.float32
    assert _fast("add")(b, a, 2.0).dtype == np.float32
    assert _fast("add")(b, a > 0, a > 0) is NotImplemented  # bool: the plan adds as int32
    assert b.add(a > 0, a > 0).dtype == np.int32
    assert _fast("div")(b, np.arange(3), np.arange(1, 4)) is NotImplemented  # ints: the plan divides as floats
    assert b.div(np.arange(3), np.arange(1, 4)).dtype == np.float32
    assert b.where(a > 0, a, 0.0).dtype == np.float32
    with pytest.raises(bk.ShapeMismatchError, match="^add: "):
        b.add(a, np.ones(2, np.float32))  # the ufunc's ValueError, explained by the core
    with pytest.raises(OverflowError, match="^add: "):
        b.add(np.ones(3, np.int8), 300)  # NEP 50's error, left to the plan
    with bk.precision(64):
        assert b.mul(a, a).dtype == np.float64
        assert b.where(a > 0, a, 0.0).dtype == np.float64


def test_no_dtype_is_listed_by_hand() -> None:
    """The kernels declare `framework_call(ufunc, ...)` and nothing else: the tables of a fresh fast call are empty,
    and the first calls fill them with what the plans say (bool `add` is planned as int32; an int8 array keeps its
    dtype beside a Python int in its range, on either side; a float32 array's exact ints stop at 2**24)."""
    declared = NumPyBackend.declared_kernels()
    for name in WITH_FAST_PATHS:
        assert type(declared[name].fast).__name__ == "FrameworkCall", name
    if not _math.C_FAST_PATH:
        pytest.skip("the core's own call serves (bk-numpy's C fast calls are not built)")
    from bk._dispatcher import bind_framework_call

    b = bk.backend("numpy")
    fast = bind_framework_call(declared["add"].fast, "add")
    assert fast.dtypes == fast.float_scalars == fast.int_scalars == ()
    i8, f32, flags = np.arange(3, dtype=np.int8), np.ones(3, np.float32), np.ones(3, bool)
    assert fast(b, flags, flags) is NotImplemented
    assert fast(b, i8, 127).dtype == np.int8 and fast(b, -128, i8).dtype == np.int8
    assert fast(b, i8, 128) is NotImplemented and fast(b, i8, 2.0) is NotImplemented
    assert fast(b, f32, 2.0).dtype == np.float32 and fast(b, 2**24, f32).dtype == np.float32
    assert fast(b, f32, 2**24 + 1) is NotImplemented
    assert fast.dtypes == (np.dtype(np.int8), np.dtype(np.float32)) and fast.float_scalars == (np.dtype(np.float32),)
    where = bind_framework_call(declared["where"].fast, "where")  # a bool condition and two operands
    assert where(b, f32, f32, f32) is NotImplemented  # a float condition: the plan makes it bool
    assert where(b, flags, 0.5, f32).dtype == np.float32 and where(b, flags, i8, i8).dtype == np.int8
    assert where(b, flags, i8, 2) is NotImplemented  # no Python int is served beside a choice
    assert where.dtypes == (np.dtype(np.float32), np.dtype(np.int8)) and where.int_scalars == ()


def test_called_like_any_method(b: NumPyBackend) -> None:
    x, y = np.arange(3.0), np.ones(3)
    np.testing.assert_array_equal(NumPyBackend.add(b, x, y), x + y)
    np.testing.assert_array_equal(b.sub(a=x, b=y), x - y)
    np.testing.assert_array_equal(b.div(numerator=x, denominator=y), x / y)
    with pytest.raises(TypeError):
        b.add(x)
    with pytest.raises(TypeError):
        b.add(x, y, y)
    assert list(inspect.signature(b.add).parameters) == ["a", "b"]


def test_the_profiler_records_operators_with_a_fast_call(b: NumPyBackend) -> None:
    x = np.ones(3)
    before = vars(type(b))["add"]
    with bk.profile() as profile:
        b.add(x, x)
        b.div(x, x)
    assert [call.function for call in profile.backend_calls] == ["add", "div"]
    assert vars(type(b))["add"] is before  # restored afterwards


def test_pure_python_switch() -> None:
    code = "import bk, numpy as np; from bk_numpy import _math; b = bk.backend('numpy'); print(_math.C_FAST_PATH, b.add(np.ones(2), np.ones(2)).sum())"
    env = {**os.environ, "BK_NUMPY_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == ["False", "4.0"]


def test_operators_pickle_by_reference(b: NumPyBackend) -> None:
    """As Python methods do: dask and multiprocessing send them to other processes."""
    import pickle

    x = np.arange(1.0, 4.0)
    for name in OPERATORS:
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(getattr(b, name)))(x, x), getattr(b, name)(x, x))
        assert pickle.loads(pickle.dumps(vars(_math.MathMixin)[name])) is vars(_math.MathMixin)[name]


def test_operators_cloudpickle(b: NumPyBackend) -> None:
    cloudpickle = pytest.importorskip("cloudpickle")
    x = np.arange(1.0, 4.0)
    np.testing.assert_array_equal(cloudpickle.loads(cloudpickle.dumps(b.add))(x, 1.0), x + 1)


def test_the_build_falls_back_to_pure_python_without_a_compiler(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """What installation.md promises: no compiler, no extension, and the reason for the warning."""
    pytest.importorskip("hatchling")
    sys.path.insert(0, str(Path(__file__).parents[1]))
    try:
        import hatch_build
    finally:
        sys.path.pop(0)
    source = Path(__file__).parents[1] / hatch_build.SOURCE
    monkeypatch.setattr(
        hatch_build.sysconfig, "get_config_var", lambda name: "bk-no-such-compiler -shared" if name == "LDSHARED" else None
    )
    error = hatch_build.compile_extension(source, tmp_path / "_fastops.so")
    assert error is not None and "bk-no-such-compiler" in error and not (tmp_path / "_fastops.so").exists()
