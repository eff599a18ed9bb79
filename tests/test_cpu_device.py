"""CPU mode's device mapping (judge/worker/cpu_device.py): a solution that names the GPU gets the CPU."""

from __future__ import annotations

import pytest
import torch

from judge.worker.cpu_device import CudaOnCpu


def test_every_way_of_naming_the_gpu_gives_the_cpu_and_is_counted():
    x = torch.ones(3)
    with CudaOnCpu() as mode:
        made = [torch.zeros(3, device="cuda"), torch.full((2,), 1.0, device=torch.device("cuda", 0)),
                torch.empty_like(x, device="cuda:0"), x.new_zeros(4, device="cuda"), torch.arange(5, device="cuda"),
                torch.tensor([1, 2], device="cuda"), x.cuda(), x.to("cuda"), x.to(device="cuda"),
                x.to(torch.device("cuda"), non_blocking=True), x.to(0), torch.zeros(2, device=0)]
        assert all(t.device.type == "cpu" for t in made)
        assert mode.count == len(made)
        assert x.to(torch.float64).dtype == torch.float64 and (x + 1).device.type == "cpu"
        assert mode.count == len(made)  # what names no GPU is neither changed nor counted
    assert torch.zeros(1, device="cpu").device.type == "cpu"


def test_outside_the_mode_the_gpu_is_the_gpu():
    if torch.cuda.is_available():
        return  # nothing to show where there is one
    with CudaOnCpu():
        pass
    try:
        torch.zeros(1, device="cuda")
    except (AssertionError, RuntimeError) as exc:
        assert "CUDA" in str(exc)
    else:
        raise AssertionError("torch made a CUDA tensor without CUDA")


def test_torch_cuda_stand_ins_answer_for_the_cpu_and_are_recorded_and_removed():
    """CudaStandIns (installed by the worker in CPU mode only): the common torch.cuda calls answer for the CPU,
    the ones called are recorded for the run's note, and uninstall puts torch's own back."""
    from judge.worker import session
    from judge.worker.cpu_device import CPU_SM_COUNT, STAND_IN_NAMES, CudaStandIns, stand_ins_note

    real = {name: getattr(torch.cuda, name) for name in STAND_IN_NAMES}
    bound = (session._Event, session._synchronize)
    stand_ins = CudaStandIns().install()
    try:
        assert torch.cuda.is_available() and torch.cuda.device_count() == 1 and torch.cuda.current_device() == 0
        props = torch.cuda.get_device_properties(0)
        assert props.multi_processor_count == CPU_SM_COUNT and props.total_memory > 0 and props.major == 0
        with pytest.raises(AttributeError, match="CPU mode has no 'uuid'"):
            props.uuid  # noqa: B018
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        end.record(torch.cuda.current_stream())
        torch.cuda.synchronize()
        assert 0.0 <= begin.elapsed_time(end) < 1e3 and end.query()
        with pytest.raises(RuntimeError, match="enable_timing"):
            torch.cuda.Event().elapsed_time(end)
        assert isinstance(torch.cuda.current_stream(), torch.cuda.Stream)
        assert stand_ins.used == {"is_available", "device_count", "current_device", "get_device_properties",
                                  "Event", "current_stream", "synchronize"}
        assert "multi_processor_count=4" in stand_ins_note(stand_ins.used)
    finally:
        stand_ins.uninstall()
    assert all(getattr(torch.cuda, name) is function for name, function in real.items())
    assert (session._Event, session._synchronize) == bound  # the judge's own references were never the stand-ins
