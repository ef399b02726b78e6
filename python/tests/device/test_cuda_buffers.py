"""CUDA buffers through the binding, without a GPU: run by the python_nccl_device launches on
the nccl backend over the fake NCCL and the fake CUDA runtime (tests/fakes), whose "device
memory" is host memory.

FakeCudaArray is a DLPack producer that says its memory is CUDA device 0 (as a torch CUDA tensor
does) over a NumPy array, and records the stream each __dlpack__ call was asked for. After the
device work is synchronised through the fake runtime, the test reads the NumPy array and checks
every element against the formula: what reaches the C ABI (device type, stream, strides) and
what comes back is the binding's, end to end.
"""

import ctypes
import os

import numpy as np
import pytest

import weft
from weft import DeviceMesh, HaloDim, HaloPlan, Layout, Partial, Replicate, Shard
from weft._lib import DLManagedTensor

from conftest import block_of, global_values

KDL_CUDA = 2

_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def runtime():
    """The CUDA runtime the nccl plugin and the device operations use (the fake one here)."""
    lib = ctypes.CDLL(os.environ["WEFT_CUDART_LIBRARY"], mode=ctypes.RTLD_GLOBAL)
    lib.cudaStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
    lib.cudaStreamDestroy.argtypes = [ctypes.c_void_p]
    return lib


def sync_device():
    assert runtime().cudaDeviceSynchronize() == 0


