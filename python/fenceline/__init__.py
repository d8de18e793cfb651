"""fenceline: finds memory-ordering bugs in GPU kernels by reading their PTX.

The checker is a C++ program; this package carries it (``fenceline/bin/``,
with the doc pages ``fenceline explain`` reads under ``fenceline/share/``, the
device headers under ``fenceline/include/`` and the CMake package under
``fenceline/lib/cmake/fenceline``) and runs it: the ``fenceline`` console
script and ``python -m fenceline`` pass their arguments to it.

It also checks kernels as Python compilers produce them (docs/python.md):
``fenceline.triton``, ``fenceline.cute`` (CuTe DSL) and ``fenceline.tilelang``
each have an ``enable()``; :func:`enable` enables every one, now or when its
compiler is imported; ``FENCELINE=1`` in the environment does the same with no
code change (the ``fenceline-autoload.pth`` file the package installs); the
pytest plugin is ``pytest -p fenceline``. Findings are
:class:`OrderingWarning` warnings at the kernel's Python line, or
:class:`OrderingError` exceptions with ``action="error"``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__version__ = "0.1.0"

_PACKAGE_DIR = Path(__file__).resolve().parent


class OrderingWarning(UserWarning):
    """A memory-ordering finding in a kernel a Python compiler produced, reported at the
    kernel's Python line. ``finding`` is the checker's JSON diagnostic
    (:class:`fenceline.jit.Finding`). ``-W error::fenceline.OrderingWarning`` and pytest's
    ``filterwarnings`` turn it into an error."""

    def __init__(self, message, finding=None):
        super().__init__(message)
        self.finding = finding


class FencelineWarning(RuntimeWarning):
    """fenceline could not do what was asked: a compiler version without a hook, a kernel
    the checker could not read. Never a finding."""


class OrderingError(Exception):
    """Raised instead of :class:`OrderingWarning` with ``action="error"``: the kernel's
    findings (``report.findings``; ``report.kernel`` is the kernel)."""

    def __init__(self, report):
        self.report = report
        self.findings = report.findings
        lines = [f"{len(report.findings)} memory-ordering finding(s) in {report.kernel.describe()}:"]
        for finding in report.findings:
            path, line = finding.where()
            lines.append(f"{path}:{line}: {finding.severity}: {finding.render()}")
        super().__init__("\n".join(lines))


def enable(languages=("triton", "cute", "tilelang"), **settings):
    """Checks the kernels of every language in ``languages`` as they compile: now for a
    compiler already imported, else when it is imported. ``settings``: those of
    :func:`fenceline.jit.configure` (``action``, ``strict``, ``config``, ``baseline``,
    ``args``, ``binary``)."""
    from fenceline import _autoload
    _autoload.install(languages, **settings)


def wait():
    """Waits for the checks still running and reports their findings."""
    from fenceline import jit
    jit.wait()


def binary_path() -> Path:
    """The bundled checker binary (``FileNotFoundError`` when the package was
    not installed from a wheel or ``pip install``, e.g. a bare source tree)."""
    binary = _PACKAGE_DIR / "bin" / "fenceline"
    if not binary.is_file() or not os.access(binary, os.X_OK):
        raise FileNotFoundError(
            f"fenceline: the checker binary is missing at {binary}; install the package with "
            "'pip install .' from the repository root (or a built wheel)"
        )
    return binary


def include_dir() -> Path:
    """The folder holding ``fenceline/*.cuh`` (pass it to nvcc with ``-I``)."""
    return _PACKAGE_DIR / "include"


def cmake_dir() -> Path:
    """The folder of ``fencelineConfig.cmake`` (for ``-Dfenceline_DIR=``)."""
    return _PACKAGE_DIR / "lib" / "cmake" / "fenceline"


def run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Runs ``fenceline ARGS...`` and returns the completed process
    (``subprocess.run`` keyword arguments pass through)."""
    return subprocess.run([str(binary_path()), *args], **kwargs)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script: replaces this process with the
    checker, so its exit status (0, 1 or 2) and output are the checker's."""
    args = sys.argv[1:] if argv is None else argv
    try:
        binary = binary_path()
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        return 2
    os.execv(binary, [str(binary), *args])
    return 2  # not reached


# `pytest -p fenceline` where the package's pytest11 entry point is not installed (a
# source checkout on PYTHONPATH): pytest then registers this module as the plugin. These
# hand over to fenceline.pytest_plugin (pluggy looks hooks up in the module's own dict).


def pytest_addoption(parser):
    from fenceline import pytest_plugin
    pytest_plugin.pytest_addoption(parser)


def pytest_configure(config):
    from fenceline import pytest_plugin
    pytest_plugin.pytest_configure(config)


def pytest_unconfigure(config):
    from fenceline import pytest_plugin
    pytest_plugin.pytest_unconfigure(config)
