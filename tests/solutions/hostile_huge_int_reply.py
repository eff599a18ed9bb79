# Hostile (found by the red team): a reply header holding a 5000-digit integer, written on the
# worker's response pipe before the judge's.  json.loads raises a plain ValueError there
# (Python's limit on int digits), which the judge did not catch: exit 3.
import os
import struct
import sys


def solve(input, output, rows, cols):
    data = ('{"ok": true, "op": "result", "time_ms": ' + "9" * 5000 + "}").encode()
    os.write(int(sys.argv[2]), struct.pack("<Q", len(data)) + data)
    output.copy_(input.T)
