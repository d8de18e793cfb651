"""Checks every Triton kernel as Triton compiles it.

    import fenceline.triton
    fenceline.triton.enable()          # or FENCELINE=1 in the environment, no code change

The hook is Triton's compilation listener (``triton.knobs.compilation.listener``,
a :class:`triton.knobs.CompilationListener`), which Triton calls at the end of
every ``triton.compile``: after the last stage for a new kernel, and for a kernel
found in Triton's cache too. The listener reads the kernel's PTX from the cache
group Triton just wrote (``<hash>/<name>.ptx`` beside ``<name>.json``, the files
``fenceline check ~/.triton/cache`` reads) and checks it before the compile call
returns. A listener set before (another tool's) is kept and called first.

Each specialization (Triton's compile hash: constants, argument
specialization, options, target) is checked once per process; findings are
:class:`fenceline.OrderingWarning` warnings at the ``@triton.jit`` function's
line that the finding names (else its ``def`` line), or
:class:`fenceline.OrderingError` with ``action="error"``.

Triton versions without ``knobs.compilation.listener`` get a
:class:`fenceline.FencelineWarning` saying so and no hook; check the cache folder
with ``fenceline check`` there.
"""

from __future__ import annotations

import inspect
import os

from fenceline import jit

__all__ = ["enable", "disable", "is_enabled"]


class _Listener:
    """Triton's ``CompilationListener``: checks the kernel, then reports."""

    def __init__(self, previous):
        self.previous = previous

    def __call__(self, *, src, metadata, metadata_group, times, cache_hit, **more):
        if self.previous is not None:
            self.previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times,
                          cache_hit=cache_hit, **more)
        try:
            _check(src, metadata, metadata_group)
        except Exception as failed:  # a Triton this hook does not understand: say so, compile on
            jit.note_once("triton-listener", f"fenceline: the Triton hook failed on a kernel: "
                                             f"{type(failed).__name__}: {failed}")
        jit.report_pending()


def _knobs():
    import triton
    compilation = getattr(getattr(triton, "knobs", None), "compilation", None)
    if compilation is None or not hasattr(compilation, "listener"):
        return None
    return compilation


def enable(**settings):
    """Checks every kernel Triton compiles from now on (``settings``: see
    :func:`fenceline.jit.configure`). Returns False, with a
    :class:`fenceline.FencelineWarning`, when this Triton has no compilation listener."""
    jit.configure(**settings)
    import triton
    compilation = _knobs()
    if compilation is None:
        cache = os.environ.get("TRITON_CACHE_DIR") or "~/.triton/cache"
        jit.note_once("triton-version", (
            f"fenceline: Triton {getattr(triton, '__version__', '?')} has no compilation listener "
            "(triton.knobs.compilation.listener); its kernels are not checked as they compile. "
            f"Check Triton's cache instead: fenceline check {cache}"), stacklevel=2)
        return False
    if not isinstance(compilation.listener, _Listener):
        compilation.listener = _Listener(compilation.listener)
    return True


def disable():
    """Removes the hook (the listener it replaced comes back)."""
    compilation = _knobs()
    if compilation is not None and isinstance(compilation.listener, _Listener):
        compilation.listener = compilation.listener.previous


def is_enabled():
    compilation = _knobs()
    return compilation is not None and isinstance(compilation.listener, _Listener)


def _target(metadata):
    """(backend, arch) of the metadata's target: a GPUTarget, or its JSON form."""
    target = metadata.get("target")
    if hasattr(target, "backend"):
        return target.backend, target.arch
    if isinstance(target, dict):
        return target.get("backend"), target.get("arch")
    if isinstance(target, (list, tuple)) and len(target) >= 2:
        return target[0], target[1]
    return None, None


def _kernel(src, metadata):
    name = metadata.get("name") or getattr(src, "name", "kernel")
    jit_function = getattr(src, "fn", None)
    python_function = getattr(jit_function, "fn", None)
    source_file = source_line = None
    if python_function is not None:
        try:
            source_file = inspect.getsourcefile(python_function)
        except TypeError:
            source_file = None
        source_file = source_file or python_function.__code__.co_filename
        source_line = getattr(jit_function, "starting_line_number", None) or python_function.__code__.co_firstlineno
    elif getattr(src, "path", None):  # an IRSource: a .ttir/.ttgir/.ptx file
        source_file, source_line = src.path, 1
    parts = []
    names = getattr(jit_function, "arg_names", None) or []
    for index, value in sorted((getattr(src, "constants", None) or {}).items(), key=lambda item: str(item[0])):
        position = index[0] if isinstance(index, tuple) and len(index) == 1 else index
        label = names[position] if isinstance(position, int) and position < len(names) else str(index)
        parts.append(f"{label}={value}")
    for option in ("num_warps", "num_stages", "num_ctas"):
        if option in metadata and not (option == "num_ctas" and metadata[option] == 1):
            parts.append(f"{option}={metadata[option]}")
    backend, arch = _target(metadata)
    if arch is not None:
        parts.append(f"sm_{arch}")
    return jit.Kernel("Triton", name, "triton:" + str(metadata.get("hash") or id(src)), source_file, source_line,
                      ", ".join(parts))


def _check(src, metadata, metadata_group):
    backend, _ = _target(metadata)
    if backend not in (None, "cuda"):
        return  # no PTX (AMD)
    kernel = _kernel(src, metadata)
    if jit.seen(kernel.key) is not None:
        jit.submit(kernel, [])  # checked already: reported again only when it must be (error mode)
        return
    ptx = (metadata_group or {}).get(f"{kernel.name}.ptx")
    if not ptx or not os.path.isfile(ptx):
        jit.note_once("triton-no-ptx", (
            f"fenceline: Triton kept no PTX for {kernel.describe()} (TRITON_STORE_BINARY_ONLY?): "
            "its kernels are not checked"))
        return
    jit.submit(kernel, [ptx], config_source=kernel.source_file, background=False)
