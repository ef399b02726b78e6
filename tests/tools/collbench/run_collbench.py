#!/usr/bin/env python3
"""Runs collbench under weftrun and checks its JSON against independent expectations.

usage: run_collbench.py WEFTRUN COLLBENCH RANKS BACKEND OPS DTYPE [collbench args...]

Checks: exit status 0; one record per (op, size) of the sweep, in order; #wrong == 0 on
every row; the size column follows nccl-tests' convention for the op; algbw = size / time and
busbw = algbw x nccl-tests' factor.
"""
import json
import os
import subprocess
import sys
import tempfile


def parse_bytes(text):
    shift = {"K": 10, "M": 20, "G": 30}.get(text[-1:].upper(), 0)
    return int(text[:-1] if shift else text) << shift


def arg(args, flag, default):
    return args[args.index(flag) + 1] if flag in args else default


def expected_size(op, nominal, item, n):
    """The "size" column: the bytes nccl-tests reports for the op at this nominal size."""
    units = nominal // item
    if op in ("allgather", "reduce_scatter", "alltoall"):
        return (units // n) * n * item
    if op == "alltoallv":
        return (units // (n * (n + 1) // 2)) * (n * (n + 1) // 2) * item
    return units * item


def bus_factor(op, n):
    if op == "allreduce":
        return 2 * (n - 1) / n
    if op in ("broadcast", "sendrecv"):
        return 1.0
    return (n - 1) / n


ITEM = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int32": 4, "int8": 1}


def main():
    weftrun, collbench, ranks, backend, ops, dtype = sys.argv[1:7]
    extra = sys.argv[7:]
    n = int(ranks)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.json")
        cmd = [weftrun, "-n", ranks, "--backend", backend, "--timeout", "60", collbench,
               "-op", ops, "-d", dtype, "--json", path] + extra
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=90)
        print(run.stdout)
        if run.returncode != 0:
            sys.exit(f"collbench exited with {run.returncode}")
        with open(path) as f:
            doc = json.load(f)

    lo, hi = parse_bytes(arg(extra, "-b", "8")), parse_bytes(arg(extra, "-e", "64M"))
    step = float(arg(extra, "-f", "2"))
    sizes = []
    s = lo
    while s <= hi:
        sizes.append(s)
        s = max(int(s * step), s + 1)
    want = [(op, s) for op in ops.split(",") for s in sizes]
    rows = doc["rows"]
    assert doc["ranks"] == n and doc["backend"] == backend, doc
    assert len(rows) == len(want), f"{len(rows)} rows, expected {len(want)}"
    for row, (op, nominal) in zip(rows, want):
        where = f"{op} at {nominal} B: {row}"
        assert row["op"] == op and row["ranks"] == n and row["type"] == dtype, where
        assert row["wrong"] == 0, where
        assert row["size"] == expected_size(op, nominal, ITEM[dtype], n), where
        assert row["count"] * ITEM[dtype] == row["size"], where
        assert 0 < row["time_min_us"] <= row["time_us"] <= row["time_max_us"], where
        algbw = row["size"] / (row["time_us"] * 1e-6) / 1e9
        assert abs(row["algbw_GBps"] - algbw) <= 1e-5 + 1e-3 * algbw, where
        bus = algbw * bus_factor(op, n)
        assert abs(row["busbw_GBps"] - bus) <= 1e-5 + 1e-3 * bus, where
        if "raw" in row:
            assert row["raw"]["wrong"] == 0, where
    print(f"ok: {len(rows)} rows")


if __name__ == "__main__":
    main()
