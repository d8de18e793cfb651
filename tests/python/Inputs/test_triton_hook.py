# fenceline.triton: Triton's compilation listener checks each kernel as it compiles
# (python/fenceline/triton.py). Broken kernels warn at their Python line, fixed twins
# stay silent (and are shown to have been checked).
import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import types
import warnings

import pytest

import fenceline
import fenceline.triton
from fenceline import jit
from conftest import HERE, ROOT, line_of, ordering_warnings, report_of

import triton
import triton_kernels as k

KERNELS = HERE / "triton_kernels.py"


@pytest.fixture(autouse=True)
def hook():
    assert fenceline.triton.enable()
    yield
    fenceline.triton.disable()


def test_broken_kernel_warns_at_its_line(record):
    k.compile(k.poll_volatile)
    (warning,) = ordering_warnings(record)
    assert pathlib.Path(warning.filename) == KERNELS
    assert warning.lineno == line_of(KERNELS, "reported here: acquire-missing")
    text = str(warning.message)
    assert text.startswith("acquire-missing: spin loop exits on a volatile load")
    assert "Triton kernel 'poll_volatile' [BLOCK=128" in text and "sm_90]" in text
    assert "fix: " in text
    assert warning.message.finding.check == "acquire-missing"


def test_fixed_kernel_is_checked_and_silent(record):
    k.compile(k.poll_acquire)
    assert ordering_warnings(record) == []
    assert report_of("poll_acquire").findings == []


def test_relaxed_publish_warns_release_publish_is_silent(record):
    k.compile(k.publish_relaxed)
    k.compile(k.publish_release)
    (warning,) = ordering_warnings(record)
    assert warning.lineno == line_of(KERNELS, "reported here: release-missing")
    assert str(warning.message).startswith("release-missing:")
    assert report_of("publish_release").findings == []


def test_once_per_specialization(record):
    k.compile(k.poll_volatile)
    k.compile(k.poll_volatile)  # the same specialization (from Triton's cache): not again
    assert len(ordering_warnings(record)) == 1
    k.compile(k.poll_volatile, block=64)  # another specialization: reported too
    warned = ordering_warnings(record)
    assert len(warned) == 2 and "BLOCK=64" in str(warned[1].message)


def test_error_action_raises_from_the_compile_every_time():
    jit.configure(action="error")
    for _ in range(2):
        with pytest.raises(fenceline.OrderingError) as raised:
            k.compile(k.poll_volatile)
        assert [f.check for f in raised.value.findings] == ["acquire-missing"]
        assert "poll_volatile" in str(raised.value)
    k.compile(k.poll_acquire)  # the fixed kernel compiles


def test_warnings_filter_turns_it_into_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error", fenceline.OrderingWarning)
        with pytest.raises(fenceline.OrderingWarning, match="acquire-missing"):
            k.compile(k.poll_volatile)
        with pytest.raises(fenceline.OrderingWarning):  # still unwarned: raises again
            k.compile(k.poll_volatile)


def _kernels_in(folder, config, monkeypatch, edit=lambda text: text):
    """A copy of triton_kernels.py in `folder`, with `config` as its .fenceline.toml. (With
    a Triton cache of its own: Triton's cache key is the function's text, not its file, so
    the original's PTX, whose line info names the original, would be found.)"""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(folder.parent / "triton-cache"))
    folder.mkdir()
    (folder / "config_kernels.py").write_text(edit(KERNELS.read_text()))
    if config is not None:
        (folder / ".fenceline.toml").write_text(config)
    sys.path.insert(0, str(folder))
    try:
        import config_kernels
        return config_kernels
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("config_kernels", None)


def test_configuration_is_found_from_the_kernel_source(tmp_path, record, monkeypatch):
    kernels = _kernels_in(tmp_path / "project", 'checks = "-acquire-missing"\n', monkeypatch)
    kernels.compile(kernels.poll_volatile)
    kernels.compile(kernels.publish_relaxed)
    (warning,) = ordering_warnings(record)  # acquire-missing is off there; release-missing is not
    assert str(warning.message).startswith("release-missing:")
    assert pathlib.Path(warning.filename) == tmp_path / "project" / "config_kernels.py"
    assert report_of("poll_volatile").findings == []
    assert "--config" in report_of("poll_volatile").command


def test_a_bad_configuration_is_a_clear_warning_not_a_silent_pass(tmp_path, record, monkeypatch):
    kernels = _kernels_in(tmp_path / "project", 'checks = "-acquire-mising"\n', monkeypatch)
    kernels.compile(kernels.poll_volatile)
    problems = [w for w in record if issubclass(w.category, fenceline.FencelineWarning)]
    assert len(problems) == 1 and "could not check Triton kernel 'poll_volatile'" in str(problems[0].message)
    assert "acquire-mising" in str(problems[0].message)
    (report,) = jit.reports()
    assert report.error


