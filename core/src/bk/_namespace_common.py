"""What every adapter of `bk.array_namespace` shares: calling catalogue methods (`bound_method`, `shortcut`),
shapes, `device=`, the keywords a namespace honours beyond the standard's signatures (`FRAMEWORK_KEYWORDS`) and
the error for the others, default dtypes, and the named tuples of results.

The adapters themselves are in `_namespace_creation.py` (creation and data types), `_namespace_adapters.py`
(elementwise, statistics, manipulation, searching and sets) and `_namespace_linalg.py` (linear algebra and
FFT); `_namespace_table.py` says which standard name uses which.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections import namedtuple
from collections.abc import Callable
from typing import Any, Final, NoReturn

from ._axes import normalize_axes
from ._context import GLOBALS
from ._dtype import DType
from ._errors import ArgumentTypeError

Factory = Callable[[Any, Any], Callable[..., Any]]

_BOOL: Final = DType(bool)
_INT64: Final = DType(int, 64)
_FLOAT32: Final = DType(float, 32)
_COMPLEX64: Final = DType(complex, 64)



# ---------------------------------------------------------------- helpers


def _shape_of(b: Any, x: Any) -> tuple[int, ...]:
    return tuple(b.staticshape(x))


def bound_method(backend: Any, op: str) -> Any:
    """The backend's method `op`; a C method (the dispatcher's front, bk-numpy's operators) as its bound
    copy (`bind`), which is called without a method object in between."""
    method = getattr(type(backend), op)
    if not callable(getattr(type(method), "bind", None)):
        return getattr(backend, op)
    bound = method.bind(backend)
    bound.__signature__ = inspect.signature(getattr(backend, op))  # the bound method's: without `self`
    return bound


def shortcut(
    adapter: Callable[..., Any],
    nargs: int,
    fast: Callable[..., Any],
    extra: tuple[Any, ...] = (),
    shape_at: int = -1,
    kinds: tuple[type | None, ...] | None = None,
    dtypes: dict[Any, Any] | None = None,
    dtype_at: int = -1,
    precision_free: bool = False,
) -> Callable[..., Any]:
    """`adapter`, whose call with `nargs` positional arguments and no keywords is the catalogue call
    `fast(*args, *extra)`, a shape at position `shape_at` (where given) a tuple or an int (made a 1-tuple), each
    argument of the exact type `kinds` names at its position (where given; None: any): with the dispatcher's C
    front built, such a call goes to `fast` without the adapter's Python frame (`_fastplan.Shortcut`), every
    other call (a list as shape, keywords) to the adapter. With `dtypes` (the namespace's dtypes -> `DType`) and
    `dtype_at`, a call with the one keyword `dtype=` naming one of them is such a call too, its `DType` at
    `extra[dtype_at]`. With `precision_free`, only while no precision is set (the catalogue call's result follows
    a precision; the namespace's does not). Name, docs and signature are the adapter's."""
    from ._dispatcher import _FASTPLAN

    if _FASTPLAN is None:
        return adapter
    settings = GLOBALS if precision_free else None
    function = _FASTPLAN.Shortcut(fast, adapter, nargs, extra, shape_at, kinds, dtypes, dtype_at, settings)
    functools.update_wrapper(function, adapter)
    return function  # type: ignore[no-any-return]


def _as_shape(shape: Any) -> tuple[int, ...]:
    """A namespace's shape argument (an int or a sequence of ints) as the catalogue's tuple; anything else as a 1-tuple,
    whose element the operation's spec then names (`zeros: shape must hold ints, got float 2.5`)."""
    if type(shape) is int:
        return (shape,)
    try:
        return tuple(shape)
    except TypeError:  # not a sequence (a float, a NumPy int): the spec decides
        return (shape,)


def int_sequence(value: Any, op: str, what: str) -> tuple[Any, ...]:
    """`value`, a sequence (of ints, which the operation's spec checks), as a tuple; anything else raises
    `bk.ArgumentTypeError` naming `op` (not Python's "'float' object is not iterable")."""
    try:
        return tuple(value)
    except TypeError:
        raise ArgumentTypeError(f"{op}: {what} must be a tuple of ints, got {type(value).__name__} {value!r}") from None


def check_correction(correction: Any, op: str) -> None:
    """Raises `bk.ArgumentTypeError` naming `op` (`std`, `var`) unless `correction` is a real number (a Python or NumPy
    int or float)."""
    if not isinstance(correction, numbers.Real):  # a string, a tensor, None: named, not Python's comparison error
        raise ArgumentTypeError(f"{op}: correction must be a real number (an int or a float), got {type(correction).__name__} {correction!r}")


def _kept(b: Any, result: Any, shape: tuple[int, ...], axis: Any, op: str) -> Any:
    """`result` of a reduction over `axis` reshaped as with keepdims."""
    axes = normalize_axes(axis, len(shape), op)
    axes = tuple(range(len(shape))) if axes is None else axes
    return b.reshape(result, tuple(1 if i in axes else s for i, s in enumerate(shape)))


class _Placement:
    """`device=` of one namespace: new arrays moved to a device given in any of its spellings.

    Creation functions call it only when a device is given, so `device=None` costs nothing.
    """

    def __init__(self, b: Any, ns: Any) -> None:
        self.b, self.devices = b, ns._devices
        self._single: bool | None = None  # whether the backend has one device only (asked once)

    def new(self, x: Any, device: Any, op: str) -> Any:
        """`x`, just created on the default device, on `device`."""
        target = self.devices.resolve(device, op)
        return x if target == self.b.get_default_device() else self._move(x, target, op)

    def existing(self, x: Any, device: Any, op: str) -> Any:
        """`x`, an array of the namespace, on `device` (itself when it is there already)."""
        target = self.devices.resolve(device, op)
        return x if target == self.b.get_device(x) else self._move(x, target, op)

    def like(self, result: Any, x: Any) -> Any:
        """`result`, created on the default device, on the device of `x` (`*_like` with `device=None`)."""
        if self._single is None:
            self._single = len(self.b.list_devices()) <= 1
        if self._single:
            return result
        source = self.b.get_device(x)
        return result if source == self.b.get_default_device() else self._move(result, source, "like")

    def _move(self, x: Any, target: Any, op: str) -> Any:
        if not self.b.supports("allocate_on_device"):
            raise ValueError(
                f"{op}: the {self.b.name!r} backend cannot place arrays on {target.name!r}; it creates them on its default device"
            )
        return self.b.allocate_on_device(x, target)


def _placer(b: Any, ns: Any) -> _Placement:
    """The namespace's `_Placement` (one per namespace)."""
    placement: _Placement | None = vars(ns).get("_placement")
    if placement is None:
        placement = ns._placement = _Placement(b, ns)
    return placement


def refuse_keywords(name: str, keywords: dict[str, Any], backend: str) -> NoReturn:
    """The error for keywords outside the standard's signature of `name` that this namespace does not honour."""
    names = ", ".join(repr(k) for k in keywords)
    what = f"keyword {names} is not an argument" if len(keywords) == 1 else f"keywords {names} are not arguments"
    elsewhere = sorted(b for b, table in FRAMEWORK_KEYWORDS.items() if set(keywords) <= set(table.get(name, ())))
    hint = f" (the {' and '.join(repr(b) for b in elsewhere)} namespace does)" if elsewhere else ""
    raise ArgumentTypeError(
        f"{name}: {what} of the Array API standard's {name}, and the {backend!r} namespace does not honour "
        f"{'it' if len(keywords) == 1 else 'them'}{hint}; see inspect.signature(xp.{name})"
    )


def _default_dtype(value: Any) -> DType:
    """The default dtype of a Python scalar fill value."""
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):
        return _INT64
    if isinstance(value, complex):
        return _COMPLEX64
    return _FLOAT32


def _accumulation_dtype(x_dtype: DType, dtype: DType | None) -> DType:
    """The result dtype of `sum`, `prod`, `cumulative_sum`, ... with `dtype=None`: 64-bit ints widen."""
    if dtype is not None:
        return dtype
    if x_dtype.kind is int:
        return DType(int, 64, signed=x_dtype.signed)
    if x_dtype.kind is bool:
        return _INT64
    return x_dtype


def _honoured(b: Any, name: str) -> frozenset[str]:
    """The keywords outside the standard's signature of `name` that this backend's namespace takes."""
    return frozenset(FRAMEWORK_KEYWORDS.get(b.name, {}).get(name, ()))


def _checked_keywords(b: Any, name: str, keywords: dict[str, Any], honoured: frozenset[str]) -> None:
    unknown = {k: v for k, v in keywords.items() if k not in honoured}
    if unknown:
        refuse_keywords(name, unknown, b.name)


FRAMEWORK_KEYWORDS: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "jax": {
        **dict.fromkeys(("unique_all", "unique_counts", "unique_inverse", "unique_values"), ("size", "fill_value")),
        "nonzero": ("size", "fill_value"),
    },
}
"""Keywords outside the standard's signatures that a backend's own namespace documents and bk honours there
(`jax.numpy.unique_values(x, size=3, fill_value=0)`). Any other keyword raises `bk.ArgumentTypeError`
naming the function, the keyword and the namespaces that take it."""


# ---------------------------------------------------------------- results with named fields

QRResult = namedtuple("QRResult", ["Q", "R"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])
