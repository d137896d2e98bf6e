"""The one call path (`bk._dispatcher`): the plan of each call signature around every kernel, and the
mapping of kernel failures to bk's classes through the operation specs, never through messages."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk._dispatcher import DATA_ERRORS
from bk.rules import HOT_OPERATIONS

from .conftest import Minimal, trust


class Kernels:
    """Kernels that are bare NumPy calls raising NumPy's own errors, as a third party writes them."""

    def add(self, a, b):
        return np.add(a, b)

    def tensordot(self, a, a_axes, b, b_axes):
        return np.tensordot(a, b, (tuple(a_axes), tuple(b_axes)))

    def sum(self, value, axis=None, keepdims=False):
        return np.sum(value, axis=axis, keepdims=keepdims)

    def gather(self, values, indices, axis):
        return np.take(values, indices, axis=axis)

    def floor(self, x):
        return np.floor(x)

    def sqrt(self, x):
        raise ValueError("kernel bug: nothing to do with the arguments")

    def floordiv(self, a, b):
        return np.floor_divide(a, b)

    def greater_than(self, x, y):
        return np.greater(x, y)

    def equal(self, x, y):
        return np.equal(x, y)

    def where(self, condition, x, y):
        return np.where(condition, x, y)

    def any(self, value, axis=None, keepdims=False):
        return np.any(value, axis=axis, keepdims=keepdims)

    def pow(self, base, exp):  # as PyTorch's and JAX's: no error for a negative integer exponent
        return np.power(np.asarray(base, np.float64), exp).astype(np.result_type(base, exp))


_KERNELS = frozenset(n for n in vars(Kernels) if not n.startswith("_"))


class Plain(Kernels, Minimal):
    """Every kernel trusted: the error mapping after a kernel failed, alone."""


trust(Plain, _KERNELS)


class Ruled(Kernels, Minimal):
    """The same kernels behind the one call path (the default for a plugin)."""


class SpecFirst(Kernels, Minimal):
    """The hot kernels trusted (as the first-party plugins'): the plan before every other kernel."""


trust(SpecFirst, HOT_OPERATIONS)


def test_shape_mistakes_become_the_specs_class_naming_both_shapes():
    b = Plain()
    with pytest.raises(bk.ShapeMismatchError, match=r"^tensordot: axis 1 of a \(3, 4\) and axis 0 of b \(5, 6\)") as raised:
        b.tensordot(np.ones((3, 4)), (1,), np.ones((5, 6)), (0,))
    assert isinstance(raised.value.__cause__, ValueError)  # NumPy's own error stays the cause
    with pytest.raises(bk.ShapeMismatchError, match="^add: "):
        b.add(np.ones(3), np.ones(4))
    with pytest.raises(bk.ShapeMismatchError, match=r"^tensordot: axis 1 of a \(3, 4\)") as raised:
        Ruled().tensordot(np.ones((3, 4)), (1,), np.ones((5, 6)), (0,))
    assert raised.value.__cause__ is None  # the plan refused the call: the kernel never ran


def test_axis_and_kind_mistakes_become_the_specs_class():
    b = Plain()
    with pytest.raises(bk.AxisError, match="^sum: "):
        b.sum(np.ones((2, 3)), axis=2)
    with pytest.raises(bk.ArgumentTypeError, match="^floor: "):
        b.floor(np.ones(2, np.complex64))


def test_data_mistakes_take_the_operations_data_error_class():
    b = Plain()
    assert DATA_ERRORS["gather"] is bk.IndexOutOfRangeError
    with pytest.raises(bk.IndexOutOfRangeError, match="^gather: ") as raised:
        b.gather(np.arange(3), np.array([5]), 0)
    assert type(raised.value.__cause__) is IndexError


def test_other_failures_stay_what_they_are_and_name_the_operation():
    with pytest.raises(ValueError, match="^sqrt: kernel bug") as raised:
        Plain().sqrt(np.ones(2))
    assert type(raised.value) is ValueError


