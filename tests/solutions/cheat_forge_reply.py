# Cheat: rewrites the worker's reply so that it carries no tensors (or
# different ones), hoping the judge checks only what it is sent.
import judge.worker.session as session


def _forged(self, header, args, outputs_only=False):
    self.reply(dict(header, tensors=[]), [])


session.Session.send_tensors = _forged


def solve(input, output, rows, cols):
    pass
