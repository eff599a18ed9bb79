# Bug on purpose: returns without writing the output.
def solve(input, output, rows, cols):
    pass
