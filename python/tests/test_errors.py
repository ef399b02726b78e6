"""Bad inputs raise a WeftError subclass before anything is sent; nothing crashes."""

import numpy as np
import pytest

import weft
from weft import DeviceMesh, Layout, Replicate, Shard

from conftest import block_of


@pytest.fixture
def pair(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (8, 4), np.float32, [Shard(0)])
    dst = Layout(mesh, (8, 4), np.float32, [Replicate()])
    return src, dst


def test_wrong_dtype(pair):
    src, dst = pair
    with pytest.raises(weft.InvalidArgumentError, match="dtype"):
        weft.redistribute(block_of(src).astype(np.float64), src, dst)
    with pytest.raises(weft.InvalidArgumentError, match="dtype"):
        weft.redistribute(block_of(src), src, dst, np.zeros(dst.local_shape(), np.int32))
    with pytest.raises(weft.InvalidArgumentError, match="byte order"):
        weft.redistribute(block_of(src).astype(">f4"), src, dst)


def test_wrong_shape(pair):
    src, dst = pair
    with pytest.raises(weft.InvalidArgumentError, match="shape"):
        weft.redistribute(np.zeros((3, 3), np.float32), src, dst)
    plan = weft.Plan(src, dst)
    with pytest.raises(weft.InvalidArgumentError, match="shape"):
        plan.execute(block_of(src), np.zeros((8, 5), np.float32))


def test_unrepresentable_views(pair):
    src, dst = pair
    full = np.zeros((8, 4), np.float32)
    with pytest.raises(weft.InvalidArgumentError, match="stride"):
        weft.redistribute(block_of(src), src, dst, full[::-1])  # negative strides
    with pytest.raises(weft.InvalidArgumentError, match="read-only"):
        ro = np.zeros((8, 4), np.float32)
        ro.flags.writeable = False
        weft.redistribute(block_of(src), src, dst, ro)
    with pytest.raises(weft.InvalidArgumentError):
        weft.redistribute([[1.0]], src, dst)  # not an array


def test_bad_batched_and_halo_arguments(pair):
    src, dst = pair
    plan = weft.Plan.batched([(src, dst)])
    with pytest.raises(weft.InvalidArgumentError, match="1 tensors"):
        plan.execute_n([block_of(src), block_of(src)])
    with pytest.raises(weft.InvalidArgumentError, match="boundary"):
        weft.HaloPlan(src, [weft.HaloDim(0, lo=1, boundary="mirror")])
    with pytest.raises(weft.InvalidArgumentError):
        weft.HaloPlan(src, [weft.HaloDim(0, lo=1, hi=1, pad_lo=1, boundary="none")])


def test_the_context_still_works(pair):
    # None of the failures above reached the wire, so the context is healthy.
    src, dst = pair
    np.testing.assert_array_equal(weft.redistribute(block_of(src), src, dst), block_of(dst))
    assert pair[0].mesh.context.error()[0] == 0

