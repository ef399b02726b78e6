#!/usr/bin/env python3
"""Runs collbench under weftrun and checks its JSON against independent expectations.

usage: run_collbench.py WEFTRUN COLLBENCH RANKS BACKEND OPS DTYPE [collbench args...]
       run_collbench.py WEFTRUN COLLBENCH RANKS BACKEND --pattern LIST [collbench args...]

Checks: exit status 0; one record per (op, size) of the sweep, in order; #wrong == 0 on
every row; the size column follows nccl-tests' convention for the op; algbw = size / time and
busbw = algbw x nccl-tests' factor.

With --pattern (redistribute rows): one record per (pattern, size); the global shape is
[elements / c, c] with c the largest power of two whose square fits; #wrong == 0 on both the
redistribute and its reference collective, which is the one the transition needs (allgather
for S -> R, reduce_scatter for P -> S, allreduce for P -> R, alltoall for S(a) -> S(b), none
for R -> S); ratio = reference time / redistribute time; each pattern's plan is printed.
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


def pattern_shape(nominal):
    elements = nominal // 4
    cols = 1
    while (cols * 2) ** 2 <= elements:
        cols *= 2
    return elements // cols, cols


def pattern_reference(pattern):
    """The reference collective of a pattern, and the busbw factor's kind."""
    src, dst = pattern.split(":")[-1].split("-")
    if "P" in dst or src == dst:
        return None
    if "P" in src:
        return "reduce_scatter" if "S" in dst else "allreduce"
    if "S" not in src:
        return None
    return "allgather" if "S" not in dst else "alltoall"


def run_sweep(weftrun, collbench, n, backend, args):
    """Runs collbench under weftrun with --json; exits on failure; returns (JSON, output)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.json")
        cmd = [weftrun, "-n", str(n), "--backend", backend, "--timeout", "60", collbench,
               "--json", path] + args
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=90)
        print(run.stdout)
        if run.returncode != 0:
            sys.exit(f"collbench exited with {run.returncode}")
        with open(path) as f:
            return json.load(f), run.stdout


def swept_sizes(extra):
    """The sizes collbench sweeps for -b/-e/-f in extra (its defaults otherwise)."""
    lo, hi = parse_bytes(arg(extra, "-b", "8")), parse_bytes(arg(extra, "-e", "64M"))
    step = float(arg(extra, "-f", "2"))
    sizes = []
    s = lo
    while s <= hi:
        sizes.append(s)
        s = max(int(s * step), s + 1)
    return sizes


def check_patterns(weftrun, collbench, n, backend, patterns, extra):
    doc, output = run_sweep(weftrun, collbench, n, backend, ["--pattern", patterns] + extra)
    sizes = swept_sizes(extra)
    names = patterns.split(",")
    want = [(p, s) for p in names for s in sizes]
    rows = doc["rows"]
    assert len(rows) == len(want), f"{len(rows)} rows, expected {len(want)}"
    for p in names:
        assert f"# redistribute {p} (reference: " in output, p
    assert output.count("#   plan (rank 0, first size): 1. ") >= len(names), "plans"
    for row, (pattern, nominal) in zip(rows, want):
        where = f"{pattern} at {nominal} B: {row}"
        rows_, cols = pattern_shape(nominal)
        assert row["op"] == "redistribute" and row["pattern"] == pattern, where
        assert row["shape"] == f"{rows_}x{cols}", where
        assert row["size"] == rows_ * cols * 4 and row["count"] == rows_ * cols, where
        partial_dst = "P" in pattern.split("-")[1]
        assert row["wrong"] == (-1 if partial_dst else 0), where
        assert 0 < row["time_min_us"] <= row["time_us"] <= row["time_max_us"], where
        algbw = row["size"] / (row["time_us"] * 1e-6) / 1e9
        assert abs(row["algbw_GBps"] - algbw) <= 1e-5 + 1e-3 * algbw, where
        ref = pattern_reference(pattern)
        factor = {None: 1.0, "allreduce": 2 * (n - 1) / n, "alltoall": (n - 1) / n / n}.get(
            ref, (n - 1) / n)
        assert abs(row["busbw_GBps"] - algbw * factor) <= 1e-5 + 1e-3 * algbw, where
        if ref is None:
            assert "raw" not in row, where
            continue
        assert row["raw_kind"].endswith(" " + ref), where
        assert row["raw"]["wrong"] == 0, where
        ratio = row["raw"]["time_us"] / row["time_us"]
        assert abs(row["ratio"] - ratio) <= 1e-4 + 1e-3 * ratio, where  # JSON has 4 decimals
        assert row["ratio_q1"] <= row["ratio_q3"], where
    print(f"ok: {len(rows)} pattern rows")


def main():
    if sys.argv[5] == "--pattern":
        weftrun, collbench, ranks, backend, _, patterns = sys.argv[1:7]
        check_patterns(weftrun, collbench, int(ranks), backend, patterns, sys.argv[7:])
        return
    weftrun, collbench, ranks, backend, ops, dtype = sys.argv[1:7]
    extra = sys.argv[7:]
    n = int(ranks)
    doc, output = run_sweep(weftrun, collbench, n, backend, ["-op", ops, "-d", dtype] + extra)
    sizes = swept_sizes(extra)
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
