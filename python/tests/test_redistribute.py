"""Redistribute over the launch's world: each rank checks its block against the formula."""

import itertools

import numpy as np
import pytest

import weft
from weft import DeviceMesh, Layout, Partial, Replicate, Shard

from conftest import block_of


def meshes(ctx):
    """A 1-D mesh of the world, and a 2x2 one when the world has 4 ranks."""
    out = [DeviceMesh(ctx, (ctx.world_size,), ("x",))]
    if ctx.world_size == 4:
        out.append(DeviceMesh(ctx, (2, 2), ("dp", "tp")))
    return out


def placement_choices(ndim_tensor):
    return [Replicate()] + [Shard(d) for d in range(ndim_tensor)]


@pytest.mark.parametrize("shape", [(7, 5), (3, 10)])
def test_every_placement_pair(ctx, shape):
    for mesh in meshes(ctx):
        choices = list(itertools.product(placement_choices(len(shape)), repeat=mesh.ndim))
        for src_p, dst_p in itertools.product(choices, choices):
            src = Layout(mesh, shape, np.float64, list(src_p))
            dst = Layout(mesh, shape, np.float64, list(dst_p))
            out = weft.redistribute(block_of(src), src, dst)
            np.testing.assert_array_equal(out, block_of(dst), err_msg=f"{src_p} -> {dst_p}")


@pytest.mark.parametrize("op", ["sum", "max"])
def test_partial_to_replicate_and_shard(ctx, op):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    k, c = ctx.world_size, mesh.coordinate()[0]
    src = Layout(mesh, (9, 4), np.int64, [Partial(op)])
    f = block_of(src)
    # sum: the contributions (c + 1) * f add up to f * k (k + 1) / 2; max: f on coordinate 0.
    mine = f * (c + 1) if op == "sum" else f - c
    scale = k * (k + 1) // 2 if op == "sum" else 1
    for dst_p in (Replicate(), Shard(0), Shard(1)):
        dst = Layout(mesh, (9, 4), np.int64, [dst_p])
        out = weft.redistribute(mine, src, dst)
        np.testing.assert_array_equal(out, block_of(dst) * scale)


def test_plan_executes_many_times_and_async(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (11, 3), np.int32, [Shard(0)])
    dst = Layout(mesh, (11, 3), np.int32, [Shard(1)])
    plan = weft.Plan(src, dst)
    assert plan.describe()
    assert plan.stats().steps >= (0 if ctx.world_size == 1 else 1)
    out = dst.empty()
    for i in range(3):
        assert plan.execute(block_of(src) * (i + 1), out) is out
        np.testing.assert_array_equal(out, block_of(dst) * (i + 1))
    work = plan.execute(block_of(src), async_op=True)
    assert isinstance(work, weft.Work)
    result = work.wait()
    np.testing.assert_array_equal(result, block_of(dst))
    assert work.is_completed()
    one_shot = weft.redistribute(block_of(src), src, dst, async_op=True)
    np.testing.assert_array_equal(one_shot.wait(), block_of(dst))


def test_strided_views_in_and_out(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (8, 8), np.float32, [Shard(1)])
    dst = Layout(mesh, (8, 8), np.float32, [Shard(0)])
    # Input: every other column of a wider array; output: a transposed view.
    x = block_of(src)
    wide = np.zeros((x.shape[0], 2 * x.shape[1]), np.float32)
    wide[:, ::2] = x
    backing = np.zeros(dst.local_shape()[::-1], np.float32)
    out = backing.T
    assert not out.flags.c_contiguous
    weft.redistribute(wide[:, ::2], src, dst, out)
    np.testing.assert_array_equal(out, block_of(dst))


