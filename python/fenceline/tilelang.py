"""Checks every TileLang kernel as TileLang generates its CUDA source.

    import fenceline.tilelang
    fenceline.tilelang.enable()          # or FENCELINE=1 in the environment, no code change

The hooks:

- TileLang's CUDA post-processing callback (``tilelang.engine.callback.
  register_cuda_postproc``; a callback registered before is kept and runs
  first) sees the CUDA source of every kernel TileLang generates
  (``tilelang.compile``, ``@tilelang.jit``, ``tilelang.lower``, the autotuner)
  and returns it unchanged.
- TileLang's kernel cache (``KernelCache.cached``, through which every compile
  goes) is wrapped: when it returns, the kernels it generated are checked and
  reported; a kernel it found in its cache (no source generated) is checked from
  the cached source.
- TileLang's nvcc run (``tilelang.contrib.nvcc.compile_cuda``) gets ``--keep``
  into a private folder during a compile, so the PTX nvcc makes on the way to
  the cubin is kept: that PTX (TileLang's own, ``-O3 -lineinfo``) is what is
  checked, with its line info pointed at a kept copy of the source, in about the
  time the checker takes (milliseconds). The options TileLang's caches key on
  are computed before and do not change.

When there is no such PTX (TileLang's binary cache had the cubin, an NVRTC
backend, ``tilelang.lower`` with no compile), the generated source is checked as
the command line checks TileLang's output (``fenceline check`` on the ``.cu``, nvcc
with TileLang's include folders as ``-isystem`` and its ``-std=c++20``, for the
target's ``arch``) on a worker thread, and its result is kept in fenceline's cache
folder, keyed by everything it depends on, so that this nvcc run happens once per
source.

Findings are reported at the ``@T.prim_func``'s ``def`` line (the generated
CUDA's line is in the message): :class:`fenceline.OrderingWarning`, or
:class:`fenceline.OrderingError` with ``action="error"``. A kernel only
lowered (``tilelang.lower``, no compile) is reported by the next compile or by
:func:`fenceline.wait` (the pytest plugin: at the end of the test; else at exit).

Each distinct generated source (and arch) is checked once per process.
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
import sys
import tempfile
import threading

from fenceline import jit

__all__ = ["enable", "disable", "is_enabled"]

_POSTPROC = "tilelang_callback_cuda_postproc"
_local = threading.local()
_state = {}


def enable(**settings):
    """Checks every kernel TileLang generates from now on (``settings``: see
    :func:`fenceline.jit.configure`). Returns False, with a
    :class:`fenceline.FencelineWarning`, when this TileLang has no CUDA
    post-processing callback."""
    jit.configure(**settings)
    import tilelang
    try:
        import tvm_ffi
        from tilelang.engine import callback
        register = callback.register_cuda_postproc
    except (ImportError, AttributeError):
        jit.note_once("tilelang-version", (
            f"fenceline: TileLang {getattr(tilelang, '__version__', '?')} has no CUDA post-processing "
            "callback (tilelang.engine.callback.register_cuda_postproc); its kernels are not checked as "
            "they compile. Check the generated source instead (docs/cli.md, Inputs: TileLang)"), stacklevel=2)
        return False
    if _state:
        return True
    previous = tvm_ffi.get_global_func(_POSTPROC, allow_missing=True)
    _state["previous"] = previous

    def postproc(code, target):
        if previous is not None:
            code = previous(code, target)
        try:
            stack = getattr(_local, "compiles", None)
            if stack:  # a compile: checked when it returns, from TileLang's own PTX if nvcc ran
                stack[-1]["generated"].append((str(code), target))
            else:  # tilelang.lower: nothing compiles it, the check's nvcc does
                _submit_source(str(code), target, None)
        except Exception as failed:
            jit.note_once("tilelang-check", f"fenceline: the TileLang hook failed on a kernel: "
                                            f"{type(failed).__name__}: {failed}")
        return code

    register(postproc, override=True)
    _state["postproc"] = postproc
    try:
        from tilelang.cache.kernel_cache import KernelCache
        original = KernelCache.cached
    except (ImportError, AttributeError):
        jit.note_once("tilelang-cache", "fenceline: TileLang's KernelCache.cached is missing: kernels from "
                                        "TileLang's cache are not checked, the others at fenceline.wait()")
    else:
        def cached(self, *args, **kwargs):
            return _cached(original, self, *args, **kwargs)
        cached.__wrapped__ = original
        KernelCache.cached = cached
        _state["cached"] = (KernelCache, original)
    try:
        from tilelang.contrib import nvcc
        compile_cuda = nvcc.compile_cuda
    except (ImportError, AttributeError):
        pass  # every kernel is then checked through the check's own nvcc run
    else:
        def keeping_ptx(code, target_format="ptx", *args, **kwargs):
            return _compile_cuda(compile_cuda, code, target_format, *args, **kwargs)
        keeping_ptx.__wrapped__ = compile_cuda
        nvcc.compile_cuda = keeping_ptx
        _state["nvcc"] = (nvcc, compile_cuda)
    return True


def disable():
    if not _state:
        return
    import tvm_ffi
    previous = _state.pop("previous")
    if previous is not None:
        tvm_ffi.register_global_func(_POSTPROC, f=previous, override=True)
    else:
        tvm_ffi.remove_global_func(_POSTPROC)
    if "cached" in _state:
        cls, original = _state.pop("cached")
        cls.cached = original
    if "nvcc" in _state:
        module, original = _state.pop("nvcc")
        module.compile_cuda = original
    _state.clear()


def is_enabled():
    return bool(_state)


def _cached(original, cache, *args, **kwargs):
    func = args[0] if args else kwargs.get("func")
    stack = _local.__dict__.setdefault("compiles", [])
    compile_ = {"func": func, "generated": [], "ptx": {}}
    stack.append(compile_)
    try:
        kernel = original(cache, *args, **kwargs)
    finally:
        stack.pop()
    try:
        for code, target in compile_["generated"]:
            ptx = compile_["ptx"].get(jit.digest(code))
            if ptx is not None:
                _submit_ptx(code, target, func, *ptx)
            else:  # TileLang's binary cache had it, or it compiled without nvcc (NVRTC)
                _submit_source(code, target, func)
        if not compile_["generated"]:  # from TileLang's kernel cache: no source was generated
            source = kernel.kernel_source if hasattr(type(kernel), "kernel_source") else kernel.get_kernel_source()
            if source:
                _submit_source(str(source), getattr(kernel, "target", None), func)
    except Exception as failed:
        jit.note_once("tilelang-check", f"fenceline: the TileLang hook failed on a kernel: "
                                        f"{type(failed).__name__}: {failed}")
    jit.report_pending()
    return kernel


def _compile_cuda(original, code, target_format="ptx", *args, **kwargs):
    """TileLang's nvcc run (``tilelang.contrib.nvcc.compile_cuda``) inside a compile, with
    ``--keep`` into a private folder: the PTX nvcc makes on the way to the cubin is kept
    for the check, so the check needs no nvcc run of its own. Options, output and
    TileLang's cache keys are otherwise unchanged (the key is computed before)."""
    stack = getattr(_local, "compiles", None)
    if not stack or target_format not in ("cubin", "fatbin"):
        return original(code, target_format, *args, **kwargs)
    try:
        call = inspect.signature(original).bind(code, target_format, *args, **kwargs)
        options = call.arguments.get("options")
    except TypeError:
        return original(code, target_format, *args, **kwargs)
    options = [options] if isinstance(options, str) else list(options or [])
    keep = tempfile.mkdtemp(prefix="fenceline-tilelang-nvcc-")
    try:
        call.arguments["options"] = options + ["--keep", f"--keep-dir={keep}"]
        data = original(*call.args, **call.kwargs)
        kept = sorted(name for name in os.listdir(keep) if name.endswith(".ptx"))
        if len(kept) == 1:
            with open(os.path.join(keep, kept[0])) as f:
                stack[-1]["ptx"][jit.digest(code)] = (f.read(), kept[0][:-len(".ptx")])
    finally:
        shutil.rmtree(keep, ignore_errors=True)
    return data


