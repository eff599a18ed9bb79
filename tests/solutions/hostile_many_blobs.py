# Hostile: a reply whose header lists 200 000 blobs, each within the per-blob bound: the judge
# allocated as it read them (its memory grew from 0.31 to 1.75 GB before it rejected the count).
# Now the count and the total are checked against the tensors expected, before any is read.
import json
import struct

import judge.worker.session as session


def _reply(self, header, args, outputs_only=False):
    data = json.dumps(dict(header, tensors=[], blobs=[4] * 200_000)).encode()
    os_write = __import__("os").write
    os_write(self.fd, struct.pack("<Q", len(data)) + data)
    for _ in range(200_000):
        os_write(self.fd, b"\0\0\0\0")


session.Session.send_tensors = _reply


def solve(input, output, rows, cols):
    output.copy_(input.T)
