"""docs/semantics.md against the operation specs: every rule its tables state is evaluated with `bk.eval_shape`.

- The NEP 50 table ("tensor | scalar | result") is checked with `add` (and `div` where a row names it).
- Every row of the "call | result | precision" table of "One spec per operation" is evaluated: a call
  such as `sum(int8[2, 3], 0)` (`int8[2, 3]` is a template of that dtype and shape) must give the
  result written beside it, a template (`int64[3]`, `None` for an unknown size), a tuple of
  templates, or the exception class raised.
- Every row of the exceptions table ("mistake | exception") has example calls here that make that
  mistake; the specs must raise exactly the class the row names (a new row needs new examples).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bk
from bk import DType, ShapeDtype

PAGE = Path(__file__).parents[2] / "docs" / "semantics.md"
TEXT = PAGE.read_text()


def _rows(header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with `header`."""
    lines = TEXT.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


class _Dtype:
    """`int8[2, 3]` in a call: the template of that dtype and shape; `int8` alone: the DType."""

    def __init__(self, dtype: DType) -> None:
        self.dtype = dtype

    def __getitem__(self, shape: Any) -> ShapeDtype:
        return ShapeDtype(shape if isinstance(shape, tuple) else (shape,), self.dtype)


def _namespace() -> dict[str, Any]:
    names: dict[str, Any] = {"__builtins__": {}}
    for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"):
        names[name] = _Dtype(DType.parse(name))
    for error in ("AxisError", "ShapeMismatchError", "ArgumentTypeError", "IndexOutOfRangeError"):
        names[error] = getattr(bk, error)
    names.update(ValueError=ValueError, OverflowError=OverflowError, TypeError=TypeError, None_=None)
    return names


def _evaluate(expression: str, names: dict[str, Any]) -> Any:
    # `float32[]` (a 0-d template) is not Python: read it as `float32[()]`
    expression = re.sub(r"\b([a-z0-9]+)\[\]", r"\1[()]", expression)
    tree = ast.parse(expression, mode="eval")
    return eval(compile(tree, "<semantics.md>", "eval"), names)


def _call(expression: str) -> Any:
    names = _namespace()
    for op in bk.op_specs():
        names[op] = lambda *args, _op=op: bk.eval_shape(_op, *[a.dtype if isinstance(a, _Dtype) else a for a in args])
    try:
        return _evaluate(expression, names)
    except Exception as error:  # the class is what the table states
        return type(error)


def _expected(cell: str) -> Any:
    value = _evaluate(cell, _namespace())
    if isinstance(value, _Dtype):
        return value.dtype
    return value


EXAMPLES = _rows("| call | result | precision |")


def test_the_examples_table_is_there():
    assert len(EXAMPLES) > 50


@pytest.mark.parametrize(("call", "result", "precision"), EXAMPLES, ids=[row[0].strip("`") for row in EXAMPLES])
def test_each_example_agrees_with_the_specs(call, result, precision):
    with bk.precision(int(precision) if precision else None):
        got = _call(call.strip("`"))
    assert got == _expected(result.strip("`")), f"docs/semantics.md says {call} gives {result}, the specs give {got}"


_NEP50 = _rows("| tensor | scalar | result |")


@pytest.mark.parametrize(("tensor", "scalar", "result"), _NEP50, ids=[f"{r[0]}-{r[1]}" for r in _NEP50])
def test_the_nep50_table_agrees_with_the_specs(tensor, scalar, result):
    template = ShapeDtype((2,), DType.parse(tensor.strip("`")))
    value = ast.literal_eval(scalar.strip("`"))
    stated = result.split("`")[1]  # the first code span: a dtype name or an exception
    if stated == "OverflowError":
        expected: Any = OverflowError
    else:
        expected = ShapeDtype((2,), DType.parse(stated))
    got = _call_op("add", template, value)
    assert got == expected, f"docs/semantics.md: {tensor} with {scalar} gives {result}; the add spec gives {got}"
    for also in re.findall(r"`(\w+)\(" + re.escape(tensor.strip("`")) + r", " + re.escape(scalar.strip("`")) + r"\)` is (?:the )?`?([\w ]+)`?", result):
        op, outcome = also
        wanted = ShapeDtype((2,), DType(float, 32)) if "default float" in outcome else ShapeDtype((2,), DType.parse(outcome.strip()))
        assert _call_op(op, template, value) == wanted


def _call_op(op: str, *args: Any) -> Any:
    try:
        return bk.eval_shape(op, *args)
    except Exception as error:
        return type(error)


def test_the_nep50_table_is_there():
    assert len(_NEP50) >= 8


