"""The core's rules around the two conversions every plan uses: `as_tensor` (Python numbers as bk's
rules make them, values with no bk dtype refused) and `cast` (only to bk dtypes the framework has).
`bk._dispatcher` puts them in front of a backend's `as_tensor` and `cast` kernels.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ._dtype import DType, from_numpy_dtype
from ._errors import ArgumentTypeError, ShapeMismatchError, UnsupportedDtypeError, check_tensor_argument
from ._explain import explain_failure
from ._kernels import WRAPPED as _WRAPPED
from ._kernels import raw_kernel
from ._rules.arguments import PYTHON_NUMBERS, check_convertible

INT64: Final = DType(int, 64)

if TYPE_CHECKING:
    from ._backend import Backend


def ruled_as_tensor(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`as_tensor` behind docs/semantics.md's rules: Python ints (and lists of them) are int64, Python
    floats the float type of the precision (float32 by default), Python complex numbers its complex
    type, and under a set precision every float or complex result takes it. A value with no bk dtype
    raises `bk.ArgumentTypeError` (`bk.rules.check_convertible`)."""

    @functools.wraps(kernel)
    def as_tensor(self: Backend, x: Any, convert_external: bool = True) -> Any:
        if x.__class__ is not float:
            check_convertible(x, "as_tensor")
        try:
            return apply_number_rules(self, x, kernel(self, x, convert_external))
        except Exception as error:
            _absent_dtype(self, "as_tensor", x, error)
            refuse_ragged("as_tensor", x, error)
            raise

    setattr(as_tensor, _WRAPPED, kernel)
    return as_tensor


