"""The conventions every challenge shares, printed by ``judge show`` under each
statement (docs/writing-a-challenge.md repeats them).  Pure text."""

CONVENTIONS = """\
Conventions of every challenge:
- solve() receives the tensors (contiguous, row-major, on the device) and the sizes, writes its
  outputs in place and returns nothing; it must not change its inputs.
- Streams: solve() may launch work on streams of its own. The judge waits for the whole device
  (every stream) before each call and after it, before reading the outputs, so such work is judged
  on its results. Its time is the host clock's, not the CUDA events' (which see only the current
  stream), and the report says so; to be timed by the events, join your stream before returning:
  torch.cuda.current_stream().wait_stream(s)."""