_MISTAKES = _rows("| mistake | exception |")


def _t(shape: tuple[int, ...], name: str = "float32") -> ShapeDtype:
    return ShapeDtype(shape, DType.parse(name))


# For each row of the exceptions table (by the start of its "mistake" cell): calls that make that
# mistake, which the specs must refuse with the class the table names.
_MISTAKE_CALLS: dict[str, list[tuple[Any, ...]]] = {
    "an axis outside": [("sum", _t((2, 3)), 2), ("max", _t((2, 3)), (1, -1)), ("flip", _t((2, 3)), (0, 0)), ("argmax", _t((2, 3)), -3), ("sum", _t(()), 0), ("concat", [_t(()), _t(())], 0)],
    "an index outside its dimension": [("gather", _t((3,)), [3], 0), ("gather_1d", _t((3,)), [-4]), ("boolean_mask", _t((4, 3)), _t((3,), "bool"), 0), ("multi_slice", _t((2, 3)), (2,))],
    "shapes that cannot be": [
        ("add", _t((2,)), _t((3,))),
        ("stack", [_t((2,)), _t((3,))]),
        ("concat", [_t((2, 3)), _t((2, 4))], 0),
        ("tensordot", _t((2, 3)), (1,), _t((4, 5)), (0,)),
        ("reshape", _t((2, 3)), (4, 2)),
        ("mul_matrix_batched_vector", _t((4, 3)), _t((5, 2))),
    ],
    "an argument of the wrong type": [
        ("add", None, 1),
        ("sin", "x"),
        ("sum", _t((2, 3)), "0"),
        ("sum", _t((2, 3)), 1.0),
        ("cumsum", _t((3,)), None),
        ("gather", _t((3,)), _t((2,), "bool"), 0),
        ("boolean_mask", _t((4, 3)), _t((4,), "float32"), 0),
        ("solve_triangular_dense", _t((2, 2)), _t((2, 1)), "yes", False),
        ("sum", _t((2, 3)), None, "yes"),
        ("tril", _t((3, 3)), 1.5),
        ("pad", _t((2,)), [(1, 1)], 3),
    ],
    "a dtype kind the operation does not take": [
        ("and_", _t((2,)), _t((2,))),
        ("shift_bits_left", _t((2,), "complex64"), 1),
        ("floordiv", _t((2,), "complex64"), _t((2,), "complex64")),
        ("mod", _t((2,), "complex128"), 2),
        ("floor", _t((2,), "complex64")),
        ("ceil", _t((2,), "complex64")),
    ],
    "a value out of its domain": [("zeros", (2, -1)), ("expand_dims", _t((2,)), 0, -1), ("pad", _t((2,)), [(1, 1)], "mirror"), ("pow", _t((2,), "int32"), -1), ("tile", _t((2,)), (-1,)), ("searchsorted", _t((5,)), _t((2,)), "middle")],
    "a value no bk dtype holds": [
        ("as_tensor", "abc"),
        ("as_tensor", 2**70),
        ("as_tensor", [1, 2**70]),
        ("as_tensor", np.array(["a", "b"])),
        ("as_tensor", np.ones(2, np.longdouble)),
        ("sin", np.array([1, None], object)),
        ("add", np.array(["2020-01-01"], "datetime64[D]"), 1),
        ("ones", (2,), object),
        ("zeros", (2,), "U3"),
        ("cast", _t((2,)), np.longdouble),
    ],
    "a Python int that does not fit": [("add", _t((1,), "int8"), 300), ("sub", _t((2,), "uint8"), -1), ("maximum", _t((2,), "int16"), 40_000)],
    "a reduction without identity": [("max", _t((0,))), ("min", _t((2, 0)), 1), ("argmax", _t((0, 3)), 0), ("argmin", _t((0,)), None)],
}


@pytest.mark.parametrize(("mistake", "exception"), _MISTAKES, ids=[row[0][:30] for row in _MISTAKES])
def test_the_exceptions_table_agrees_with_the_specs(mistake, exception):
    stated = exception.split("`")[1].removeprefix("bk.")
    expected = getattr(bk, stated, None) or {"ValueError": ValueError, "OverflowError": OverflowError}[stated]
    key = next((k for k in _MISTAKE_CALLS if mistake.startswith(k)), None)
    assert key is not None, f"no example calls for the row {mistake!r} of docs/semantics.md: add some to _MISTAKE_CALLS"
    for op, *args in _MISTAKE_CALLS[key]:
        got = _call_op(op, *args)
        assert got is expected, f"docs/semantics.md: {mistake!r} raises {stated}; {op}{tuple(args)} gives {got}"
