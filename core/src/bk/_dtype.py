"""`DType`: a backend-independent description of an element type."""

from __future__ import annotations

import struct
from functools import lru_cache
from typing import Any, ClassVar, Final

import numpy as np

from ._errors import did_you_mean

__all__ = ["DType", "combine_types", "from_numpy_dtype", "to_numpy_dtype"]

_KIND_NAMES: Final = {bool: "bool", int: "int", float: "float", complex: "complex", object: "object", str: "str"}
_VALID_BITS: Final = {
    bool: (8,),
    int: (8, 16, 32, 64),
    float: (16, 32, 64),
    complex: (64, 128),
    object: (_POINTER_BITS := struct.calcsize("P") * 8,),
    str: (None,),
}
_DEFAULT_BITS: Final = {bool: 8, int: 32, float: 32, complex: 64, object: _POINTER_BITS, str: None}


class DType:
    """An immutable, hashable element type: a kind and a size in bits.

    Args:
        kind: One of the Python types `bool`, `int`, `float`, `complex`, `object`, `str`.
        bits: Size of one element in bits. Defaults to 8 for bool, 32 for int and float,
            64 for complex, the size of a pointer (64 on 64-bit Pythons) for `object`; must be
            `None` for `str`.
        precision: Instead of `bits`, for float and complex kinds: the floating point precision
            (`DType(float, precision=16)` is float16, `DType(complex, precision=64)` complex128),
            as in `phiml.backend`.
        signed: For `int` only: `False` for unsigned integers.
        brain: For 16-bit floats only: `True` for bfloat16 (8 exponent bits).

    Raises:
        ValueError: if `kind` is not one of the kinds above or `bits` is not valid for it.
    """

    # The fields are slots, read without a Python call (dtypes are read on every call of the dispatcher's
    # plans and in hot kernels); `__setattr__` keeps them immutable.
    __slots__ = {
        "bits": "Size of one element in bits (a pointer's for `object`, `None` for `str`).",
        "brain": "`True` for bfloat16.",
        "kind": "The Python type of the elements: `bool`, `int`, `float`, `complex`, `object` or `str`.",
        "signed": "`False` for unsigned integers.",
    }
    kind: type
    bits: int | None
    signed: bool
    brain: bool
    _interned: ClassVar[dict[tuple[Any, ...], DType]] = {}

    def __new__(cls, kind: type, bits: int | None = None, *, precision: int | None = None, signed: bool = True, brain: bool = False) -> DType:
        if precision is not None:
            bits = _bits_of_precision(kind, bits, precision)
        key = (kind, bits, signed, brain)
        cached = cls._interned.get(key)
        if cached is not None:
            return cached
        if kind not in _KIND_NAMES:
            raise ValueError(
                f"DType kind must be one of bool, int, float, complex, object, str but got {kind!r}. "
                f"To parse a name such as 'float32' use DType.parse()."
            )
        if bits is None:
            bits = _DEFAULT_BITS[kind]
        if bits not in _VALID_BITS[kind]:
            raise ValueError(f"{_KIND_NAMES[kind]} cannot have {bits} bits; valid sizes: {_VALID_BITS[kind]}")
        if not signed and kind is not int:
            raise ValueError(f"only int types can be unsigned, not {_KIND_NAMES[kind]}")
        if brain and not (kind is float and bits == 16):
            raise ValueError("brain=True (bfloat16) requires DType(float, 16)")
        self = object.__new__(cls)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "bits", bits)
        object.__setattr__(self, "signed", signed)
        object.__setattr__(self, "brain", brain)
        return cls._interned.setdefault((kind, bits, signed, brain), self)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("DType is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return _make_dtype, (self.kind, self.bits, self.signed, self.brain)

    @property
    def precision(self) -> int | None:
        """Floating point precision in bits: `bits` for float, half of it for complex, else `None`."""
        if self.kind is float:
            return self.bits
        if self.kind is complex:
            return None if self.bits is None else self.bits // 2
        return None

    @property
    def itemsize(self) -> int | None:
        """Size of one element in bytes (a pointer's for `object`, `None` for `str`)."""
        return None if self.bits is None else self.bits // 8

    @property
    def name(self) -> str:
        """The NumPy-style name, such as `'float32'`, `'uint8'` or `'bfloat16'`."""
        if self.brain:
            return "bfloat16"
        if self.kind in (bool, object, str):
            return _KIND_NAMES[self.kind]
        prefix = "u" if not self.signed else ""
        return f"{prefix}{_KIND_NAMES[self.kind]}{self.bits}"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, DType):
            return False
        return (self.kind, self.bits, self.signed, self.brain) == (
            other.kind,
            other.bits,
            other.signed,
            other.brain,
        )

    # Every DType is interned (`__new__`, and unpickling through `_make_dtype`): equal DTypes are the same
    # object, so the identity hash agrees with `__eq__`, and costs no Python call where DTypes key a dict
    # (the dispatcher's plan keys, the backends' dtype tables).
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return self.name

    @staticmethod
    def as_dtype(value: Any) -> DType | None:
        """Anything dtype-like as a `DType`; `None` stays `None` (as `phiml.backend`'s `DType.as_dtype`).

        Accepts what `parse` accepts (a `DType`, a name, a Python type, a NumPy dtype or scalar type),
        the reference's `(kind, bits)` tuple such as `(int, 8)`, and any object with a
        NumPy-compatible `dtype` attribute, such as a NumPy array.

        Raises:
            ValueError: for a value that names no dtype.
        """
        if value is None or isinstance(value, DType):
            return value
        if isinstance(value, tuple) and len(value) == 2 and value[0] in _KIND_NAMES:
            return DType(value[0], value[1])
        dtype = getattr(value, "dtype", None)
        if dtype is not None and not isinstance(value, type):
            return from_numpy_dtype(dtype) if not isinstance(dtype, DType) else dtype
        return DType.parse(value)

    @staticmethod
    def parse(name: str | DType | type | np.dtype[Any]) -> DType:
        """Parses a dtype name such as `'float32'`, `'int'`, `'uint8'`, `'complex128'` or `'bfloat16'`.

        Also accepts a `DType`, a Python type (`float` gives float32) or a NumPy dtype.

        Raises:
            ValueError: for an unknown name, listing the close valid names.
        """
        if isinstance(name, DType):
            return name
        if isinstance(name, type) and name in _KIND_NAMES:
            return DType(name)
        if isinstance(name, np.dtype):
            return from_numpy_dtype(name)
        if isinstance(name, str):
            result = _NAMES.get(name.strip().lower())
            if result is not None:
                return result
            hint = did_you_mean(name.lower(), list(_NAMES))
            raise ValueError(f"unknown dtype name {name!r}.{hint} Valid names: {', '.join(sorted(_NAMES))}")
        if isinstance(name, type) and issubclass(name, np.generic):
            return from_numpy_dtype(np.dtype(name))
        raise ValueError(f"cannot interpret {name!r} as a dtype; pass a DType, a name such as 'float32' or a NumPy dtype")


