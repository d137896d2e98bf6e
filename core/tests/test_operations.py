"""The registry of operations (`bk._operations`): one record per operation, read by the dispatcher instead
of name sets of its own."""

from __future__ import annotations

import ast
import inspect

import pytest

import bk
from bk import _dispatcher, _operations
from bk._operations import Operation, operation, operations


def test_every_feature_of_the_catalogue_has_a_record():
    records = operations()
    methods = [name for name in bk.Backend.features() if callable(getattr(bk.Backend, name, None))]
    missing = [name for name in methods if name not in records]
    assert not missing, f"operations without a record: {missing}"
    for name, record in records.items():
        assert record.name == name
        assert (record.spec is None) == (name not in bk.op_specs())
        if name in methods:  # (`take` and other names of the Array API namespace have a record for their data errors)
            assert record.spec is not None or record.no_spec or record.infrastructure, name


def test_records_hold_each_property_stated_once():
    assert operation("gather").data_error is bk.IndexOutOfRangeError and operation("gather").checked_indices
    assert operation("solve").data_error is ValueError and operation("solve").common_operands
    assert operation("add").family == "binary" and operation("add").planned and operation("add").data_error is None
    assert operation("sum").family == "reduction" and operation("var").degenerate_needs == ("abs", "sub", "mul")
    assert operation("sort").ordering and not operation("add").ordering
    assert operation("equal").compares and operation("where").wraps_python_ints and operation("where").operands == (1, 2)
    assert operation("stack").operands == _operations.SEQUENCE and operation("allocate_on_device").checks_device
    assert operation("floordiv").zero_divisors and operation("expm1").special_values and operation("eigh").convention
    assert operation("flip").no_axes == "axes" and operation("vector_norm").no_axes_needs == ("abs", "not_equal")
    assert operation("jit_compile").infrastructure and not operation("jit_compile").planned and operation("jit_compile").no_spec
    assert operation("conjugate_gradient").guarded
    assert operation("add").signature() == "add(a, b)" and operation("add").rule == bk.op_spec("add").rule
    assert operation("not_an_operation") == Operation("not_an_operation")  # a backend's own extra method: no rules
    assert operation("flip").default is not None and operation("sin").default is None  # flip has a generic default
    assert operation("add").doc and operation("add").allows_framework_call and operation("pow").allows_framework_call and operation("where").allows_framework_call and not operation("sum").allows_framework_call
    assert operation("add").operand_dtype(bk.ShapeDtype((2,), bk.DType(bool)), bk.ShapeDtype((2,), bk.DType(bool))) == bk.DType(int, 32)


def test_the_compatibility_names_are_views_of_the_records():
    records = operations().values()
    assert frozenset(_dispatcher.ORDERING) == {r.name for r in records if r.ordering}
    assert frozenset(_dispatcher.COMMON_OPERANDS) == {r.name for r in records if r.common_operands}
    assert dict(_dispatcher.DATA_ERRORS) == {r.name: r.data_error for r in records if r.data_error is not None}
    assert bk.rules.ORDERING is _operations.ORDERING and bk.rules.COMMON_OPERANDS is _operations.COMMON_OPERANDS


def _operation_name_sets(module) -> list[str]:
    """Module-level frozensets, sets, dicts and tuples in `module`'s source whose string members are mostly operation names."""
    names = set(operations())
    found = []
    for node in ast.parse(inspect.getsource(module)).body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        strings = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        hits = [s for s in strings if s in names]
        if len(hits) >= 2 and len(hits) * 2 >= len(strings):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            found.append(ast.unparse(target))
    return found


@pytest.mark.parametrize("module", [_dispatcher])
def test_the_dispatcher_keeps_no_name_set_of_its_own(module):
    assert _operation_name_sets(module) == []
    assert len(_operation_name_sets(_operations)) >= 8  # the check finds them where they are declared
