"""Kernels declare themselves where they are defined (`bk.rules.kernel`) or when registered
(`Backend.register_kernel`): trusted or planned, and their fast call. `trusted_operations` is derived."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk.rules import KernelDeclaration, kernel

from .conftest import Minimal


def _add(self, a, b):
    return np.add(a, b)


class Declared(Minimal):
    @kernel(trusted=True, why="tested: called as it is")
    def sum(self, value, axis=None, keepdims=False):
        return np.sum(value, axis=axis, keepdims=keepdims)

    def floor(self, x):  # declares nothing: planned
        return np.floor(x)

    @kernel(fast=lambda self, x: "fast" if isinstance(x, str) else NotImplemented)
    def ceil(self, x):
        return np.ceil(x)


def test_trusted_operations_are_derived_from_the_declarations():
    assert Declared.trusted_operations == frozenset({"sum"})
    declared = Declared.declared_kernels()
    assert declared["sum"] == KernelDeclaration(trusted=True, why="tested: called as it is")
    assert declared["floor"] == KernelDeclaration() and not declared["ceil"].trusted and declared["ceil"].fast is not None
    assert "mean" not in declared  # a generic default is no kernel of the class


def test_a_trusted_kernel_gets_no_plan_and_a_planned_one_does():
    assert not hasattr(Declared.sum, "__bk_plans__")
    assert hasattr(Declared.floor, "__bk_plans__") and hasattr(Declared.ceil, "__bk_plans__")
    b = Declared()
    with pytest.raises(bk.ArgumentTypeError, match="^floor: "):  # the plan's verdict, before the kernel
        b.floor(np.ones(2, np.complex64))
    assert b.sum(np.ones((2, 3)), axis=1).tolist() == [3.0, 3.0]


def test_a_declared_fast_call_comes_before_the_plan():
    b = Declared()
    assert b.ceil("x") == "fast"
    assert b.ceil(np.array([0.5])).tolist() == [1.0]  # NotImplemented: the plan and the kernel


def test_register_kernel_takes_the_path_of_a_method_in_the_class_body():
    class Registered(Minimal):
        pass

    Registered.register_kernel("add", _add)
    Registered.register_kernel(
        "sum",
        lambda self, value, axis=None, keepdims=False: np.sum(value, axis=axis, keepdims=keepdims),
        trusted=True,
        why="a test",
    )
    assert hasattr(Registered.add, "__bk_plans__") and not hasattr(Registered.sum, "__bk_plans__")
    assert Registered.trusted_operations == frozenset({"sum"})
    assert Registered.declared_kernels()["sum"].why == "a test"
    b = Registered()
    assert b.supports("add")
    with pytest.raises(bk.ShapeMismatchError, match="^add: "):  # the spec's verdict: planned
        b.add(np.ones(3), np.ones(4))
    assert bk.DType(float, 64) == b.dtype(b.add(np.ones(2), 1.0))
    assert not hasattr(_add, "__bk_declaration__")  # the function itself is left as it was: it may serve other classes


def test_register_kernel_refuses_what_cannot_hold():
    class Registered(Minimal):
        pass

    with pytest.raises(ValueError, match="'ad' is not an operation of the catalogue.*'add'"):
        Registered.register_kernel("ad", _add)
    with pytest.raises(TypeError, match="not on Backend itself"):
        bk.Backend.register_kernel("add", _add)
    with pytest.raises(TypeError, match="must be callable"):
        Registered.register_kernel("add", 3)
    with pytest.raises(TypeError, match="not a Python function"):
        Registered.register_kernel("add", np.add)  # a C function cannot be planned: it must be declared trusted
    Registered.register_kernel("add", np.add, trusted=True, why="a ufunc")
    assert "add" in Registered.trusted_operations


@pytest.mark.parametrize(
    ("declaration", "match"),
    [
        ({"explains": True}, "explains=True is for a trusted kernel"),
        ({"trusted": True, "fast": lambda self, x: x}, "takes no fast call"),
        ({"fast": 3}, "fast must be a callable"),
        ({"trusted": "yes"}, "trusted must be True or False"),
        ({"why": 3}, "why must be a str"),
    ],
)
def test_kernel_refuses_a_declaration_that_cannot_hold(declaration, match):
    with pytest.raises(TypeError, match=match):
        kernel(**declaration)


def test_the_earlier_declarations_still_load_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="trusted_operations is deprecated"):

        class Legacy(Minimal):
            trusted_operations = frozenset({"sum"})

            def sum(self, value, axis=None, keepdims=False):
                return np.sum(value, axis=axis, keepdims=keepdims)

    assert Legacy.trusted_operations == frozenset({"sum"}) and not hasattr(Legacy.sum, "__bk_plans__")
    assert Legacy.declared_kernels()["sum"].trusted
    with pytest.warns(DeprecationWarning, match="fast_path is deprecated"):
        declare_fast = bk.rules.fast_path(lambda self, x: "fast")
    with pytest.warns(DeprecationWarning, match="explains_failures is deprecated"):
        bk.rules.explains_failures(lambda self, x: x)

    class OldFast(Minimal):
        @declare_fast
        def floor(self, x):
            return np.floor(x)

    assert OldFast().floor(np.ones(2)) == "fast" and OldFast.declared_kernels()["floor"].fast is not None
    with pytest.warns(DeprecationWarning, match="native_call is deprecated: use bk.rules.listed_call"):
        renamed = bk.rules.native_call(np.negative, np.ndarray, [np.dtype(np.float32)], 1)
    assert type(renamed) is type(bk.rules.listed_call(np.negative, np.ndarray, [np.dtype(np.float32)], 1))
    assert renamed(None, np.ones(2, np.float32)).tolist() == [-1.0, -1.0] and renamed(None, np.ones(2)) is NotImplemented


def test_an_inherited_kernel_declared_anew_is_trusted_as_registered():
    class Base(Minimal):
        def floor(self, x):
            return np.floor(x)

    class Derived(Base):
        pass

    Derived.register_kernel("floor", Derived.floor, trusted=True, why="a test")
    assert "floor" in Derived.trusted_operations and not hasattr(Derived.floor, "__bk_plans__")
    assert hasattr(Base.floor, "__bk_plans__") and "floor" not in Base.trusted_operations
