# Used by scripts/grade_under_load.sh: docs/grading.md, "A grade cut by SIGTERM and resumed".
"""Check an interrupted-and-resumed grade against an uninterrupted one (scripts/grade_under_load.sh).
    python3 scripts/grade_once_check.py FULL.json FULL.xml RESUMED.json RESUMED.xml
Every submission exactly once in the resumed JSON and JUnit (none lost, none
twice, none pending), with the uninterrupted grade's verdicts.  Prints one
line a problem and a summary; exit 1 on any problem.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import Counter


def json_verdicts(path: str) -> tuple[dict, list[str]]:
    results = json.load(open(path))["results"]
    keys = Counter((r["submission"], r["challenge"]) for r in results)
    twice = [f"{path}: {k} appears {n} times" for k, n in keys.items() if n > 1]
    return {(r["submission"], r["challenge"]): r["verdict"] for r in results}, twice


def junit_cases(path: str) -> Counter:
    root = ET.parse(path).getroot()
    return Counter((suite.get("name"), case.get("name")) for suite in root.iter("testsuite")
                   for case in suite.iter("testcase"))


def problems(full_json, full_xml, cut_json, cut_xml) -> list[str]:
    full, found = json_verdicts(full_json)
    resumed, twice = json_verdicts(cut_json)
    found += twice
    found += [f"lost: {k}" for k in full if k not in resumed]
    found += [f"pending after resume: {k}" for k, v in resumed.items() if v == "pending"]
    found += [f"verdict differs for {k}: {full[k]} uninterrupted, {v} resumed"
              for k, v in resumed.items() if k in full and v != full[k] and v != "pending"]
    full_cases, cut_cases = junit_cases(full_xml), junit_cases(cut_xml)
    found += [f"{cut_xml}: testcase {k} appears {n} times" for k, n in cut_cases.items() if n > 1]
    if sum(cut_cases.values()) != sum(full_cases.values()):
        found.append(f"JUnit testcases: {sum(full_cases.values())} uninterrupted, {sum(cut_cases.values())} resumed")
    return found


def main(argv: list[str]) -> int:
    found = problems(*argv)
    for line in found:
        print(line)
    full, _ = json_verdicts(argv[0])
    counts = Counter(full.values())
    print(f"{len(full)} submissions, verdicts {dict(counts)}: "
          + ("graded exactly once, verdicts identical" if not found else f"{len(found)} problem(s)"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