def test_trusted_kernels_get_no_plan_and_explain_failure_is_public():
    assert getattr(Plain.add, "__bk_kernel__", None) is not None and not hasattr(Plain.add, "__bk_plans__")
    assert hasattr(Ruled.add, "__bk_plans__")  # the plan's cache: not trusted
    assert getattr(Plain.is_tensor, "__bk_kernel__", None) is None  # the required set is never wrapped
    assert Plain().add(np.ones(2, bool), np.ones(2, bool)).dtype == bool  # called as it is: NumPy's dtype
    try:
        np.add(np.ones(3), np.ones(4))
    except ValueError as error:
        with pytest.raises(bk.ShapeMismatchError, match="^add: "):
            bk.explain_failure(None, "add", error, (np.ones(3), np.ones(4)), {})


def test_wrapping_keeps_supports_names_and_signatures():
    import inspect

    b = Plain()
    assert b.supports("tensordot") and b.supports("gather") and not b.supports("sparse_coo_tensor")
    assert Plain.tensordot.__name__ == "tensordot"
    assert list(inspect.signature(Plain.tensordot).parameters) == ["self", "a", "a_axes", "b", "b_axes"]



def test_the_plan_checks_before_the_kernel_and_cast_as_the_spec_says():
    b = Ruled()
    with pytest.raises(bk.ShapeMismatchError, match="^tensordot: ") as raised:
        b.tensordot(np.ones((3, 4)), (1,), np.ones((5, 6)), (0,))
    assert raised.value.__cause__ is None  # refused by the spec: the kernel never ran
    assert b.add(np.ones(2, bool), np.ones(2, bool)).dtype == np.int32  # bools add as int32
    assert b.sum(np.ones(3, np.int8)).dtype == np.int64  # small ints widen
    with bk.precision(64):
        assert b.add(np.ones(2, np.float32), 1.5).dtype == np.float64
    with pytest.raises(bk.ArgumentTypeError, match="^add: "):
        b.add(None, np.ones(2))


def test_the_plan_runs_composites_for_rules_that_need_the_data():
    b = Ruled()
    quotient = b.floordiv(np.array([7, 8], np.int32), np.array([2, 0], np.int32))
    np.testing.assert_array_equal(quotient, [3, 0])  # integer division by zero gives 0, as NumPy
    assert quotient.dtype == np.int32
    np.testing.assert_array_equal(b.greater_than(np.array([1, 2], np.int8), 300), [False, False])  # by value
    np.testing.assert_array_equal(b.greater_than(300, np.array([1, 2], np.int8)), [True, True])
    with pytest.raises(ValueError, match="^pow: integers to negative integer powers"):  # checked on the data
        b.pow(np.array([2, 3], np.int32), np.array([1, -1], np.int32))
    np.testing.assert_array_equal(b.pow(np.array([2, 3], np.int32), np.array([3, 0], np.int32)), [8, 1])
    np.testing.assert_allclose(b.pow(np.array([2.0, 4.0]), np.array([-1, 0], np.int32)), [0.5, 1.0])


class CountingTensordot(SpecFirst):
    calls = 0

    def tensordot(self, a, a_axes, b, b_axes):
        type(self).calls += 1
        return np.tensordot(a, b, (tuple(a_axes), tuple(b_axes)))


