# Cheat: makes the output a transposed view of the input's storage: no kernel runs, and the
# values read through the Python object are right.  Accepted before the seal (issue 24).


def solve(input, output, rows, cols):
    output.set_(input.untyped_storage(), 0, (cols, rows), (1, cols))
