# Hostile: a reply whose JSON header nests 100 000 lists deep.  json.loads raised RecursionError,
# which no handler in the judge expected: the judge exited 3 with no verdict.
import struct

import judge.worker.session as session


def _reply(self, header, args, outputs_only=False):
    data = ("[" * 100_000 + "]" * 100_000).encode()
    __import__("os").write(self.fd, struct.pack("<Q", len(data)) + data)


session.Session.send_tensors = _reply


def solve(input, output, rows, cols):
    output.copy_(input.T)
