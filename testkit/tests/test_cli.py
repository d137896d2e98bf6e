"""The `testkit` command, run in subprocesses against throw-away backends installed as a plugin."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import bk_testkit

HERE = pathlib.Path(__file__).parent


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A folder with the fake backends as an installed plugin (a dist-info with an entry point)."""
    root = tmp_path_factory.mktemp("site")
    shutil.copy(HERE / "fakebackends.py", root / "fakebackends.py")
    info = root / "bk_fakes-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bk-fakes\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[bk.backends]\nfakes = fakebackends\n")
    return root


def run(site, *args, backends="honest,liar,modest,crashy"):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]), "FAKE_BACKENDS": backends}
    env.pop("COLUMNS", None)
    return subprocess.run([sys.executable, "-c", "import sys; from bk_testkit._cli import main; sys.exit(main())", *args], capture_output=True, text=True, env=env, timeout=300)


def test_honest_backend_exits_0_and_json_matches_schema(site, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    out = tmp_path / "report.json"
    md = tmp_path / "report.md"
    result = run(site, "certify", "honest", "--json", str(out), "--markdown", str(md), backends="honest")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    jsonschema.validate(report, bk_testkit.load_schema())
    features = report["backends"]["honest"]["features"]
    assert features["sum"] == {**features["sum"], "claimed": True, "status": "certified"}
    assert features["sin"]["status"] == "unsupported" and not features["sin"]["claimed"]
    assert features["csr_matrix_batched"]["status"] == "unsupported"  # every feature has cases now: none is skipped
    assert not [f for f, r in features.items() if r["status"] in ("failed", "skipped")]
    assert report["backends"]["honest"]["distribution"] == "bk-fakes"
    assert "| `sum` | yes |" in md.read_text()
    assert "certified" in result.stdout and "Ran " in result.stdout


def test_lying_backend_exits_1_naming_sum_and_cos(site, tmp_path):
    out = tmp_path / "liar.json"
    md = tmp_path / "liar.md"
    result = run(site, "certify", "liar", "--json", str(out), "--markdown", str(md), "--features", "sum,cos,exp,reshape,sin,ravel*", "--precision", "32", backends="liar")
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(out.read_text())
    features = report["backends"]["liar"]["features"]
    assert sorted(f for f, r in features.items() if r["status"] == "failed") == ["cos", "sum"]
    assert "  sum [claimed]:" in result.stdout and "  cos [claimed]:" in result.stdout
    # every failing check of each case, grouped by case, through the worker processes (issue 24)
    checks = features["cos"]["checks"]
    assert set(checks) == {f.split(": ", 1)[0] for f in features["cos"]["failures"]}
    assert max(len(c) for c in checks.values()) > 1 and "failing checks" in result.stdout
    pytest.importorskip("jsonschema").validate(report, bk_testkit.load_schema())
    assert "## Failures of liar" in md.read_text()


def test_crashing_and_hanging_cases_are_reported_and_the_run_completes(site, tmp_path):
    out = tmp_path / "crashy.json"
    result = run(site, "certify", "crashy", "--json", str(out), "--features", "tanh,sin,cos,exp", "--timeout", "3", backends="crashy")
    assert result.returncode == 1, result.stdout + result.stderr
    features = json.loads(out.read_text())["backends"]["crashy"]["features"]
    assert features["cos"]["status"] == features["exp"]["status"] == "certified"
    assert features["tanh"]["status"] == "failed" and "crashed the worker process twice (exit status 7" in features["tanh"]["failures"][0]
    assert features["sin"]["status"] == "failed" and "did not finish within 3 s" in features["sin"]["failures"][0]


def test_unknown_backend_and_usage_errors_exit_2(site):
    result = run(site, "certify", "nosuch", backends="honest")
    assert result.returncode == 2
    assert "no backend named 'nosuch'" in result.stderr and "third-party plugin" in result.stderr and "bk-nosuch" not in result.stderr
    assert run(site, "certify", backends="honest").returncode == 2


def test_jobs_certifies_backends_side_by_side_with_the_same_report(site, tmp_path):
    reports = {}
    for jobs in ("1", "3"):
        out = tmp_path / f"jobs{jobs}.json"
        result = run(site, "certify", "honest", "liar", "modest", "--jobs", jobs, "--json", str(out), "--features", "sum,cos,reshape", "--precision", "32", backends="honest,liar,modest")
        assert result.returncode == 1, result.stdout + result.stderr  # the liar fails, whatever runs beside it
        report = json.loads(out.read_text())
        assert list(report["backends"]) == ["honest", "liar", "modest"]  # in the order named
        reports[jobs] = {name: {f: r["status"] for f, r in b["features"].items()} for name, b in report["backends"].items()}
        assert result.stdout.index("honest") < result.stdout.index("liar") < result.stdout.index("modest")
    assert reports["1"] == reports["3"] and reports["3"]["liar"]["sum"] == "failed" and reports["3"]["honest"]["sum"] == "certified"
    refused = run(site, "certify", "honest", "--jobs", "0", backends="honest")
    assert refused.returncode == 2 and "--jobs" in refused.stderr
