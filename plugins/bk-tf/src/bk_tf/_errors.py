"""TensorFlow's exceptions translated into bk's at the boundary of every operation.

TensorFlow reports a caller's mistake as `tf.errors.InvalidArgumentError` (eager kernels), or as a
`ValueError` / `TypeError` raised while an operation is built. `docs/semantics.md` asks for one
class per kind of mistake on every backend, with a message that starts with the bk operation's
name. The wrapper below costs nothing until something is raised: only the `except` branch reads the
message and picks the class.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, Final, NoReturn

from bk import ArgumentTypeError, AxisError, Backend, IndexOutOfRangeError, ShapeMismatchError

from ._framework import tf

__all__ = ["CAUGHT", "reraise", "translate_errors", "translated", "translating"]

CAUGHT: Final = (tf.errors.OpError, ValueError, TypeError, IndexError, OverflowError)
"""What the wrappers catch: TensorFlow's errors, and the built-in classes bk's own classes derive from."""

_BK_ERRORS: Final = (ArgumentTypeError, AxisError, IndexOutOfRangeError, ShapeMismatchError, OverflowError)

# Checked in this order; the first pattern found in the message decides the class.
_PATTERNS: Final = (
    (
        IndexOutOfRangeError,
        re.compile(
            r"indices\[[^\]]*\] = .* (is not in|does not index into)|segment_ids\[|out of range \[0,|slice index -?\d+ of dimension|"
            r"index -?\d+ is out of bounds"
        ),
    ),
    (
        AxisError,
        re.compile(
            r"reduction dimension|Expected dimension in the range|'axis'\[\d+\] = |axis \S+ is out of|"
            r"Invalid axis|axis must be in range|axes? .* out of range"
        ),
    ),
    (
        ShapeMismatchError,
        re.compile(
            r"[Ii]ncompatible shapes|must be broadcastable|Dimensions? .*must be equal|must have the same (shape|rank)|"
            r"Shapes .* (are incompatible|must be equal)|[Ss]hapes of all inputs must match|Input to reshape|"
            r"size-incompatible|ConcatOp|shapes? .*(mismatch|not compatible)|Cannot reshape|rank mismatch|"
            r"cannot be broadcast|[Ss]hape must be rank|Can not squeeze|Expected dimension \d+ at axis|inconsistent (size|dimension)|"
            r"mismatch In\[\d\]|must be square|must have rank|Different number of contraction axes|expects a vector of size|Only one input size may be -1"
        ),
    ),
    (
        ArgumentTypeError,
        re.compile(
            r"not in the list of allowed values|Cannot convert|Could not find device for node|No registered|"
            r"[Ee]xpected (int|float|bool|string|complex)|must be (one of|an integer)|Tensor conversion requested dtype|"
            r"to EagerTensor of dtype|unsupported operand|not supported between"
        ),
    ),
)


def _classify(error: BaseException) -> type[Exception]:
    message = str(error)
    for cls, pattern in _PATTERNS:
        if pattern.search(message):
            return cls
    if isinstance(error, TypeError):
        return ArgumentTypeError
    if isinstance(error, IndexError):
        return IndexOutOfRangeError
    return ValueError


def _clean(message: str) -> str:
    """TensorFlow's message without the kernel's node name, `[Op:...]` suffix and stray whitespace."""
    message = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", message)
    message = re.sub(r"\s*\[Op:[^\]]*\]( name: \S*)?", "", message)
    message = re.sub(r"\s*\[\[\{\{node [^}]*\}\}\]\]", "", message)
    message = re.sub(r"\s*;\s*NodeDef:.*", "", message, flags=re.S)
    return " ".join(message.split())


def _from_tensorflow(error: BaseException) -> bool:
    """Whether `error` was raised inside TensorFlow itself (not by bk-tf's own checks or a user's callback)."""
    if isinstance(error, tf.errors.OpError):
        return True
    traceback = error.__traceback__
    filename = ""
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        traceback = traceback.tb_next
    return "tensorflow" in filename or "/keras/" in filename or "/tf_keras/" in filename


def translated(op: str, error: BaseException) -> BaseException:
    """The bk exception for `error`, raised in operation `op`.

    TensorFlow's errors become bk's classes; bk's own classes get `op` in front of their message
    when it is not there yet (a helper shared by several operations cannot know which one called it);
    anything else (a `ValueError` of bk-tf's own checks, an error of a user's callback) is returned as it is.
    """
    if isinstance(error, _BK_ERRORS):
        message = str(error)
        return error if message.startswith(f"{op}:") else type(error)(f"{op}: {message}")
    if not isinstance(error, CAUGHT) or not _from_tensorflow(error):
        return error
    cls = _classify(error)
    return cls(f"{op}: {_clean(str(error))}")


def reraise(op: str, error: BaseException) -> NoReturn:
    """Raises `translated(op, error)`, chained to `error` when it is a new exception."""
    replacement = translated(op, error)
    if replacement is error:
        raise error
    raise replacement from error


def translating(op: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """`method` raising bk's exception classes instead of TensorFlow's."""

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except CAUGHT as error:
            reraise(op, error)

    call.__bk_translated__ = True  # type: ignore[attr-defined]
    return call


def translate_errors(cls: type[Backend]) -> type[Backend]:
    """Wraps every catalogue operation that `cls` (or one of its mixins) defines; inherited generic defaults stay as they are.

    Operations that translate errors themselves (marked `__bk_translated__`, such as the
    arithmetic operators on the hot path) are left alone.
    """
    for name in Backend.features():
        owner = next((klass for klass in cls.__mro__ if name in klass.__dict__), None)
        if owner is None or owner in Backend.__mro__:  # Backend and its catalogue mixins: generic defaults
            continue
        method = owner.__dict__[name]
        if not callable(method) or getattr(method, "__bk_translated__", False):
            continue
        setattr(cls, name, translating(name, method))
    return cls
