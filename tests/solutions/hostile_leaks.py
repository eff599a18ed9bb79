# Correct, but leaves behind everything a process can leave on a GPU: memory it never
# frees (256 MiB a call, kept in a global), a captured CUDA graph, a new stream per
# call, and a CUDA IPC handle of one of its tensors.  All of it dies with the worker:
# the next submission on that GPU must be judged exactly as it would be alone.
import torch

hoard = []


def solve(input, output, rows, cols):
    output.copy_(input.T)
    if len(hoard) < 32:
        hoard.append(torch.empty(256 * 1024**2, dtype=torch.uint8, device=input.device))
    stream = torch.cuda.Stream()
    hoard.append(stream)
    if len(hoard) < 40:
        static = torch.zeros(1024, device=input.device)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            static.add_(1)  # warm-up on the side stream, as capture requires
            stream.synchronize()
            with torch.cuda.graph(graph, stream=stream):
                static.mul_(2)
        hoard.append((graph, static))
        try:  # an IPC handle, never closed (the sandbox denies the /dev/shm file torch keeps for it)
            hoard.append(static.untyped_storage()._share_cuda_())
        except RuntimeError:
            pass
    torch.cuda.current_stream().wait_stream(stream)