def test_the_plan_refuses_before_the_kernel_and_is_compiled_once_per_signature(monkeypatch):
    import bk._dispatcher as kernels

    b = CountingTensordot()
    with pytest.raises(bk.ShapeMismatchError, match=r"^tensordot: axis 1 of a \(3, 4\)") as raised:
        b.tensordot(np.ones((3, 4)), (1,), np.ones((5, 6)), (0,))
    assert raised.value.__cause__ is None and CountingTensordot.calls == 0  # the kernel never ran
    asked = []
    compile_ = kernels.compile_plan  # the dispatcher's name of bk._plans.compile_plan
    monkeypatch.setattr(kernels, "compile_plan", lambda *a: asked.append(a[1]) or compile_(*a))
    b_tensordot = CountingTensordot.tensordot
    a, m = np.ones((3, 4)), np.ones((4, 2))
    for _ in range(3):
        assert b_tensordot(b, a, (1,), m, (0,)).shape == (3, 2)
    assert asked == ["tensordot"] and CountingTensordot.calls == 3  # compiled once per signature
    assert b_tensordot(b, np.ones((3, 4), np.float32), (1,), m, (0,)).shape == (3, 2)
    assert b_tensordot(b, np.ones((2, 4)), (1,), m, (0,)).shape == (2, 2)
    assert asked == ["tensordot"] * 3  # a new dtype or shape is a new signature
    # a valid call, then a bad one of the same ranks and dtypes: the key holds full shapes, not ranks
    with pytest.raises(bk.ShapeMismatchError, match="^tensordot: "):
        b_tensordot(b, np.ones((2, 4)), (1,), np.ones((5, 2)), (0,))
    assert CountingTensordot.calls == 5


def test_trusted_hot_operations_are_left_to_the_kernel():
    b = SpecFirst()
    with pytest.raises(bk.ShapeMismatchError, match="^add: ") as raised:
        b.add(np.ones(3), np.ones(4))
    assert isinstance(raised.value.__cause__, ValueError)  # the kernel ran and failed; the spec explained it
    with pytest.raises(bk.AxisError, match="^sum: ") as raised:
        b.sum(np.ones((2, 3)), axis=2)
    assert raised.value.__cause__ is not None
    with pytest.raises(bk.IndexOutOfRangeError, match="^gather: "):  # data mistakes: after the kernel
        b.gather(np.arange(3), np.array([5]), 0)


def test_numpy_integers_are_int_arguments_and_numpy_scalars_operands():
    """An axis, offset or count taken from NumPy (`np.argmax(...)`, `np.int64(1)`) is an int for every spec."""
    from bk._explain import spec_verdict

    b = SpecFirst()
    m = np.ones((3, 3))
    accepted = [
        ("diagonal", (m, np.int64(1))), ("matrix_power", (m, np.int32(2))), ("tile", (m, (np.int64(2), 1))),
        ("cumsum", (m, np.int64(0))), ("fftfreq", (np.int64(4),)), ("transpose", (m, (np.int64(1), 0))),
        ("add", (np.float32(1.5), m)),
    ]  # fmt: skip
    for op, args in accepted:
        assert spec_verdict(b, op, args, {}) is None, op
    for bad in (np.bool_(True), np.float64(1.0), np.ones(1, np.int64)):
        assert isinstance(spec_verdict(b, "diagonal", (m, bad), {}), bk.ArgumentTypeError), bad


def test_generic_defaults_take_the_plan_and_keep_supports():
    """A generic default composed of other operations raises its own operation's error, and is still the
    base class's default for `supports()`."""
    from bk._features import uses_of

    default = bk.Backend.tile_to
    assert uses_of(default) == ("tile", "staticshape") and getattr(default, "__bk_kernel__", None) is not None
    assert getattr(vars(bk.Backend)["tile_to"], "__wrapped__", None) is bk._defaults.tile_to  # the registry keeps the definition

    class Tiles(SpecFirst):
        def tile(self, value, multiples):
            return np.tile(value, multiples)

    b = Tiles()
    assert Tiles.tile_to is default and b.supports("tile_to") and not SpecFirst().supports("tile_to")
    assert b.tile_to(np.ones((2, 3)), 1, 6).shape == (2, 6)
    with pytest.raises(ValueError, match="^tile_to: cannot tile size 3 to 4"):
        b.tile_to(np.ones((2, 3)), 1, 4)


