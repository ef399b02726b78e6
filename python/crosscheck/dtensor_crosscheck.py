"""Weft against PyTorch DTensor on the same inputs (issue 25 item 4).

    weftrun -n 4 --backend gloo python crosscheck/dtensor_crosscheck.py [--pairs 120]

Every rank builds the same random cases (seeded): a mesh (1-D of the world; 2-D 2x2 on 4
ranks), an uneven global shape, a source and a destination placement list. The same local
blocks go into DTensor.redistribute (torch's gloo process group) and weft.torch.redistribute
(Weft over the launch's backend), and the local results are compared element by element.
Outcomes: equal; equal only after reducing a Partial destination (the two pick different but
valid conjugates: documented, not a bug); torch refuses the pair; mismatch (a bug: exit 1).
"""

import argparse
import logging
import sys
from collections import Counter

import numpy as np
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor

import weft
import weft.torch as wt

OPS = ("sum", "max", "min", "avg")



def random_placements(rng, ndim_mesh, ndim_tensor, ops=OPS):
    out = []
    for _ in range(ndim_mesh):
        k = rng.integers(0, 3 if ops else 2)
        if k == 0:
            out.append(weft.Replicate())
        elif k == 1:
            out.append(weft.Shard(int(rng.integers(0, ndim_tensor))))
        else:
            out.append(weft.Partial(ops[int(rng.integers(0, len(ops)))]))
    partial_ops = {p.reduce_op for p in out if isinstance(p, weft.Partial)}
    if len(partial_ops) > 1:  # mixed Partial ops on one layout: neither side takes them
        out = [weft.Replicate() if isinstance(p, weft.Partial) else p for p in out]
    return out


def one_case(ctx, wmesh, tmesh, rng, verbose=False):
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(1, 8)) for _ in range(ndim))
    src_p = random_placements(rng, wmesh.ndim, ndim)
    # Destinations: Shard and Replicate, and the Partials torch's redistribute accepts (it
    # refuses any other: "only Shard to Partial(sum) redistribution is supported"): keeping a
    # source Partial, or Shard -> Partial(sum) where no other op is partial.
    dst_p = random_placements(rng, wmesh.ndim, ndim, ())
    for i, p in enumerate(src_p):
        if rng.random() < 0.3:
            others = {q.reduce_op for j, q in enumerate(dst_p) if j != i
                      and isinstance(q, weft.Partial)}
            if isinstance(p, weft.Partial) and others <= {p.reduce_op}:
                dst_p[i] = p
            elif isinstance(p, weft.Shard) and others <= {"sum"}:
                dst_p[i] = weft.Partial("sum")
    src = weft.Layout(wmesh, shape, np.float64, src_p)
    full = np.arange(1, np.prod(shape) + 1, dtype=np.float64).reshape(shape)
    local = torch.from_numpy(src.distribute(full))
    if verbose:
        print(f"case {wmesh.shape} {shape} {src_p} -> {dst_p}", flush=True)
    stride = torch.empty(shape).stride()
    tsrc = [wt.to_torch_placement(p) for p in src_p]
    tdst = [wt.to_torch_placement(p) for p in dst_p]
    x = DTensor.from_local(local, tmesh, tsrc, run_check=False, shape=torch.Size(shape),
                           stride=stride)
    try:
        t_out = x.redistribute(tmesh, tdst)
    except Exception as e:  # every rank plans alike, so every rank refuses alike
        if verbose:
            print(f"torch refused: {e}", flush=True)
        return "torch refuses", f"{src_p} -> {dst_p}: {type(e).__name__}"
    if verbose:
        print("torch done", flush=True)
    w_out = wt.redistribute(ctx, x, tdst)
    a, b = t_out.to_local(), w_out.to_local()
    same_shape = a.shape == b.shape
    if any(isinstance(p, weft.Partial) for p in dst_p):
        # Decided from the placements alone, so that every rank joins the full_tensor
        # collectives (a data-dependent choice would leave some ranks waiting).
        fa, fb = t_out.full_tensor(), w_out.full_tensor()
        if same_shape and torch.equal(a, b):
            return "equal", None
        if torch.allclose(fa, fb, rtol=1e-12, atol=0):
            return ("equal after reduction (Partial conjugates differ)",
                    f"{shape} {src_p} -> {dst_p}")
    elif same_shape and torch.equal(a, b):
        return "equal", None
    elif same_shape and torch.allclose(a, b, rtol=1e-12, atol=0):
        return "within 1e-12 (avg rounding)", None
    return "MISMATCH", f"{shape} {src_p} -> {dst_p}: torch {a.flatten()[:8]} weft {b.flatten()[:8]}"

def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=120, help="cases per mesh")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--verbose", action="store_true", help="print every case first")
    args = parser.parse_args()
    # torch's advice (gloo lacks all-to-all; flatten mesh dims) on every case drowns the result.
    logging.getLogger("torch").setLevel(logging.ERROR)
    with weft.Context() as ctx:
        wt.init_process_group(ctx)
        shapes = [(ctx.world_size,)] + ([(2, 2)] if ctx.world_size == 4 else [])
        outcomes, notes = Counter(), []
        rng = np.random.default_rng(args.seed)
        for mshape in shapes:
            tmesh = init_device_mesh("cpu", mshape)
            wmesh = wt.weft_mesh(ctx, tmesh)
            for _ in range(args.pairs):
                kind, note = one_case(ctx, wmesh, tmesh, rng, args.verbose)
                outcomes[f"{mshape} {kind}"] += 1
                if note and (kind == "MISMATCH" or len(notes) < 5):
                    notes.append(f"{kind}: {note}")
        dist.destroy_process_group()
    if ctx.rank == 0 or any("MISMATCH" in k for k in outcomes):
        print(f"rank {ctx.rank}: " + "; ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())))
        for n in notes:
            print(f"rank {ctx.rank}:   {n}")
    return 1 if any("MISMATCH" in k for k in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
