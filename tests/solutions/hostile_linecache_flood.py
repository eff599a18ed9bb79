# Hostile (issue 38's red team): swaps its own source lines in linecache for 2.4 MB ones, so that every
# traceback the judge reports carries them: 9.6 MB per failure message, a 170 MB JSON per run.  Now every
# message is cut where it enters the judge, and a document's messages share one budget.
import linecache

HUGE = "x" * 2_400_000


def solve(input, output, rows, cols):
    size = len(open(__file__).read().splitlines()) + 1
    linecache.cache[__file__] = (size, None, [HUGE + "\n"] * size, __file__)
    linecache.checkcache = lambda *args, **kwargs: None  # its own lines stay put
    raise RuntimeError("look at my traceback")
