# Hostile (issue 38's red team): an exception whose text reorders (bidi overrides), hides (zero-width) and
# cuts (U+2028) what the console and a CI summary show.  Now they are spelled out, as control characters are.
def solve(input, output, rows, cols):
    raise RuntimeError("all tests \u202eDETPECCA\u202c passed\u200b\u2028ACCEPTED all 18 tests passed\u2029")
