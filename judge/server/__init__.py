"""``judge server``: a warm process that judges for ``judge run``, ``rank`` and ``watch``.

A fresh ``judge run`` spends seconds importing torch twice (its own process and
the solution's worker) before it judges anything.  The server imports it all
once and then, for each command, forks: a copy of itself becomes the command
(on the client's terminal, in its folder, with its environment), and each
worker the command needs is forked from the server too, never from the
command, so no worker ever holds what the judge computed (docs/server.md).

- ``compat``: which requests a server may serve (its code, its Python, the
  environment the imports saw), pure;
- ``client``: the few lines ``judge run`` runs before anything else;
- ``autostart``: the server a ``judge run`` that found none starts when it ends;
- ``starter``: ``judge server start`` (the daemon spawned, once) and waiting for a server to stop;
- ``census``: every judge server of this user (``judge server status``, ``stop --all``).

The server itself is judge/daemon/daemon.py (its loop and what a forked child does first), and
the judge's handle on a worker it forked is judge/worker/forked.py.
"""
