"""A kernels-only third-party plugin for a framework that evaluates lazily certifies with 0 failed apart from
its declared gaps.

The plugin's files are in `deferred_plugin/`: its framework computes a value when it is read and raises the
errors of the computation there (`deferredarr.EvaluationError`), and computes float64 transcendental
functions at float32 accuracy. The backend declares both (`evaluates_lazily`, `precision_deficits`) and its
missing half-precision `solve`/`inv` (`lacking_kernels`); the core maps errors raised on read as kernel
errors, the testkit compares at the declared accuracy.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

import bk

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_plain_plugin import certify, install

HERE = pathlib.Path(__file__).parent / "deferred_plugin"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return install(tmp_path_factory.mktemp("deferredsite"), HERE, "deferred")


@pytest.fixture
def backend(monkeypatch: pytest.MonkeyPatch) -> bk.Backend:
    monkeypatch.syspath_prepend(str(HERE))
    import deferred_backend

    return deferred_backend.DeferredBackend()


def test_errors_raised_when_values_are_read_are_mapped_as_kernel_errors(backend):
    singular = backend.solve(backend.as_tensor(np.ones((3, 3), np.float32)), backend.as_tensor(np.ones(3, np.float32)))  # no error yet
    with pytest.raises(ValueError, match="^solve: ") as raised:
        backend.numpy(singular)
    assert type(raised.value) is ValueError  # not the framework's RuntimeError: the data class of solve
    x = backend.as_tensor(np.zeros((2, 3), np.float32))
    index = backend.as_tensor(np.array([0, 3]))
    with pytest.raises(bk.IndexOutOfRangeError):  # framework_errors: by the framework's type, whatever made the value
        backend.numpy(x[:, index])
    assert backend.numpy(backend.add(x, 1.0)).tolist() == [[1.0] * 3] * 2


def test_the_declared_accuracy_is_what_the_testkit_compares_at(backend):
    from bk._rules.gaps import declared_accuracy
    from bk_testkit._case import ACCURACY, tolerance

    f32, f64 = bk.DType(float, 32), bk.DType(float, 64)
    assert declared_accuracy(type(backend), "sin") == {f64: f32}
    assert declared_accuracy(type(backend), "logsumexp") == {f64: f32}  # a generic default computed with exp and log
    assert declared_accuracy(type(backend), "add") == {}
    token = ACCURACY.set(declared_accuracy(type(backend), "sin"))
    try:
        assert tolerance(f64) == tolerance(f32)
    finally:
        ACCURACY.reset(token)
    assert tolerance(f64) != tolerance(f32)


@pytest.mark.slow
def test_the_deferred_plugin_certifies_with_no_failure_apart_from_its_gaps(site):
    result, features = certify(site, "deferred")
    failed = {f: r["failures"][:2] for f, r in features.items() if r["status"] == "failed"}
    assert result.returncode == 0 and not failed, (failed, result.stderr[-2000:])
    for feature in ("solve", "inv", "sin", "exp", "logsumexp", "multi_slice", "add", "where"):
        assert features[feature]["status"] == "certified", (feature, features[feature])
    assert "precision: sin float64 (at float32 accuracy" in result.stdout + result.stderr
