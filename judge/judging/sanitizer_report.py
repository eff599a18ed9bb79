"""What NVIDIA's compute-sanitizer found, cut to the user's own files (``judge run --sanitize``).

compute-sanitizer (memcheck, racecheck, initcheck, synccheck) writes its report as lines that begin
``========= ``; a finding is a headline followed by indented lines, and findings are separated by a
line of the prefix alone:

    ========= Invalid __global__ read of size 4 bytes
    =========     at copy_kernel(const float *, float *, int)+0x70 in /home/me/copy.cu:9
    =========     by thread (255,0,0) in block (3,0,0)
    =========     Address 0x7f3a2c000400 is out of bounds
    =========
    ========= Error: Race reported between Write access at bmm(...)+0x3a0 in /home/me/bmm.cu:31
    =========     and Read access at bmm(...)+0x2d0 in /home/me/bmm.cu:24 [2048 hazards]
    =========
    ========= ERROR SUMMARY: 1 error

Older releases write a location as ``at 0x1f20 in /path/file.cu:249:kernel_name``.  The sanitized worker
also runs torch's kernels and the judge's (drawing inputs, poisoning outputs): a finding whose locations
are all outside the user's files is counted, not shown.  Pure: text in, findings and text out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Finding", "Location", "parse_report", "summary_line", "format_findings", "TOOLS"]

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
PREFIX = "========="
# "at kernel(args)+0x70 in /path/file.cu:9" (CUDA 11.6 and later) or "at 0x70 in /path/file.cu:9:kernel" (older)
_NEW = re.compile(r"(?:at|access at) (?P<func>.+?)\+0x[0-9a-fA-F]+ in (?P<file>\S+?):(?P<line>\d+)(?=\s|$|\s\[)")
_OLD = re.compile(r"(?:at|access at) 0x[0-9a-fA-F]+ in (?P<file>[^\s:]+):(?P<line>\d+):(?P<func>\S.*?)(?=\s\[|$)")
_SUMMARY = re.compile(r"^[A-Z ]*SUMMARY:")
# Lines that are no finding, nor a detail of one: the banner, the host's call stack at the launch.
_SKIP = ("COMPUTE-SANITIZER", "Saved host backtrace", "Host Frame", "Device Frame", "Target application")
# What follows a kernel memcheck stopped: every later CUDA call fails ("Program hit cudaErrorLaunchFailure (error
# 719) ... on CUDA API call to cudaDeviceSynchronize"), then the process ends in error.  Recorded on an H200.
_CONSEQUENCES = ("Program hit cudaErrorLaunchFailure", "Error: process didn't terminate successfully")
_ACCESS = re.compile(r"and (?P<what>\w+ access)(?: \[(?P<hazards>\d+) hazards?\])?")


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    function: str = ""

    def short(self) -> str:
        name = self.file.rsplit("/", 1)[-1]
        return f"{name}:{self.line}" + (f" ({_short_function(self.function)})" if self.function else "")


@dataclass
class Finding:
    """One error or warning: its headline, where it happened, and the lines that say more (thread, address)."""

    headline: str
    locations: list[Location] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    hazards: int = 0  # racecheck: the hazards its accesses add up to

    def key(self) -> tuple:
        """What findings alike share: 60 threads reading past the same array at the same line are one finding."""
        return self.headline, tuple((loc.file, loc.line) for loc in self.locations)

    def in_files(self, files: tuple[str, ...]) -> bool:
        """Whether one of its locations is in one of ``files`` (absolute paths, or file names)."""
        return any(_same_file(loc.file, f) for loc in self.locations for f in files)

    def text(self, files: tuple[str, ...] = ()) -> str:
        """The finding in a few lines: the headline, where (the user's locations first), and its details."""
        mine = [loc for loc in self.locations if any(_same_file(loc.file, f) for f in files)]
        where = mine or self.locations
        places = ", ".join(dict.fromkeys(loc.short() for loc in where))
        headline = self.headline + (f" [{self.hazards} hazards]" if self.hazards else "")
        lines = [f"{places}: {headline}" if places else headline]
        lines += [f"  {d}" for d in self.details[:3]]
        return "\n".join(lines)


def parse_report(text: str) -> tuple[list[Finding], list[str]]:
    """(the findings, the summary lines) of a compute-sanitizer log; lines without its prefix are ignored."""
    findings: list[Finding] = []
    summaries: list[str] = []
    current: Finding | None = None
    for raw in text.splitlines():
        if not raw.startswith(PREFIX):
            continue
        body = raw[len(PREFIX):]
        line = body.strip()
        if not line or _SUMMARY.match(line):
            if line:
                summaries.append(line)
            current = None
        elif line.startswith(_SKIP) or line.startswith(_CONSEQUENCES):
            current = None  # the API calls that failed after a kernel the tool stopped: not a finding of their own
        elif current is None or not body.startswith("    "):  # a headline: one space after the prefix
            current = Finding(_headline(line), _locations(line))
            findings.append(current)
        else:
            found = _locations(line)
            current.locations += found
            rest = _headline(line) if found else line  # "at kernel+0x70" is said by its location
            access = _ACCESS.match(rest)  # racecheck's other accesses: "and Read access [2 hazards]", one a line
            if access:
                if " and " not in current.headline:
                    current.headline += f" and {access['what']}"
                current.hazards += int(access["hazards"] or 0)
            elif rest and not rest.startswith("at"):
                current.details.append(rest)
    return findings, summaries


def _headline(line: str) -> str:
    """A line without its locations (they are shown apart): "Error: Race reported between Write access",
    "and Read access [2048 hazards]", "Invalid __global__ read of size 4 bytes"."""
    for pattern in (_NEW, _OLD):
        line = pattern.sub(lambda m: m.group(0).split(" at ", 1)[0] if " at " in m.group(0) else "", line)
    return re.sub(r"\s+", " ", line).strip(" :")


def _locations(line: str) -> list[Location]:
    found = [Location(m["file"], int(m["line"]), m["func"].strip()) for m in _NEW.finditer(line)]
    if not found:
        found = [Location(m["file"], int(m["line"]), m["func"].strip()) for m in _OLD.finditer(line)]
    return found


def _same_file(reported: str, wanted: str) -> bool:
    if "/" in wanted and reported.startswith("/"):
        return reported == wanted
    return reported.rsplit("/", 1)[-1] == wanted.rsplit("/", 1)[-1]


def _short_function(name: str) -> str:
    """``bmm(const float *, float *, int)`` -> ``bmm``; a Triton kernel's name as it is."""
    return name.split("(", 1)[0].replace("void ", "").strip() or name


def summary_line(summaries: list[str]) -> str:
    return "; ".join(summaries)


def format_findings(tool: str, findings: list[Finding], files: tuple[str, ...], limit: int = 3) -> str:
    """The report of one tool: its first ``limit`` kinds of finding in the user's files (findings alike, the
    same error at the same lines in other threads, counted once), and how many others."""
    mine = [f for f in findings if f.in_files(files)]
    others = len(findings) - len(mine)
    if not findings:
        return f"{tool}: no errors"
    groups: dict[tuple, list[Finding]] = {}
    for finding in mine:
        groups.setdefault(finding.key(), []).append(finding)
    lines = [f"{tool}: {len(mine)} finding(s) in your files" + (f", {others} elsewhere" if others else "")]
    for alike in list(groups.values())[:limit]:
        text = alike[0].text(files)
        lines.append(text if len(alike) == 1 else f"{text}\n  ... and {len(alike) - 1} more alike (other threads)")
    if len(groups) > limit:
        lines.append(f"... and {len(groups) - limit} more kinds in your files")
    if others and not mine:
        lines.append("in kernels that are not in your files (torch's, the judge's, or a library's): "
                     + "; ".join(dict.fromkeys(f.text().splitlines()[0] for f in findings[:limit])))
    return "\n".join(lines)
