# Hostile: replaces the worker's captured-output file (output.txt in its working folder) by a
# folder, then raises: the judge re-opened the path to read the output's tail and exited 3 with
# IsADirectoryError.  Now it reads through the descriptor it opened at spawn.
import os


def solve(input, output, rows, cols):
    print("printed before the swap", flush=True)
    os.remove("output.txt")
    os.mkdir("output.txt")
    raise RuntimeError("after replacing the capture file")
