"""docs/semantics.md against the operation specs: every rule its tables state is evaluated with `bk.eval_shape`.

- The NEP 50 table ("tensor | scalar | result") is checked with `add` (and `div` where a row names it).
- Every row of the "call | result | precision" table of "One spec per operation" is evaluated: a call
  such as `sum(int8[2, 3], 0)` (`int8[2, 3]` is a template of that dtype and shape) must give the
  result written beside it, a template (`int64[3]`, `None` for an unknown size), a tuple of
  templates, or the exception class raised.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

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
