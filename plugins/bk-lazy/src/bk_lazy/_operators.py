"""`Operators`, what a node does in Python code: operators, conversions, array methods, NumPy's protocols.

`LazyArray` (in `_graph`) derives from it. Each method records a node (or computes a value) by calling
an operation of the lazy backend, which `_lazy()` asks bk for (`bk.backend("lazy")`, loaded on first
use): the backend's module, `bk_lazy._backend`, sits above every other module, and this one imports none.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

import bk
from bk import DType

if TYPE_CHECKING:
    from ._graph import LazyArray, Shape

__all__ = ["Operators"]


class Operators:
    """The base class of `LazyArray`: its operators, conversions and array methods. A node in an
    expression records a node through the lazy backend's operation of the same meaning."""

    __slots__ = ()

    if TYPE_CHECKING:  # what `LazyArray` has
        _shape: Shape | None
        _data: Any

        @property
        def shape(self) -> Shape: ...
        @property
        def dtype(self) -> DType: ...
        @property
        def ndim(self) -> int: ...

    # ------------------------------------------------------------ attributes that are operations

    @property
    def T(self) -> LazyArray:
        return _lazy().transpose(self, tuple(range(self.ndim))[::-1])

    @property
    def mT(self) -> LazyArray:
        """The transpose of the last two axes (the Array API's `x.mT`)."""
        return _lazy().matrix_transpose(self)  # type: ignore[no-any-return]

    @property
    def H(self) -> LazyArray:
        """The conjugate transpose."""
        return _lazy().conj(self.T)

    @property
    def real(self) -> LazyArray:
        return _lazy().real(self)  # type: ignore[no-any-return]

    @property
    def imag(self) -> LazyArray:
        return _lazy().imag(self)  # type: ignore[no-any-return]

    # ------------------------------------------------------------ values (computed), length, iteration

    def __bool__(self) -> bool:
        return bool(_lazy().numpy(self))

    def __float__(self) -> float:
        return float(_lazy().numpy(self))

    def __int__(self) -> int:
        return int(_lazy().numpy(self))

    def __complex__(self) -> complex:
        return complex(_lazy().numpy(self))

    def __index__(self) -> int:
        return int(_lazy().numpy(self))

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        return np.asarray(_lazy().numpy(self), dtype=dtype)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d LazyArray")
        if self.shape[0] is None:
            raise TypeError("len() of a LazyArray whose first size depends on the data")
        return self.shape[0]

    def __iter__(self) -> Iterator[LazyArray]:
        return iter(_lazy().unstack(self, 0))

    # ------------------------------------------------------------ operators: graph nodes

    def __getitem__(self, key: Any) -> LazyArray:
        if self._shape is None:  # a multi-result node: its parts
            return _item(self, key)
        return _lazy().multi_slice(self, key if isinstance(key, tuple) else (key,))

    def __add__(self, other: Any) -> LazyArray:
        return _lazy().add(self, other)

    def __radd__(self, other: Any) -> LazyArray:
        return _lazy().add(other, self)

    def __sub__(self, other: Any) -> LazyArray:
        return _lazy().sub(self, other)

    def __rsub__(self, other: Any) -> LazyArray:
        return _lazy().sub(other, self)

    def __mul__(self, other: Any) -> LazyArray:
        return _lazy().mul(self, other)

    def __rmul__(self, other: Any) -> LazyArray:
        return _lazy().mul(other, self)

    def __truediv__(self, other: Any) -> LazyArray:
        return _lazy().div(self, other)

    def __rtruediv__(self, other: Any) -> LazyArray:
        return _lazy().div(other, self)

    def __floordiv__(self, other: Any) -> LazyArray:
        return _lazy().floordiv(self, other)

    def __rfloordiv__(self, other: Any) -> LazyArray:
        return _lazy().floordiv(other, self)

    def __mod__(self, other: Any) -> LazyArray:
        return _lazy().mod(self, other)

    def __rmod__(self, other: Any) -> LazyArray:
        return _lazy().mod(other, self)

    def __pow__(self, other: Any) -> LazyArray:
        return _lazy().pow(self, other)

    def __rpow__(self, other: Any) -> LazyArray:
        return _lazy().pow(other, self)

    def __matmul__(self, other: Any) -> LazyArray:
        return _lazy().matmul(self, other)  # type: ignore[no-any-return]

    def __rmatmul__(self, other: Any) -> LazyArray:
        return _lazy().matmul(other, self)  # type: ignore[no-any-return]

    def __and__(self, other: Any) -> LazyArray:
        return _lazy().and_(self, other)

    def __rand__(self, other: Any) -> LazyArray:
        return _lazy().and_(other, self)

    def __or__(self, other: Any) -> LazyArray:
        return _lazy().or_(self, other)

    def __ror__(self, other: Any) -> LazyArray:
        return _lazy().or_(other, self)

    def __xor__(self, other: Any) -> LazyArray:
        return _lazy().xor(self, other)

    def __rxor__(self, other: Any) -> LazyArray:
        return _lazy().xor(other, self)

    def __lshift__(self, other: Any) -> LazyArray:
        return _lazy().shift_bits_left(self, other)

    def __rshift__(self, other: Any) -> LazyArray:
        return _lazy().shift_bits_right(self, other)

    def __invert__(self) -> LazyArray:
        return _lazy().invert(self)

    def __neg__(self) -> LazyArray:
        return _lazy().sub(0, self) if self.dtype.kind is not bool else _lazy().invert(self)

    def __pos__(self) -> LazyArray:
        return self  # type: ignore[return-value]  # a `LazyArray`, the class derived from this one

    def __abs__(self) -> LazyArray:
        return _lazy().abs(self)

    def __gt__(self, other: Any) -> LazyArray:
        return _lazy().greater_than(self, other)

    def __ge__(self, other: Any) -> LazyArray:
        return _lazy().greater_or_equal(self, other)

    def __lt__(self, other: Any) -> LazyArray:
        return _lazy().greater_than(other, self)

    def __le__(self, other: Any) -> LazyArray:
        return _lazy().greater_or_equal(other, self)

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        """Elementwise `==`, a node (as NumPy's); `NotImplemented` (identity) for what is no array or number."""
        if not _comparable(other):
            return NotImplemented
        return _lazy().equal(self, other)

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        """Elementwise `!=`, a node; `NotImplemented` (identity) for what is no array or number."""
        if not _comparable(other):
            return NotImplemented
        return _lazy().not_equal(self, other)

    # `==` makes nodes, so hashing stays by identity (graphs key their nodes by `id` anyway)
    __hash__ = object.__hash__

    # ------------------------------------------------------------ array methods

    def reshape(self, *shape: Any) -> LazyArray:
        return _lazy().reshape(self, shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)

    def transpose(self, *axes: Any) -> LazyArray:
        """`numpy.ndarray.transpose`: no axes reverses them."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return _lazy().transpose(self, axes or tuple(range(self.ndim))[::-1])  # type: ignore[no-any-return]

    def swapaxes(self, axis1: int, axis2: int) -> LazyArray:
        """`x` with two axes exchanged: a `transpose` node (`x` itself when they are the same axis)."""
        from bk import normalize_axis

        perm = list(range(self.ndim))
        a, b = normalize_axis(axis1, self.ndim, "swapaxes"), normalize_axis(axis2, self.ndim, "swapaxes")
        perm[a], perm[b] = perm[b], perm[a]
        return _lazy().transpose(self, tuple(perm))  # type: ignore[no-any-return]

    def astype(self, dtype: Any) -> LazyArray:
        return _lazy().cast(self, _as_dtype(dtype))

    def __array_namespace__(self, *, api_version: str | None = None) -> Any:
        """`bk.array_namespace("lazy")`: the Array API namespace of bk-lazy graphs (of the backend registered
        now, also after the plugins were loaded again)."""
        return bk.array_namespace("lazy", api_version=api_version)

    # NumPy defers to the node: `np.float64(2.0) * node` and `np.exp(node)` are nodes
    __array_priority__ = 1000

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        op = _UFUNCS.get(ufunc.__name__)
        if method != "__call__" or kwargs or op is None:
            return NotImplemented
        lazy = _lazy()
        if op == "neg":
            return -inputs[0]
        if op == "less" or op == "less_equal":
            return getattr(lazy, "greater_than" if op == "less" else "greater_or_equal")(inputs[1], inputs[0])
        function = getattr(lazy, op, None)
        return NotImplemented if function is None else function(*inputs)


_UFUNCS: Final = {
    "add": "add",
    "subtract": "sub",
    "multiply": "mul",
    "true_divide": "div",
    "divide": "div",
    "floor_divide": "floordiv",
    "remainder": "mod",
    "power": "pow",
    "matmul": "matmul",
    "maximum": "maximum",
    "minimum": "minimum",
    "arctan2": "arctan2",
    "equal": "equal",
    "not_equal": "not_equal",
    "greater": "greater_than",
    "greater_equal": "greater_or_equal",
    "less": "less",
    "less_equal": "less_equal",
    "bitwise_and": "and_",
    "bitwise_or": "or_",
    "bitwise_xor": "xor",
    "left_shift": "shift_bits_left",
    "right_shift": "shift_bits_right",
    "invert": "invert",
    "negative": "neg",
    "absolute": "abs",
    "conjugate": "conj",
    **{
        name: name
        for name in (
            "sign",
            "sqrt",
            "exp",
            "log",
            "log2",
            "log10",
            "sin",
            "cos",
            "tan",
            "arcsin",
            "arccos",
            "arctan",
            "sinh",
            "cosh",
            "tanh",
            "arcsinh",
            "arccosh",
            "arctanh",
            "isfinite",
            "isnan",
            "isinf",
            "floor",
            "ceil",
            "log1p",
            "expm1",
            "hypot",
            "logaddexp",
            "copysign",
            "nextafter",
            "signbit",
            "trunc",
            "reciprocal",
        )
    },
}
"""NumPy ufuncs (by name) and the lazy operations `LazyArray.__array_ufunc__` records for them."""


def _as_dtype(dtype: Any) -> DType:
    if isinstance(dtype, DType):
        return dtype
    import numpy as np

    return bk.from_numpy_dtype(np.dtype(dtype))


_LAZY: list[Any] = []


def _comparable(value: Any) -> bool:
    """Whether `==` with `value` is elementwise: a node, a Python or NumPy number, or an array."""
    import numpy as np

    return isinstance(value, (Operators, bool, int, float, complex, np.generic, np.ndarray))  # a node: `LazyArray`


def _lazy() -> Any:
    """The lazy backend (loaded on first use)."""
    if not _LAZY:
        _LAZY.append(bk.backend("lazy"))
    return _LAZY[0]


def _item(parent: Operators, index: int) -> LazyArray:
    items = parent._data if isinstance(parent._data, tuple) else ()
    if not isinstance(index, int) or not -len(items) <= index < len(items):
        raise IndexError(f"{parent!r} has {len(items)} results; index {index!r} is out of range")
    return items[index]
