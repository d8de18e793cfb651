"""Checks every CuTe DSL kernel that ``cute.compile`` compiles.

    import fenceline.cute
    fenceline.cute.enable()          # or FENCELINE=1 in the environment, no code change

The hook wraps the DSL's compile entry point, ``cute.compile``
(``cutlass.base_dsl.compiler.CompileCallable``, so ``cute.compile[...]`` too),
and asks each compile to keep its PTX with Python line info: the compile options
``KeepPTX`` (into a private dump folder, unless the program keeps its PTX itself
with ``CUTE_DSL_KEEP=ptx``) and ``GenerateLineInfo`` (unless
``enable(line_info=False)``: line info is what costs compile time), set on the compile's
options as the DSL's own ``CUTE_DSL_KEEP=ptx`` / ``CUTE_DSL_LINEINFO=1``
environment settings set them, and put back afterwards. When ``cute.compile``
returns, the compiled function's PTX (``__ptx__``) is checked and the findings
are reported before the call returns: :class:`fenceline.OrderingWarning` at the
kernel's Python line (line info points there), or
:class:`fenceline.OrderingError` with ``action="error"``. Each distinct PTX is
checked once per process.

Kernels compiled by calling a ``@cute.jit`` function directly (compile and run
in one step) are not checked: only ``cute.compile``.
"""

from __future__ import annotations

import atexit
import inspect
import os
import re
import shutil
import tempfile
import threading

from fenceline import jit

__all__ = ["enable", "disable", "is_enabled"]

_local = threading.local()
_originals = {}
_dump_dir = None
_line_info = [True]


def _dsl():
    from cutlass.base_dsl import compiler
    needed = ("CompileCallable", "CompileOptions", "KeepPTX", "GenerateLineInfo", "DumpDir")
    missing = [name for name in needed if not hasattr(compiler, name)]
    if missing or not hasattr(compiler.CompileOptions, "apply_envar_settings"):
        return None, missing or ["CompileOptions.apply_envar_settings"]
    return compiler, []


def enable(line_info=True, **settings):
    """Checks every kernel ``cute.compile`` compiles from now on (``settings``: see
    :func:`fenceline.jit.configure`). Returns False, with a
    :class:`fenceline.FencelineWarning`, when this CuTe DSL lacks what the hook needs.

    ``line_info=False`` leaves the compile's line info as the program set it: the DSL's
    tracking of Python source locations is what costs compile time (the PTX and the check
    do not), but without it findings are reported at the ``@cute.jit`` function's ``def``
    line and suppression comments do not apply."""
    global _dump_dir
    _line_info[0] = bool(line_info)
    jit.configure(**settings)
    compiler, missing = _dsl()
    if compiler is None:
        jit.note_once("cute-version", (
            "fenceline: this CuTe DSL (nvidia-cutlass-dsl) lacks " + ", ".join(missing) +
            "; its kernels are not checked as they compile. Keep their PTX "
            "(CUTE_DSL_KEEP=ptx CUTE_DSL_DUMP_DIR=DIR CUTE_DSL_LINEINFO=1) and run fenceline check DIR"), stacklevel=2)
        return False
    if _originals:
        return True
    if _dump_dir is None:
        _dump_dir = tempfile.mkdtemp(prefix="fenceline-cute-")
        atexit.register(shutil.rmtree, _dump_dir, True)
    _originals["call"] = compiler.CompileCallable.__call__
    _originals["apply"] = compiler.CompileOptions.apply_envar_settings
    compiler.CompileCallable.__call__ = _compile
    compiler.CompileOptions.apply_envar_settings = _apply_envar_settings
    return True


def disable():
    if not _originals:
        return
    compiler, _ = _dsl()
    compiler.CompileCallable.__call__ = _originals.pop("call")
    compiler.CompileOptions.apply_envar_settings = _originals.pop("apply")


def is_enabled():
    return bool(_originals)


