# The pytest plugin (python/fenceline/pytest_plugin.py): pytest runs on a session of
# tests that compile kernels (plugin_session/), with and without -p fenceline.
import json
import os
import subprocess
import sys

from conftest import HERE, ROOT

SESSION = HERE / "plugin_session"


def pytest_session(tmp_path, *args, **environment):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(HERE)]))
    env.pop("FENCELINE", None)
    env.update(environment)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfs", f"--confcutdir={SESSION}",
                           str(SESSION), *args],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    return done.returncode, done.stdout + done.stderr


def test_without_the_plugin_nothing_is_checked(tmp_path):
    status, output = pytest_session(tmp_path)
    assert status == 0, output
    assert "fenceline" not in output.replace("fenceline-hook-tests", "")


def test_session_summary_lists_the_finding_and_the_test(tmp_path):
    status, output = pytest_session(tmp_path, "-p", "fenceline")
    assert status == 0, output  # warnings do not fail the run unless asked
    assert "= fenceline =" in output
    assert "triton_kernels.py:" in output and "acquire-missing" in output
    assert "test_session.py::test_compiles_broken_kernel" in output
    assert "2 kernels checked (2 Triton): 1 new finding(s)" in output
    assert "OrderingWarning" in output  # pytest's warnings summary


def test_fail_option_makes_the_exit_status_one(tmp_path):
    status, output = pytest_session(tmp_path, "-p", "fenceline", "--fenceline-fail")
    assert status == 1, output
    assert "2 passed" in output


def test_baseline_reports_only_new_findings(tmp_path):
    baseline = tmp_path / "baseline.json"
    status, output = pytest_session(tmp_path, "-p", "fenceline", f"--fenceline-write-baseline={baseline}")
    assert status == 0, output
    written = json.loads(baseline.read_text())
    assert [d["check"] for d in written["diagnostics"]] == ["acquire-missing"]
    assert written["diagnostics"][0]["fingerprint"]

    status, output = pytest_session(tmp_path, "-p", "fenceline", f"--fenceline-baseline={baseline}",
                                    "--fenceline-fail")
    assert status == 0, output
    assert "2 kernels checked (2 Triton): 0 new finding(s), 1 known (baseline)" in output


def test_warnings_as_errors_fail_the_test_that_compiled_the_kernel(tmp_path):
    status, output = pytest_session(tmp_path, "-p", "fenceline", "-W", "error::fenceline.OrderingWarning")
    assert status == 1, output
    assert "FAILED" in output and "test_compiles_broken_kernel" in output
    assert "1 failed, 1 passed" in output


def test_environment_switch_enables_the_plugin(tmp_path):
    status, output = pytest_session(tmp_path, "-p", "fenceline.pytest_plugin", FENCELINE="1")
    assert status == 0, output
    assert "2 kernels checked (2 Triton): 1 new finding(s)" in output


def test_background_check_is_reported_inside_its_test(tmp_path):
    # TileLang's check runs on a worker thread; the plugin waits for it at the end of the
    # test that compiled the kernel, so a warnings filter that raises fails that test.
    status, output = pytest_session(tmp_path, "-p", "fenceline", "-W", "error::fenceline.OrderingWarning",
                                    "-k", "tilelang", SESSION_TILELANG="1")
    assert status == 1, output
    assert "FAILED" in output and "test_compiles_broken_tilelang_kernel" in output
    assert "1 failed" in output
