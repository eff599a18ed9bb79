"""Length-prefixed JSON messages over a Unix stream socket, with file descriptors
(``SCM_RIGHTS``) riding on a message's first bytes."""

from __future__ import annotations

import json
import os
import socket
import struct

__all__ = ["send", "receive", "close_all", "Closed", "MAX_FDS", "MAX_MESSAGE"]

MAX_FDS = 8
MAX_MESSAGE = 4 << 20  # a request carries an environment: a few kB, never megabytes
_LENGTH = struct.Struct("!I")


class Closed(EOFError):
    """The other end closed the connection before a whole message arrived."""


def send(sock: socket.socket, message: dict, fds=()) -> None:
    data = json.dumps(message, separators=(",", ":")).encode()
    payload = _LENGTH.pack(len(data)) + data
    sent = socket.send_fds(sock, [payload], list(fds)) if fds else sock.send(payload)
    if sent < len(payload):
        sock.sendall(payload[sent:])


def receive(sock: socket.socket) -> tuple[dict, list[int]]:
    """The next message and the descriptors that came with it (new numbers in this process)."""
    head, fds, _, _ = socket.recv_fds(sock, _LENGTH.size, MAX_FDS)
    if not head:
        close_all(fds)
        raise Closed("the connection was closed")
    head += _exactly(sock, _LENGTH.size - len(head))
    (length,) = _LENGTH.unpack(head)
    if length > MAX_MESSAGE:
        close_all(fds)
        raise ValueError(f"a message of {length} bytes is over the limit")
    try:
        return json.loads(_exactly(sock, length)), fds
    except (Closed, ValueError):
        close_all(fds)
        raise


def _exactly(sock: socket.socket, count: int) -> bytes:
    chunks = []
    while count > 0:
        chunk = sock.recv(count)
        if not chunk:
            raise Closed("the connection was closed in the middle of a message")
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def close_all(fds) -> None:
    """Close these descriptors, those already closed too (what a refused message carried)."""
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
