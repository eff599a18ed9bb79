# Correct for the first calls at each size, then skips the work: only the
# verification of timed calls can catch it.
_calls = {}


def solve(input, output, rows, cols):
    n = _calls[(rows, cols)] = _calls.get((rows, cols), 0) + 1
    if n <= 8:
        output.copy_(input.T)
