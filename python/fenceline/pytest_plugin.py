"""pytest plugin: checks every kernel the test session compiles.

    pytest -p fenceline                      # or --fenceline, or FENCELINE=1, or `fenceline = true` in the ini
    pytest -p fenceline --fenceline-baseline .fenceline-baseline.json --fenceline-fail

The package registers this module as the pytest plugin ``fenceline`` (entry
point ``pytest11``); it does nothing until asked by one of: ``-p fenceline``,
``--fenceline``, any other ``--fenceline-*`` option, the ini option
``fenceline = true``, or ``FENCELINE=1`` in the environment. Then the Triton,
CuTe DSL and TileLang hooks are enabled (each when its compiler is imported),
every kernel compiled during the session is checked, its findings are
:class:`fenceline.OrderingWarning` warnings (pytest's warnings summary shows
them, with the test that compiled the kernel; ``-W error::fenceline.OrderingWarning``
or a ``filterwarnings`` mark fails that test), checks still running at the end
of a test are waited for then, and a ``fenceline`` section at the end of the run
lists the kernels, the new findings and the ones the baseline knows.

Options:

``--fenceline-baseline FILE``        report only findings not in FILE (a JSON report
                                     or SARIF log of fenceline: ``fenceline check
                                     --write-baseline``, or the option below)
``--fenceline-write-baseline FILE``  write every finding of the session to FILE (the
                                     JSON report format ``--baseline`` reads)
``--fenceline-strict``               also the strict tier (``fenceline check --strict``)
``--fenceline-fail``                 exit status 1 when a kernel has a new error or
                                     warning, or could not be checked
"""

from __future__ import annotations

import json
import os

import pytest

from fenceline import _autoload, jit

_OPTIONS = ("fenceline", "fenceline_baseline", "fenceline_write_baseline", "fenceline_strict", "fenceline_fail")


def pytest_addoption(parser):
    group = parser.getgroup("fenceline", "fenceline: memory-ordering checks of the kernels the tests compile")
    group.addoption("--fenceline", action="store_true", default=False,
                    help="check every Triton, CuTe DSL and TileLang kernel the session compiles")
    group.addoption("--fenceline-baseline", metavar="FILE", default=None,
                    help="report only findings not in FILE (a JSON report or SARIF log of fenceline)")
    group.addoption("--fenceline-write-baseline", metavar="FILE", default=None,
                    help="write every finding of the session to FILE as a baseline (JSON report)")
    group.addoption("--fenceline-strict", action="store_true", default=False,
                    help="also report the strict tier (fenceline check --strict)")
    group.addoption("--fenceline-fail", action="store_true", default=False,
                    help="exit status 1 when a kernel has a new finding (error or warning) or could not be checked")
    parser.addini("fenceline", type="bool", default=False,
                  help="check every kernel the session compiles (as --fenceline)")


def _asked(config):
    if any(config.getoption(name) for name in _OPTIONS):
        return True
    if "fenceline" in (config.getoption("plugins", default=None) or []):
        return True
    if config.getini("fenceline"):
        return True
    return os.environ.get("FENCELINE", "").strip().lower() in _autoload.SWITCH_VALUES


class FencelinePlugin:
    """The session's state: every kernel report, with the test that compiled it."""

    def __init__(self, config):
        self.config = config
        self.reports = []
        self.current = None
        self.failure = None

    def on_report(self, report):
        report.context = self.current
        self.reports.append(report)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        self.current = item.nodeid
        try:
            return (yield)
        finally:
            # Checks still running (TileLang's) are reported inside the test, so that their
            # warnings name it and a warnings filter that raises fails it.
            jit.wait()

    def pytest_runtest_teardown(self, item):
        self.current = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus):
        try:
            jit.wait()
        except Exception as raised:  # a warnings filter that raises: no test to fail any more
            self.failure = raised
        path = self.config.getoption("fenceline_write_baseline")
        if path:
            self.write_baseline(path)
        if self.config.getoption("fenceline_fail") and (self.new_failing() or self.errors()) \
                and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def new_failing(self):
        return [f for r in self.reports for f in r.findings if f.severity in ("error", "warning")]

    def errors(self):
        return [r for r in self.reports if r.error]

    def write_baseline(self, path):
        diagnostics, seen = [], set()
        for report in self.reports:
            for finding in report.findings:
                fingerprint = finding.get("fingerprint")
                if fingerprint in seen:
                    continue
                seen.add(fingerprint)
                diagnostics.append(dict(finding))
        # Findings a --fenceline-baseline hid stay known: keep the old file's.
        old = self.config.getoption("fenceline_baseline")
        if old and os.path.isfile(old):
            try:
                with open(old) as f:
                    for diagnostic in json.load(f).get("diagnostics", []):
                        if diagnostic.get("fingerprint") not in seen:
                            seen.add(diagnostic.get("fingerprint"))
                            diagnostics.append(diagnostic)
            except (OSError, ValueError, AttributeError):
                pass
        with open(path, "w") as out:
            json.dump({"version": 1, "diagnostics": diagnostics}, out, indent=1)
            out.write("\n")

    def pytest_terminal_summary(self, terminalreporter):
        write = terminalreporter.write_line
        terminalreporter.section("fenceline")
        if not self.reports:
            write("no Triton, CuTe DSL or TileLang kernel was compiled")
            return
        languages = {}
        for report in self.reports:
            languages[report.kernel.language] = languages.get(report.kernel.language, 0) + 1
        counts = ", ".join(f"{n} {language}" for language, n in languages.items())
        findings = [(report, f) for report in self.reports for f in report.findings]
        known = sum(report.known for report in self.reports)
        for report, finding in findings:
            path, line = finding.where()
            test = f" ({report.context})" if report.context else ""
            write(f"{jit._short(path)}:{line}: {finding.severity}: {finding.check}: {finding.message}"
                  f" [{report.kernel.describe()}]{test}")
        for report in self.errors():
            write(f"not checked: {report.kernel.describe()}: {report.error}")
        summary = f"{len(self.reports)} kernels checked ({counts}): {len(findings)} new finding(s)"
        if self.config.getoption("fenceline_baseline"):
            summary += f", {known} known (baseline)"
        if self.errors():
            summary += f", {len(self.errors())} not checked"
        write(summary)
        if self.failure is not None:
            write(f"at the end of the session: {self.failure}")


def pytest_configure(config):
    if not _asked(config) or config.pluginmanager.has_plugin("fenceline-session"):
        return
    plugin = FencelinePlugin(config)
    config.pluginmanager.register(plugin, "fenceline-session")
    jit.add_listener(plugin.on_report)
    settings = jit.settings_from_environment()
    if config.getoption("fenceline_baseline"):
        settings["baseline"] = config.getoption("fenceline_baseline")
    if config.getoption("fenceline_strict"):
        settings["strict"] = True
    _autoload.install(**settings)


def pytest_unconfigure(config):
    plugin = config.pluginmanager.get_plugin("fenceline-session")
    if plugin is not None:
        jit.remove_listener(plugin.on_report)
        config.pluginmanager.unregister(plugin)
