# Used by scripts/grade_cluster_gpu.sh's rehearsal: docs/grading.md, "Measured" (several hosts on one, one lost).
"""The check of scripts/grade_cluster_gpu.sh's rehearsal (a worker "host" killed mid-grade).

    python3 scripts/grade_rehearsal_check.py WORK

Reads WORK/cluster_rehearsal.json and .xml (and WORK/cluster_serial.json when there is one) and
prints: how many results and JUnit test cases there are and how many distinct (each submission
exactly once: none lost, none doubled), where each submission was graded, whether any is an
internal error (a task lost with its worker), and whether the verdicts, and every case's, are the
serial run's.  Exits 1 when any of that fails.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def outcome(doc: dict) -> dict:
    return {(r["submission"], r["challenge"]): (r["verdict"], [(t["name"], t["verdict"]) for t in r.get("tests", [])])
            for r in doc["results"]}


def check(work: Path) -> bool:
    doc = json.loads((work / "cluster_rehearsal.json").read_text())
    keys = [(r["submission"], r["challenge"]) for r in doc["results"]]
    cases = [(suite.get("name"), case.get("name"))
             for suite in ET.parse(work / "cluster_rehearsal.xml").getroot().iter("testsuite")
             for case in suite.iter("testcase")]
    once = len(keys) == len(set(keys)) == len(cases) == len(set(cases)) and doc["summary"]["pending"] == 0
    print(f"JSON: {len(keys)} results, {len(set(keys))} distinct, {doc['summary']['pending']} pending; "
          f"JUnit: {len(cases)} test cases, {len(set(cases))} distinct -> exactly once: {'yes' if once else 'NO'}")
    print("graded on:", ", ".join(f"{r['submission']}@{r.get('worker')}" for r in doc["results"]))
    internal = [r["submission"] for r in doc["results"] if r.get("internal_error")]
    print("internal errors (a task lost with its worker):", ", ".join(internal) or "none")
    same = True
    serial = work / "cluster_serial.json"
    if serial.exists():
        before, after = outcome(json.loads(serial.read_text())), outcome(doc)
        differ = sorted(k for k in before if before[k] != after.get(k))
        same = not differ
        print("verdicts and per-case verdicts identical to serial:", "yes" if same else f"NO: {differ}")
    return once and not internal and same


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(0 if check(Path(sys.argv[1])) else 1)
