"""In-process tests: verdicts, check_backend, the catalogue and the public API."""

from __future__ import annotations

import importlib.util
import pathlib
import re
import sys
import warnings

import numpy as np
import pytest

import bk
import bk_testkit
from bk_testkit._run import CaseResult, verdict

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import fakebackends as fb


def test_all_is_sorted_and_complete():
    def isort_key(name):  # constants, then classes, then functions, as ruff's RUF022 and the core
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert bk_testkit.__all__ == sorted(bk_testkit.__all__, key=isort_key)
    public = {n for n in vars(bk_testkit) if not n.startswith("_")} - {"cases"}
    assert public <= set(bk_testkit.__all__) | {n for n in public if isinstance(getattr(bk_testkit, n), type(sys))}


def test_every_case_belongs_to_a_known_feature_and_most_features_have_cases():
    counts = bk_testkit.catalogue()
    assert set(counts) == set(bk.Backend.features())
    missing = [f for f, n in counts.items() if n == 0]
    assert len(missing) < 10, missing


@pytest.mark.parametrize(
    ("claimed", "outcomes", "status"),
    [
        (True, ["passed", "skipped"], "certified"),
        (True, ["passed", "failed"], "failed"),
        (True, ["not_implemented"], "failed"),
        (True, ["crashed"], "failed"),
        (False, ["not_implemented", "not_implemented"], "unsupported"),
        (False, ["passed"], "unclaimed"),
        (False, ["failed"], "failed"),
        (False, ["passed", "not_implemented"], "unsupported"),
        (True, ["skipped"], "skipped"),
        (True, [], "skipped"),
    ],
)
def test_verdict_table(claimed, outcomes, status):
    results = [CaseResult(f"sum/c{i}", o, "raised ValueError: x" if o == "failed" else "") for i, o in enumerate(outcomes)]
    assert verdict("sum", claimed, results).status == status


def test_unclaimed_failure_says_what_was_raised():
    result = verdict("sum", False, [CaseResult("sum/a", "failed", "raised ValueError: bad")])
    assert "not claimed, but raised ValueError" in result.failures[0]
    assert "instead of NotImplementedError" in result.failures[0]


def test_feature_without_cases_is_skipped_not_certified():
    result = verdict("csr_matrix_batched", True, [])
    assert (result.status, result.reason) == ("skipped", "no conformance case yet")


def test_honest_backend_passes_and_declines_the_rest():
    result = bk_testkit.check_backend(fb.Honest(), timeout=10)
    assert result.with_status("failed") == []
    certified = set(result.with_status("certified"))
    assert {"sum", "cos", "exp", "reshape", "concat", "as_tensor", "cast"} <= certified
    assert {"sin", "matrix_solve_least_squares", "jacobian", "fft", "gradients"} <= set(result.with_status("unsupported"))


def test_lying_backend_fails_exactly_sum_and_cos():
    """sum and cos fail, and nothing else but the generic defaults built on them (count_nonzero, trace, ...)."""
    with pytest.raises(AssertionError) as info:
        bk_testkit.check_backend(fb.Liar(), timeout=10)
    message = str(info.value)
    assert "- cos (claimed) FAILED" in message and "- sum (claimed) FAILED" in message
    failed = set(re.findall(r"^- (\w+) \((?:not )?claimed\) FAILED", message, re.MULTILINE))
    assert failed - {"cos", "sum"} <= _built_on({"cos", "sum"}), failed
    assert "expected" in message and "actual" in message


def _built_on(wrong: set[str]) -> set[str]:
    """The generic defaults that call one of `wrong`, directly or through other defaults."""
    from bk._features import uses_of

    def uses(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        direct = set(uses_of(getattr(bk.Backend, name, None)) or ())
        return direct.union(*(uses(u, seen | {name}) for u in direct if u not in seen))

    return {name for name in bk.Backend.features() if uses(name) & wrong}


def test_expected_failures_are_data_and_stale_entries_are_reported():
    reasons = {"sum": "adds one on purpose", "cos": "computes the sine"}
    bk_testkit.check_backend(fb.Liar(), features=["sum", "cos", "exp"], expected_failures=reasons)
    with pytest.raises(AssertionError, match=r"exp is listed in expected_failures .* but is certified"):
        bk_testkit.check_backend(fb.Liar(), features=["sum", "cos", "exp"], expected_failures={**reasons, "exp": "stale"})
    with pytest.raises(AssertionError, match="unknown feature 'summ'"):
        bk_testkit.check_backend(fb.Liar(), features=["sum", "cos"], expected_failures={**reasons, "summ": "typo"})


def test_working_but_unclaimed_feature_is_reported_as_unclaimed():
    result = bk_testkit.check_backend(fb.Modest(), features="abs")
    assert result.features["abs"].status == "unclaimed"
    assert not result.features["abs"].claimed


def test_hanging_case_times_out_in_process():
    result = bk_testkit.check_backend(fb.Crashy(), features="sin", timeout=0.5, expected_failures={"sin": "hangs"})
    assert "did not finish within 0.5 s" in result.features["sin"].failures[0]


def test_schema_is_valid_json_schema():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(bk_testkit.load_schema())
    assert importlib.util.find_spec("bk_testkit.cases") is not None


class _Traced:
    """A symbolic value of the fake compiler below: records `*` and `+` (all the jit case's function uses)."""

    def __init__(self, run):
        self.run = run

    def __mul__(self, other):
        return _Traced(lambda values: self.run(values) * other.run(values))

    def __add__(self, other):
        return _Traced(lambda values: self.run(values) + other.run(values))


class _WarningCompiler(fb.Honest):
    """A framework whose compiler notes something with a warning while it traces and runs the function eagerly
    when tracing raises, as deep-learning compilers do (issue 39: certified by `testkit certify`, failed in the
    generated pytest test, whose `filterwarnings = error` turned the note into an error: "ran 2 times")."""

    def jit_compile(self, f):
        graphs = {}

        def compiled(*args):
            key = tuple((np.shape(a), np.asarray(a).dtype) for a in args)
            if key not in graphs:
                try:
                    warnings.warn("the compiler notes something while tracing", UserWarning, stacklevel=1)
                    graphs[key] = f(*[_Traced(lambda values, i=i: values[i]) for i in range(len(args))])
                except UserWarning:
                    return f(*args)  # eager, as the framework falls back
            return graphs[key].run(args)

        return compiled


def test_check_backend_and_certify_agree_whatever_warning_filters_the_host_sets():
    """Cases run under the same warning filters in `check_backend` (inside pytest, whose settings may make every
    warning an error) as in `testkit certify`'s workers: a framework's warning never changes a verdict."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = bk_testkit.check_backend(_WarningCompiler("warncompiler"), features=["jit_compile"], timeout=10)
    assert result.with_status("certified") == ["jit_compile"]
