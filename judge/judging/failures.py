"""Failures that share their cause: the key a failed case is grouped by, and the groups.

A run of the empty starter fails every case the same way ("never written"); the
reports show the first of such a group in full and name the others briefly
(judge/report/console.py, junit.py).  The same key tells the search for a
smaller failing size whether a smaller case failed *in the same way*
(runner.search_smaller).  Pure: no I/O.
"""

from __future__ import annotations

import re

__all__ = ["headline", "message_cause", "group_failures", "OUTPUT_MARK", "NONDETERMINISTIC", "SAME_AGAIN", "RIGHT_UNTIMED"]

# What separates a failure's message from the solution's printed output (runner.failed).
OUTPUT_MARK = "--- solution output"
# A failed call whose inputs, given again, gave another answer (runner.diagnose_nondeterminism, the benchmark
# stage's TimedCalls.verify): no honest kernel computes two answers from one input.
NONDETERMINISTIC = ("the same inputs gave different results: a race or undefined behaviour (e.g. a missing "
                    "__syncthreads, an uninitialised shared buffer, a read past an allocation); `judge run --sanitize` "
                    "runs the failing case under NVIDIA's compute-sanitizer on a GPU")
# The same, when the second call failed in exactly the same elements: a deterministic error of that size.
SAME_AGAIN = "an untimed call on the same inputs failed in the same elements: not a race, an error at this size"
# The same, when the second call was right: the answer depends on something besides the inputs.
RIGHT_UNTIMED = "an untimed call on the same inputs gave the right answer"
# Numbers (sizes, counts, values, line numbers, addresses) say nothing about the cause, nor does the unit a
# byte count is written in: "188 bytes" and "5.9 KiB" past an output's end are one failure (the search for a
# smaller failing size took them for two and stopped at rows=33 while rows=2 failed alike; issue 49 item 3).
_NUMBER = re.compile(r"(?:0x[0-9a-fA-F]+|[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?:\s?(?:bytes?|[KMGT]iB|B)\b)?")


def headline(message: str) -> str:
    """The line of a message worth a summary: a traceback's last line, else the first."""
    lines = [line for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    if lines[0].startswith("fails at"):
        return lines[0] + ": " + headline("\n".join(lines[1:]))
    if lines[0].startswith("Traceback"):
        body = [line for line in lines if not line.startswith((" ", "Traceback", "---"))]
        return body[0] if body else lines[-1]
    return lines[0]


def message_cause(verdict: str, message: str) -> str:
    """The cause of a failure known only by its message: the verdict and the message's headline
    (a traceback's last line) with every number written ``#``, what the solution printed left out."""
    message = (message or "").split(OUTPUT_MARK, 1)[0]
    return f"{verdict}: {_NUMBER.sub('#', headline(message))}".rstrip(": ")


def group_failures(causes: list[str | None]) -> list[list[int]]:
    """Indices of ``causes`` grouped by equal cause, groups in order of their first member, members in
    order; an empty or missing cause is a group of its own (a record written before causes were)."""
    groups: dict[str, list[int]] = {}
    order: list[list[int]] = []
    for index, cause in enumerate(causes):
        if not cause:
            order.append([index])
        elif cause in groups:
            groups[cause].append(index)
        else:
            groups[cause] = [index]
            order.append(groups[cause])
    return order
