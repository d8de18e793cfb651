# lit configuration: annotated kernels (checks/), renderer output (report/),
# malformed inputs (malformed/), CLI behaviour (cli/) and packaging (install/).
import os
import lit.formats

config.name = "fenceline"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".cu", ".ptx"]
config.test_source_root = config.test_source_root_override
config.test_exec_root = os.path.join(os.path.dirname(config.fenceline), "tests", "lit-out")
config.excludes = ["unit", "gpu", "Inputs", "tools", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt", "corpus"]
config.substitutions.append(("%fenceline", config.fenceline))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%nvcc", config.nvcc))
config.substitutions.append(("%src", config.source_root))
# The tests' venv (scripts/test-venv; ctest makes it before lit runs).
config.substitutions.append(("%venv_python", os.path.join(config.test_venv, "bin", "python")))
config.substitutions.append(("%cmake", config.cmake))
# The build's C++ compiler, for builds a test makes (tests/install/pip-package.test: the same
# compiler as the build's, so that ccache, when there, serves its compiles), and ccache's
# settings from the environment (lit passes few variables through).
config.substitutions.append(("%cxx", getattr(config, "cxx", "") or "c++"))
for _name, _value in os.environ.items():
    if _name.startswith("CCACHE_"):
        config.environment[_name] = _value
# ccache also hashes the locale variables: %build_locale gives such a build the build's own.
config.substitutions.append(("%build_locale", " ".join(
    f"{_name}={os.environ[_name]}" for _name in ("LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES")
    if os.environ.get(_name) and " " not in os.environ[_name])))
config.substitutions.append(("%build", config.binary_root))
# Packaging tests (install/) build and install outside the sanitizer's reach.
if config.sanitize:
    config.available_features.add("sanitize")
    # Memory bounds of tests/limits (Inputs/bounded.py) are the release build's; ASan's shadow
    # memory and quarantine take about 3 times as much.
    config.environment["FENCELINE_BOUNDED_MB_SCALE"] = "3"
# The executable's own allocator counts memory per thread: the per-function memory budget
# (--max-memory-per-function) works only with it (not under the sanitizers).
if getattr(config, "allocator", False):
    config.available_features.add("allocator")
config.environment["PATH"] = os.path.dirname(config.nvcc) + os.pathsep + os.environ.get("PATH", "")

# nvcc's -ptx compiles through a content-addressed cache (tests/tools/nvcc-cache.py), first on
# PATH where fenceline looks for nvcc: a test's second RUN line, and the sanitizer build's lit
# run (scripts/run-tests gives build-asan/ build/'s cache), reuse the PTX of the same compile.
# %nvcc stays the real compiler. Off with an empty FENCELINE_NVCC_CACHE_DIR (CMake).
import shutil as _shutil
_real_nvcc = _shutil.which(config.nvcc, path=config.environment["PATH"])
if getattr(config, "nvcc_cache_dir", "") and _real_nvcc:
    _wrapper_dir = os.path.join(config.test_exec_root, "nvcc-cache-bin")
    os.makedirs(_wrapper_dir, exist_ok=True)
    _wrapper = os.path.join(_wrapper_dir, "nvcc")
    _script = os.path.join(config.source_root, "tests", "tools", "nvcc-cache.py")
    if os.path.realpath(_wrapper) != os.path.realpath(_script):
        if os.path.lexists(_wrapper):
            os.remove(_wrapper)
        os.symlink(_script, _wrapper)
    config.environment["FENCELINE_NVCC_CACHE_REAL"] = os.path.abspath(_real_nvcc)
    config.environment["FENCELINE_NVCC_CACHE_DIR"] = config.nvcc_cache_dir
    config.environment["PATH"] = _wrapper_dir + os.pathsep + config.environment["PATH"]

# cuobjdump for the binary-input tests (tests/inputs): $FENCELINE_CUOBJDUMP,
# PATH, next to nvcc, the toolkit, or pip's nvidia-cuda-cuobjdump in this Python
# or in the tests' venv (scripts/test-requirements.txt).
import glob
import importlib.util
import shutil
_nvcc_dir = os.path.dirname(shutil.which(config.nvcc) or config.nvcc)
_pip_nvidia = importlib.util.find_spec("nvidia")
_pip_cuobjdump = [p for d in (_pip_nvidia.submodule_search_locations if _pip_nvidia else [])
                  for p in sorted(glob.glob(os.path.join(d, "*", "bin", "cuobjdump")))]
_pip_cuobjdump += sorted(glob.glob(os.path.join(config.test_venv, "lib", "python*", "site-packages", "nvidia", "*",
                                                "bin", "cuobjdump")))
_cuobjdump = os.environ.get("FENCELINE_CUOBJDUMP") or shutil.which("cuobjdump") or next(
    (p for p in (os.path.join(_nvcc_dir, "cuobjdump"), "/usr/local/cuda/bin/cuobjdump", *_pip_cuobjdump)
     if os.access(p, os.X_OK)), None)
if _cuobjdump:
    config.available_features.add("cuobjdump")
    config.substitutions.append(("%cuobjdump", _cuobjdump))

# The Python kernel compilers (scripts/compilers-venv: triton, tilelang, nvidia-cutlass-dsl,
# pytest), for tests/python (the compile-time hooks) and the Triton and TileLang input tests.
# When PyPI could not be reached to make the venv, those tests are skipped, with the reason.
_compilers_python = os.path.join(config.compilers_venv, "bin", "python")
_compilers_ready = os.access(_compilers_python, os.X_OK) and os.path.isfile(
    os.path.join(config.compilers_venv, ".fenceline-requirements"))
# tests/install/pip-package.test: the hooks part runs (HOOKS lines) only with the venv.
config.substitutions.append(("%compilers_python_or_none", _compilers_python if _compilers_ready else "none"))
config.substitutions.append(("%hooks_prefix", "HOOKS" if _compilers_ready else "NOHOOKS"))
if _compilers_ready:
    config.available_features.add("jit-compilers")
    config.substitutions.append(("%jit_python", _compilers_python))
elif os.path.isfile(config.compilers_venv + ".unavailable"):
    with open(config.compilers_venv + ".unavailable") as _reason:
        lit_config.warning("tests/python, tests/inputs/triton-python.test and tests/inputs/tilelang.test are "
                           "skipped: " + _reason.read().strip())
else:
    lit_config.warning(f"no compilers venv at {config.compilers_venv} (ctest makes it: scripts/compilers-venv); "
                       "tests/python and the Triton and TileLang input tests are skipped")

# TileLang's package folder for tests/inputs/tilelang.test: $FENCELINE_TILELANG, else the
# compilers venv's.
_tilelang = os.environ.get("FENCELINE_TILELANG")
if not _tilelang and _compilers_ready:
    _tilelang = next(iter(sorted(glob.glob(os.path.join(config.compilers_venv, "lib", "python3*",
                                                          "site-packages", "tilelang")))), None)
if _tilelang and os.path.isdir(os.path.join(_tilelang, "src", "tl_templates")):
    config.available_features.add("tilelang")
    config.substitutions.append(("%tilelang", _tilelang))

# A Python with triton for tests/inputs/triton-python.test: $FENCELINE_TRITON_PYTHON, else
# the compilers venv's.
_triton_python = os.environ.get("FENCELINE_TRITON_PYTHON") or (_compilers_python if _compilers_ready else "")
if _triton_python and os.access(_triton_python, os.X_OK):
    config.available_features.add("triton")
    config.substitutions.append(("%triton_python", _triton_python))
