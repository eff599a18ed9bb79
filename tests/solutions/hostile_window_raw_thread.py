# Hostile (red team of the draw window, judge/worker/draw_window.py): a thread of the solution's own, started
# with the low-level ``_thread.start_new_thread``, which threading.enumerate() does not list, so the checks after
# each call (Session.threads_left, _solution_threads) never name it.  It runs on through the next draw, watching
# the main thread's stack (sys._current_frames()): whenever the main thread lets go of the interpreter inside the
# draw (torch's ops, the guarded buffer's mmap and ctypes calls release it) and the draw's frame
# (tensors.make_arguments, or Session.seal) already holds the fresh input, it computes the answer there, untimed.
# solve() only copies an answer that was ready when it started, else writes zeros (wrong on purpose): a leak
# shows as accepted cases.
import _thread
import sys
import time

import torch

STASH = []
STATE = {}


def _fresh_input(frame):
    while frame is not None:
        if frame.f_code.co_name in ("make_arguments", "seal"):
            for obj in list(frame.f_locals.get("args") or ()):
                if type(obj) is torch.Tensor and obj.dim() == 2 and obj.dtype == torch.float32 and obj.numel():
                    return obj
        frame = frame.f_back
    return None


def _watch():
    main, done = STATE["main"], None
    while True:
        found = _fresh_input(sys._current_frames().get(main))
        if found is not None and found.data_ptr() != done:
            done = found.data_ptr()
            STASH.append(found.T.clone())
        time.sleep(0)


def solve(input, output, rows, cols):
    ready = list(STASH)  # answers computed before this call started
    STASH.clear()
    answer = next((a for a in ready if a.shape == output.shape and torch.equal(a.T, input)), None)
    if answer is not None:
        output.copy_(answer)
    else:
        output.zero_()
    if "main" not in STATE:
        STATE["main"] = _thread.get_ident()
        sys.setswitchinterval(1e-6)
        _thread.start_new_thread(_watch, ())
