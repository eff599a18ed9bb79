# Hostile (found by the red team): a call's reply whose time is a string, written on the worker's
# response pipe before the judge's.  The console's table formatted it as a number: exit 3; with
# --json the string went into the report and the history.
import json
import os
import struct
import sys


def solve(input, output, rows, cols):
    data = json.dumps({"ok": True, "op": "result", "time_ms": "0.0001 ms (fastest ever)", "tensors": [],
                       "blobs": []}).encode()
    os.write(int(sys.argv[2]), struct.pack("<Q", len(data)) + data)
    output.copy_(input.T)
