"""What a plugin's kernels may call is public API of `bk` (issue 24): exported lazily, reporting `bk` as its module."""

from __future__ import annotations

import subprocess
import sys

import pytest

import bk

HELPERS = ("BK_ERRORS", "check_tensor_argument", "normalize_axes", "normalize_axis", "reraise_as")


def test_kernel_helpers_are_public_and_report_bk_as_their_module():
    assert set(HELPERS) <= set(bk.__all__)
    for name in HELPERS:
        obj = getattr(bk, name)
        if callable(obj):
            assert obj.__module__ == "bk", name
    assert set(bk.BK_ERRORS) == {bk.AxisError, bk.ShapeMismatchError, bk.IndexOutOfRangeError, bk.ArgumentTypeError}


def test_kernel_helpers_load_on_first_use():
    code = "import sys, bk; assert 'bk._axes' not in sys.modules; bk.normalize_axis; assert 'bk._axes' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_kernel_helpers_raise_bk_errors_naming_the_operation():
    assert bk.normalize_axes((-1, 0), 3, "sum") == (0, 2)
    with pytest.raises(bk.AxisError, match="concat: axis 2 is out of range"):
        bk.normalize_axis(2, 2, "concat")
    with pytest.raises(bk.ArgumentTypeError, match="abs: x must be a tensor"):
        bk.check_tensor_argument(None, "abs")
    with pytest.raises(bk.ShapeMismatchError, match="reshape: cannot reshape") as raised:
        try:
            raise ValueError("cannot reshape array of size 6 into shape (4,2)")
        except ValueError as error:
            bk.reraise_as(bk.ShapeMismatchError, "reshape", error)
    assert isinstance(raised.value.__cause__, ValueError)


def test_the_standards_argument_helpers_convert_and_name_the_operation():
    """`bk.rules`' helpers of the Array API standard's arguments, which the generic defaults and the first-party
    kernels share: each converts what the defaults take and refuses the rest with the operation's bk error."""
    import numpy as np

    from bk import DType, rules

    b = bk.backend("numpy")
    x = rules.tensor_operand(b, [1.0, 2.0], "flip")
    assert isinstance(x, np.ndarray) and rules.tensor_operand(b, x, "flip") is x
    assert rules.dtype_argument("float32", "full") == DType(float, 32) and rules.dtype_argument(None, "full") is None
    assert b.dtype(rules.fill_tensor(b, 3, DType(int, 8), "full")) == DType(int, 8)
    assert b.dtype(rules.inexact_operand(b, np.arange(3), "sinc")).kind is float
    assert rules.cumulative_axis(b, x, None, "cumulative_sum") == 0 and rules.cumulative_axis(b, x, -1, "cumulative_sum") == 0
    for call, op in (
        (lambda: rules.tensor_operand(b, "ab", "flip"), "flip"),
        (lambda: rules.dtype_argument("float99", "full"), "full"),
        (lambda: rules.fill_tensor(b, "one", None, "full"), "full"),
    ):
        with pytest.raises(bk.ArgumentTypeError, match=op):
            call()
    with pytest.raises(OverflowError):
        rules.fill_tensor(b, 300, DType(int, 8), "full")
    with pytest.raises(bk.AxisError, match="cumulative_sum"):
        rules.cumulative_axis(b, np.ones((2, 2)), None, "cumulative_sum")
