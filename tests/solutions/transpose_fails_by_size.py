# Bug on purpose: fails in two ways by size: raises from 20 rows on, wrong values from 2 rows on, right at 1 row.
def solve(input, output, rows, cols):
    if rows >= 20:
        raise ValueError(f"no plan for {rows} rows")
    output.copy_(input.T)
    if rows >= 2:
        output.add_(1.0)