def test_check_dtypes_is_the_specs_kind_rule_cached_per_dtype(monkeypatch):
    import bk._explain as kernels
    from bk.rules import check_dtypes

    b = SpecFirst()
    with pytest.raises(bk.ArgumentTypeError, match="^floor: "):
        check_dtypes(b, "floor", np.ones(2, np.complex64))
    with pytest.raises(bk.ArgumentTypeError, match="^arctan2: "):
        check_dtypes(b, "arctan2", np.ones(2, np.complex128), np.ones(2, np.complex128))
    asked = []
    verdict = kernels.spec_verdict
    monkeypatch.setattr(kernels, "_DTYPE_VERDICTS", {})  # nothing cached by earlier tests
    monkeypatch.setattr(kernels, "spec_verdict", lambda *a: asked.append(a[1]) or verdict(*a))
    for _ in range(3):
        check_dtypes(b, "signbit", np.ones(4, np.float16))
    assert asked == ["signbit"]  # once per (operation, dtype)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_generic_defaults_of_an_older_plugin_take_the_same_path():
    """A plugin written before the one call path, unchanged: the required set and no operators at all;
    `and_`, `floordiv` and `add` come from the core's generic defaults over NumPy's operators."""
    b = Minimal()
    with pytest.raises(bk.ArgumentTypeError, match="^and_: "):  # the spec refuses floats before the operator runs
        b.and_(np.ones(2, np.float32), np.ones(2, np.float32))
    np.testing.assert_array_equal(b.floordiv(np.array([7, 8, 9], np.int8), [0, 1, 0]), [0, 8, 0])
    assert b.add(np.array([True]), np.array([True])).dtype == np.int32  # bools add as int32


def test_the_declared_operation_sets_name_catalogue_operations():
    from bk.rules import COMMON_OPERANDS, HOT_OPERATIONS, ORDERING

    features = set(bk.Backend.features())
    assert features >= ORDERING and features >= COMMON_OPERANDS and features >= HOT_OPERATIONS


class NoHalf(Ruled):
    """Kernels without any float16 kernel, declared once for every operation ("*")."""

    lacking_kernels = {"*": frozenset({bk.DType(float, 16)})}

    def add(self, a, b):
        if np.asarray(a).dtype == np.float16 or np.asarray(b).dtype == np.float16:
            raise TypeError("no float16 kernel")
        return np.add(a, b)


def test_a_dtype_declared_lacking_for_every_operation_is_computed_one_size_up():
    result = NoHalf().add(np.array([1.5], np.float16), np.array([2.0], np.float16))
    assert result.dtype == np.float16 and float(result[0]) == 3.5


class _SizedShape(tuple):  # a tuple subclass as a shape, as PyTorch's `Size`
    pass


class _Described:
    def __init__(self, shape: tuple[int, ...], dtype: object) -> None:
        self.shape, self.dtype = shape, dtype


_KEY_VALUES = [
    np.ones(3, np.float32), np.ones((2, 0), np.int8), np.float64(2.0), np.int32(3), 2.0, True, False, 1j, 0, 1, -1, 7, -8,
    2**62, -(2**63), 2**64, -(2**70), (), (2, 5), (1, None), (2, 3.0), None, bk.DType(float, 32), bk.DType(int, 8), "mean",
    [1, 2], {"a": 1}, slice(1, 2), Ellipsis, _Described(_SizedShape((2, 3)), np.dtype("float32")), _Described([2, 3], np.dtype("int8")),
]  # fmt: skip


@pytest.mark.parametrize("elementwise", [True, False])
def test_the_c_front_builds_the_python_dispatchers_key_or_none(elementwise):
    from bk import _dispatcher, _plans

    if not _dispatcher.C_FRONT:
        pytest.skip("built without the dispatcher's C front")
    backend = bk.backend("numpy")
    part = _plans.operand_part if elementwise else _plans.value_part
    for a in _KEY_VALUES:
        for b in (_KEY_VALUES[0], 2.0, (2, 5)):
            ours = _dispatcher._FASTPLAN.key_of(elementwise, bk.DType, backend, a, b)
            if ours is None:
                continue  # the C front leaves this call to the Python dispatcher
            expected = (type(backend), None, part(backend, a), part(backend, b))
            assert ours == expected and hash(ours) == hash(expected), (a, b)


