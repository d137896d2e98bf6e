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


def test_loading_the_backend_prints_nothing() -> None:
    result = _run("import bk; b = bk.backend('tf'); print(b.numpy(b.add(b.as_tensor([1.0]), 1.0)))")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[2.]"
    assert result.stderr == ""


def test_a_log_level_the_user_chose_is_respected() -> None:
    result = _run("import os, bk; bk.backend('tf'); print(os.environ['TF_CPP_MIN_LOG_LEVEL'])", TF_CPP_MIN_LOG_LEVEL="0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0"
