# fenceline.cute: cute.compile keeps its PTX with line info and the hook checks it
# (python/fenceline/cute.py). No GPU: fake tensors, CUTE_DSL_ARCH=sm_90a (conftest).
import pathlib
import warnings

import pytest

import fenceline
import fenceline.cute
from fenceline import jit
from conftest import HERE, line_of, ordering_warnings, report_of

import cute_kernels as k

KERNELS = HERE / "cute_kernels.py"


@pytest.fixture(autouse=True)
def hook():
    assert fenceline.cute.enable()
    yield
    fenceline.cute.disable()


def test_broken_kernel_warns_at_its_line(record):
    compiled = k.compile(k.poll_relaxed)
    assert compiled is not None
    (warning,) = ordering_warnings(record)
    assert pathlib.Path(warning.filename) == KERNELS
    assert warning.lineno == line_of(KERNELS, "reported here: acquire-missing")
    text = str(warning.message)
    assert text.startswith("acquire-missing: spin loop exits on a relaxed load")
    assert "CuTe DSL kernel 'poll_relaxed'" in text


def test_fixed_kernel_is_checked_and_silent(record):
    k.compile(k.poll_acquire)
    assert ordering_warnings(record) == []
    assert report_of("poll_acquire").findings == []


def test_once_per_kernel(record):
    k.compile(k.poll_relaxed)
    k.compile(k.poll_relaxed)
    assert len(ordering_warnings(record)) == 1
    k.compile(k.poll_relaxed, n=256)  # another specialization
    assert len(ordering_warnings(record)) == 2


def test_error_action_raises_from_cute_compile():
    jit.configure(action="error")
    with pytest.raises(fenceline.OrderingError, match="acquire-missing"):
        k.compile(k.poll_relaxed)
    k.compile(k.poll_acquire)


def test_without_line_info_the_finding_is_at_the_jit_function(record):
    fenceline.cute.disable()
    assert fenceline.cute.enable(line_info=False)
    k.compile(k.poll_relaxed)
    warned = ordering_warnings(record)
    assert warned and all(str(w.message).startswith("acquire-missing:") for w in warned)
    assert {w.lineno for w in warned} == {line_of(KERNELS, "def poll_relaxed(")}
    fenceline.cute.enable(line_info=True)


def test_compile_options_are_put_back():
    from cutlass.base_dsl import compiler
    import cutlass.cute as cute
    options = cute.compile._compile_options.options
    k.compile(k.poll_acquire)
    assert options[compiler.KeepPTX].value is False
    assert options[compiler.GenerateLineInfo].value is False
    fenceline.cute.disable()
    assert not fenceline.cute.is_enabled()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k.compile(k.poll_relaxed)  # no hook: nothing checked
    assert ordering_warnings(caught) == [] and jit.reports() == [report_of("poll_acquire")]
