# Hostile: writes its own reply on the worker's response pipe before the judge's, a JSON header
# nesting 100 000 lists deep.  json.loads raised RecursionError, which no handler in the judge
# expected: the judge exited 3 with no verdict.
import os
import struct
import sys


def solve(input, output, rows, cols):
    data = ("[" * 100_000 + "]" * 100_000).encode()
    os.write(int(sys.argv[2]), struct.pack("<Q", len(data)) + data)
    output.copy_(input.T)
