"""An argument of the wrong kind gets the same bk error, naming the operation, on every backend.

For every operation with a spec, the first generated valid call of the testkit is taken, and one argument that is
not a tensor (an axis, a flag, a size, a shape, a mode, a dtype) is replaced by a value of the wrong kind (a float
for an int, a string for a bool, ...). NumPy's outcome is the reference: every backend raises the same error class,
with a message that starts with the operation's name, or serves the call as NumPy does. This is how `repeat`'s
float repeats (truncated by PyTorch) and a keyword `keepdims='yes'` of a trusted reduction (served by PyTorch, JAX
and TensorFlow) were found; it guards the whole class, not those two.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

import bk

bk_testkit = pytest.importorskip("bk_testkit")
from bk_testkit._generated import Call, calls, execute  # noqa: E402
from bk_testkit._strategies import OPERATIONS  # noqa: E402

WRONG: dict[str, tuple[Any, ...]] = {
    "Axis": (1.5, "a"),
    "Axes": (1.5, "a", (0, 1.5)),
    "int": (1.5, "a"),
    "int | None": (1.5,),
    "bool": ("yes",),
    "str": (3,),
    "Shape": (2.5, (2.5,)),
    "float": ("a",),
    "DTypeLike": ("nonsense", 3),
}
"""Values of the wrong kind for each kind of argument a spec names."""

_GAPS = (NotImplementedError, bk.UnsupportedDtypeError)  # a backend without the operation or the call's dtype


@functools.cache
def _mutated() -> tuple[tuple[str, Call], ...]:
    """`(label, call)`: each generated call with one argument of the wrong kind."""
    found = []
    for op in sorted(OPERATIONS):
        spec = bk.op_specs().get(op)
        valid = calls(op, "valid") if spec is not None else ()
        if not valid:
            continue
        call = valid[0]
        for position, (name, kind) in enumerate(spec.params):
            for wrong in WRONG.get(kind, ()):
                args, kwargs = list(call.args), dict(call.kwargs)
                if position < len(args):
                    args[position] = wrong
                else:
                    kwargs[name] = wrong
                found.append((f"{op}({name}={wrong!r})", Call(op, tuple(args), kwargs, valid=False)))
    return tuple(found)


def _outcome(backend: bk.Backend, call: Call) -> tuple[str, str] | None:
    """`("error", class name)`, `("served", "")`, or None where the backend lacks the operation or a dtype of the call."""
    if not backend.supports(call.op):
        return None
    outcome = execute(backend, call)
    if outcome.error is None:
        return ("served", "")
    if isinstance(outcome.error, _GAPS):
        return None
    message = str(outcome.error).split("\n")[0]
    assert message.startswith(f"{call.op}: ") or message.split(" ")[0].endswith(":"), f"{call!r}: {type(outcome.error).__name__}: {message}"
    return ("error", type(outcome.error).__name__)


@functools.cache
def _reference() -> dict[str, tuple[str, str] | None]:
    numpy = bk.backend("numpy")
    return {label: _outcome(numpy, call) for label, call in _mutated()}


def test_every_operation_has_mutated_calls() -> None:
    assert len(_mutated()) > 120  # 155 when written: every axis, flag, size, shape, mode and dtype argument the strategies draw


def test_an_argument_of_the_wrong_kind_gets_numpys_bk_error(b: bk.Backend) -> None:
    if "numpy" not in bk.backends():
        pytest.skip("NumPy's outcomes are the reference")
    reference = _reference()
    differences = []
    for label, call in _mutated():
        expected = reference[label]
        got = _outcome(b, call)
        if expected is not None and got is not None and got != expected:
            differences.append(f"{label}: {b.name} {got}, numpy {expected}")
    assert not differences, f"{len(differences)} calls differ from NumPy's:\n" + "\n".join(differences[:30])
