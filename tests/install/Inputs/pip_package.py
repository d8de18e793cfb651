# The pip package, end to end (tests/install/pip-package.test): build a wheel
# from the source checkout with the tests' venv (scikit-build-core installed
# by scripts/test-venv; no download here: --no-index, no build isolation),
# install it into a fresh venv, and run the installed `fenceline` console
# script and `python -m fenceline` on an example. Also builds the sdist.
# With COMPILERS_PYTHON (the Python of scripts/compilers-venv; "none": skipped), the
# compile-time hooks too, from the installed package alone (no PYTHONPATH to the
# checkout, no FENCELINE_BIN): FENCELINE=1 through the .pth file the wheel installs,
# and the pytest plugin through its entry point.
# Usage: pip_package.py TEST_VENV_PYTHON SOURCE_ROOT WORK_DIR EXAMPLE [COMPILERS_PYTHON]
import os
import shutil
import subprocess
import sys
import zipfile
import tarfile
from pathlib import Path

venv_python, source, work, example = sys.argv[1:5]
compilers_python = sys.argv[5] if len(sys.argv) > 5 else "none"
work = Path(work)
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)


def run(command, **kwargs):
    print("$ " + " ".join(str(part) for part in command), flush=True)
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, **kwargs)
    sys.stdout.write(result.stdout)
    sys.stdout.write(result.stderr)
    print(f"exit status: {result.returncode}", flush=True)
    return result


env = dict(os.environ)
# A fresh build folder each run (scikit-build-core checks that a reused one has
# the same metadata, which a README edit changes); ccache, when there, makes
# a rebuild of the same sources quick.
if shutil.which("ccache"):
    env.setdefault("CMAKE_CXX_COMPILER_LAUNCHER", "ccache")
wheels = work / "wheels"
built = run([venv_python, "-m", "pip", "wheel", "--no-deps", "--no-index", "--no-build-isolation",
             "--disable-pip-version-check", "-w", wheels, "-C", f"build-dir={work / 'skbuild'}", source], env=env)
if built.returncode != 0:
    sys.exit("pip wheel failed")
(wheel,) = wheels.glob("fenceline-*.whl")
print(f"wheel: {wheel.name}")
names = set(zipfile.ZipFile(wheel).namelist())
for name in sorted(names):
    if not name.endswith(".md") or name.endswith("proxy-war.md"):
        print(f"in wheel: {name}")
entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
section = ""
for line in zipfile.ZipFile(wheel).read(entry_points).decode().splitlines():
    if line.startswith("["):
        section = line.strip()
    elif line.strip():
        print(f"entry point: {section} {line.strip()}")
for module in sorted(Path(source, "python", "fenceline").glob("*.py")):
    assert f"fenceline/{module.name}" in names, f"python/fenceline/{module.name} is not in the wheel"
print("every python/fenceline/*.py is in the wheel")

venv = work / "venv"
run([sys.executable, "-m", "venv", venv])
installed = run([venv / "bin" / "python", "-m", "pip", "install", "--no-index", "--disable-pip-version-check", wheel])
if installed.returncode != 0:
    sys.exit("pip install failed")
binary = next((venv / "lib").glob("python3*/site-packages/fenceline/bin/fenceline"))
libraries = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
assert "libfmt" not in libraries, f"the wheel's binary needs libfmt.so:\n{libraries}"
print("the installed binary needs no libfmt.so")
# Run from elsewhere, so nothing resolves relative to the checkout.
run([venv / "bin" / "fenceline", "check", example], cwd=work)
run([venv / "bin" / "python", "-m", "fenceline", "explain", "proxy-war"], cwd=work)
run([venv / "bin" / "python", "-c", "import fenceline; print(fenceline.include_dir() / 'fenceline' / 'atomic.cuh')"])


def hooks_from_the_installed_package():
    """The hooks with the compilers of COMPILERS_PYTHON's venv: its site-packages join the
    fresh venv's (site.addsitedir in a .pth, so that their own .pth files run too)."""
    site_packages = subprocess.run([compilers_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip()
    ours = next((venv / "lib").glob("python3*/site-packages"))
    (ours / "zz-compilers.pth").write_text(f"import site; site.addsitedir({site_packages!r})\n")
    inputs = Path(source, "tests", "python", "Inputs")
    env = {key: value for key, value in os.environ.items()
           if key not in ("FENCELINE", "FENCELINE_BIN", "PYTHONPATH")}
    env.update(PYTHONPATH=str(inputs), TRITON_CACHE_DIR=str(work / "triton-cache"),
               FENCELINE_CACHE_DIR=str(work / "fenceline-cache"), TRITON_DEFAULT_FP_FUSION="1")
    script = ("import triton_kernels as k, fenceline.jit\n"
              "k.compile(k.poll_volatile)\n"
              "print('checker:', fenceline.jit.binary())\n")
    run([venv / "bin" / "python", "-c", script], cwd=work, env=dict(env, FENCELINE="1"))
    run([venv / "bin" / "python", "-m", "pytest", "-p", "no:cacheprovider", "--fenceline-fail",
         f"--confcutdir={inputs / 'plugin_session'}", inputs / "plugin_session"], cwd=work, env=env)


sdist_dir = work / "sdist"
sdist_dir.mkdir()
made = run([venv_python, "-c", f"from scikit_build_core.build import build_sdist; print(build_sdist({str(sdist_dir)!r}))"],
           cwd=source)
(sdist,) = sdist_dir.glob("fenceline-*.tar.gz")
members = tarfile.open(sdist).getnames()
for wanted in ("pyproject.toml", "CMakeLists.txt", "src/driver/main.cpp", "python/fenceline/__main__.py",
               "cmake/FencelineCheck.cmake", "docs/checks/proxy-war.md", "include/fenceline/atomic.cuh"):
    assert any(member.endswith("/" + wanted) for member in members), f"{wanted} is not in the sdist"
assert not any("/build/" in member for member in members), "the sdist carries a build folder"
print(f"sdist ok: {sdist.name}")

if compilers_python == "none":
    print("hooks: skipped (no compilers venv)")
else:
    hooks_from_the_installed_package()
