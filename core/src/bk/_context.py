"""All mutable state of bk: default backend, precision and active profile.

Global settings are plain module state; `with` blocks are held in `contextvars`, so every
thread and every asyncio task sees only the blocks it entered itself.
"""

from __future__ import annotations

import _thread  # the C module under `threading`, which costs a millisecond to import
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from ._backend import Backend

__all__ = [
    "context_backend",
    "get_precision",
    "precision",
    "set_global_precision",
]

VALID_PRECISIONS: Final = (16, 32, 64, None)

# Stacks of `with backend:` / `with precision(p):` blocks of the current context.
BACKEND_STACK: ContextVar[tuple[Backend, ...]] = ContextVar("bk_backend_stack", default=())
PRECISION_STACK: ContextVar[tuple[int | None, ...]] = ContextVar("bk_precision_stack", default=())
PROFILE: ContextVar[Any] = ContextVar("bk_profile", default=None)
DESCRIBING: ContextVar[bool] = ContextVar("bk_profile_describing", default=False)  # the core's own calls: not profiled


@contextmanager
def quiet() -> Iterator[None]:
    """Calls made inside are not recorded by an active profile (the dispatcher's own bookkeeping: keys,
    conversions, checks; a profile's summaries)."""
    token = DESCRIBING.set(True)
    try:
        yield
    finally:
        DESCRIBING.reset(token)


class _Globals:
    """Process-wide settings, changed only through the public setters.

    Attributes:
        default_backend: The global default backend, `None` until one is chosen.
        precision: The global precision.
        precision_blocks: Open `with precision(p):` blocks with `p` not None, in all threads and
            tasks together.
        precision_free: True while no precision is set anywhere (global None, no such block open):
            then `get_precision()` is None in every context. Fast paths of backends read this one
            attribute (a slot: the fastest attribute read there is).
        profiling: True while `bk.profile` has instrumented backends: the dispatcher's own calls
            (keys, conversions, result checks) are then kept out of the profile.
    """

    __slots__ = ("default_backend", "precision", "precision_blocks", "precision_free", "profiling")

    def __init__(self) -> None:
        self.default_backend: Backend | None = None
        self.precision: int | None = None
        self.precision_blocks = 0
        self.precision_free = True
        self.profiling = False  # True while a profile's instrumentation is installed (the dispatcher hides its own calls then)


_LOCK: Final = _thread.allocate_lock()


def _update_precision_free() -> None:
    GLOBALS.precision_free = GLOBALS.precision is None and GLOBALS.precision_blocks == 0


GLOBALS: Final = _Globals()


def push_backend(backend: Backend) -> None:
    BACKEND_STACK.set((*BACKEND_STACK.get(), backend))


def pop_backend(backend: Backend) -> None:
    stack = BACKEND_STACK.get()
    if not stack or stack[-1] is not backend:
        raise RuntimeError(f"'with {backend}:' blocks must be exited in the order they were entered")
    BACKEND_STACK.set(stack[:-1])


def context_backend() -> Backend | None:
    """The backend of the innermost `with backend:` block of this context, or `None` outside one."""
    stack = BACKEND_STACK.get()
    return stack[-1] if stack else None


def _check_precision(floating_point_bits: int | None) -> int | None:
    if floating_point_bits is not None and (type(floating_point_bits) is not int or floating_point_bits not in VALID_PRECISIONS):
        raise ValueError(
            f"precision must be 16, 32, 64 or None (keep the inputs' precision) but got {floating_point_bits!r}"
        )
    return floating_point_bits


def get_precision() -> int | None:
    """The floating point precision in bits that backends convert floats to.

    Returns:
        16, 32 or 64 inside a `precision(p)` block or after `set_global_precision(p)`;
        `None` by default, meaning operations keep their inputs' precision and new floats are float32.
    """
    stack = PRECISION_STACK.get()
    return stack[-1] if stack else GLOBALS.precision


def set_global_precision(floating_point_bits: int | None) -> None:
    """Sets the precision for all threads and tasks outside `with precision(p):` blocks.

    Args:
        floating_point_bits: 16, 32, 64, or `None` to keep the inputs' precision.

    Raises:
        ValueError: for any other value.
    """
    bits = _check_precision(floating_point_bits)
    with _LOCK:
        GLOBALS.precision = bits
        _update_precision_free()


@contextmanager
def precision(floating_point_bits: int | None) -> Iterator[None]:
    """Sets the precision inside a `with` block of the current thread or task only.

    Args:
        floating_point_bits: 16, 32, 64, or `None` to keep the inputs' precision.

    Raises:
        ValueError: for any other value.
    """
    bits = _check_precision(floating_point_bits)
    if bits is not None:
        _count_block(+1)
    token = PRECISION_STACK.set((*PRECISION_STACK.get(), bits))
    try:
        yield
    finally:
        PRECISION_STACK.reset(token)
        if bits is not None:
            _count_block(-1)


def _count_block(delta: int) -> None:
    with _LOCK:
        GLOBALS.precision_blocks += delta
        _update_precision_free()