def _arch(target):
    try:
        attrs = target.attrs
        if "arch" in attrs:
            return str(attrs["arch"])
    except Exception:
        pass
    found = re.search(r'"arch"\s*:\s*"(sm_\w+)"', str(target))
    return found.group(1) if found else None


def _prim_func_location(func):
    """(file, line, name) of a PrimFunc's ``def`` (its span), or None."""
    try:
        span = func.span
        path = str(span.source_name.name)
        line = int(span.line)
    except Exception:
        return None
    if not os.path.isfile(path):
        return None
    name = None
    try:
        attrs = func.attrs
        if attrs is not None and "global_symbol" in attrs:
            name = str(attrs["global_symbol"])
    except Exception:
        pass
    return path, line, name


def _find_prim_func():
    """The PrimFunc being compiled, found in the callers' frames (the innermost one whose
    span names a Python file outside the installed packages), for a kernel generated
    outside a compile (tilelang.lower)."""
    try:
        from tvm.tirx import PrimFunc
    except ImportError:
        try:
            from tvm.tir import PrimFunc
        except ImportError:
            return None
    # First the PrimFuncs held directly (the function being lowered), then those inside an
    # IRModule (the lowered device functions, named <name>_kernel).
    for modules in (False, True):
        frame = sys._getframe(2)
        while frame is not None:
            for value in list(frame.f_locals.values()):
                if modules:
                    functions = getattr(value, "functions", None)
                    try:
                        candidates = [f for _, f in functions.items() if isinstance(f, PrimFunc)] \
                            if functions is not None and hasattr(functions, "items") else []
                    except Exception:
                        candidates = []
                else:
                    candidates = [value] if isinstance(value, PrimFunc) else []
                for candidate in candidates:
                    location = _prim_func_location(candidate)
                    if location and not jit._is_library(location[0]):
                        return candidate
            frame = frame.f_back
    return None


