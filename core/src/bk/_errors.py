"""Exceptions of the core, and the exception classes every backend raises for bad input.

The rules (which class for which mistake) are written down in `docs/semantics.md`. Each class
subclasses the built-in exception that NumPy raises for the same mistake, so code that catches
`ValueError`, `IndexError` or `TypeError` keeps working, while `except bk.AxisError` catches
the same mistake on every backend.
"""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = [
    "BK_ERRORS",
    "ArgumentTypeError",
    "AxisError",
    "IndexOutOfRangeError",
    "NoBackendFound",
    "ShapeMismatchError",
    "UnsupportedDtypeError",
    "check_tensor_argument",
    "did_you_mean",
    "reraise_as",
]


class NoBackendFound(Exception):
    """No backend can handle the given values, or they belong to backends that cannot be mixed."""


class AxisError(ValueError, IndexError):
    """An axis is out of range for the tensor's rank, or is not an integer axis (as `numpy.exceptions.AxisError`)."""


class ShapeMismatchError(ValueError):
    """Shapes that cannot be broadcast, stacked, multiplied or reshaped into each other."""


class IndexOutOfRangeError(IndexError):
    """An index (gather, scatter, segment id, boolean mask length) lies outside the indexed dimension."""


class ArgumentTypeError(TypeError):
    """An argument has a type the operation does not accept (`None` as a tensor, a string axis, ...)."""


class UnsupportedDtypeError(ArgumentTypeError):
    """The backend's framework lacks what the call needs for a dtype, and the core cannot fill the gap:
    "unsupported for dtype complex128", with the reason (a dtype the framework lacks altogether, a kernel
    it declares it does not have and no wider dtype to compute in). A declared gap of the backend
    (`Backend.unsupported_dtypes`, `Backend.lacking_kernels`), never a mistake of the caller's values;
    the testkit reports such a case as skipped, with the reason."""


BK_ERRORS = (AxisError, ShapeMismatchError, IndexOutOfRangeError, ArgumentTypeError)
"""The classes of `docs/semantics.md`; a backend's `except` branch lets these pass unchanged."""


def reraise_as(cls: type[Exception], op: str, error: BaseException, detail: str = "") -> NoReturn:
    """Raises `cls("op: detail or the framework's message")` from `error`: one message format everywhere.

    For the `except` branch around a framework call, where the backend has decided which class of
    `docs/semantics.md` the framework's error means. The framework's error stays as `__cause__`.
    """
    text = detail or (str(error).strip().splitlines() or [type(error).__name__])[0]
    raise cls(f"{op}: {text}") from error


def check_tensor_argument(value: Any, op: str, name: str = "x") -> None:
    """Raises `ArgumentTypeError` for `None`, strings and bytes passed where a tensor is expected.

    Cheap (one `isinstance`), for operations off the hot path: a framework would turn a string into a
    string tensor, or `None` into an object array, and fail later with an unrelated message, or not at all.
    """
    if value is None or isinstance(value, (str, bytes)):
        raise ArgumentTypeError(f"{op}: {name} must be a tensor or a number, got {type(value).__name__} {value!r}")


def did_you_mean(word: str, candidates: list[str]) -> str:
    """`" Did you mean 'a', 'b'?"` for the close matches of `word`, or `""`."""
    import difflib  # only on error paths: keeps `import bk` fast

    close = difflib.get_close_matches(word, candidates, n=3)
    return f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
