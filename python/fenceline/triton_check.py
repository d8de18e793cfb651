"""Check Triton kernels with fenceline at compile time, with no GPU.

Triton compiles a kernel for a target without a device:
``triton.compile(ASTSource(fn, signature, constexprs), target=GPUTarget("cuda", 90, 32))``
gives its PTX. This module does that, lays the PTX out the way Triton's cache
does (``<hash>/<name>.ptx`` next to ``<name>.json``, so fenceline names the
kernel by its Python name) and runs ``fenceline check --format json`` on it.

From Python (a test, a build step)::

    from fenceline.triton_check import check_kernel
    findings = check_kernel(my_kernel, {"x": "*fp32", "n": "i32"}, {"BLOCK": 128})
    assert not findings, findings

From the shell, on every kernel Triton has compiled (its cache folder)::

    python -m fenceline.triton_check                 # $TRITON_CACHE_DIR or ~/.triton/cache
    python -m fenceline.triton_check path/to/cache   # same as: fenceline check path/to/cache

The fenceline executable is the one :func:`fenceline.jit.binary` finds:
``$FENCELINE_BIN`` (or ``$FENCELINE`` naming a file, the older spelling), the
binary bundled in this package, ``fenceline`` on PATH. To check kernels as Triton
compiles them, with no explicit compile, see :mod:`fenceline.triton`.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

__all__ = ["Finding", "FencelineError", "compile_ptx", "check_ptx_folder", "check_kernel", "default_cache_dir"]


class FencelineError(RuntimeError):
    """fenceline could not check the input (exit status 2): its message."""


class Finding(dict):
    """One diagnostic of fenceline's JSON report (see docs/cli.md)."""

    def __str__(self):
        where = self.get("location", {})
        return "{}:{}:{}: {}: {} [{}]".format(where.get("file"), where.get("line"), where.get("column"),
                                              self.get("severity"), self.get("message"), self.get("check"))


def fenceline_executable():
    from fenceline import jit
    try:
        return jit.binary()
    except FileNotFoundError:
        return shutil.which("fenceline") or "fenceline"


def default_cache_dir():
    return os.environ.get("TRITON_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".triton", "cache")


def compile_ptx(fn, signature, constexprs=None, arch=90, warp_size=32, **options):
    """The PTX and metadata of a @triton.jit function compiled for sm_<arch>, with no GPU."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    source = ASTSource(fn=fn, signature=signature, constexprs=constexprs or {})
    compiled = triton.compile(source, target=GPUTarget("cuda", arch, warp_size), options=options or None)
    metadata = {"name": compiled.name, "triton_version": triton.__version__, "hash": compiled.hash}
    return compiled.asm["ptx"], metadata


def check_ptx_folder(folder, extra_args=()):
    """Runs fenceline on a folder of PTX (a Triton cache); returns the findings."""
    command = [fenceline_executable(), "check", "--format", "json", *extra_args, str(folder)]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise FencelineError(run.stderr.strip() or "fenceline exited with status {}".format(run.returncode))
    report = json.loads(run.stdout)
    return [Finding(d) for d in report["diagnostics"]]


def check_kernel(fn, signature, constexprs=None, arch=90, extra_args=(), **options):
    """Compiles one kernel for sm_<arch> (no GPU needed) and returns fenceline's findings."""
    ptx, metadata = compile_ptx(fn, signature, constexprs, arch=arch, **options)
    with tempfile.TemporaryDirectory(prefix="fenceline-triton-") as folder:
        kernel_folder = os.path.join(folder, metadata["hash"] or "kernel")
        os.makedirs(kernel_folder)
        with open(os.path.join(kernel_folder, metadata["name"] + ".ptx"), "w") as out:
            out.write(ptx)
        with open(os.path.join(kernel_folder, metadata["name"] + ".json"), "w") as out:
            json.dump(metadata, out)
        return check_ptx_folder(folder, extra_args)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    folder = argv[0] if argv else default_cache_dir()
    if not os.path.isdir(folder):
        print("{}: error: no Triton cache folder here".format(folder), file=sys.stderr)
        return 2
    # The text report, as fenceline prints it.
    return subprocess.run([fenceline_executable(), "check", *argv[1:], folder]).returncode


if __name__ == "__main__":
    sys.exit(main())