def test_the_c_front_serves_the_plans_the_python_dispatcher_compiled():
    from bk import _dispatcher

    backend = bk.backend("numpy")
    x = np.arange(6, dtype=np.int8)
    assert backend.sum(x, None, False).dtype == np.int64  # a plan that casts: not direct
    assert backend.sum(x, None, False) == 15
    assert backend.reshape(x, (2, 3)).shape == (2, 3)  # a direct plan
    with pytest.raises(bk.ShapeMismatchError, match="reshape"):
        backend.reshape(x, (4, 2))  # the kernel fails under a new key: compiled, refused by the spec
    plans = type(backend).reshape.__bk_plans__
    assert any(plan.direct for plan in plans.values())
    if _dispatcher.C_FRONT:
        assert type(type(backend).reshape).__name__ == "Dispatched"


def test_a_direct_kernels_failure_is_explained_under_a_cached_key():
    backend = bk.backend("numpy")
    x = np.arange(5.0)
    for _ in range(2):  # the second call finds the direct plan (in C where the front is built)
        np.testing.assert_array_equal(backend.gather(x, np.array([0, 1]), 0), [0.0, 1.0])
    with pytest.raises(bk.IndexOutOfRangeError, match="gather"):
        backend.gather(x, np.array([0, 9]), 0)  # the same key: the kernel's IndexError, explained


class _FastMinimal(Minimal):
    """Minimal with `zeros_like` and `sin` behind fast paths."""

    calls: list[str] = []

    @bk.rules.kernel(fast=lambda self, x: _FastMinimal.calls.append("fast") or np.zeros_like(x) if type(x) is np.ndarray else NotImplemented)
    def zeros_like(self, x):
        _FastMinimal.calls.append("kernel")
        return np.zeros_like(x)

    @bk.rules.kernel(fast=bk.rules.listed_call(np.sin, np.ndarray, [np.dtype(np.float32), np.dtype(np.float64)], 1))
    def sin(self, x):
        _FastMinimal.calls.append("kernel")
        return np.sin(x)


def test_a_fast_path_serves_its_case_and_leaves_the_rest_to_the_plan():
    b = _FastMinimal()
    _FastMinimal.calls.clear()
    np.testing.assert_array_equal(b.zeros_like(np.ones(2, np.int8)), [0, 0])
    assert _FastMinimal.calls == ["fast"]  # no plan, no kernel
    _FastMinimal.calls.clear()
    assert b.zeros_like([1.0, 2.0]).shape == (2,)  # NotImplemented: the plan converts the list, then the kernel
    assert _FastMinimal.calls == ["kernel"]
    _FastMinimal.calls.clear()
    assert b.sin(np.zeros(2, np.float32)).dtype == np.float32 and _FastMinimal.calls == []  # the native call alone
    assert b.sin(np.zeros(2, np.int32)).dtype == np.float32 and _FastMinimal.calls == ["kernel"]  # the plan casts ints first
    with bk.precision(64):
        assert b.sin(np.zeros(2, np.float32)).dtype == np.float64  # a set precision: the plan, never the fast path
    with pytest.raises(bk.ArgumentTypeError, match="sin"):
        b.sin(None)


@pytest.fixture(params=["C", "Python"])
def c_front(request, monkeypatch):
    """`bk._dispatcher`, its `listed_call` built in C (where the front is built) or in Python."""
    from bk import _dispatcher

    if request.param == "C" and not _dispatcher.C_FRONT:
        pytest.skip("built without the dispatcher's C front")
    if request.param == "Python":
        monkeypatch.setattr(_dispatcher, "_FASTPLAN", None)
    return _dispatcher