class FakeCudaArray:
    """A NumPy array presented through DLPack as CUDA device memory."""

    def __init__(self, a: np.ndarray, new_empty: bool = True):
        self.a = a
        self.streams = []
        if not new_empty:
            self.new_empty = None

    @property
    def shape(self):
        return self.a.shape

    def __dlpack_device__(self):
        return (KDL_CUDA, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        capsule = self.a.__dlpack__()
        managed = ctypes.cast(_get_pointer(capsule, b"dltensor"),
                              ctypes.POINTER(DLManagedTensor)).contents
        managed.dl_tensor.device.device_type = KDL_CUDA
        return capsule

    def new_empty(self, shape):
        return FakeCudaArray(np.empty(shape, self.a.dtype))


class Stream:
    """A stream of the fake runtime, shaped like torch.cuda.Stream (cuda_stream)."""

    def __init__(self):
        self.lib = runtime()
        handle = ctypes.c_void_p()
        assert self.lib.cudaStreamCreate(ctypes.byref(handle)) == 0
        self.cuda_stream = handle.value

    def synchronize(self):
        assert self.lib.cudaStreamSynchronize(self.cuda_stream) == 0

    def close(self):
        self.lib.cudaStreamDestroy(self.cuda_stream)


def test_the_launch_is_the_fake_device_one(ctx):
    assert ctx.backend == "nccl"
    assert os.environ.get("WEFT_TEST_DEVICE_BUFFERS") == "1"


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_redistribute_every_pair_on_the_legacy_stream(ctx, dtype):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    shape = (7, 5)
    for src_p in (Shard(0), Shard(1), Replicate()):
        for dst_p in (Shard(0), Shard(1), Replicate()):
            src = Layout(mesh, shape, dtype, [src_p])
            dst = Layout(mesh, shape, dtype, [dst_p])
            x = FakeCudaArray(block_of(src))
            out = weft.redistribute(x, src, dst)
            assert isinstance(out, FakeCudaArray)  # allocated where the input lives
            sync_device()
            np.testing.assert_array_equal(out.a, block_of(dst), err_msg=f"{src_p} -> {dst_p}")
            assert x.streams == [1] and out.streams == [1]  # DLPack's legacy default stream


def test_plan_on_a_stream_of_its_own_strided_output_and_async(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (11, 4), np.float64, [Shard(0)])
    dst = Layout(mesh, (11, 4), np.float64, [Shard(1)])
    plan = weft.Plan(src, dst)
    s = Stream()
    try:
        rows, cols = dst.local_shape()
        wide = np.full((rows, cols * 2 + 1), -1.0)
        out = FakeCudaArray(wide[:, ::2][:, :cols])  # a strided view: every other column
        x = FakeCudaArray(block_of(src))
        plan.execute(x, out, stream=s)
        s.synchronize()
        np.testing.assert_array_equal(out.a, block_of(dst))
        assert (wide[:, 1::2] == -1.0).all()  # nothing written between the columns
        assert x.streams == [s.cuda_stream] and out.streams == [s.cuda_stream]
        work = plan.execute(FakeCudaArray(block_of(src)), async_op=True, stream=s.cuda_stream)
        got = work.wait()
        s.synchronize()
        np.testing.assert_array_equal(got.a, block_of(dst))
    finally:
        del plan  # its device workspace is released on the stream it last ran on: first
        s.close()


@pytest.mark.parametrize("op", ["sum", "max", "avg"])
def test_partial_reduces_on_the_device(ctx, op):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    k, c = ctx.world_size, mesh.coordinate()[0]
    src = Layout(mesh, (6, 3), np.float64, [Partial(op)])
    f = block_of(src)
    mine = {"sum": f * (c + 1), "max": f - c, "avg": f * (c + 1)}[op]
    want = {"sum": f * (k * (k + 1) // 2), "max": f, "avg": f * (k + 1) / 2}[op]
    for dst_p in (Replicate(), Shard(0)):
        dst = Layout(mesh, (6, 3), np.float64, [dst_p])
        out = weft.redistribute(FakeCudaArray(mine), src, dst)
        sync_device()
        np.testing.assert_array_equal(out.a, want[dst.local_slices()], err_msg=f"{op} -> {dst_p}")


def test_batched_plan(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    pairs = [(Layout(mesh, (9, 2), np.int32, [Shard(0)]), Layout(mesh, (9, 2), np.int32,
                                                                   [Replicate()])),
             (Layout(mesh, (5, 6), np.float32, [Shard(1)]),
              Layout(mesh, (5, 6), np.float32, [Shard(0)]))]
    plan = weft.Plan.batched(pairs)
    outs = plan.execute_n([FakeCudaArray(block_of(s)) for s, _ in pairs])
    sync_device()
    for (_, d), o in zip(pairs, outs):
        np.testing.assert_array_equal(o.a, block_of(d))


def test_halo_exchange_and_accumulate(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    layout = Layout(mesh, (9, 3), np.float64, [Shard(0)])
    plan = HaloPlan(layout, [HaloDim(0, lo=2, hi=1, pad_lo=2, pad_hi=1, boundary="periodic")])
    shape, origin = plan.padded_shape()
    padded = plan.exchange(FakeCudaArray(block_of(layout)))
    sync_device()
    rows = (np.arange(shape[0]) + origin[0]) % 9
    idx = np.meshgrid(rows, np.arange(3), indexing="ij")
    np.testing.assert_array_equal(padded.a, global_values(tuple(idx), (9, 3)))
    # The adjoint of ones: global row g gets one for every padded row, on any rank, read from it.
    grad = plan.accumulate(FakeCudaArray(np.ones(shape)))
    sync_device()
    count = np.zeros(9)
    for q in range(ctx.world_size):
        q_shape, q_origin = plan.padded_shape(q)
        for p in range(q_shape[0]):
            count[(p + q_origin[0]) % 9] += 1
    want = np.repeat(count[layout.local_slices()[0]], 3).reshape(layout.local_shape())
    np.testing.assert_array_equal(grad.a, want)


def test_bad_device_inputs_raise(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (4, 4), np.float32, [Shard(0)])
    dst = Layout(mesh, (4, 4), np.float32, [Replicate()])
    with pytest.raises(weft.InvalidArgumentError, match="new_empty"):
        weft.redistribute(FakeCudaArray(block_of(src), new_empty=False), src, dst)
    with pytest.raises(weft.InvalidArgumentError, match="stream"):
        weft.redistribute(FakeCudaArray(block_of(src)), src, dst, stream="default")
    with pytest.raises(weft.InvalidArgumentError, match="shape"):
        weft.redistribute(FakeCudaArray(np.zeros((1, 1), np.float32)), src, dst)
    # Still usable afterwards: the checks above raised before any communication.
    out = weft.redistribute(FakeCudaArray(block_of(src)), src, dst)
    sync_device()
    np.testing.assert_array_equal(out.a, block_of(dst))
