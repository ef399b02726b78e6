"""DTensor's redistribute against Weft's on the same tensors, alternating, in one run.

    weftrun -n 2 --backend gloo python bench/python/dtensor_vs_weft.py [--sizes 1,4,16,64]
    weftrun -n 4 --backend ucx  python bench/python/dtensor_vs_weft.py

Torch runs over its gloo process group; Weft over the launch's backend (gloo or ucx), with a
plan made once. Patterns S0->R, P->S0, S0->S1, R->S0, P->R on a 1-D mesh, and on 4 ranks
[S0,S1]->[S1,S0] on 2x2. Each (pattern, size) times both, alternating, after a barrier, and
prints rank 0's medians and torch/weft (above 1: Weft is faster). Sizes are MiB of float32.
"""

import argparse
import logging
import statistics
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor

import weft
import weft.torch as wt

PATTERNS_1D = {
    "S0->R": ([weft.Shard(0)], [weft.Replicate()]),
    "P->S0": ([weft.Partial("sum")], [weft.Shard(0)]),
    "S0->S1": ([weft.Shard(0)], [weft.Shard(1)]),
    "R->S0": ([weft.Replicate()], [weft.Shard(0)]),
    "P->R": ([weft.Partial("sum")], [weft.Replicate()]),
}
PATTERNS_2D = {"[S0,S1]->[S1,S0]": ([weft.Shard(0), weft.Shard(1)],
                                    [weft.Shard(1), weft.Shard(0)])}



def time_pair(ctx, tmesh, src_p, dst_p, mib, iters):
    cols = 1024
    rows = max(mib * 1024 * 1024 // (4 * cols), 1)
    wmesh = wt.weft_mesh(ctx, tmesh)
    src = weft.Layout(wmesh, (rows, cols), np.float32, src_p)
    dst = weft.Layout(wmesh, (rows, cols), np.float32, dst_p)
    local = torch.from_numpy(src.distribute(np.ones((rows, cols), np.float32)))
    x = DTensor.from_local(local, tmesh, [wt.to_torch_placement(p) for p in src_p],
                           run_check=False, shape=torch.Size((rows, cols)), stride=(cols, 1))
    tdst = [wt.to_torch_placement(p) for p in dst_p]
    plan = weft.Plan(src, dst)
    out = dst.empty()
    arr = local.numpy()
    torch_t, weft_t = [], []
    for i in range(iters + 1):
        dist.barrier()
        t0 = time.perf_counter()
        x.redistribute(tmesh, tdst).to_local()
        t1 = time.perf_counter()
        dist.barrier()
        t2 = time.perf_counter()
        plan.execute(arr, out)
        t3 = time.perf_counter()
        if i:  # the first round warms both up (plans, connections)
            torch_t.append(t1 - t0)
            weft_t.append(t3 - t2)
    return statistics.median(torch_t), statistics.median(weft_t)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,4,16,64", help="MiB, comma-separated")
    parser.add_argument("--iters", type=int, default=10)
    args = parser.parse_args()
    logging.getLogger("torch").setLevel(logging.ERROR)
    with weft.Context() as ctx:
        wt.init_process_group(ctx)
        meshes = [((ctx.world_size,), PATTERNS_1D)]
        if ctx.world_size == 4:
            meshes.append(((2, 2), PATTERNS_2D))
        if ctx.rank == 0:
            print(f"{ctx.world_size} ranks, Weft over {ctx.backend}, torch over gloo; "
                  f"median of {args.iters}")
            print(f"{'pattern':18s} {'MiB':>4s} {'torch ms':>9s} {'weft ms':>9s} {'torch/weft':>10s}")
        for shape, patterns in meshes:
            tmesh = init_device_mesh("cpu", shape)
            for name, (src_p, dst_p) in patterns.items():
                for mib in (int(s) for s in args.sizes.split(",")):
                    t, w = time_pair(ctx, tmesh, src_p, dst_p, mib, args.iters)
                    if ctx.rank == 0:
                        print(f"{name:18s} {mib:4d} {t * 1e3:9.2f} {w * 1e3:9.2f} {t / w:10.2f}",
                              flush=True)
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
