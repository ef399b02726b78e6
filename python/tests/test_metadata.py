"""Meshes, layouts, placements and rules: metadata only, no communication."""

import numpy as np
import pytest

import weft
from weft import DeviceMesh, Layout, Partial, Replicate, Shard


def chunk(n: int, k: int, i: int):
    """torch.chunk's piece i of n rows over k pieces: (size, offset)."""
    c = -(-n // k) if n else 0
    start = min(i * c, n)
    return min(c, n - start), start if min(c, n - start) > 0 else n


def test_versions():
    assert weft.abi_version() >> 16 == 1
    assert weft.version().startswith("1.")


def test_mesh_shape_names_coordinates():
    mesh = DeviceMesh(None, (2, 3), ("dp", "tp"))
    assert mesh.shape == (2, 3) and mesh.ndim == 2 and mesh.size() == 6
    assert mesh.dim_names == ("dp", "tp") and mesh.dim_index("tp") == 1
    assert mesh.size("tp") == 3
    for r in range(6):
        assert mesh.coordinate(r) == (r // 3, r % 3)
        assert mesh.rank_at((r // 3, r % 3)) == r
    assert mesh.group("tp", rank=4) == [3, 4, 5]
    assert mesh.group(0, rank=4) == [1, 4]
    assert not mesh.contains(6)


def test_sub_meshes_and_flatten():
    mesh = DeviceMesh(None, (2, 3), ("dp", "tp"), ranks=[5, 4, 3, 2, 1, 0])
    tp = mesh.slice(["tp"], rank=2)
    assert tp.shape == (3,) and tp.dim_names == ("tp",) and tp.group(0, rank=2) == [2, 1, 0]
    dp = mesh.slice([0], rank=2)
    assert dp.group(0, rank=2) == [5, 2]
    flat = mesh.flatten(name="all")
    assert flat.shape == (6,) and flat.dim_names == ("all",)
    assert flat.group(0, rank=0) == [5, 4, 3, 2, 1, 0]
    assert DeviceMesh(None, (2, 3)) == DeviceMesh(None, (2, 3), ("a", "b"))
    assert "dp" in mesh.describe()


@pytest.mark.parametrize("n,k", [(7, 2), (5, 4), (2, 4), (0, 3), (12, 4)])
def test_chunk_layout_matches_torch_chunk(n, k):
    mesh = DeviceMesh(None, (k,))
    layout = Layout(mesh, (n, 3), np.float32, [Shard(0)])
    for r in range(k):
        size, off = chunk(n, k, r)
        assert layout.local_shape(r) == (size, 3)
        assert layout.local_offset(r) == (off, 0)


def test_nested_and_ragged_layouts():
    mesh = DeviceMesh(None, (2, 2))
    nested = Layout(mesh, (10, 4), np.int32, [Shard(0), Shard(0)])
    # Mesh dim 0 outermost: chunk 10 -> [5, 5], then each half -> [3, 2].
    assert [nested.local_shape(r)[0] for r in range(4)] == [3, 2, 3, 2]
    assert [nested.local_offset(r)[0] for r in range(4)] == [0, 3, 5, 8]
    ragged = Layout(mesh, (6, 9), np.float64, [Replicate(), Shard(1, split=[0, 9])])
    assert ragged.split_sizes(1) == [0, 9]
    assert ragged.local_shape(0) == (6, 0) and ragged.local_offset(0) == (0, 9)
    assert ragged.local_shape(3) == (6, 9)
    assert ragged.placements == (Replicate(), Shard(1))
    assert ragged != Layout(mesh, (6, 9), np.float64, [Replicate(), Shard(1)])
    assert "explicit" in ragged.describe()


def test_layout_equality_and_metadata():
    mesh = DeviceMesh(None, (4,))
    a = Layout(mesh, (8,), np.float32, [Partial("max")])
    assert a == Layout(mesh, (8,), "float32", [Partial("max")])
    assert a.dtype == np.float32 and a.shape == (8,) and a.placements == (Partial("max"),)
    assert a.local_shape(9) == (0,)  # off the mesh


def test_bad_layouts_raise():
    mesh = DeviceMesh(None, (2,))
    with pytest.raises(weft.InvalidArgumentError, match="shards tensor dim 2"):
        Layout(mesh, (4, 4), np.float32, [Shard(2)])
    with pytest.raises(weft.InvalidArgumentError):
        Layout(mesh, (4,), np.int32, [Partial("avg")])
    with pytest.raises(weft.InvalidArgumentError, match="one per mesh dim"):
        Layout(mesh, (4,), np.float32, [Shard(0), Shard(0)])
    with pytest.raises(weft.InvalidArgumentError):
        Layout(mesh, (4,), np.float32, [Shard(0, split=[1, 2])])
    with pytest.raises(weft.InvalidArgumentError):
        Partial("mean")
    with pytest.raises(weft.InvalidArgumentError):
        DeviceMesh(None, (0,))
    with pytest.raises(weft.WeftError) as info:
        Layout(mesh, (-1,), np.float32, [Shard(0)])
    assert info.value.status == -1 and "weft_layout" in info.value.message


def test_plan_on_abstract_mesh_describes():
    mesh = DeviceMesh(None, (4,))
    src = Layout(mesh, (16, 4), np.float32, [Shard(0)])
    dst = Layout(mesh, (16, 4), np.float32, [Shard(1)])
    plan = weft.Plan(src, dst, rank=1)
    stats = plan.stats()
    assert stats.steps >= 1 and stats.send_bytes > 0
    assert "all" in plan.describe().lower()
    batched = weft.Plan.batched([(src, dst), (dst, src)], rank=0)
    assert batched.stats().steps >= 1


def test_propagate_matmul():
    mesh = DeviceMesh(None, (2,))
    x = Layout(mesh, (8, 6), np.float32, [Shard(0)])
    w = Layout(mesh, (6, 4), np.float32, [Replicate()])
    s = weft.propagate("mm", x, w)
    assert s.input_layouts[0].placements == (Shard(0),)
    assert s.output_layouts[0].placements == (Shard(0),)
    assert s.output_layouts[0].shape == (8, 4)
    assert s.cost >= 0 and s.describe()
    rules = weft.Rules()
    assert "matmul" in rules.ops()
    assert len(rules.enumerate("mm", x, w)) >= 1
    with pytest.raises(weft.InvalidArgumentError):
        rules.propagate("no_such_op", x)


def test_propagate_with_attributes():
    mesh = DeviceMesh(None, (2,))
    x = Layout(mesh, (8, 6), np.float32, [Shard(1)])
    rules = weft.Rules()
    rules.register_einsum("my_rowsum", "ij->i")
    s = rules.propagate("my_rowsum", x)
    assert s.output_layouts[0].shape == (8,)


def test_conv_strategy_hands_out_its_halo():
    mesh = DeviceMesh(None, (2, 2))
    x = Layout(mesh, (1, 8, 6, 2), np.float32, [Shard(1), Shard(2)])
    w = Layout(mesh, (4, 2, 3, 3), np.float32, [Replicate(), Replicate()])
    s = weft.propagate("conv2d", x, w, padding=[1], channels_last=True)
    assert s.input_layouts[0] == x
    dims, constant = s.input_halos[0]
    assert [d.dim for d in dims] == [1, 2] and constant == 0.0
    assert dims[0].windows == [-1, 5, -1, 5, 3, 9, 3, 9]
    assert s.input_halos[1] == ([], 0.0) and s.halo_plan(1) is None
    shape, origin = s.halo_plan(0, rank=3).padded_shape()
    assert shape == (1, 6, 5, 2) and origin == (0, 3, 2, 0)


def test_derive_windows_conv():
    mesh = DeviceMesh(None, (3,))
    layout = Layout(mesh, (9, 2), np.float32, [Shard(0)])
    w = weft.derive_windows(layout, 0, weft.WindowOp("conv", kernel=3, pad_lo=1, pad_hi=1))
    assert w.out_extent == 9 and w.out_sizes == [3, 3, 3]
    assert w.windows == [(-1, 4), (2, 7), (5, 10)]