def test_suppression_comment_on_the_python_line(tmp_path, record, monkeypatch):
    kernels = _kernels_in(tmp_path / "project", None, monkeypatch, lambda text: text.replace(
        "pass  # reported here: acquire-missing", "pass  # fenceline: ignore(acquire-missing)"))
    kernels.compile(kernels.poll_volatile)
    assert ordering_warnings(record) == []
    assert report_of("poll_volatile").findings == []


def test_baseline_hides_known_findings(tmp_path, record):
    k.compile(k.poll_volatile)
    (finding,) = report_of("poll_volatile").findings
    assert finding.get("fingerprint")
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"version": 1, "diagnostics": [dict(finding)]}))
    jit.wait()
    jit.forget()
    record.clear()
    jit.configure(baseline=baseline)
    k.compile(k.poll_volatile)
    k.compile(k.publish_relaxed)
    (warning,) = ordering_warnings(record)  # only the new one
    assert str(warning.message).startswith("release-missing:")
    assert report_of("poll_volatile").known == 1 and report_of("poll_volatile").findings == []


def test_strict_is_passed_on_when_the_checker_has_it(record):
    jit.configure(strict=True)
    k.compile(k.poll_acquire)
    help_text = subprocess.run([os.environ["FENCELINE_BIN"], "check", "--help"], capture_output=True,
                               text=True).stdout
    if "--strict" in help_text:
        assert "--strict" in report_of("poll_acquire").command
    else:
        assert "--strict" not in report_of("poll_acquire").command
        notes = [str(w.message) for w in record if issubclass(w.category, fenceline.FencelineWarning)]
        assert any("has no --strict option" in note for note in notes), notes


def test_a_listener_set_before_is_kept(record):
    fenceline.triton.disable()
    calls = []
    triton.knobs.compilation.listener = lambda **kwargs: calls.append(kwargs["metadata"]["name"])
    try:
        assert fenceline.triton.enable()
        k.compile(k.poll_volatile)
        assert calls == ["poll_volatile"] and len(ordering_warnings(record)) == 1
        fenceline.triton.disable()
        assert not fenceline.triton.is_enabled() and triton.knobs.compilation.listener is not None
    finally:
        triton.knobs.compilation.listener = None


def test_a_triton_without_a_listener_is_refused_with_a_message(monkeypatch, record):
    fenceline.triton.disable()
    monkeypatch.setitem(sys.modules, "triton", types.SimpleNamespace(__version__="3.3.1"))
    assert fenceline.triton.enable() is False
    (note,) = [w for w in record if issubclass(w.category, fenceline.FencelineWarning)]
    assert "Triton 3.3.1 has no compilation listener" in str(note.message)
    assert "fenceline check" in str(note.message)


def _run_with_pth(environment, script):
    """Runs `script` in a Python whose site folder holds fenceline-autoload.pth (as
    `pip install` puts it), with no code of fenceline's imported by the script."""
    site = pathlib.Path(os.environ["FENCELINE_CACHE_DIR"]).parent / "site"
    site.mkdir(exist_ok=True)
    shutil.copy(ROOT / "python" / "fenceline-autoload.pth", site)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(HERE)]))
    env.pop("FENCELINE", None)
    env.update(environment)
    code = f"import site; site.addsitedir({str(site)!r})\n" + textwrap.dedent(script)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


SCRIPT = """
    import sys
    import triton_kernels as k
    k.compile(k.poll_volatile)
    k.compile(k.poll_acquire)
    print("imported fenceline:", "fenceline" in sys.modules)
"""


def test_environment_switch_needs_no_code_change():
    on = _run_with_pth({"FENCELINE": "1"}, SCRIPT)
    assert on.returncode == 0, on.stderr
    assert "imported fenceline: True" in on.stdout
    assert on.stderr.count("OrderingWarning: acquire-missing") == 1, on.stderr
    assert "triton_kernels.py:{}:".format(line_of(KERNELS, "reported here: acquire-missing")) in on.stderr

    off = _run_with_pth({}, SCRIPT)
    assert off.returncode == 0, off.stderr
    assert "imported fenceline: False" in off.stdout and "OrderingWarning" not in off.stderr

    error = _run_with_pth({"FENCELINE": "error"}, SCRIPT)
    assert error.returncode == 1 and "fenceline.OrderingError: 1 memory-ordering finding(s)" in error.stderr


def test_finding_keeps_unknown_keys_and_renders_evidence():
    finding = jit.Finding({"check": "acquire-missing", "severity": "note", "message": "m",
                           "location": {"file": "/x/k.py", "line": 3, "column": 1},
                           "evidence": [{"message": "the poll", "location": {"file": "/x/k.py", "line": 2}},
                                        "a plain string"],
                           "some_future_key": [1, 2]})
    assert finding["some_future_key"] == [1, 2]
    text = finding.render()
    assert "evidence: the poll" in text and "evidence: a plain string" in text
