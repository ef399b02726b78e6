"""Weft from Python: a mesh, two layouts, and a redistribute of a NumPy array.

    weftrun -n 4 python3 examples/python/quickstart.py

Every rank builds its shard of a 6x5 tensor (value = 10 * row + column), moves it from
row shards to column shards with one call, and prints what it holds and where it sits.
"""

import numpy as np

import weft


def main() -> None:
    with weft.Context() as ctx:  # rank and world from weftrun, torchrun, mpirun or srun
        mesh = weft.DeviceMesh(ctx, (ctx.world_size,), ("x",))
        rows = weft.Layout(mesh, (6, 5), np.float32, [weft.Shard(0)])
        cols = weft.Layout(mesh, (6, 5), np.float32, [weft.Shard(1)])

        # This rank's block of the global tensor, from its global offset.
        r0, c0 = rows.local_offset()
        h, w = rows.local_shape()
        mine = (10 * (r0 + np.arange(h))[:, None] + (c0 + np.arange(w))[None, :]).astype(np.float32)

        moved = weft.redistribute(mine, rows, cols)  # collective; plans are cached

        plan = weft.Plan(rows, cols)  # or plan once and execute many times
        again = plan.execute(mine)
        assert (again == moved).all()

        c = cols.local_slices()[1]
        print(f"rank {ctx.rank}/{ctx.world_size} over {ctx.backend}: rows {r0}:{r0 + h} -> "
              f"columns {c.start}:{c.stop}; {plan.describe().splitlines()[0]}\n{moved}",
              flush=True)


if __name__ == "__main__":
    main()
