"""fenceline: finds memory-ordering bugs in GPU kernels by reading their PTX.

The checker is a C++ program; this package carries it (``fenceline/bin/``,
with the doc pages ``fenceline explain`` reads under ``fenceline/share/``, the
device headers under ``fenceline/include/`` and the CMake package under
``fenceline/lib/cmake/fenceline``) and runs it: the ``fenceline`` console
script and ``python -m fenceline`` pass their arguments to it. Other modules
of this package (e.g. a Triton helper) sit beside this file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__version__ = "0.1.0"

_PACKAGE_DIR = Path(__file__).resolve().parent


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
