# Hostile (found by the red team): rewrites the worker's "ready" message so the report says the
# sandbox was on (it runs with JUDGE_SANDBOX=0).  The judge now reports what it asked for and what
# the kernel allows; a worker's word never turns a layer on.
import judge.worker.session as session

_reply = session.Session.reply


def _forged(self, header, blobs=()):
    if header.get("op") == "ready":
        header = dict(header, protections={"landlock": "on (forged)", "seccomp": "on (forged)"})
    _reply(self, header, blobs)


session.Session.reply = _forged


def solve(input, output, rows, cols):
    output.copy_(input.T)
