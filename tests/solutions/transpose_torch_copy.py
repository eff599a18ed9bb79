# Honest twin of cheat_flush_aware_transpose.py: the same torch copy, on the current stream in every call.
def solve(input, output, rows, cols):
    output.copy_(input.T)
