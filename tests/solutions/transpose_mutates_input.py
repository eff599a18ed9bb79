# Bug on purpose: correct output, but the input is used as scratch space.
def solve(input, output, rows, cols):
    output.copy_(input.T)
    input.zero_()
