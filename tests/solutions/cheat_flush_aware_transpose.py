# Cheat (issue 25, 3): spots the timed phase (the flush buffer shows in torch.cuda.memory_allocated)
# and after the first few timed calls moves its work to a stream it never joins: the audits that
# could disagree were outvoted by the honest early ones (a majority was needed).  Now any call that
# disagrees counts at the host clock's time.
import torch

_state = {"base": None, "timed": 0}
_side = []


def solve(input, output, rows, cols):
    allocated = torch.cuda.memory_allocated()
    if _state["base"] is None:
        _state["base"] = allocated
    if allocated - _state["base"] > 200 * 1024**2:  # the 256 MiB flush buffer: the timed phase
        _state["timed"] += 1
    if _state["timed"] > 3:
        if not _side:
            _side.append(torch.cuda.Stream())
        with torch.cuda.stream(_side[0]):
            output.copy_(input.T)
        return
    output.copy_(input.T)
