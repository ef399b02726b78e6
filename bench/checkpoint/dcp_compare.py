#!/usr/bin/env python3
"""PyTorch DCP on the tensors ckpt_bench saves and loads (issue 27 item 7), for the same run.

Under weftrun with a Python that has torch, e.g. (scripts/ckpt-vs-dcp.sh runs both):

    weftrun -n 4 --backend gloo python3 bench/checkpoint/dcp_compare.py DIR [total_mib] [tensors]

Each rank holds 1/world of `tensors` float32 tensors [rows, 1024] as DTensors [Shard(0)] on a
1-D CPU mesh over gloo (torch.distributed started through weft.torch.init_process_group).
torch.distributed.checkpoint.save writes them; loads read them back into Shard(0) and into
Shard(1) DTensors (resharding). Pages are dropped from the cache before each load
(fsync + POSIX_FADV_DONTNEED on every file), times run from a barrier to a barrier (the
slowest rank), each figure the median of 3 repetitions; rank 0 prints GiB/s as ckpt_bench
does, so the two outputs line up.
"""
import os
import shutil
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Shard

import weft
import weft.torch as wt


def drop_cache(path):
    for root, _, files in os.walk(path):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)


def timed(fn):
    dist.barrier()
    t0 = time.perf_counter()
    fn()
    dist.barrier()
    return time.perf_counter() - t0


def state(mesh, n, rows, cols, placement, fill):
    rank, world = dist.get_rank(), dist.get_world_size()
    out = {}
    for k in range(n):
        if placement == 0:
            local = torch.empty(rows // world, cols)
        else:
            local = torch.empty(rows, cols // world)
        if fill:
            local.copy_(torch.arange(local.numel(), dtype=torch.float32).view_as(local) + k + rank)
        out[f"t{k}"] = DTensor.from_local(local, mesh, [Shard(placement)], run_check=False)
    return out


def main():
    path = sys.argv[1] + "/dcp"
    total_mib = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    ctx = weft.Context()
    wt.init_process_group(ctx, "gloo")
    world = dist.get_world_size()
    mesh = init_device_mesh("cpu", (world,))
    cols = 1024
    rows = total_mib * 1024 * 1024 // 4 // cols // n // world * world
    nbytes = n * rows * cols * 4
    saved = state(mesh, n, rows, cols, 0, True)
    runs = {"save": [], "S0": [], "S1": []}
    for _ in range(3):
        if dist.get_rank() == 0 and os.path.exists(path):
            shutil.rmtree(path)
        dist.barrier()
        runs["save"].append(timed(lambda: dcp.save(saved, checkpoint_id=path)))
        for name, placement in (("S0", 0), ("S1", 1)):
            target = state(mesh, n, rows, cols, placement, False)
            drop_cache(path)
            runs[name].append(timed(lambda: dcp.load(target, checkpoint_id=path)))
        # Spot check: the loaded S1 slab of tensor 0 holds what was saved there.
        whole = saved["t0"].full_tensor()
        got = target["t0"].to_local()
        c = got.shape[1]
        assert torch.equal(got, whole[:, dist.get_rank() * c:(dist.get_rank() + 1) * c])
    if dist.get_rank() == 0:
        gib = nbytes / 2**30
        print(f"dcp_compare: {world} ranks, {n} tensors, {gib:.2f} GiB (torch {torch.__version__})")
        print(f"  dcp save           {gib / statistics.median(runs['save']):5.2f} GiB/s")
        print(f"  dcp load S0->S0    {gib / statistics.median(runs['S0']):5.2f} GiB/s")
        print(f"  dcp load S0->S1    {gib / statistics.median(runs['S1']):5.2f} GiB/s")
    dist.barrier()
    if dist.get_rank() == 0:
        shutil.rmtree(path, ignore_errors=True)
    dist.destroy_process_group()
    ctx.close()  # a rank leaving without it looks like a failure to the others


if __name__ == "__main__":
    main()
