import module_that_does_not_exist  # noqa: F401


def solve(input, output, rows, cols):
    output.copy_(input.T)
