"""Fast calls derived from the plans (`bk.rules.framework_call`): no dtype table is written; a rule changed in
one place changes the fast call with the plan, on the C front and on the Python road alike."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk._specs import register
from bk._specs._blocks import binary
from bk.rules import framework_call, kernel

from .conftest import Minimal

F16, F32 = bk.DType(float, 16), bk.DType(float, 32)


def _fast_backend(**declarations):
    """A backend class made now (after any rule change), with derived fast calls of add, negative and floordiv."""

    class Fast(Minimal):
        vars().update(declarations)

        @kernel(fast=framework_call(np.add, np.ndarray, 2))
        def add(self, a, b):
            return np.add(a, b)

        @kernel(fast=framework_call(np.negative, np.ndarray, 1))
        def negative(self, x):
            return np.negative(x)

        @kernel(fast=framework_call(np.floor_divide, np.ndarray, 2))
        def floordiv(self, a, b):
            return np.floor_divide(a, b)

        @kernel(fast=framework_call(np.where, np.ndarray, 3))
        def where(self, condition, x=None, y=None):
            return np.where(condition, x, y)

    return Fast


def _served(cls, b, op, *args):
    return getattr(cls, op).__bk_fast_call__(b, *args) is not NotImplemented


def test_the_fast_call_serves_where_the_plan_takes_no_step():
    cls = _fast_backend()
    b = cls()
    f32, i8, flags = np.ones(3, np.float32), np.ones(3, np.int8), np.ones(3, bool)
    assert _served(cls, b, "add", f32, f32) and _served(cls, b, "add", i8, i8)
    assert _served(cls, b, "add", f32, 2.5) and _served(cls, b, "add", i8, 100)  # weak Python numbers (NEP 50)
    assert not _served(cls, b, "add", i8, 300)  # beyond int8: the plan raises OverflowError
    assert not _served(cls, b, "add", flags, flags)  # bools add as int32 (the spec): the plan casts
    assert not _served(cls, b, "add", i8, 2.5)  # an int tensor beside a float: the default float, the plan
    assert not _served(cls, b, "add", f32, np.ones(3))  # two dtypes: the plan promotes
    assert _served(cls, b, "negative", i8) and not _served(cls, b, "negative", flags)  # negative of bools is refused by the spec
    with pytest.raises(OverflowError, match="^add: "):
        b.add(i8, 300)
    assert b.add(flags, flags).dtype == np.int32 and b.add(i8, 2.5).dtype == np.float32


def test_the_choice_is_served_for_a_bool_condition_and_operands_the_plan_leaves_alone():
    cls = _fast_backend()
    b = cls()
    f32, i8, flags = np.ones(3, np.float32), np.ones(3, np.int8), np.array([True, False, True])
    assert _served(cls, b, "where", flags, f32, f32) and _served(cls, b, "where", flags, i8, i8)
    assert _served(cls, b, "where", flags, f32, 0.5) and _served(cls, b, "where", flags, 0.5, f32)  # a weak float, either side
    assert not _served(cls, b, "where", f32, f32, f32)  # a float condition: the plan makes it bool
    assert not _served(cls, b, "where", flags, i8, 0.5)  # an int and a float: the plan gives the default float
    assert not _served(cls, b, "where", flags, i8, 2)  # Python ints: the plan wraps those beyond the dtype
    assert not _served(cls, b, "where", flags, f32, np.ones(3))  # two dtypes: the plan promotes
    assert b.where(flags, i8, 0.5).dtype == np.float32 and b.where(f32, f32, f32).dtype == np.float32


def test_a_declared_gap_changes_the_fast_call_with_the_plan():
    cls = _fast_backend(lacking_kernels={"add": frozenset({F16})})
    b = cls()
    h = np.ones(2, np.float16)
    assert not _served(cls, b, "add", h, h) and not _served(cls, b, "add", h, 1.5)  # float16 adds through float32
    assert _served(cls, b, "add", np.ones(2, np.float32), 1.5)
    assert b.add(h, h).dtype == np.float16


def test_a_rule_changed_in_one_place_changes_every_road():
    original = bk.op_spec("add")
    register(binary("add", "a + b; ints computed as floats (a test's rule)", int_to_float=True, register_it=False), replace=True)
    try:
        cls = _fast_backend()
        b = cls()
        i8 = np.ones(2, np.int8)
        assert not _served(cls, b, "add", i8, i8)  # the fast call follows the spec: ints are no longer served
        assert bk.from_numpy_dtype(b.add(i8, i8).dtype) == F32  # the plan casts to the default float
        assert _served(cls, b, "add", np.ones(2, np.float32), 1.5)
    finally:
        register(original, replace=True)
    cls = _fast_backend()
    assert _served(cls, cls(), "add", np.ones(2, np.int8), np.ones(2, np.int8))


def test_framework_call_refuses_what_cannot_hold():
    with pytest.raises(ValueError, match="arity must be 1, 2 or 3"):
        framework_call(np.add, np.ndarray, 4)
    with pytest.raises(ValueError, match="arity 3 .* takes no check"):
        framework_call(np.where, np.ndarray, 3, check=("ndim", 1))
    with pytest.raises(TypeError, match="caller must be callable"):
        framework_call(np.add, np.ndarray, 2, caller="UfuncCall")
    from bk._dispatcher import bind_framework_call

    with pytest.raises(TypeError, match="add: its bk.rules.framework_call takes 1 tensors, the operation 2"):
        bind_framework_call(framework_call(np.add, np.ndarray, 1), "add")
    with pytest.raises(TypeError, match="sum: bk.rules.framework_call is for operations of one or two tensors and nothing else"):
        bind_framework_call(framework_call(np.sum, np.ndarray, 1), "sum")
    with pytest.raises(TypeError, match="a callable and a tensor type"):
        framework_call(np.add, "ndarray", 2)
    with pytest.raises(TypeError, match="check must be None or"):
        framework_call(np.add, np.ndarray, 2, check="ndim")
    with pytest.raises(TypeError, match="weak_numbers must be True or False"):
        framework_call(np.add, np.ndarray, 2, weak_numbers=1)


def test_framework_call_is_for_operations_of_tensors_only():
    with pytest.raises(TypeError, match="^clip: bk.rules.framework_call is for operations of one or two tensors"):

        class Wrong(Minimal):
            @kernel(fast=framework_call(np.clip, np.ndarray, 2))
            def clip(self, x, lower_limit, upper_limit):
                return np.clip(x, lower_limit, upper_limit)


def test_lacking_dtypes_special_values_and_shift_counts_are_left_to_the_plan():
    class Fast(Minimal):
        @kernel(fast=framework_call(np.add, np.ndarray, 2, lacking=(complex, F16)))
        def add(self, a, b):
            return np.add(a, b)

        @kernel(fast=framework_call(np.expm1, np.ndarray, 1))
        def expm1(self, x):
            return np.expm1(x)

        @kernel(fast=framework_call(np.left_shift, np.ndarray, 2))
        def shift_bits_left(self, a, b):
            return np.left_shift(a, b)

        # what the shift-count composite computes with (the plan applies it only where they are supported)
        def greater_or_equal(self, x, y):
            return np.greater_equal(x, y)

        def less(self, x, y):
            return np.less(x, y)

        def or_(self, a, b):
            return np.logical_or(a, b) if a.dtype == bool else np.bitwise_or(a, b)

        def where(self, condition, x=None, y=None):
            return np.where(condition, x, y)

        def zeros_like(self, x):
            return np.zeros_like(x)

        def shift_bits_right(self, a, b):
            return np.right_shift(a, b)

    b = Fast()
    c, h, f = np.ones(2, np.complex64), np.ones(2, np.float16), np.ones(2, np.float32)
    assert not _served(Fast, b, "add", c, c) and not _served(Fast, b, "add", h, h) and _served(Fast, b, "add", f, f)
    assert not _served(Fast, b, "expm1", c) and _served(Fast, b, "expm1", f)  # the special complex values follow the kernel
    i8 = np.ones(2, np.int8)
    assert _served(Fast, b, "shift_bits_left", i8, 7) and not _served(Fast, b, "shift_bits_left", i8, 8)
    assert not _served(Fast, b, "shift_bits_left", i8, -1)
    with pytest.raises(TypeError, match="lacking holds bk.DTypes"):
        framework_call(np.add, np.ndarray, 2, lacking=("complex",))
