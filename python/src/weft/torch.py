"""PyTorch DTensor interop: a DTensor's (mesh, placements) as a Weft layout and back, and a
DTensor redistributed by Weft.

    import weft, weft.torch
    ctx = weft.Context()
    y = weft.torch.redistribute(ctx, x_dtensor, [Replicate()])   # a DTensor, moved by Weft

Weft's chunk rule is torch.chunk's, and both keep uneven shards unpadded, so a DTensor's local
tensor is exactly Weft's block: nothing is copied on the way in (DLPack) or out (from_dlpack).
Torch is imported only when this module is.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import torch
from torch.distributed.tensor import DTensor
from torch.distributed.tensor import Partial as TPartial
from torch.distributed.tensor import Replicate as TReplicate
from torch.distributed.tensor import Shard as TShard

from .context import Context
from .errors import UnsupportedError
from .layout import Layout
from .mesh import DeviceMesh
from .placement import Partial, Placement, Replicate, Shard
from .plan import redistribute as weft_redistribute

_MESHES: Dict[Tuple[int, Tuple[int, ...], Tuple[int, ...]], DeviceMesh] = {}


def init_process_group(ctx: Context, backend: str = "gloo") -> None:
    """Starts torch.distributed on Weft's ranks: rank 0's free loopback port reaches every rank
    through a Weft all-reduce, so no MASTER_ADDR/MASTER_PORT is needed (one host only)."""
    import socket

    import torch.distributed as dist

    port = 0
    if ctx.rank == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    mesh = DeviceMesh(ctx, (ctx.world_size,))
    src = Layout(mesh, (1,), np.int64, [Partial("sum")])
    dst = Layout(mesh, (1,), np.int64, [Replicate()])
    port = int(weft_redistribute(np.array([port]), src, dst)[0])
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=ctx.rank,
                            world_size=ctx.world_size)


def to_weft_placement(p: Any) -> Placement:
    """torch's Shard(d) / Replicate() / Partial(op) as Weft's (strided shards are refused)."""
    if type(p) is TShard:
        return Shard(p.dim)
    if isinstance(p, TReplicate):
        return Replicate()
    if type(p) is TPartial and p.reduce_op in ("sum", "avg", "max", "min", "prod"):
        return Partial(p.reduce_op)
    raise UnsupportedError(-3, f"the DTensor placement {p!r} has no Weft equivalent")


def to_torch_placement(p: Placement) -> Any:
    if isinstance(p, Shard):
        return TShard(p.dim)
    if isinstance(p, Partial):
        return TPartial(p.reduce_op)
    return TReplicate()


def weft_mesh(ctx: Context, mesh: Any) -> DeviceMesh:
    """The Weft mesh over the same ranks as a torch DeviceMesh (cached per context)."""
    ranks = tuple(int(r) for r in mesh.mesh.flatten().tolist())
    key = (id(ctx), tuple(mesh.mesh.shape), ranks)
    found = _MESHES.get(key)
    if found is None or found.context is not ctx:
        names = mesh.mesh_dim_names
        found = DeviceMesh(ctx, tuple(mesh.mesh.shape), None if names is None else list(names),
                           list(ranks))
        _MESHES[key] = found
    return found


def numpy_dtype(dtype: torch.dtype) -> np.dtype:
    return torch.empty(0, dtype=dtype).numpy().dtype


def layout_of(ctx: Context, mesh: Any, placements: Sequence[Any], shape: Sequence[int],
              dtype: torch.dtype) -> Layout:
    """The Weft layout of a DTensor spec (torch mesh, torch placements, global shape, dtype)."""
    return Layout(weft_mesh(ctx, mesh), tuple(shape), numpy_dtype(dtype),
                  [to_weft_placement(p) for p in placements])


def layout_from_dtensor(ctx: Context, x: DTensor) -> Layout:
    return layout_of(ctx, x.device_mesh, x.placements, x.shape, x.dtype)


def placements_of(layout: Layout) -> List[Any]:
    """A Weft layout's placements as torch's (ragged splits have no DTensor equivalent)."""
    return [to_torch_placement(p) for p in layout.placements]


def redistribute(ctx: Context, x: DTensor, placements: Sequence[Any]) -> DTensor:
    """x moved to `placements` by Weft (collective over x's mesh), as a new DTensor."""
    src = layout_from_dtensor(ctx, x)
    dst = layout_of(ctx, x.device_mesh, placements, x.shape, x.dtype)
    local = x.to_local()
    if not local.is_contiguous():
        local = local.contiguous()
    # CUDA tensors (nccl backend): on torch's current stream, into a tensor on the same device,
    # so that the result is ordered like any torch op's, with no host synchronisation.
    stream = torch.cuda.current_stream(local.device) if local.is_cuda else None
    out = weft_redistribute(local.detach(), src, dst, stream=stream)
    if not isinstance(out, torch.Tensor):
        out = torch.from_dlpack(out)
    return DTensor.from_local(out, x.device_mesh, list(placements), run_check=False,
                              shape=x.shape, stride=x.stride())
