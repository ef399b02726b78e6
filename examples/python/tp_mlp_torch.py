"""A tensor-parallel MLP in PyTorch whose layout moves all go through Weft.

    weftrun -n 4 python3 examples/python/tp_mlp_torch.py     (needs torch; no process group)

y = relu(x @ w1) @ w2 on a 1-D mesh: every operator asks weft.propagate for its strategy (the
layouts its inputs must have and its outputs' layouts), the inputs are brought there with
weft.redistribute (torch tensors in and out through DLPack, no copies), and the local kernel
is plain torch. Each rank checks its block of y against the same MLP run on one process.
"""

from typing import Callable, Sequence, Tuple

import numpy as np
import torch

import weft

Block = Tuple[torch.Tensor, weft.Layout]


def run_op(op: str, kernel: Callable[..., torch.Tensor], *inputs: Block) -> Block:
    """One operator, the way a framework would run it on sharded tensors."""
    strategy = weft.propagate(op, *[layout for _, layout in inputs])
    moved = []
    for (t, have), want in zip(inputs, strategy.input_layouts):
        if have != want:
            t = torch.from_dlpack(weft.redistribute(t.contiguous(), have, want))
        moved.append(t)
    return kernel(*moved), strategy.output_layouts[0]


def shard_of(full: torch.Tensor, layout: weft.Layout) -> torch.Tensor:
    """This rank's block of a tensor every rank can compute (the weights, from one seed)."""
    return torch.from_numpy(layout.distribute(full.numpy()))


def main() -> None:
    with weft.Context() as ctx:
        k = ctx.world_size
        mesh = weft.DeviceMesh(ctx, (k,), ("tp",))
        batch, d_model, hidden = 8, 16, 4 * k + 3  # hidden splits unevenly on purpose

        def layout(shape: Sequence[int], placement: weft.Placement) -> weft.Layout:
            return weft.Layout(mesh, shape, np.float64, [placement])

        gen = torch.Generator().manual_seed(25)
        x = torch.randn(batch, d_model, generator=gen, dtype=torch.float64)
        w1 = torch.randn(d_model, hidden, generator=gen, dtype=torch.float64)
        w2 = torch.randn(hidden, d_model, generator=gen, dtype=torch.float64)

        # Megatron's layouts: x arrives batch-sharded, w1 column- and w2 row-sharded.
        x_l = layout((batch, d_model), weft.Shard(0))
        w1_l = layout((d_model, hidden), weft.Shard(1))
        w2_l = layout((hidden, d_model), weft.Shard(0))
        xb, w1b, w2b = shard_of(x, x_l), shard_of(w1, w1_l), shard_of(w2, w2_l)

        h = run_op("matmul", torch.matmul, (xb, x_l), (w1b, w1_l))
        h = run_op("relu", torch.relu, h)
        y = run_op("matmul", torch.matmul, h, (w2b, w2_l))
        # Back to batch shards, as the next layer's input would arrive.
        y_l = layout((batch, d_model), weft.Shard(0))
        yb = torch.from_dlpack(weft.redistribute(y[0].contiguous(), y[1], y_l))

        expected = (torch.relu(x @ w1) @ w2)[y_l.local_slices()]
        err = (yb - expected).abs().max().item() if yb.numel() else 0.0
        print(f"rank {ctx.rank}: h {list(h[1].placements)}, y {list(y[1].placements)} -> "
              f"{list(y_l.placements)}; block {tuple(yb.shape)}, max error {err:.2e}", flush=True)
        assert err < 1e-12, err


if __name__ == "__main__":
    main()
