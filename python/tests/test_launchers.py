"""weft.Context() from other launchers' environments: torchrun's and Open MPI's variables.

Run from the 1-rank launch only: it starts two ranks of its own as subprocesses.
"""

import os
import socket
import subprocess
import sys

import pytest

SCRIPT = """
import numpy as np, weft
with weft.Context() as ctx:
    mesh = weft.DeviceMesh(ctx, (ctx.world_size,))
    src = weft.Layout(mesh, (5,), np.int64, [weft.Shard(0)])
    dst = weft.Layout(mesh, (5,), np.int64, [weft.Replicate()])
    x = np.arange(5)[src.local_slices()[0]]
    out = weft.redistribute(x, src, dst)
    assert (out == np.arange(5)).all(), out
    print(f"ok {ctx.rank}/{ctx.world_size} {ctx.backend}")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(rank_env) -> None:
    """Starts two ranks with the variables rank_env(rank, port) gives; both must print ok."""
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("WEFT_") or k in ("WEFT_LIBRARY", "WEFT_TIMEOUT_MS")}
    port = free_port()
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT], env={**base, **rank_env(r, port)},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    for r, (p, out) in enumerate(zip(procs, outs)):
        assert p.returncode == 0 and f"ok {r}/2 gloo" in out, out


@pytest.fixture(autouse=True)
def one_rank_only(ctx):
    if ctx.world_size != 1:
        pytest.skip("starts ranks of its own; runs in the 1-rank launch")


def test_torchrun_environment():
    launch(lambda r, port: {"RANK": str(r), "WORLD_SIZE": "2", "LOCAL_RANK": str(r),
                            "LOCAL_WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1",
                            "MASTER_PORT": str(port)})


def test_open_mpi_environment():
    launch(lambda r, port: {"OMPI_COMM_WORLD_RANK": str(r), "OMPI_COMM_WORLD_SIZE": "2",
                            "OMPI_COMM_WORLD_LOCAL_RANK": str(r),
                            "OMPI_COMM_WORLD_LOCAL_SIZE": "2",
                            "WEFT_STORE": f"127.0.0.1:{port}"})
