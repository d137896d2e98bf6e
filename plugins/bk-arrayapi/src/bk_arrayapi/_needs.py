"""What each operation needs of a namespace, so that `supports()` is right by construction.

An operation of the backend declares the namespace functions it calls (`"linalg.svd"`,
`"cumulative_sum"`) and the capabilities of `__array_namespace_info__().capabilities()` it relies
on (`"data-dependent shapes"`, `"boolean indexing"`). The class built for one namespace keeps an
operation only when the namespace has all of them; otherwise the base class's
`NotImplementedError` stays, and `supports()` says no.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

NEEDS_ATTR: Final = "__bk_arrayapi_needs__"


def needs(*functions: str, capabilities: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Declares the namespace functions (dotted for extensions) and capabilities an operation uses."""

    def mark(function: F) -> F:
        setattr(function, NEEDS_ATTR, (tuple(functions), tuple(capabilities)))
        return function

    return mark


def requirements(function: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`(functions, capabilities)` declared with `needs`; none for an undecorated operation."""
    result: tuple[tuple[str, ...], tuple[str, ...]] = getattr(function, NEEDS_ATTR, ((), ()))
    return result


def has_function(xp: Any, dotted: str) -> bool:
    """Whether the namespace has the function `dotted` (`'linalg.svd'` looks in the extension;
    `'array.__dlpack__'` looks at the namespace's array type)."""
    obj = type(xp.asarray(0)) if dotted.startswith("array.") else xp
    dotted = dotted.removeprefix("array.")
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return True


def missing(function: Any, xp: Any, capabilities: dict[str, Any]) -> list[str]:
    """What the namespace lacks for `function`: names of functions and capabilities."""
    functions, wanted = requirements(function)
    lacking = [f for f in functions if not has_function(xp, f)]
    lacking += [f"capability {c!r}" for c in wanted if not capabilities.get(c)]
    return lacking
