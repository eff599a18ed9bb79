"""JUnit XML of a grade document, for CI test reports.

One ``<testsuite>`` per submission, one ``<testcase>`` per challenge.  A wrong
answer, a time-out or nothing handed in (``no_submission``) is a ``<failure>``; a crash, a compile error or an invalid
submission is an ``<error>`` (it never got as far as an answer); an entry not
graded yet (an interrupted run) is ``<skipped>``.  The failure's ``message``
is the one-line verdict; its text names each failing case, its sizes and the
full message.  Returns a string: the caller writes it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from judge.base.text import Budget, clean_text
from judge.judging.failures import group_failures

__all__ = ["grade_to_junit", "FAILURE_VERDICTS", "ERROR_VERDICTS"]

FAILURE_VERDICTS = ("wrong_answer", "time_limit_exceeded", "no_submission")
ERROR_VERDICTS = ("runtime_error", "compile_error", "invalid_submission")
# XML 1.0 forbids most control characters even escaped; a solution's output tail
# may contain them (and ANSI colour codes), which would make the file unreadable.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
MESSAGE_CHARS = 300
MAX_CASES = 5  # distinct failures spelled out per testcase; the first one matters most


def xml_text(text, budget: Budget | None = None) -> str:
    text = str(text if text is not None else "")
    text = budget.take(text) if budget is not None else clean_text(text)  # judge/base/text.py
    return _NOT_XML.sub("\ufffd", _ANSI.sub("", text))


def _sizes(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in (params or {}).items())


def failure_text(record: dict) -> str:
    """Every failure of a record: cases that share their cause as one (the first case's verdict, name, sizes
    and full message, then the others by name), at most MAX_CASES distinct failures in full."""
    failed = lambda c: c.get("verdict", "accepted") not in ("accepted", "skipped")  # noqa: E731
    cases = [(c, "") for c in record.get("tests", []) if failed(c)]
    cases += [(c, " (timed benchmark)") for c in record.get("benchmarks", []) if failed(c)]
    ran = [c for c in record.get("tests", []) if c.get("verdict") != "skipped"]
    passed = sum(1 for c in ran if c.get("verdict") == "accepted")
    parts = [headline(record), f"{passed} of {len(ran)} tests passed" if ran else "no test ran",
             f"file: {record.get('file', '')}"]
    groups = group_failures([c.get("cause") for c, _ in cases])
    for group in groups[:MAX_CASES]:
        case, kind = cases[group[0]]
        parts.append(f"\n{case['verdict']} on {case['name']}{kind} ({_sizes(case.get('params'))}):\n"
                     f"{case.get('message', '')}".rstrip())
        if len(group) > 1:
            parts.append(f"the same in {len(group) - 1} more case(s): "
                         + ", ".join(f"{cases[i][0]['name']} ({_sizes(cases[i][0].get('params'))})" for i in group[1:]))
    if len(groups) > MAX_CASES:
        parts.append(f"\n... and {len(groups) - MAX_CASES} more distinct failure(s) (all are in the --json file)")
    return "\n".join(parts)


def headline(record: dict) -> str:
    """``wrong_answer on edge-2 (rows=17, cols=3): ...``: the verdict, then the message."""
    verdict, message = record["verdict"], (record.get("message") or "").strip()
    return message if message.startswith(verdict) else f"{verdict}: {message}".rstrip(": ")


def _one_line(text: str) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= MESSAGE_CHARS else line[: MESSAGE_CHARS - 1] + "…"


def _testcase(suite: ET.Element, record: dict, label: str, budget: Budget | None = None) -> None:
    case = ET.SubElement(suite, "testcase", name=xml_text(record["challenge"]),
                         classname=xml_text(record["submission"]), file=xml_text(record.get("file", "")),
                         time=f"{float(record.get('wall_s') or 0):.3f}")
    verdict = record["verdict"]
    if verdict == "pending":
        ET.SubElement(case, "skipped", message="not graded (the run was interrupted)")
    elif verdict != "accepted":
        tag = "failure" if verdict in FAILURE_VERDICTS else "error"
        element = ET.SubElement(case, tag, type=verdict, message=xml_text(_one_line(headline(record))))
        element.text = xml_text(failure_text(record), budget)
    lines = [f"seed {label}", *(f"note: {n}" for n in record.get("notes", []))]
    if record.get("carried_over"):
        lines.append("carried over from an earlier run (--resume)")
    ET.SubElement(case, "system-out").text = xml_text("\n".join(lines))


def _counts(records: list[dict]) -> dict:
    verdicts = [r["verdict"] for r in records]
    return {"tests": str(len(records)),
            "failures": str(sum(v in FAILURE_VERDICTS for v in verdicts)),
            "errors": str(sum(v in ERROR_VERDICTS for v in verdicts)),
            "skipped": str(verdicts.count("pending")),
            "time": f"{sum(float(r.get('wall_s') or 0) for r in records):.3f}"}


def grade_to_junit(doc: dict) -> str:
    """The JUnit XML (a string) of a grade document (judge/grading/records.py)."""
    by_submission: dict[str, list[dict]] = {}
    for record in doc["results"]:
        by_submission.setdefault(record["submission"], []).append(record)
    root = ET.Element("testsuites", name="judge grade", **_counts(doc["results"]))
    label = doc["seed"]["label"]
    budget = Budget()  # what the whole file spends on the submissions' messages (judge/base/text.py)
    for submission, records in by_submission.items():
        suite = ET.SubElement(root, "testsuite", name=xml_text(submission), **_counts(records),
                              timestamp=doc.get("started_at", ""))
        properties = ET.SubElement(suite, "properties")
        for name, value in (("mode", doc["mode"]), ("seed", label), ("judge", doc["judge"])):
            ET.SubElement(properties, "property", name=name, value=str(value))
        for record in records:
            _testcase(suite, record, label, budget)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
