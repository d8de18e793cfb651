# A test session that compiles kernels, for tests/python/Inputs/test_pytest_plugin.py
# (which runs pytest on it with and without the fenceline plugin).
import os

import pytest

import triton_kernels as k


def test_compiles_broken_kernel():
    k.compile(k.poll_volatile)


def test_compiles_fixed_kernel():
    k.compile(k.poll_acquire)


@pytest.mark.skipif(not os.environ.get("SESSION_TILELANG"), reason="the TileLang part of the session was not asked for")
def test_compiles_broken_tilelang_kernel():
    import tilelang_kernels as t
    t.compile(t.handoff("relaxed", N=48))
