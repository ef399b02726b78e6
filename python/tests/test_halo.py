"""Halo exchange and its adjoint over the launch's world, against the periodic formula."""

import numpy as np

import weft
from weft import DeviceMesh, HaloDim, HaloPlan, Layout, Partial, Replicate, Shard

from conftest import block_of, global_values


def world_sum(ctx, value: float) -> float:
    """The sum of one float over every rank: a Partial(sum) -> Replicate redistribute."""
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (1,), np.float64, [Partial("sum")])
    dst = Layout(mesh, (1,), np.float64, [Replicate()])
    return float(weft.redistribute(np.array([value]), src, dst)[0])


def test_periodic_exchange(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    layout = Layout(mesh, (9, 3), np.float64, [Shard(0)])
    plan = HaloPlan(layout, [HaloDim(0, lo=2, hi=1, pad_lo=2, pad_hi=1, boundary="periodic")])
    shape, origin = plan.padded_shape()
    padded = plan.exchange(block_of(layout))
    assert padded.shape == shape
    rows = (np.arange(shape[0]) + origin[0]) % 9
    idx = np.meshgrid(rows, np.arange(3), indexing="ij")
    np.testing.assert_array_equal(padded, global_values(tuple(idx), (9, 3)))
    assert plan.describe() and plan.stats().steps >= 0


def test_inplace_and_async_exchange(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    layout = Layout(mesh, (12,), np.int32, [Shard(0)])
    plan = HaloPlan(layout, [HaloDim(0, lo=1, hi=1, pad_lo=1, pad_hi=1, boundary="constant")],
                    constant=-7)
    shape, origin = plan.padded_shape()
    rows = range(origin[0], origin[0] + shape[0])
    expected = np.array([v + 1 if 0 <= v < 12 else -7 for v in rows], np.int32)
    work = plan.exchange(block_of(layout), async_op=True)
    np.testing.assert_array_equal(work.wait(), expected)
    padded = np.zeros(shape, np.int32)
    own = layout.local_offset()[0] - origin[0]
    padded[own:own + layout.local_shape()[0]] = block_of(layout)
    plan.exchange_inplace(padded)
    np.testing.assert_array_equal(padded, expected)


def test_accumulate_is_the_adjoint(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    layout = Layout(mesh, (10, 2), np.float64, [Shard(0)])
    plan = HaloPlan(layout, [HaloDim(0, lo=1, hi=2, pad_lo=1, pad_hi=1, boundary="reflect")],
                    deterministic=True)
    rng = np.random.default_rng(7 + ctx.rank)
    x = rng.integers(-4, 5, layout.local_shape()).astype(np.float64)
    y = rng.integers(-4, 5, plan.padded_shape()[0]).astype(np.float64)
    ex = plan.exchange(x)
    acc = plan.accumulate(y)
    # <exchange(x), y> = <x, accumulate(y)> summed over the ranks (small integers: exact).
    assert world_sum(ctx, float((ex * y).sum())) == world_sum(ctx, float((x * acc).sum()))
    again = plan.accumulate(y, acc.copy(), add=True)
    np.testing.assert_array_equal(again, 2 * acc)


def test_windows_feed_an_explicit_halo(ctx):
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    layout = Layout(mesh, (11,), np.float32, [Shard(0)])
    w = weft.derive_windows(layout, 0, weft.WindowOp("conv", kernel=3, stride=2, pad_lo=1,
                                                      pad_hi=1))
    flat = [v for pair in w.windows for v in pair]
    plan = HaloPlan(layout, [HaloDim(0, pad_lo=1, pad_hi=1, boundary="constant", windows=flat)])
    padded = plan.exchange(block_of(layout))
    begin, end = w.windows[mesh.coordinate()[0]]
    expected = [v + 1 if 0 <= v < 11 else 0 for v in range(begin, end)]
    np.testing.assert_array_equal(padded, np.array(expected, np.float32))
    out = Layout(mesh, (w.out_extent,), np.float32, [Shard(0, split=w.out_sizes)])
    assert sum(out.local_shape(r)[0] for r in range(ctx.world_size)) == w.out_extent
