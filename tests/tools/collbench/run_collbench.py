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

Halo items in the --pattern list (halo1d, halo2d-star, ..., after the redistribute rows): one
record per (pattern, size, interior), the face, local block and depth of collbench's README;
#wrong == 0 for the exchange and its raw reference; both receive exactly the ghost cells that
other ranks own (a closed form of the geometry: box faces in dimension phases carry the
ghosts of earlier phases, star faces do not; a mesh dim of extent 1 wraps onto the rank
itself and moves nothing); algbw = received bytes / time; ratio = raw time / halo time. conv2d-fwd-bwd: a forward and a backward row per size, the image
and halo bytes of collbench's README, #wrong == 0 on both sides.
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


def near_cube(n, k):
    """n as k near-equal factors, largest first (collbench's mesh for k windowed dims)."""
    factors, rest, f = [], n, 2
    while f * f <= rest:
        while rest % f == 0:
            factors.append(f)
            rest //= f
        f += 1
    if rest > 1:
        factors.append(rest)
    shape = [1] * k
    for f in sorted(factors, reverse=True):
        shape[shape.index(min(shape))] *= f
    return sorted(shape, reverse=True)


def halo_rows(name, nominal, n):
    """The expected rows of a halo pattern at one size: (local, depth, global, face, recv)."""
    base, mods = name.split("-")[0], name.split("-")[1:]
    windowed = {"halo1d": [1] if "strided" in mods else [0], "halo2d": [0, 1],
                "halo3d": [0, 1, 2]}[base]
    star = "star" in mods
    mesh = near_cube(n, len(windowed))
    e = nominal // 4
    rows = []
    for scale in ([1, 8] if "inplace" in mods and len(windowed) == 1 else [1]):
        if windowed == [0]:
            depth, local = 1, [2 * scale, e]
        elif windowed == [1]:
            depth, local = 4, [e // 4, 8 * scale]
        elif len(windowed) == 2:
            depth = 1
            while 2 * (2 * depth) ** 2 <= e:
                depth *= 2
            local = [e // depth * scale, e // depth]
        else:
            depth = 1
            while 4 * (2 * depth) ** 3 <= e:
                depth *= 2
            side = int((e // depth) ** 0.5)
            while side * side > e // depth:
                side -= 1
            while (side + 1) ** 2 <= e // depth:
                side += 1
            local = [side * scale, side, side]
        if min(local) < max(depth, 1):
            continue
        padded = [x + (2 * depth if d in windowed else 0) for d, x in enumerate(local)]
        glob = list(local)
        for k, d in enumerate(windowed):
            glob[d] *= mesh[k]
        face = depth * 4
        for d, x in enumerate(local):
            face *= x if d != windowed[0] else 1
        recv = 0
        for k, d in enumerate(windowed):
            if mesh[k] == 1:
                continue
            cells = 2 * depth
            for j, x in enumerate(local):
                if j == d:
                    continue
                earlier = j in windowed and windowed.index(j) < k
                cells *= padded[j] if earlier and not star else x
            recv += cells * 4
        rows.append(("x".join(map(str, local)), depth, "x".join(map(str, glob)), face, recv))
    return rows


def check_halo(rows, output, names, sizes, n):
    want = [(p, s, r) for p in names for s in sizes for r in halo_rows(p, s, n)]
    assert len(rows) == len(want), f"{len(rows)} halo rows, expected {len(want)}"
    for p in names:
        assert f"# halo {p} (periodic; reference: weft_send/recv" in output, p
    for row, (pattern, nominal, (local, depth, glob, face, recv)) in zip(rows, want):
        where = f"{pattern} at {nominal} B: {row}"
        assert row["op"] == "halo" and row["pattern"] == pattern, where
        assert (row["local"], row["depth"], row["shape"]) == (local, depth, glob), where
        assert row["size"] == face and row["count"] * 4 == face, where
        assert row["recv_bytes"] == recv and row["raw_recv_bytes"] == recv, where
        assert row["wrong"] == 0 and row["raw"]["wrong"] == 0, where
        assert 0 < row["time_min_us"] <= row["time_us"] <= row["time_max_us"], where
        for side in (row, row["raw"]):
            algbw = recv / (side["time_us"] * 1e-6) / 1e9
            assert abs(side["algbw_GBps"] - algbw) <= 1e-5 + 1e-3 * algbw, where
        ratio = row["raw"]["time_us"] / row["time_us"]
        assert abs(row["ratio"] - ratio) <= 1e-4 + 1e-3 * ratio, where
    print(f"ok: {len(rows)} halo rows")


def near_square(n):
    """collbench's NearCubeShape(n, 2): n's prime factors dealt largest first to the smaller."""
    factors, rest, f = [], n, 2
    while f * f <= rest:
        while rest % f == 0:
            factors.append(f)
            rest //= f
        f += 1
    if rest > 1:
        factors.append(rest)
    shape = [1, 1]
    for f in sorted(factors, reverse=True):
        shape[shape.index(min(shape))] *= f
    return sorted(shape, reverse=True)


def check_conv(rows, output, sizes, n):
    """conv2d-fwd-bwd: per size a forward and a backward row on a 2:3 image, 8 channels, a
    one-row halo; each rank receives a row of w cells from each vertical neighbour and a column
    of h + 2 cells (its ghost rows included) from each horizontal one."""
    if not rows:
        return
    assert "# halo conv2d-fwd-bwd (3x3 conv, zero boundary" in output
    p0, p1 = near_square(n)
    assert len(rows) == 2 * len(sizes), f"{len(rows)} conv rows for {len(sizes)} sizes"
    for k, nominal in enumerate(sizes):
        e = max(1, nominal // 32)
        h = max(1, int((e * 2 * p1 // (3 * p0)) ** 0.5))
        while h * h > e * 2 * p1 // (3 * p0):
            h -= 1
        while (h + 1) ** 2 <= e * 2 * p1 // (3 * p0):
            h += 1
        h = max(1, h)
        w = max(1, e // h)
        recv = (min(p0 - 1, 2) * w + min(p1 - 1, 2) * (h + 2)) * 8 * 4
        for row, name in zip(rows[2 * k:2 * k + 2], ("conv2d-fwd", "conv2d-bwd")):
            where = f"{name} at {nominal} B: {row}"
            assert row["pattern"] == name, where
            assert row["shape"] == f"{h * p0}x{w * p1}x8" and row["local"] == f"{h}x{w}x8", where
            assert row["size"] == h * w * 8 * 4, where
            assert row["recv_bytes"] == recv and row["raw_recv_bytes"] == recv, where
            assert row["wrong"] == 0 and row["raw"]["wrong"] == 0, where
    print(f"ok: {len(rows)} conv2d rows")


def check_patterns(weftrun, collbench, n, backend, patterns, extra):
    doc, output = run_sweep(weftrun, collbench, n, backend, ["--pattern", patterns] + extra)
    sizes = swept_sizes(extra)
    halos = [p for p in patterns.split(",") if p.startswith("halo")]
    names = [p for p in patterns.split(",") if not p.startswith(("halo", "conv2d"))]
    check_halo([r for r in doc["rows"] if r["op"] == "halo" and r["pattern"].startswith("halo")],
               output, halos, sizes, n)
    check_conv([r for r in doc["rows"] if r["pattern"].startswith("conv2d")], output, sizes, n)
    want = [(p, s) for p in names for s in sizes]
    rows = [r for r in doc["rows"] if r["op"] != "halo"]
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
    print(f"ok: {len(rows)} redistribute pattern rows")


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