def test_native_call_takes_tensors_of_its_dtypes_and_weak_numbers_after_them(c_front):
    _dispatcher = c_front
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    unary = _dispatcher.listed_call(np.negative, np.ndarray, [f32], 1)
    binary = _dispatcher.listed_call(np.add, np.ndarray, [f32, f64], 2, float_dtypes=[f32])
    x, y = np.ones(2, np.float32), np.ones(2, np.float64)
    np.testing.assert_array_equal(unary(None, x), [-1.0, -1.0])
    assert unary(None, y) is NotImplemented and unary(None, [1.0]) is NotImplemented and unary(None, x, x) is NotImplemented
    assert binary(None, x, x).dtype == np.float32 and binary(None, y, y).dtype == np.float64
    assert binary(None, x, 2.0).dtype == np.float32
    for args in ((x, y), (y, 2.0), (2.0, x), (x, 2), (x, True), (x, [1.0, 2.0]), (x,)):
        assert binary(None, *args) is NotImplemented, args
    i8, u8 = np.dtype(np.int8), np.dtype(np.uint8)
    ints = _dispatcher.listed_call(np.add, np.ndarray, [i8, u8], 2, int_dtypes={i8: (-128, 127), u8: (0, 255), f32: (-(2**24), 2**24)})
    a, u = np.ones(2, np.int8), np.ones(2, np.uint8)
    assert ints(None, a, 127).dtype == np.int8 and ints(None, a, -128).dtype == np.int8 and ints(None, u, 255).dtype == np.uint8
    assert ints(None, x, 2**24).dtype == np.float32  # a Python int beside floats: in the range given for them
    for args in ((a, 128), (a, -129), (u, -1), (u, 256), (a, 2**70), (x, 2**24 + 1), (a, 2.0), (3, a)):  # beyond the range: the plan's rules
        assert ints(None, *args) is NotImplemented, args
    rows = _dispatcher.listed_call(np.negative, np.ndarray, [f32], 1, check=("ndim", 1))  # only where x.ndim is 1
    np.testing.assert_array_equal(rows(None, x), [-1.0, -1.0])
    assert rows(None, np.ones((2, 2), np.float32)) is NotImplemented
    with pytest.raises(TypeError, match="check"):
        _dispatcher.listed_call(np.negative, np.ndarray, [f32], 1, check="ndim")
    with pytest.raises(ValueError, match="arity"):
        _dispatcher.listed_call(np.add, np.ndarray, [f32], 3)
    anything = _dispatcher.listed_call(np.zeros_like, np.ndarray, None, 1)  # any dtype: not read
    for dtype in (np.int8, np.uint64, np.float16, np.complex64, np.bool_, "datetime64[s]"):
        assert anything(None, np.ones(2, dtype)).dtype == np.dtype(dtype)
    assert anything(None, [1.0]) is NotImplemented  # still only tensors of the type
    with pytest.raises(ValueError, match="one tensor"):
        _dispatcher.listed_call(np.add, np.ndarray, None, 2)


def test_factory_call_creates_for_a_tuple_shape_and_a_mapped_dtype(c_front):
    _dispatcher = c_front
    f32, i8 = bk.DType(float, 32), bk.DType(int, 8)
    seen = []

    def factory(*sizes, **keywords):
        seen.append((sizes, keywords))
        return "made"

    class Place:
        ref = "device0"

    class Owner:
        place = Place()

    plain = _dispatcher.factory_call(factory, {f32: "float32"})
    assert plain(None, (2, 3), f32) == "made" and seen.pop() == (((2, 3),), {"dtype": "float32"})
    apart = _dispatcher.factory_call(factory, {f32: "float32", i8: "int8"}, sizes_apart=True, device="place.ref")
    assert apart(Owner(), (2, 3), i8) == "made" and seen.pop() == ((2, 3), {"dtype": "int8", "device": "device0"})
    assert apart(Owner(), (), f32) == "made" and seen.pop() == (((),), {"dtype": "float32", "device": "device0"})  # a 0-d shape
    for args in (((2,), None), ([2], f32), ((2,), bk.DType(float, 64)), ((2,), [1]), ((2,),), ((2,), f32, f32)):
        assert apart(Owner(), *args) is NotImplemented, args  # no dtype, a list, a dtype not mapped, unhashable, other arity
    assert apart(object(), (2,), f32) is NotImplemented  # a backend without the device attribute: the plan
    assert not seen
    with pytest.raises(ValueError, match="factory_call"):
        _dispatcher.factory_call(factory, {}, device="place..ref")
    failing = _dispatcher.factory_call(lambda *sizes, **keywords: np.zeros(sizes, keywords["dtype"]), {f32: np.float32}, sizes_apart=True)
    with pytest.raises(ValueError, match="negative"):  # the factory's own error, for the dispatcher to explain
        failing(None, (-1,), f32)