def test_batched_plan(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    a_src = Layout(mesh, (9, 2), np.float32, [Shard(0)])
    a_dst = Layout(mesh, (9, 2), np.float32, [Replicate()])
    b_src = Layout(mesh, (5,), np.int64, [Shard(0)])
    b_dst = Layout(mesh, (5,), np.int64, [Replicate()])
    plan = weft.Plan.batched([(a_src, a_dst), (b_src, b_dst)])
    outs = plan.execute_n([block_of(a_src), block_of(b_src)])
    np.testing.assert_array_equal(outs[0], block_of(a_dst))
    np.testing.assert_array_equal(outs[1], block_of(b_dst))
    work = plan.execute_n([block_of(a_src), block_of(b_src)], async_op=True)
    outs = work.wait()
    np.testing.assert_array_equal(outs[1], block_of(b_dst))


def test_cross_mesh_plan(ctx):
    n = ctx.world_size
    if n < 2:
        pytest.skip("a cross-mesh plan between two halves needs 2 ranks")
    lo = DeviceMesh(ctx, (n // 2,), ranks=list(range(n // 2)))
    hi = DeviceMesh(ctx, (n - n // 2,), ranks=list(range(n // 2, n)))
    src = Layout(lo, (10, 3), np.float64, [Shard(0)])
    dst = Layout(hi, (10, 3), np.float64, [Shard(1)])
    plan = weft.Plan(src, dst)
    x = block_of(src) if lo.holds_self() else None
    out = plan.execute(x)
    if hi.holds_self():
        np.testing.assert_array_equal(out, block_of(dst))
    else:
        assert out is None


def test_ragged_layouts(ctx):
    n = ctx.world_size
    mesh = DeviceMesh(ctx, (n,))
    split = [0] * n
    split[-1] = 4
    split[0] += 3
    src = Layout(mesh, (7, 2), np.float64, [Shard(0, split=split)])
    dst = Layout(mesh, (7, 2), np.float64, [Shard(1)])
    out = weft.redistribute(block_of(src), src, dst)
    np.testing.assert_array_equal(out, block_of(dst))
    back = weft.redistribute(out, dst, src)
    np.testing.assert_array_equal(back, block_of(src))


class Producer:
    """A DLPack producer that is not a NumPy array (as a torch CPU tensor would be)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_both_ways(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (6, 5), np.int16, [Shard(0)])
    dst = Layout(mesh, (6, 5), np.int16, [Shard(1)])
    out_backing = dst.empty()
    # In and out through DLPack capsules, written in place (zero copy).
    result = weft.redistribute(Producer(block_of(src)), src, dst, Producer(out_backing))
    assert isinstance(result, Producer)
    np.testing.assert_array_equal(out_backing, block_of(dst))
    # And out again: the result is a NumPy array any DLPack consumer takes without a copy.
    plain = weft.redistribute(block_of(src), src, dst)
    again = np.from_dlpack(plain)
    assert again.__array_interface__["data"][0] == plain.__array_interface__["data"][0]


@pytest.mark.parametrize("placement", [Shard(1), Partial("sum"), Partial("prod"), Partial("max"),
                                       Partial("avg")])
def test_distribute_then_replicate(ctx, placement):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (3, 5), np.float64, [placement])
    dst = Layout(mesh, (3, 5), np.float64, [Replicate()])
    full = block_of(dst)
    np.testing.assert_array_equal(weft.redistribute(src.distribute(full), src, dst), full)


def test_threads_share_layouts(ctx):
    # The hot path reuses one DLTensor per thread: threads running the same layouts at once
    # must each move their own buffers. One rank: several threads' collectives would not match.
    if ctx.world_size != 1:
        pytest.skip("one rank only")
    import threading

    mesh = DeviceMesh(ctx, (1,))
    src = Layout(mesh, (64, 32), np.float64, [Shard(0)])
    dst = Layout(mesh, (64, 32), np.float64, [Shard(1)])
    errors = []

    def worker(k: int) -> None:
        for i in range(200):
            x = np.full((64, 32), k * 1000 + i, np.float64)
            if not (weft.redistribute(x, src, dst) == x).all():
                errors.append((k, i))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
