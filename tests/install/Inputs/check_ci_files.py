# Structural checks of the CI integration files (tests/install/ci-files.test):
# .pre-commit-hooks.yaml runs the console script that pyproject.toml defines,
# on .cu/.ptx files, and its `files` regex selects them; the GitHub workflow
# installs fenceline, writes SARIF with `fenceline check --format sarif` and
# uploads that file with upload-sarif, with the permission it needs.
import re
import sys
import tomllib
from pathlib import Path

import yaml

root = Path(sys.argv[1])
scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]

hooks = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())
ids = [hook["id"] for hook in hooks]
assert ids == ["fenceline", "fenceline-system"], ids
for hook in hooks:
    for key in ("id", "name", "entry", "language", "files"):
        assert key in hook, (hook["id"], key)
    command = hook["entry"].split()
    assert command[0] in scripts and command[1] == "check", hook["entry"]
    files = re.compile(hook["files"])
    for path in ("kernels/gemm.cu", "build/k.ptx"):
        assert files.search(path), (hook["id"], path)
    for path in ("README.md", "src/main.cpp", "kernel.cuh"):
        assert not files.search(path), (hook["id"], path)
print("pre-commit hooks ok:", ", ".join(ids))

workflow = yaml.safe_load((root / ".github" / "workflows" / "fenceline.yml").read_text())
assert workflow["permissions"]["security-events"] == "write"
steps = workflow["jobs"]["check"]["steps"]
runs = "\n".join(step.get("run", "") for step in steps)
assert "pip install ." in runs, "the workflow installs the pip package"
match = re.search(r"fenceline check --format sarif -o (\S+)", runs)
assert match, "the workflow writes SARIF"
uploads = [step for step in steps if step.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
assert len(uploads) == 1 and uploads[0]["with"]["sarif_file"] == match.group(1), uploads
assert uploads[0].get("if") == "always()", "SARIF is uploaded even when the check step fails"
print("workflow ok: uploads", match.group(1))
