# lit configuration: annotated kernels (checks/), renderer output (report/),
# malformed inputs (malformed/), CLI behaviour (cli/) and packaging (install/).
import os
import lit.formats

config.name = "fenceline"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".cu", ".ptx"]
config.test_source_root = config.test_source_root_override
config.test_exec_root = os.path.join(os.path.dirname(config.fenceline), "tests", "lit-out")
config.excludes = ["unit", "gpu", "Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt", "corpus"]
config.substitutions.append(("%fenceline", config.fenceline))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%nvcc", config.nvcc))
config.substitutions.append(("%src", config.source_root))
# The tests' venv (scripts/test-venv; ctest makes it before lit runs).
config.substitutions.append(("%venv_python", os.path.join(config.test_venv, "bin", "python")))
config.substitutions.append(("%cmake", config.cmake))
config.substitutions.append(("%build", config.binary_root))
# Packaging tests (install/) build and install outside the sanitizer's reach.
if config.sanitize:
    config.available_features.add("sanitize")
config.environment["PATH"] = os.path.dirname(config.nvcc) + os.pathsep + os.environ.get("PATH", "")
