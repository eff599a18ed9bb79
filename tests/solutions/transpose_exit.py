# Kills its own process without a word: the judge must survive and say so.
import os


def solve(input, output, rows, cols):
    print("about to exit")
    os._exit(7)
