"""The light modules import no TensorFlow, and loading the backend prints nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import bk
from bk_tf import plugin


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    environment.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=300, check=False)


def test_plugin_declares_the_tf_backend() -> None:
    (spec,) = plugin.bk_backends()
    assert spec.name == "tf"
    assert spec.load == "bk_tf._backend:TFBackend"
    assert spec.api == bk.API_VERSION
    assert "tensorflow" in spec.modules


def test_import_of_plugin_and_listing_imports_no_tensorflow() -> None:
    result = _run(
        "import sys, bk, bk_tf, bk_tf.plugin; bk.backends(); print(sorted(m for m in ('tensorflow', 'keras', 'bk_tf._backend') if m in sys.modules))"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


_NOISY_SESSION = """
import logging, os, bk, numpy as np
b = bk.backend('tf')
x = b.as_tensor(np.arange(4.0))
try:
    b.gather(x, b.as_tensor([9]), 0)  # TensorFlow logs a warning for every failed kernel
except IndexError:
    pass
b.argsort(b.as_tensor(np.ones((2, 3))), 0)  # oneDNN logs an error-level line about int32 here
f = b.jit_compile(lambda a: b.sum(a * 2))
for n in range(1, 8):  # a new shape every call: TensorFlow's retracing warning
    f(b.as_tensor(np.ones(n)))
print(b.numpy(b.add(b.as_tensor([1.0]), 1.0)), os.environ['TF_CPP_MIN_LOG_LEVEL'], logging.getLogger('tensorflow').level)
"""


def test_loading_and_using_the_backend_prints_nothing() -> None:
    """No oneDNN/absl/cpu-feature lines at import, no kernel or retracing warnings later (one subprocess)."""
    result = _run(_NOISY_SESSION)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[2.]", "3", "40"]  # quiet defaults: C++ level 3, Python loggers at ERROR
    assert result.stderr == ""


def test_levels_the_user_chose_are_respected() -> None:
    code = (
        "import logging, os; logging.getLogger('tensorflow').setLevel(logging.INFO); import bk; bk.backend('tf');"
        " print(os.environ['TF_CPP_MIN_LOG_LEVEL'], logging.getLogger('tensorflow').level)"
    )
    result = _run(code, TF_CPP_MIN_LOG_LEVEL="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "20"]


def test_kernels_declare_themselves(b: bk.Backend) -> None:
    """`invert`, the value tests, the complex parts, the reductions and the conversions are trusted, each with
    its reason, where they are defined (`bk.rules.kernel`); the operators and elementwise functions are planned."""
    declared = type(b).declared_kernels()
    trusted = {op for op, declaration in declared.items() if declaration.trusted}
    assert trusted == type(b).trusted_operations == {
        "invert", "isfinite", "isnan", "isinf", "real", "imag", "conj", "as_tensor", "cast",
        "sum", "prod", "mean", "std", "max", "min", "any", "all",
    }  # fmt: skip
    assert all(declared[op].why for op in trusted)
    assert not any(declaration.explains for declaration in declared.values())
    for op in ("add", "greater_than", "where", "abs", "round", "sqrt", "log"):
        assert declared[op].fast is not None and not declared[op].trusted