def test_a_factory_call_serves_zeros_behind_the_plan(c_front):
    _dispatcher = c_front
    calls = []

    def factory(shape, dtype):
        calls.append("fast")
        return np.zeros(shape, dtype)

    class Creating(Minimal):
        @bk.rules.kernel(fast=_dispatcher.factory_call(factory, {bk.DType(float, 32): np.float32}))
        def zeros(self, shape, dtype=None):
            calls.append("kernel")
            return np.zeros(shape, bk.to_numpy_dtype(dtype or self.float_type))

    b = Creating()
    assert b.zeros((2,), bk.DType(float, 32)).dtype == np.float32 and calls == ["fast"]
    calls.clear()
    assert b.zeros((2,), bk.DType(int, 8)).dtype == np.int8 and calls == ["kernel"]  # a dtype not mapped: the plan
    calls.clear()
    with bk.precision(64):
        assert b.zeros((2,), bk.DType(float, 32)).dtype == np.float32 and calls == ["kernel"]  # a precision set: the plan, never the fast call
    with pytest.raises(ValueError, match="zeros"):  # the factory's error, explained as the operation's
        b.zeros((-1,), bk.DType(float, 32))


class _Tensor:
    """A tensor type whose `dtype` is a property of the class, as PyTorch's is a getter."""

    dtype = property(lambda self: self._dtype)

    def __init__(self, dtype):
        self._dtype = dtype


def test_native_call_reads_the_dtype_of_the_type_as_it_is_now_and_finds_dtypes_among_many(c_front, monkeypatch):
    _dispatcher = c_front
    many = [f"dtype{i}" for i in range(40)]  # a larger identity table than a framework's dtypes need
    call = _dispatcher.listed_call(lambda x: "native", _Tensor, many, 1)
    for name in ("dtype0", "dtype17", "dtype39", "".join(["dtype", "2"])):  # the last: an equal string, not the same object
        assert call(None, _Tensor(name)) == "native", name
    assert call(None, _Tensor("other")) is NotImplemented
    few = _dispatcher.listed_call(lambda x: "native", _Tensor, ["a", "b"], 1)
    assert few(None, _Tensor("a")) == "native"  # the descriptor found once (in C) ...
    monkeypatch.setattr(_Tensor, "dtype", property(lambda self: "b" if self._dtype == "x" else "zzz"))
    assert few(None, _Tensor("x")) == "native" and few(None, _Tensor("a")) is NotImplemented  # ... and again once the class changes


def test_a_bound_dispatched_method_takes_its_instance_however_it_is_called():
    import functools

    b = bk.backend("numpy")
    add = type(b).add.bind(b) if hasattr(type(type(b).add), "bind") else b.add
    x, y = np.arange(3.0), np.ones(3)
    expected = x + y
    np.testing.assert_array_equal(add(x, y), expected)  # from Python code: the slot before the arguments lent
    np.testing.assert_array_equal(next(map(add, [x], [y])), expected)  # map: no slot lent, the arguments copied
    np.testing.assert_array_equal(functools.partial(add, x)(y), expected)
    arguments = [x, y]
    np.testing.assert_array_equal(add(*arguments), expected)
    assert arguments[0] is x and arguments[1] is y  # the caller's arguments as they were
    with pytest.raises(bk.ShapeMismatchError, match="add"):
        add(np.ones(2), np.ones(3))


