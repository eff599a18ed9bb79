def transpose(input, output, rows, cols):
    output.copy_(input.T)
