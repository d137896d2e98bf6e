"""`DType`, promotion, parsing and NumPy conversion."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from bk import DType, combine_types, from_numpy_dtype, to_numpy_dtype

I8, I16, I32, I64 = (DType(int, b) for b in (8, 16, 32, 64))
U8, U64 = DType(int, 8, signed=False), DType(int, 64, signed=False)
F16, F32, F64 = (DType(float, b) for b in (16, 32, 64))
BF16 = DType(float, 16, brain=True)
C64, C128 = DType(complex, 64), DType(complex, 128)
B = DType(bool)


def test_equal_dtypes_are_identical_and_hash_equal():
    assert DType(float, 32) is F32
    assert DType(float) == F32 and hash(DType(float)) == hash(F32)
    assert F32 != F64 and U8 != I8 and BF16 != F16
    assert len({F32, DType(float, 32), F64}) == 2


def test_dtype_is_immutable_and_picklable():
    with pytest.raises(AttributeError, match="immutable"):
        F32.bits = 64  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(U8)) is U8


@pytest.mark.parametrize(
    ("kind", "bits", "message"),
    [(float, 8, "float cannot have 8 bits"), (list, None, "kind must be one of"), (complex, 32, "complex cannot have 32 bits")],
)
def test_invalid_dtypes(kind, bits, message):
    with pytest.raises(ValueError, match=message):
        DType(kind, bits)


def test_properties():
    assert (C128.precision, F16.precision, I32.precision) == (64, 16, None)
    assert (U8.name, BF16.name, B.name, C64.name, DType(str).name) == ("uint8", "bfloat16", "bool", "complex64", "str")
    assert I64.itemsize == 8 and DType(str).itemsize is None


def test_object_has_the_size_of_a_pointer():
    import struct

    assert DType(object).bits == 8 * struct.calcsize("P") and DType(object).itemsize == struct.calcsize("P")
    assert DType(object).name == "object" and DType.parse("object") is DType(object)


def test_precision_keyword():
    assert DType(float, precision=16) is F16 and DType(float, precision=64) is F64
    assert DType(complex, precision=64) is C128 and DType(complex, precision=32) is C64
    assert DType(float, 32, precision=32) is F32
    with pytest.raises(ValueError, match="disagree"):
        DType(float, 32, precision=64)
    with pytest.raises(ValueError, match="precision"):
        DType(int, precision=32)


def test_as_dtype():
    import numpy as np

    assert DType.as_dtype(None) is None
    assert DType.as_dtype(F32) is F32 and DType.as_dtype("float64") is F64 and DType.as_dtype(float) is F32
    assert DType.as_dtype(np.float16) is F16 and DType.as_dtype(np.dtype("uint8")) is U8
    assert DType.as_dtype(np.zeros(2, np.int64)) is I64
    assert DType.as_dtype((int, 8)) == DType(int, 8) and DType.as_dtype((float, 64)) == F64  # the reference's tuple form
    with pytest.raises(ValueError, match="dtype"):
        DType.as_dtype("floot32")
    with pytest.raises(ValueError, match="bits"):
        DType.as_dtype((int, 7))


@pytest.mark.parametrize(
    ("text", "expected"),
    [("float32", F32), ("float", F32), ("int", I32), ("uint8", U8), ("complex128", C128), ("bfloat16", BF16), ("bool", B), (" Float64 ", F64), ("double", F64)],
)
def test_parse(text, expected):
    assert DType.parse(text) is expected


def test_parse_other_inputs():
    assert DType.parse(float) is F32
    assert DType.parse(np.dtype("int16")) is I16
    assert DType.parse(np.float64) is F64
    assert DType.parse(F16) is F16


def test_parse_unknown_name_suggests_close_matches():
    with pytest.raises(ValueError, match=r"unknown dtype name 'flaot32'\. Did you mean 'float32'"):
        DType.parse("flaot32")
    with pytest.raises(ValueError, match="cannot interpret"):
        DType.parse(3.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("dtypes", "expected"),
    [
        ((U8, I8), I16),
        ((I32, I64), I64),
        ((B, I8), I8),
        ((B, B), B),
        ((I64, F32), F32),
        ((I8, F16), F16),
        ((F32, F64), F64),
        ((F32, C64), C64),
        ((F64, C64), C128),
        ((F16, BF16), F32),
        ((BF16, BF16), BF16),
        ((U64, I64), I64),
        ((DType(str), I32), DType(object)),
        ((DType(str), DType(str)), DType(str)),
    ],
)
def test_combine_types(dtypes, expected):
    assert combine_types(*dtypes) is expected


def test_combine_types_with_precision():
    assert combine_types(I32, F64, fp_precision=32) is F32
    assert combine_types(F16, C64, fp_precision=64) is C128
    assert combine_types(I32, I8, fp_precision=16) is I32


def test_combine_types_needs_input():
    with pytest.raises(ValueError, match="at least one"):
        combine_types()


@pytest.mark.parametrize("dtype", [B, I8, I16, I32, I64, U8, U64, F16, F32, F64, C64, C128])
def test_numpy_round_trip(dtype):
    assert from_numpy_dtype(to_numpy_dtype(dtype)) is dtype


def test_bfloat16_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert to_numpy_dtype(BF16) == np.dtype(ml_dtypes.bfloat16)
    assert from_numpy_dtype(np.dtype(ml_dtypes.bfloat16)) is BF16


def test_numpy_conversion_errors():
    with pytest.raises(TypeError, match="no bk.DType equivalent"):
        from_numpy_dtype(np.dtype("datetime64[s]"))
    with pytest.raises(TypeError, match="expected a bk.DType"):
        to_numpy_dtype("float32")  # type: ignore[arg-type]
    assert from_numpy_dtype(np.dtype("<U3")) is DType(str)
