"""Bad input raises the exception classes of `docs/semantics.md`, named after the bk operation.

JAX reports a caller's mistake with its own wording and class (a `TypeError` for shapes that
do not broadcast, a `ValueError` for an axis out of range). `translate_errors` wraps the methods
of `JaxBackend` once, when the class is built: the wrapper only adds an `except` branch, which
costs nothing until something raises, and there it maps JAX's error to `bk.ShapeMismatchError`,
`bk.AxisError`, `bk.IndexOutOfRangeError` or (for a dtype JAX refuses, such as `&` of floats)
`bk.ArgumentTypeError` and puts the operation's name first in the message.
Errors bk-jax raises itself (the bk classes, `ValueError`, `OverflowError`) get the name too.
The arithmetic operators are not wrapped: they catch inline (see `_math`), as a wrapper call
would cost a few percent of a small eager operation.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, Final, NoReturn

from bk import ArgumentTypeError, AxisError, Backend, IndexOutOfRangeError, ShapeMismatchError

__all__ = ["raise_translated", "translate_errors"]

_BK_ERRORS: Final = (AxisError, ShapeMismatchError, IndexOutOfRangeError, ArgumentTypeError)
_SHAPES: Final = re.compile(
    r"incompatible shapes|shapes? .*(must|should) (be|have) .*(same|equal|match)|cannot reshape|cannot concatenate|"
    r"must have the same shape|dot_general requires|contracting dimensions|size mismatch|shape mismatch|"
    r"matrix.*shape|all input arrays must|broadcast|size of label|does not match previous terms|shape-compatible|dimensions of input arrays must match|one unknown axis size|must have rank at least",
    re.IGNORECASE,
)
_AXIS: Final = re.compile(r"axis .*out of (bounds|range)|out of range for .*axis|repeated axis|duplicate (value in )?'?axis", re.IGNORECASE)
_INDEX: Final = re.compile(r"index .*out of (bounds|range)", re.IGNORECASE)
# JAX's `TypeError` for a dtype an operation does not take (`jnp.floor` of complex, `&` of floats).
_DTYPE: Final = re.compile(r"does not accept dtype|does not support complex|accepted dtypes", re.IGNORECASE)
_NOT_WRAPPED: Final = frozenset(
    # Called by bk-jax itself on every operation, and without user mistakes of their own.
    ("is_tensor", "is_available", "dtype", "staticshape", "shape", "ndims", "combine_types", "auto_cast", "numpy", "cast", "as_tensor",
     # The operators catch inline (hot path); the rest return functions or report state.
     "add", "sub", "mul", "div", "jit_compile", "jit_compile_grad", "jit_compile_hessian", "jacobian", "hessian",
     "custom_gradient", "get_default_device", "list_devices", "prefers_channels_last", "requires_fixed_shapes_when_tracing",
     "block_until_ready", "is_module", "is_sparse", "nn_library", "variable")
)


def _classify(error: BaseException) -> type[Exception] | None:
    """The class of `docs/semantics.md` that a JAX or NumPy error means, or None to let it pass."""
    if isinstance(error, (*_BK_ERRORS, OverflowError, NotImplementedError)):
        return None
    text = str(error)
    if isinstance(error, (TypeError, ValueError)):
        if _AXIS.search(text):
            return AxisError
        if _SHAPES.search(text):
            return ShapeMismatchError
    if isinstance(error, TypeError) and _DTYPE.search(text):
        return ArgumentTypeError
    if isinstance(error, IndexError) and _INDEX.search(text):
        return IndexOutOfRangeError
    return None


def raise_translated(op: str, error: BaseException) -> NoReturn:
    """Raises `error` as the class of `docs/semantics.md`, with `op` first in the message.

    Errors of other classes (a JAX tracer error, an unrelated bug) are raised unchanged.
    """
    text = str(error).strip()
    cls = _classify(error)
    if cls is not None:
        raise cls(f"{op}: {text.splitlines()[0] if text else type(error).__name__}") from error
    if isinstance(error, (*_BK_ERRORS, OverflowError)) or (type(error) is ValueError and text):
        if text.startswith(f"{op}:"):
            raise error
        raise type(error)(f"{op}: {text}") from error
    raise error


def _wrap(op: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except (TypeError, ValueError, IndexError, OverflowError) as error:
            raise_translated(op, error)

    call.__bk_translated__ = True  # type: ignore[attr-defined]
    return call


def translate_errors(backend: Backend) -> None:
    """Wraps every catalogue operation that `backend` supports (its own and the generic ones) with
    `raise_translated`, on its class, once.

    Generic defaults are wrapped only where the backend supports them, and `supports()` is asked
    (and caches its answer) before anything is wrapped, so its answers stay as they were.
    """
    cls = type(backend)
    if cls.__dict__.get("_errors_translated"):
        return
    for name in Backend.features():
        method = getattr(cls, name, None)
        if name in _NOT_WRAPPED or not callable(method) or getattr(method, "__bk_translated__", False):
            continue
        if getattr(Backend, name, None) is method and not backend.supports(name):
            continue
        setattr(cls, name, _wrap(name, method))
    cls._errors_translated = True  # type: ignore[attr-defined]