def _apply_envar_settings(options, envar, function_name):
    """The DSL's merge of its environment settings into a compile's options, with ours
    first: keep the PTX, with line info."""
    compile_ = getattr(_local, "compile", None)
    if compile_ is not None and "options" not in compile_:
        from cutlass.base_dsl import compiler
        compile_["options"] = options
        compile_["function_name"] = function_name
        saved = compile_["saved"] = []
        if _line_info[0]:
            line_info = options.options[compiler.GenerateLineInfo]
            saved.append((line_info, line_info.value))
            line_info.value = True
        keep = options.options[compiler.KeepPTX]
        if not keep.value and not getattr(envar, "keep_ptx", False):
            dump = options.options[compiler.DumpDir]
            saved.append((keep, keep.value))
            saved.append((dump, dump.value))
            keep.value = True
            dump.value = _dump_dir
            compile_["ours"] = True
    return _originals["apply"](options, envar, function_name)


def _compile(self, *args, **kwargs):
    """``cute.compile``, then the check of what it compiled."""
    if getattr(_local, "compile", None) is not None or kwargs.get("compile_to_precompiled_mlir"):
        return _originals["call"](self, *args, **kwargs)
    compile_ = _local.compile = {}
    try:
        compiled = _originals["call"](self, *args, **kwargs)
    finally:
        _local.compile = None
        for option, value in reversed(compile_.get("saved", [])):
            option.value = value
    try:
        _check(args[0] if args else kwargs.get("func"), compiled, compile_)
    except Exception as failed:
        jit.note_once("cute-check", f"fenceline: the CuTe DSL hook failed on a kernel: "
                                    f"{type(failed).__name__}: {failed}")
    jit.report_pending()
    return compiled


def _python_function(func):
    if inspect.ismethod(func):
        func = func.__func__
    elif func is not None and not inspect.isfunction(func) and hasattr(type(func), "__call__"):
        func = type(func).__call__
    while hasattr(func, "__wrapped__"):
        func = func.__wrapped__
    return func


def def_line(function):
    """(file, line of ``def``) of a Python function, decorators skipped."""
    try:
        path = inspect.getsourcefile(function) or function.__code__.co_filename
        lines, first = inspect.getsourcelines(function)
    except (TypeError, OSError, AttributeError):
        code = getattr(function, "__code__", None)
        return (code.co_filename, code.co_firstlineno) if code else (None, None)
    for offset, text in enumerate(lines):
        if text.lstrip().startswith(("def ", "async def ")):
            return path, first + offset
    return path, first


def _check(func, compiled, compile_):
    ptx_path = compile_.get("options").full_ptx_path if compile_.get("options") is not None else None
    ptx = getattr(compiled, "__ptx__", None)
    if not isinstance(ptx, str) or ".entry" not in ptx and ".version" not in ptx:
        if ptx_path and os.path.isfile(ptx_path):
            with open(ptx_path) as f:
                ptx = f.read()
        else:
            jit.note_once("cute-no-ptx", "fenceline: cute.compile kept no PTX for a kernel: not checked")
            return
    if compile_.get("ours") and ptx_path:
        try:
            os.remove(ptx_path)
        except OSError:
            pass
    function = _python_function(func)
    source_file, source_line = def_line(function) if function is not None else (None, None)
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", "kernel")
    key = jit.digest("cute", ptx)
    mangled = compile_.get("function_name") or name
    arch = compile_["options"].gpu_arch if compile_.get("options") is not None else ""
    if not arch:
        target = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.MULTILINE)
        arch = target.group(1) if target else ""
    kernel = jit.Kernel("CuTe DSL", name, "cute:" + key, source_file, source_line,
                        ", ".join(part for part in (mangled, arch) if part))
    if jit.seen(kernel.key) is not None:
        jit.submit(kernel, [])
        return
    path = jit.write_once(os.path.join(jit.cache_dir(), "cute", key[:16], f"{mangled[:120]}.ptx"), ptx)
    jit.submit(kernel, [path], config_source=source_file, background=False)
