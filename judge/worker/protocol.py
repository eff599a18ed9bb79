"""Messages between the judge and its worker process, over a pair of pipes.

A message is an 8-byte little-endian length, a UTF-8 JSON header of that
length, then the raw blobs whose sizes the header lists under ``"blobs"``.
JSON and raw bytes only: the judge never unpickles anything the solution's
process wrote, so a hostile solution cannot run code in the judge.
"""

from __future__ import annotations

import array
import json
import os
import select
import struct
import time

from judge.base.text import MAX_MESSAGE, bounded, clean_text as _clean_text

__all__ = ["ProtocolError", "Closed", "Timeout", "send", "receive", "read_length", "read_message", "wait_readable",
           "available", "spec_message", "spec_from_message", "clean", "clean_text"]

_LENGTH = struct.Struct("<Q")
MAX_HEADER = 16 * 1024 * 1024
MAX_BLOB = 64 * 1024**3


class ProtocolError(RuntimeError):
    """The other side closed the pipe or sent something malformed."""


class Closed(ProtocolError):
    """The other side closed the pipe (usually: the process died)."""


class Timeout(RuntimeError):
    """No complete message before the deadline."""


def send(fd: int, header: dict, blobs=(), deadline: float | None = None) -> None:
    """Write one message; ``blobs`` are bytes-like objects.  On a non-blocking descriptor (the judge's
    requests) raise ``Timeout`` once ``time.monotonic()`` passes ``deadline`` with the pipe still full:
    a worker that stopped reading must not stall the judge in a write (a request carrying shipped
    inputs is larger than the pipe)."""
    blobs = [memoryview(b).cast("B") for b in blobs]
    header = dict(header, blobs=[len(b) for b in blobs])
    data = json.dumps(header).encode()
    _write_all(fd, _LENGTH.pack(len(data)) + data, deadline)
    for blob in blobs:
        _write_all(fd, blob, deadline)


def _write_all(fd: int, data, deadline: float | None = None) -> None:
    view = memoryview(data).cast("B")
    while view:
        try:
            written = os.write(fd, view[: 1 << 24])
        except BlockingIOError:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise Timeout() from None
            select.select([], [fd], [], remaining)
            continue
        view = view[written:]


def receive(fd: int, deadline: float | None = None, max_blob: int = MAX_BLOB, max_blobs: int | None = None,
            max_total: int | None = None) -> tuple[dict, list[bytearray]]:
    """Read one message; raise ``Timeout`` once ``time.monotonic()`` passes ``deadline``.

    ``max_blob`` bounds each blob, ``max_blobs`` their count and ``max_total`` their sum, all
    checked before any blob is read: a forged header cannot make the judge allocate more than
    the tensors it expects.
    """
    return read_message(fd, read_length(fd, deadline), deadline, max_blob, max_blobs, max_total)


def read_length(fd: int, deadline: float | None = None) -> int:
    """The first part of a message: its header's length (``read_message`` reads the rest)."""
    (length,) = _LENGTH.unpack(_read_exact(fd, _LENGTH.size, deadline))
    if length > MAX_HEADER:
        raise ProtocolError(f"message header of {length} bytes is too large")
    return length


def read_message(fd: int, length: int, deadline: float | None = None, max_blob: int = MAX_BLOB,
                 max_blobs: int | None = None, max_total: int | None = None) -> tuple[dict, list[bytearray]]:
    """The rest of a message whose header is ``length`` bytes long (``receive``'s bounds)."""
    try:
        header = json.loads(_read_exact(fd, length, deadline).decode())
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, a 5000-digit int; [[[[... too deep
        raise ProtocolError(f"malformed message header: {str(exc)[:200]}") from None
    if not isinstance(header, dict):
        raise ProtocolError("malformed message header: not an object")
    sizes = header.pop("blobs", [])
    if not isinstance(sizes, list) or not all(type(s) is int and 0 <= s <= max_blob for s in sizes):
        raise ProtocolError(f"malformed message header: blob sizes {str(sizes)[:80]} (at most {max_blob} bytes each)")
    if max_blobs is not None and len(sizes) > max_blobs:
        raise ProtocolError(f"malformed message header: {len(sizes)} blobs, at most {max_blobs} expected")
    if max_total is not None and sum(sizes) > max_total:
        raise ProtocolError(f"malformed message header: {sum(sizes)} bytes of blobs, at most {max_total} expected")
    return header, [_read_exact(fd, size, deadline) for size in sizes]


def wait_readable(fd: int, deadline: float | None = None) -> None:
    """Until ``fd`` has something to read (or its writer closed it); ``Timeout`` past ``deadline``."""
    remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
    ready, _, _ = select.select([fd], [], [], remaining)
    if not ready:
        raise Timeout()


def available(fd: int) -> int:
    """Bytes waiting in the pipe ``fd`` (FIONREAD)."""
    import fcntl
    import termios

    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count, True)
    return count[0]


def clean_text(text: str) -> str:
    """``text`` safe to print, store and encode (judge/base/text.py): lone surrogates become U+FFFD,
    control, bidi and zero-width characters their ``\\xNN`` or ``\\uXXXX`` spelling; tab and newline stay."""
    return _clean_text(text)


def clean(value, depth: int = 0):
    """A message from the worker with every string in it (keys too) passed through ``clean_text`` and
    bounded (``MAX_MESSAGE`` characters each: a red team's traceback carried 2.4 MB source lines)."""
    if isinstance(value, str):
        return bounded(_clean_text(value), MAX_MESSAGE)
    if depth > 32:  # json.loads already refused deeper nesting than Python's recursion allows
        raise ProtocolError("malformed message header: nested too deeply")
    if isinstance(value, dict):
        return {bounded(_clean_text(str(k)), 256): clean(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v, depth + 1) for v in value]
    return value


def _read_exact(fd: int, size: int, deadline: float | None) -> bytearray:
    buffer = bytearray(size)
    view, filled = memoryview(buffer), 0
    while filled < size:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout()
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                raise Timeout()
        count = os.readv(fd, [view[filled:]])
        if count == 0:
            raise Closed("the worker closed the connection")
        filled += count
    return buffer


def spec_message(spec) -> dict:
    """The spec as the worker receives it: the judge's YAML text and which variant,
    so the worker never reads the file again (it may have changed since); for a
    challenge with shipped inputs (LeetGPU's), only its signature."""
    if getattr(spec, "kernelbench", False):  # a KernelBench problem's text (judge/challenge/kernelbench.py)
        from judge.challenge.kernelbench import spec_message as kernelbench_message

        return kernelbench_message(spec)
    if getattr(spec, "shipped", False):
        from judge.challenge.shipped import signature_message

        return signature_message(spec)
    return {"text": spec.text, "source": spec.path, "variant": spec.name if spec.variant_of else None}


def spec_from_message(message: dict):
    if message.get("kind") == "kernelbench":
        from judge.challenge.kernelbench import spec_from_message as kernelbench_spec

        return kernelbench_spec(message)
    if message.get("kind") == "shipped":
        from judge.challenge.shipped import signature_from_message

        return signature_from_message(message)
    from judge.challenge.spec import parse_spec

    return parse_spec(message["text"], message["source"], variant=message.get("variant"))