def checked_as_tensor(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """A trusted `as_tensor` (it applies the number rules itself) behind the refusal of values with no bk
    dtype: strings, objects, datetimes, `float128`, Python ints beyond int64 (`bk.rules.check_convertible`)."""

    @functools.wraps(kernel)
    def as_tensor(self: Backend, x: Any, convert_external: bool = True) -> Any:
        if x.__class__ is not float:
            check_convertible(x, "as_tensor")
        try:
            return kernel(self, x, convert_external)
        except Exception as error:
            refuse_ragged("as_tensor", x, error)
            raise

    setattr(as_tensor, _WRAPPED, kernel)
    return as_tensor


def refuse_ragged(op: str, x: Any, error: BaseException) -> None:
    """After a conversion of `x` failed: raises `bk.ShapeMismatchError` naming `op` when `x` is a ragged nested list
    or tuple (rows of different lengths, or numbers beside rows), which every framework refuses in its own words."""
    if (x.__class__ is list or x.__class__ is tuple) and _ragged(x):
        raise ShapeMismatchError(f"{op}: x is a ragged nested sequence (its rows differ in length); give rows of one length") from error


def _ragged(x: Any) -> bool:
    rows = [isinstance(item, (list, tuple)) for item in x]
    if not any(rows):
        return False
    return not all(rows) or len({len(item) for item in x}) > 1 or any(_ragged(item) for item in x)


def _cast_dtype(dtype: Any) -> Any:
    """`cast`'s `dtype` as a `DType` (anything the spec reads: a name, a NumPy dtype), or `bk.ArgumentTypeError`
    for a value that names no dtype, or a dtype that is not numeric."""
    if dtype.__class__ is DType and dtype.kind in _NUMERIC_KINDS:
        return dtype
    from ._specs import as_dtype_arg

    if dtype is None:
        raise ArgumentTypeError("cast: dtype must be a bk.DType such as bk.float32, got None")
    return as_dtype_arg(dtype, "cast")


def checked_cast(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """A trusted `cast` behind the refusal of values and dtypes bk has no tensors of (`_cast_dtype`)."""

    @functools.wraps(kernel)
    def cast(self: Backend, x: Any, dtype: Any) -> Any:
        if dtype.__class__ is not DType or dtype.kind not in _NUMERIC_KINDS:
            dtype = _cast_dtype(dtype)
        if x.__class__ is not float:
            check_convertible(x, "cast")
        return kernel(self, x, dtype)

    setattr(cast, _WRAPPED, kernel)
    return cast


def ruled_cast(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`cast` with the errors of docs/semantics.md: None or a string raises `bk.ArgumentTypeError`; a kernel
    that fails on a Python number or list gets it converted first."""

    @functools.wraps(kernel)
    def cast(self: Backend, x: Any, dtype: Any) -> Any:
        if x is None or x.__class__ is str or x.__class__ is bytes:
            check_tensor_argument(x, "cast")  # ArgumentTypeError: a framework would make NaN or a string tensor of it
        if dtype.__class__ is not DType or dtype.kind not in _NUMERIC_KINDS:
            dtype = _cast_dtype(dtype)
        if x.__class__ is not float:
            check_convertible(x, "cast")
        try:
            return kernel(self, x, dtype)
        except (TypeError, ValueError, AttributeError, *self.kernel_errors) as error:  # type: ignore[misc]
            _absent_dtype(self, "cast", dtype, error)
            if not self.is_tensor(x, only_native=True) and self.is_tensor(x):
                return kernel(self, converted(self, x), dtype)
            if isinstance(error, AttributeError):
                raise ArgumentTypeError(f"cast: x must be a tensor of {self.name}, got {type(x).__name__}") from error
            explain_failure(self, "cast", error, (x, dtype), {})

    setattr(cast, _WRAPPED, kernel)
    return cast


def _absent_dtype(backend: Backend, op: str, value: Any, error: BaseException) -> None:
    """After `as_tensor` or `cast` failed: raises `UnsupportedDtypeError` when the dtype asked for (`value` a
    `DType`, or the dtype NumPy gives `value`, or the precision's for Python numbers) is one the backend
    declares it lacks (`Backend.unsupported_dtypes`): a declared gap, not a failure."""
    absent = type(backend).unsupported_dtypes
    if not absent:
        return
    wanted: Any = value
    if not isinstance(value, DType):
        try:
            wanted = from_numpy_dtype(np.asarray(value).dtype)
        except Exception:
            return
        if type(value) in PYTHON_NUMBERS and wanted.kind in (float, complex):
            wanted = backend.float_type if wanted.kind is float else backend.complex_type
    if wanted in absent:
        raise UnsupportedDtypeError(f"{op}: unsupported for dtype {wanted.name}: {backend.name} lacks {wanted.name} (declared in unsupported_dtypes)") from error


def apply_number_rules(backend: Backend, x: Any, result: Any) -> Any:
    from ._context import GLOBALS, get_precision

    kind = type(x)
    python = kind in _PYTHON_SCALARS or ((kind is list or kind is tuple) and numbers_only(x))
    if not python and GLOBALS.precision_free:
        return result  # a tensor kept as it is: nothing to apply
    if result is x and kind in PYTHON_NUMBERS:
        return result  # a Python number kept as it is (convert_external=False)
    dtype = backend.dtype(result)
    if dtype.kind is int and python and dtype != INT64:
        try:
            return raw_kernel(backend, "cast")(result, INT64)  # Python ints are int64
        except (TypeError, ValueError):  # a framework that holds no int64 now (JAX without x64): its own int
            return result
    if dtype.kind not in (float, complex):
        return result
    precision = get_precision()
    if python or precision is not None:
        wanted = backend.float_type if dtype.kind is float else backend.complex_type
        if (python or dtype.bits != wanted.bits) and dtype != wanted:
            return raw_kernel(backend, "cast")(result, wanted)
    return result


_PYTHON_SCALARS: Final = frozenset((int, float, complex))


_NUMERIC_KINDS: Final = frozenset((bool, int, float, complex))


def converted(backend: Backend, value: Any) -> Any:
    """A Python number or list as `bk`'s `as_tensor` rules make it (ints int64, floats the precision's)."""
    return apply_number_rules(backend, value, raw_kernel(backend, "as_tensor")(value))


def numbers_only(value: Any) -> bool:
    for v in value:
        if isinstance(v, (list, tuple)):
            if not numbers_only(v):
                return False
        elif type(v) not in PYTHON_NUMBERS:
            return False
    return True
