# The honest twin of transpose_side_stream.py: the same work on the current stream.
def solve(input, output, rows, cols):
    for _ in range(20):
        output.copy_(input.T)
