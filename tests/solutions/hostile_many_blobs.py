# Hostile: writes its own reply on the worker's response pipe (its descriptor is on the worker's
# command line) before the judge's, listing 200 000 blobs, each within the per-blob bound: the
# judge allocated as it read them (its memory grew from 0.31 to 1.75 GB before it rejected the
# count).  Now the count and the total are checked against the tensors expected, before any is read.
import json
import os
import struct
import sys


def solve(input, output, rows, cols):
    fd = int(sys.argv[2])  # python -m judge.worker REQUEST_FD RESPONSE_FD [AREA_FD]
    data = json.dumps({"ok": True, "op": "result", "tensors": [], "blobs": [4] * 200_000}).encode()
    os.write(fd, struct.pack("<Q", len(data)) + data)
    for _ in range(1000):
        os.write(fd, b"\0" * 800)
    output.copy_(input.T)
