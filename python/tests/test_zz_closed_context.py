"""The last module pytest runs (sorted names): closes the session's context on every rank,
then checks that calls on it raise instead of crashing."""

import numpy as np
import pytest

import weft
from weft import DeviceMesh, Layout, Replicate, Shard

from conftest import block_of


def test_closed_context(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (8, 4), np.float32, [Shard(0)])
    dst = Layout(mesh, (8, 4), np.float32, [Replicate()])
    plan = weft.Plan(src, dst)
    ctx.close()
    assert ctx.closed and "closed" in repr(ctx)
    with pytest.raises(weft.InvalidArgumentError, match="closed"):
        DeviceMesh(ctx, (1,))
    with pytest.raises(weft.InvalidArgumentError, match="closed"):
        ctx.backend
    with pytest.raises(weft.WeftError):
        plan.execute(block_of(src))
    with pytest.raises(weft.WeftError):
        weft.redistribute(block_of(src), src, dst)
    ctx.close()  # idempotent
