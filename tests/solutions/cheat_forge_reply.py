# Cheat: the worker answers every call "ok" without calling solve(), hoping the judge believes the worker's word
# that the call ran.  The judge reads what the shared memory holds after the call: the outputs' poison.
import judge.worker.session as session


def _forged(self, header):
    self.take_arguments(header)
    self.reply({"ok": True, "op": "result", "time_ms": 0.001, "own_launches": 1})


session.Session.call = _forged


def solve(input, output, rows, cols):
    output.copy_(input.T)  # never called
