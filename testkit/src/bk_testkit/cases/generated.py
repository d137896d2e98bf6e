"""The generated layer as cases: `OP/generated` (valid calls) and `OP/generated-invalid` (calls that
must raise) for every operation `bk_testkit._strategies.OPERATIONS` has a strategy for.

Each case runs the operation's generated calls (a few by default, many with `testkit certify
--thorough`) and checks every one against the spec and the NumPy/SciPy reference
(`bk_testkit._generated.check_call`); it fails listing the calls that did not pass.
"""

from __future__ import annotations

from collections.abc import Callable

from .._case import SkipCase, Trial, add_case, first_lines
from .._diff import _lacks
from .._generated import calls, check_call
from .._strategies import OPERATIONS


def _case(op: str, kind: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        drawn = calls(op, kind)
        problems: list[str] = []
        declined: list[str] = []
        ran = 0
        lacking: set[str] = set()
        for call in drawn:
            why = _lacks(t.b, call)
            if why:
                lacking.add(why)
                continue
            ran += 1
            verdict = check_call(t.b, call)
            if verdict.not_implemented:
                declined.append(f"{call!r}: {verdict.problem}")
            elif verdict.problem:
                problems.append(f"{call!r}: {verdict.problem}")
        if not ran:
            raise SkipCase(f"every generated call needs a dtype {t.b.name} does not support ({', '.join(sorted(lacking))})")
        if declined and not t.b.supports(op):
            raise NotImplementedError(declined[0])
        problems += declined
        if problems:
            raise AssertionError(f"{len(problems)} of {ran} generated calls of {op} failed:{first_lines(problems)}")

    run.__name__ = f"generated_{op}"
    run.__qualname__ = run.__name__
    return run


for _op, _strategy in OPERATIONS.items():
    add_case(
        _op,
        "generated",
        _case(_op, "valid"),
        "generated valid inputs: the spec's dtype, shape and error class, values against the reference",
    )
    if _strategy.invalid is not None:
        add_case(_op, "generated-invalid", _case(_op, "invalid"), "generated invalid inputs raise the documented exception class")