def _tilelang_folders():
    """(TileLang's template folder, its CUTLASS include folder, TileLang's nvcc or None)."""
    import tilelang
    from tilelang import env as tl_env
    package = os.path.dirname(tilelang.__file__)
    templates = getattr(tl_env, "TILELANG_TEMPLATE_PATH", None) or os.path.join(package, "src")
    cutlass = getattr(tl_env, "CUTLASS_INCLUDE_DIR", None) or os.path.join(package, "3rdparty", "cutlass", "include")
    cuda_home = getattr(tl_env, "CUDA_HOME", None)
    nvcc = os.path.join(str(cuda_home), "bin", "nvcc") if cuda_home else None
    return str(templates), str(cutlass), nvcc if nvcc and os.access(nvcc, os.X_OK) else None


def _flags(arch):
    templates, cutlass, nvcc = _tilelang_folders()
    flags = ["--nvcc-flag=-std=c++20", "--nvcc-flag=-isystem", f"--nvcc-flag={templates}",
             "--nvcc-flag=-isystem", f"--nvcc-flag={cutlass}"]
    if arch:
        flags += ["--arch", arch]
    if nvcc:
        flags += ["--nvcc", nvcc]
    return flags


def _kernel(code, target, func):
    """The Kernel record of a generated source, and the path its copy is kept at (the
    findings name it: the generated line)."""
    stack = getattr(_local, "compiles", None)
    if func is None and stack:
        func = stack[-1]["func"]
    if func is None:
        func = _find_prim_func()
    location = _prim_func_location(func) if func is not None else None
    source_file, source_line, name = location if location else (None, None, None)
    if not name:
        kernels = re.findall(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)", code)
        name = kernels[0] if kernels else "kernel"
    arch = _arch(target)
    key = jit.digest("tilelang", arch or "", code)
    kernel = jit.Kernel("TileLang", name, "tilelang:" + key, source_file, source_line, arch or "")
    stem = os.path.splitext(os.path.basename(source_file))[0] + "_" if source_file else ""
    return kernel, os.path.join(jit.cache_dir(), "tilelang", key[:16], f"{stem}{name}.cu"), arch


def _submit_ptx(code, target, func, ptx, nvcc_stem):
    """Checks TileLang's own PTX (its ``.file`` for the compiled source pointed at the kept
    copy of the source); TileLang's headers are library code."""
    kernel, path, _ = _kernel(code, target, func)
    if jit.seen(kernel.key) is not None:
        jit.submit(kernel, [])
        return
    jit.write_once(path, code)
    ptx = re.sub(r'(\.file\s+\d+\s+")[^"\n]*/' + re.escape(nvcc_stem) + r'\.cu(")',
                 lambda m: m.group(1) + path.replace("\\", "\\\\") + m.group(2), ptx)
    ptx_path = jit.write_once(path[:-len(".cu")] + ".ptx", ptx)
    templates, cutlass, _ = _tilelang_folders()
    jit.submit(kernel, [ptx_path], extra_args=["--system-header-prefix", templates, "--system-header-prefix", cutlass],
               config_source=kernel.source_file, background=False)


def _submit_source(code, target, func):
    """Checks the generated source as the command line does: nvcc -ptx on it, on a worker
    thread (its result is kept: see the module's docstring)."""
    kernel, path, arch = _kernel(code, target, func)
    if jit.seen(kernel.key) is not None:
        jit.submit(kernel, [])
        return
    jit.write_once(path, code)
    import tilelang
    jit.submit(kernel, [path], extra_args=_flags(arch), config_source=kernel.source_file,
               background=True, cacheable="tilelang " + str(getattr(tilelang, "__version__", "")))
