"""The generated layer (issue 22): strategies, checks against the spec and the reference, `testkit diff`."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import bk
from bk_testkit import _generated as generated
from bk_testkit._case import CATALOGUE, Trial
from bk_testkit._diff import diff_backends
from bk_testkit._generated import Arr, Call, calls, check_call, compare_arrays, error_class, execute
from bk_testkit._run import run_case
from bk_testkit._strategies import OPERATIONS
from bk_testkit.cases import generated as _generated_cases  # noqa: F401 - registers the generated cases


def _wrong_cos_backend() -> bk.Backend:
    """bk-numpy, except that `cos` returns float16 for every input: one wrong dtype on one operation. Trusted, so
    that no plan casts its result to the spec's dtype (the testkit checks a trusted kernel's dtypes)."""
    numpy_backend = type(bk.backend("numpy"))

    class WrongCos(numpy_backend):  # type: ignore[misc, valid-type]
        def cos(self, x):
            return np.asarray(super().cos(x)).astype(np.float16)

    WrongCos.register_kernel("cos", WrongCos.cos, trusted=True, why="a wrong dtype the testkit must find")
    return WrongCos()


def test_every_operation_has_valid_calls_and_they_are_the_same_on_every_run():
    assert len(OPERATIONS) > 100
    for op in OPERATIONS:
        drawn = calls(op, "valid")
        assert drawn, op
        assert all(c.op == op and c.valid for c in drawn)
        generated._drawn.cache_clear()
        assert [repr(c) for c in calls(op, "valid")] == [repr(c) for c in drawn], f"{op}: the calls are not derandomized"


def test_generated_inputs_cover_the_documented_kinds():
    seen_dtypes, layouts, ranks, scalars = set(), set(), set(), set()
    for op in ("add", "mul", "sum", "sin", "where", "clip"):
        for call in calls(op, "valid", 40):
            seen_dtypes |= call.dtypes()
            for a in call.args:
                if isinstance(a, Arr):
                    layouts.add(a.layout)
                    ranks.add(a.array.ndim)
                    if 0 in a.array.shape:
                        ranks.add("empty")
                elif type(a) in (bool, int, float, complex):
                    scalars.add(type(a))
    assert {d.name for d in seen_dtypes} >= {"bool", "int8", "uint64", "float16", "bfloat16", "float64", "complex128"}
    assert layouts >= {"contiguous", "transposed", "negative-strides", "big-endian"}
    assert {0, 1, 2, "empty"} <= ranks
    assert scalars == {bool, int, float, complex}


def test_invalid_calls_must_raise():
    drawn = calls("sum", "invalid", 10)
    assert drawn and not any(c.valid for c in drawn)
    b = bk.backend("numpy")
    for call in drawn:
        assert execute(b, call).error is not None, call


def test_bk_numpy_passes_its_generated_cases():
    b = bk.backend("numpy")
    for op in ("add", "sum", "cos", "reshape", "range", "svd", "concat"):
        for case in CATALOGUE[op]:
            if case.name.startswith("generated"):
                result = run_case(b, case)
                assert result.outcome == "passed", (case.id, result.message)


def test_a_wrong_dtype_on_one_operation_fails_exactly_that_operation():
    b = _wrong_cos_backend()
    failing = set()
    for op in ("sin", "cos", "tan", "add", "sum", "exp"):
        for call in calls(op, "valid"):
            if check_call(b, call).problem:
                failing.add(op)
    assert failing == {"cos"}
    result = run_case(b, next(c for c in CATALOGUE["cos"] if c.name == "generated"), expected={})
    assert result.outcome == "failed" and "dtype float16" in result.message


def test_diff_lists_the_disagreement_with_both_results():
    report = diff_backends(bk.backend("numpy"), _wrong_cos_backend(), ["sin", "cos"], examples=4)
    assert report.calls > 0
    assert report.disagreements and {d.call.op for d in report.disagreements} == {"cos"}
    first = report.disagreements[0].to_dict()
    assert first["operation"] == "cos" and "float16" in first["b"] and first["what"] in ("dtype", "values")


def test_values_are_compared_in_the_result_dtype():
    # float16 overflows to inf: the float64 reference cast to float16 is inf too
    assert compare_arrays(np.array([np.inf], np.float16), np.array([70000.0]), bk.DType(float, 16)) is None
    assert compare_arrays(np.array([1.0], np.float32), np.array([1.1]), bk.DType(float, 32)) is not None
    assert (
        compare_arrays(np.array([0.0], np.float32), np.array([1e-7]), bk.DType(float, 32)) is None
    )  # atol where a value can be 0


def test_error_classes_are_the_documented_ones():
    assert error_class(bk.AxisError("x")) == "AxisError"
    assert error_class(bk.ArgumentTypeError("x")) == "ArgumentTypeError"
    assert error_class(ValueError("x")) == "ValueError"
    assert error_class(RuntimeError("x")).startswith("raw ")


def test_a_raw_framework_error_fails_the_call():
    b = _wrong_cos_backend()

    class Raising(type(b)):  # type: ignore[misc, valid-type]
        def sin(self, x):
            raise RuntimeError("kernel exploded")

    verdict = check_call(Raising(), Call("sin", (Arr(np.ones(3, np.float32)),)))
    assert verdict.problem and "RuntimeError" in verdict.problem


def test_thorough_draws_more_calls():
    generated.set_thorough(True)
    try:
        many = len(calls("add", "valid"))
    finally:
        generated.set_thorough(False)
    assert many > len(calls("add", "valid"))


def test_trial_runs_the_generated_case_of_an_unclaimed_operation_as_unsupported():
    class NoSin(type(bk.backend("numpy"))):  # type: ignore[misc, valid-type]
        def sin(self, x):
            raise NotImplementedError("no sin here")

        def supports(self, feature):
            return feature != "sin" and super().supports(feature)

    case = next(c for c in CATALOGUE["sin"] if c.name == "generated")
    with pytest.raises(NotImplementedError):
        case.function(Trial(NoSin()))


def test_cli_diff_exit_status_and_json(tmp_path):
    out = tmp_path / "diff.json"
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from bk_testkit._cli import main; sys.exit(main())",
            "diff",
            "numpy",
            "numpy",
            "--features",
            "sum,add",
            "--examples",
            "3",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert report["a"] == report["b"] == "numpy" and report["calls"] > 0 and report["disagreements"] == []
    missing = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from bk_testkit._cli import main; sys.exit(main())",
            "diff",
            "numpy",
            "no_such_backend",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert missing.returncode == 2
