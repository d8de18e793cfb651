# fenceline.tilelang: TileLang's CUDA post-processing callback hands each generated
# kernel to the checker, which runs while TileLang compiles; the compile reports it
# (python/fenceline/tilelang.py). No GPU: TileLang compiles for sm_90a with nvcc.
import os
import pathlib
import subprocess
import sys

import pytest

import fenceline
import fenceline.tilelang
from fenceline import jit
from conftest import HERE, ROOT, line_of, ordering_warnings

import tilelang_kernels as k

KERNELS = HERE / "tilelang_kernels.py"


@pytest.fixture(autouse=True)
def hook():
    assert fenceline.tilelang.enable()
    yield
    fenceline.tilelang.disable()


def only_report():
    (report,) = jit.reports()
    assert report.error is None, report.error
    return report


def test_broken_kernel_warns_at_its_prim_func(record):
    kernel = k.compile(k.handoff("relaxed"))
    assert kernel is not None
    (warning,) = ordering_warnings(record)  # reported by the compile call itself
    assert pathlib.Path(warning.filename) == KERNELS
    assert warning.lineno == line_of(KERNELS, "# reported here")
    text = str(warning.message)
    assert text.startswith("acquire-missing: spin loop exits on a relaxed load")
    assert "TileLang kernel 'main' [sm_90a]" in text
    assert ".cu:" in text and "(generated code)" in text
    # Checked from the PTX of TileLang's own nvcc run (kept with --keep), no nvcc of its own.
    report = only_report()
    assert report.command[-1].endswith(".ptx") and "--nvcc-flag=-std=c++20" not in report.command


def test_fixed_kernel_is_checked_and_silent(record):
    k.compile(k.handoff("acquire"))
    assert ordering_warnings(record) == []
    assert only_report().findings == []


def test_lowered_kernel_is_reported_by_wait(record):
    # Nothing compiles it: the check compiles the source with nvcc as the command line does.
    k.lower(k.handoff("relaxed", N=64))
    fenceline.wait()
    (warning,) = ordering_warnings(record)
    assert warning.lineno == line_of(KERNELS, "# reported here")
    assert str(warning.message).startswith("acquire-missing:")
    report = only_report()
    assert report.command[-1].endswith(".cu") and "sm_90a" in report.command


def test_error_action_raises_from_the_compile():
    jit.configure(action="error")
    with pytest.raises(fenceline.OrderingError, match="acquire-missing"):
        k.compile(k.handoff("relaxed", N=32))


CACHED = """
import fenceline.tilelang, tilelang_kernels as k
fenceline.tilelang.enable()
k.compile(k.handoff("relaxed", N=96))
"""


def test_kernel_from_tilelangs_cache_is_checked(tmp_path):
    # Two processes with one TileLang cache: the second finds the kernel there and
    # generates no source; the hook checks the cached source.
    env = dict(os.environ, TILELANG_CACHE_DIR=str(tmp_path / "tilelang-cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(HERE)]))
    runs = [subprocess.run([sys.executable, "-c", CACHED], capture_output=True, text=True, env=env)
            for _ in range(2)]
    for done in runs:
        assert done.returncode == 0, done.stderr
        assert done.stderr.count("OrderingWarning: acquire-missing") == 1, done.stderr
    # TileLang's log (on stdout): the first run compiles, the second finds the kernel in its cache.
    assert "begins to compile kernel" in runs[0].stdout + runs[0].stderr
    assert "begins to compile kernel" not in runs[1].stdout + runs[1].stderr
