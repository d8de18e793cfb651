# Shared set-up of the compile-time hook tests (tests/python/*.test run pytest on
# the test_*.py files here with the Python of the compilers' venv). The checker is
# $FENCELINE_BIN (lit passes build/fenceline); python/fenceline comes from the
# source tree. (plugin_session/ is run with --confcutdir, without this file.)
import os
import pathlib
import sys
import tempfile
import warnings

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(HERE))

# Compiler caches of this test run only; the CuTe DSL's target with no GPU to ask.
_scratch = tempfile.mkdtemp(prefix="fenceline-hook-tests-")
os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(_scratch, "triton"))
os.environ.setdefault("TILELANG_CACHE_DIR", os.path.join(_scratch, "tilelang"))
os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, stated (no warning)


@pytest.fixture(autouse=True)
def fresh_fenceline(tmp_path, monkeypatch):
    """Every test starts with no kernel checked, default settings and its own cache folder."""
    from fenceline import jit
    monkeypatch.setenv("FENCELINE_CACHE_DIR", str(tmp_path / "fenceline-cache"))
    jit.wait()
    jit.forget()
    jit._noted.clear()
    saved = jit.settings().__dict__.copy()
    yield
    jit.wait()
    jit.settings().__dict__.update(saved)


def line_of(path, marker, occurrence=1):
    """The line number of the `occurrence`-th line of `path` that contains `marker`."""
    seen = 0
    for number, text in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        if marker in text:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{marker!r} not in {path}")


def ordering_warnings(record):
    import fenceline
    return [w for w in record if issubclass(w.category, fenceline.OrderingWarning)]


def report_of(name):
    """The report of the one kernel named `name` checked in this test (it must exist:
    a silent kernel must have been checked, not skipped)."""
    from fenceline import jit
    found = [r for r in jit.reports() if r.kernel.name == name]
    assert len(found) == 1, f"kernel {name} checked {len(found)} times: {jit.reports()}"
    assert found[0].error is None, found[0].error
    return found[0]


@pytest.fixture
def record():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