def test_a_namespace_shortcut_takes_plain_typed_calls_and_a_known_dtype_keyword():
    from bk import _dispatcher
    from bk._namespace_common import shortcut

    if not _dispatcher.C_FRONT:
        pytest.skip("built without the dispatcher's C front")
    calls = []

    def adapter(*args, **kwargs):
        calls.append(("adapter", args, kwargs))
        return "adapter"

    def fast(*args):
        calls.append(("fast", args))
        return "fast"

    filled = shortcut(adapter, 1, fast, ("f32",), shape_at=0, dtypes={"int8": "i8"}, dtype_at=0)
    assert filled(3) == "fast" and calls[-1] == ("fast", ((3,), "f32"))  # an int shape made a 1-tuple
    assert filled((2, 3), dtype="int8") == "fast" and calls[-1] == ("fast", ((2, 3), "i8"))  # the dtype the dict gives
    for args, kwargs in (([2, 3], {}), ((2,), {"dtype": "uint8"}), ((2,), {"device": "cpu"}), ((2,), {"dtype": "int8", "device": None})):
        assert filled(*args, **kwargs) == "adapter", (args, kwargs)  # a list, an unknown dtype, another keyword
    assert filled((2,), dtype=[1]) == "adapter"  # an unhashable value: the adapter says what is wrong
    typed = shortcut(adapter, 2, fast, (), kinds=(None, float))
    assert typed("x", 2.0) == "fast" and calls[-1] == ("fast", ("x", 2.0))
    for args in (("x", 2), ("x", True), ("x",)):
        assert typed(*args) == "adapter", args  # not the exact type at its position, or another arity
    with pytest.raises(TypeError, match="Shortcut"):
        shortcut(adapter, 1, fast, (), kinds=(int, int))
    with pytest.raises(TypeError, match="Shortcut"):
        shortcut(adapter, 1, fast, (), dtypes={}, dtype_at=0)  # no extra argument to replace
    free = shortcut(adapter, 1, fast, (), precision_free=True)  # the catalogue call only while no precision is set
    assert free("x") == "fast"
    with bk.precision(64):
        assert free("x") == "adapter"
    assert free("x") == "fast"


@pytest.mark.parametrize(
    ("op", "args", "kwargs"),
    [
        ("sum", ("x",), {"axis": 0}),
        ("sum", ("x",), {"keepdims": True, "axis": 1}),
        ("sum", ("x",), {"keepdims": True}),  # not right after the positional ones: bound by inspect
        ("sum", (), {"value": "x", "axis": 0}),
        ("clip", ("x",), {"upper_limit": 2, "lower_limit": 1}),
        ("sum", ("x",), {"nonsense": 1}),  # not the catalogue's signature: left as it is
        ("add", ("a",), {"b": "b"}),
    ],
)
def test_positional_is_inspects_binding(op, args, kwargs):
    from bk._explain import positional, signature_of

    spec = bk.op_spec(op)
    for _ in range(2):  # the second call takes the cached form
        got = positional(spec, args, dict(kwargs))
        try:
            bound = signature_of(spec).bind(*args, **kwargs)
            want = (bound.args, bound.kwargs)
        except TypeError:
            want = (args, kwargs)
        assert (tuple(got[0]), got[1]) == (tuple(want[0]), want[1])


def test_by_position_passes_what_the_signature_takes_by_position():
    assert bk.rules.by_position("sum", ("x",), {"axis": 0}) == (("x", 0), {})
    assert bk.rules.by_position("sum", ("x",), {"keepdims": True}) == (("x",), {"keepdims": True})
    assert bk.rules.by_position("jit_compile", ("f",), {"auxiliary_args": ""}) == (("f",), {"auxiliary_args": ""})  # no spec
