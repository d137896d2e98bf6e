"""`OP/declared` for every operation with a spec: the backend's kernel of it is planned or declared trusted
(`bk.rules.kernel(trusted=True, why=...)`), and a declared fast call gives, on each call it serves, what the
same kernel behind its plan gives: a small tensor of every dtype (and beside a Python float and int), and the
operation's generated calls (`bk_testkit._declarations`)."""

from __future__ import annotations

from collections.abc import Callable

import bk

from .._case import Trial, add_case, first_lines
from .._declarations import fast_call_disagreements, fast_call_of, generated_arguments, probes, undeclared
from .._generated import Call, calls
from .._strategies import OPERATIONS

_DRAWN = 24  # valid calls per operation with a fast call (the same every run: derandomized); more with --thorough


def _case(op: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        if not t.b.supports(op):
            return  # no kernel to declare: the feature's other cases say whether it works unclaimed
        if undeclared(t.b, [op]):
            raise AssertionError(f"{op}: the kernel is neither planned nor declared trusted (bk.rules.kernel(trusted=True, why=...))")
        if fast_call_of(t.b, op) is None:
            return
        drawn: tuple[Call, ...] = ()
        if op in OPERATIONS:
            valid = max(_DRAWN, len(calls(op, "valid")))
            drawn = (*calls(op, "valid", valid), *(calls(op, "invalid") if OPERATIONS[op].invalid is not None else ()))
        _, differences = fast_call_disagreements(t.b, op, [*probes(t.b, op), *generated_arguments(t.b, drawn)])
        if differences:
            raise AssertionError(f"{len(differences)} calls served by the fast call of {op} differ from its plan:{first_lines(differences)}")

    run.__name__ = f"declared_{op}"
    run.__qualname__ = run.__name__
    return run


for _op in sorted(bk.op_specs()):
    if _op in bk.Backend.features():
        add_case(_op, "declared", _case(_op), "planned or declared trusted; a fast call agrees with its plan on the generated calls")
