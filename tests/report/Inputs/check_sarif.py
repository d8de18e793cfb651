# Structural checks on a SARIF log that FileCheck patterns cannot express
# (tests/report/sarif.test): every result's ruleIndex names its rule, every
# rule has the fields GitHub code scanning reads, and locations are 1-based.
import json
import sys

log = json.load(open(sys.argv[1]))
assert log["version"] == "2.1.0"
run = log["runs"][0]
rules = run["tool"]["driver"]["rules"]
assert len(rules) == 19, len(rules)  # the check table (src/checks/CheckTable.cpp)
for rule in rules:
    for key in ("id", "shortDescription", "fullDescription", "help", "defaultConfiguration"):
        assert key in rule, (rule["id"], key)
    assert rule["defaultConfiguration"]["level"] in ("note", "warning", "error")
    assert rule["properties"]["precision"] in ("very-high", "high", "medium", "low"), rule["id"]
    assert "memory-ordering" in rule["properties"]["tags"], rule["id"]
assert run["results"], "expected a result"
for result in run["results"]:
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert result["message"]["text"]
    assert result["partialFingerprints"]["fencelineHash/v1"], result
    for location in result["locations"]:
        assert not location["physicalLocation"]["artifactLocation"]["uri"].startswith("file://"), location
    for location in result["locations"] + result.get("relatedLocations", []):
        region = location["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region.get("startColumn", 1) >= 1
print("sarif ok")
