# Honest: writes a file larger than one call may print (as a build's object file or inductor's precompiled header
# is: g++ died with "File size limit exceeded" when every file was held to the printed-output limit).
import os

with open(os.path.join(os.environ["TMPDIR"], "large.bin"), "wb") as f:
    f.write(b"\0" * (8 << 20))


def solve(input, output, rows, cols):
    output.copy_(input.T)
