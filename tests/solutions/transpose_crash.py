# Raises inside solve(): a runtime error with a traceback into this file.
def helper(rows):
    return [0][rows]


def solve(input, output, rows, cols):
    helper(rows)