def _bits_of_precision(kind: type, bits: int | None, precision: int) -> int:
    if kind is float:
        result = precision
    elif kind is complex:
        result = 2 * precision
    else:
        raise ValueError(f"only float and complex DTypes have a precision, not {_KIND_NAMES.get(kind, kind)!r}; pass bits= instead")
    if bits is not None and bits != result:
        raise ValueError(f"DType({_KIND_NAMES[kind]}, bits={bits}, precision={precision}) disagree; pass one of them")
    return result


def _make_dtype(kind: type, bits: int | None, signed: bool, brain: bool) -> DType:
    return DType(kind, bits, signed=signed, brain=brain)


def _all_names() -> dict[str, DType]:
    names: dict[str, DType] = {}
    for kind, sizes in _VALID_BITS.items():
        for bits in sizes:
            dtype = DType(kind, bits)
            names[dtype.name] = dtype
            if kind is int:
                unsigned = DType(int, bits, signed=False)
                names[unsigned.name] = unsigned
    names.update(
        bool=DType(bool),
        int=DType(int, 32),
        float=DType(float, 32),
        complex=DType(complex, 64),
        bfloat16=DType(float, 16, brain=True),
        half=DType(float, 16),
        single=DType(float, 32),
        double=DType(float, 64),
        bool_=DType(bool),
        object=DType(object),
        str=DType(str),
    )
    return names


_NAMES: Final = _all_names()


# ---------------------------------------------------------------- NumPy conversion

_TO_NUMPY: dict[DType, np.dtype[Any]] = {
    DType(bool): np.dtype(np.bool_),
    DType(float, 16): np.dtype(np.float16),
    DType(float, 32): np.dtype(np.float32),
    DType(float, 64): np.dtype(np.float64),
    DType(complex, 64): np.dtype(np.complex64),
    DType(complex, 128): np.dtype(np.complex128),
    DType(object): np.dtype(object),
    DType(str): np.dtype(str),
}
for _bits in (8, 16, 32, 64):
    _TO_NUMPY[DType(int, _bits)] = np.dtype(f"int{_bits}")
    _TO_NUMPY[DType(int, _bits, signed=False)] = np.dtype(f"uint{_bits}")
