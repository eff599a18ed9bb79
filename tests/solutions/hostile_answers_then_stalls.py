# Hostile (found by the red team): answers the call itself from inside solve(), through the worker's
# own session, then never returns, so the worker never reads the judge's next request.  A request
# larger than the pipe then blocked the judge in its write, past every time-out (requests are small now: the
# arguments are in the shared memory; the judge's wait for the answer has its deadline all the same).
import gc
import time

import judge.worker.session as session


def solve(input, output, rows, cols):
    output.copy_(input.T)
    worker = next(o for o in gc.get_objects() if isinstance(o, session.Session))
    worker.reply({"ok": True, "op": "result", "time_ms": 0.01})
    worker.flush_output()
    time.sleep(3600)
