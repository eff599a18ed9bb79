# Class 13: --require-kernel satisfied by a torch-only solve() that counts a launch of "its own kernel" itself.
from judge.worker import launches


def solve(input, output, rows, cols):
    output.copy_(input.T)  # torch alone, no kernel of the solution's
    launches.LAUNCHES.note()