_FROM_NUMPY: dict[Any, DType] = {v: k for k, v in _TO_NUMPY.items() if k.kind is not str}


def _bfloat16_numpy() -> np.dtype[Any]:
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError("bfloat16 has no NumPy dtype: install the 'ml_dtypes' package to use it with NumPy") from None
    dtype: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
    _TO_NUMPY[DType(float, 16, brain=True)] = dtype
    _FROM_NUMPY[dtype] = DType(float, 16, brain=True)
    return dtype


def to_numpy_dtype(dtype: DType) -> np.dtype[Any]:
    """The NumPy dtype of a `DType` (bfloat16 through `ml_dtypes`).

    Raises:
        TypeError: if NumPy cannot represent `dtype`.
    """
    result = _TO_NUMPY.get(dtype)
    if result is not None:
        return result
    if not isinstance(dtype, DType):
        raise TypeError(f"expected a bk.DType but got {type(dtype).__name__} {dtype!r}; use DType.parse() for names")
    if dtype.brain:
        return _bfloat16_numpy()
    raise TypeError(f"NumPy has no dtype for {dtype}")


def from_numpy_dtype(np_dtype: Any) -> DType:
    """The `DType` of a NumPy dtype (or anything `numpy.dtype()` accepts).

    Raises:
        TypeError: for NumPy dtypes without a `DType`, such as structured or datetime dtypes.
    """
    result = _FROM_NUMPY.get(np_dtype)
    if result is not None:
        return result
    np_dtype = np.dtype(np_dtype)
    if not np_dtype.isnative:  # big-endian arrays: the same element type in another byte order
        np_dtype = np_dtype.newbyteorder("=")
    result = _FROM_NUMPY.get(np_dtype)
    if result is not None:
        return result
    if np_dtype.kind in "US":
        return DType(str)
    if np_dtype.name == "bfloat16":
        _FROM_NUMPY[np_dtype] = DType(float, 16, brain=True)
        return DType(float, 16, brain=True)
    raise TypeError(f"NumPy dtype {np_dtype} has no bk.DType equivalent")


# ---------------------------------------------------------------- promotion

_KIND_ORDER: Final = {bool: 0, int: 1, float: 2, complex: 3, str: 4, object: 5}


@lru_cache(maxsize=1024)
def _combine(dtypes: tuple[DType, ...], fp_precision: int | None) -> DType:
    kinds = {d.kind for d in dtypes}
    top = max(kinds, key=_KIND_ORDER.__getitem__)
    if top is object or top is str:
        return DType(object) if object in kinds or len(kinds) > 1 else DType(str)
    if top is bool:
        return DType(bool)
    if top is int:
        return _combine_ints([d for d in dtypes if d.kind is int])
    floats = [d.precision for d in dtypes if d.kind in (float, complex)]
    precision = fp_precision or max(p for p in floats if p is not None)
    if top is complex:
        return DType(complex, 2 * max(precision, 32))
    if fp_precision is None and all(d.brain for d in dtypes if d.kind is float) and precision == 16:
        return DType(float, 16, brain=True)
    if fp_precision is None and precision == 16 and any(d.brain for d in dtypes if d.kind is float):
        return DType(float, 32)  # float16 with bfloat16, as in PyTorch and JAX
    return DType(float, precision)


def _combine_ints(ints: list[DType]) -> DType:
    result = np.result_type(*[to_numpy_dtype(d) for d in ints])
    if result.kind == "f":  # uint64 with a signed int: NumPy falls back to float64; keep an integer
        return DType(int, 64)
    return from_numpy_dtype(result)


def combine_types(*dtypes: DType, fp_precision: int | None = None) -> DType:
    """The result type of an operation on values of the given types.

    Follows NumPy's promotion among booleans and integers (uint8 with int8 gives int16);
    integers combined with floats give the float type, whose size does not grow through the
    integer (int64 with float32 gives float32, as in PyTorch and JAX); floats with complex give complex.

    Args:
        *dtypes: Types of the operands.
        fp_precision: If given, floating point results have this precision (16, 32 or 64).

    Raises:
        ValueError: if no dtype is given.
    """
    if not dtypes:
        raise ValueError("combine_types() needs at least one DType")
    return _combine(dtypes, fp_precision)



# Public as `bk.<name>`: `bk` imports this module on first use of one of these names, or with the first backend.
for _name in __all__:
    globals()[_name].__module__ = "bk"
del _name
