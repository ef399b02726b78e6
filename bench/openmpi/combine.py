#!/usr/bin/env python3
"""The tables of bench/openmpi/compare.sh, from the outputs it leaves in DIR:

    python3 bench/openmpi/combine.py DIR ROUNDS [NOCMA]

Reads, for each round R: mpi.R.log and mpi_lat.R.log (mpi_collbench's rows), ucx.R.json,
ucxnocma.R.json (when NOCMA is 1, the default), gloo.R.json, ucx_lat.R.json, gloo_lat.R.json
(collbench --json) and tag_lat.R.log (ucx_perftest's client). Every figure is the median over
rounds of what one run reports (itself a median over iterations); a ratio is the ratio of
those medians, and its range the smallest and largest ratio within one round.
"""
import json
import statistics
import sys

OPS = ("allgather", "reduce_scatter", "allreduce", "alltoall")


def mpi_rows(path):
    """{(op, size): (time_us, busbw, wrong)} from mpi_collbench's output (other lines skipped)."""
    rows = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 7 and fields[0] in OPS:
                op, size, _count, t, _alg, bus, wrong = fields
                rows[(op, int(size))] = (float(t), float(bus), int(wrong))
    return rows


def weft_rows(path):
    with open(path) as f:
        doc = json.load(f)
    return {(r["op"], r["size"]): (r["time_us"], r["busbw_GBps"], r["wrong"]) for r in doc["rows"]}


def tag_lat(path):
    """The 50th percentile one-way latency (us) of ucx_perftest's "Final:" line."""
    with open(path) as f:
        for line in f:
            if line.startswith("Final:"):
                # Final: iterations, latency 50%ile, average, overall, bandwidth ..., msg rate ...
                return float(line.split()[2])
    raise SystemExit(f"combine.py: no 'Final:' line in {path}")


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    out, rounds = sys.argv[1], int(sys.argv[2])
    nocma = len(sys.argv) < 4 or sys.argv[3] == "1"
    rng = range(1, rounds + 1)
    sides = {"Open MPI": [mpi_rows(f"{out}/mpi.{r}.log") for r in rng],
             "Weft-UCX": [weft_rows(f"{out}/ucx.{r}.json") for r in rng]}
    if nocma:
        sides["no-cma"] = [weft_rows(f"{out}/ucxnocma.{r}.json") for r in rng]
    sides["Weft-Gloo"] = [weft_rows(f"{out}/gloo.{r}.json") for r in rng]

    wrong = [(name, r + 1, key) for name, runs in sides.items() for r, rows in enumerate(runs)
             for key, v in rows.items() if v[2] != 0]
    keys = sorted(set(sides["Open MPI"][0]) & set(sides["Weft-UCX"][0]),
                  key=lambda k: (OPS.index(k[0]), k[1]))

    def busbw(name, key):
        return [runs[key][1] for runs in sides[name] if key in runs]

    def ratio(a, b, key):
        per_round = [x[key][1] / y[key][1] for x, y in zip(sides[a], sides[b])
                     if key in x and key in y and y[key][1] > 0]
        med = statistics.median(busbw(a, key)) / statistics.median(busbw(b, key))
        return med, min(per_round), max(per_round)

    print(f"\n# busbw (GB/s): median over {rounds} round(s); ratio (lowest..highest round)")
    cols = list(sides)
    head = f"# {'op':<15}{'size':>10}" + "".join(f"{c:>11}" for c in cols)
    head += f"{'UCX/MPI':>23}{'UCX/Gloo':>23}" + (f"{'nocma/MPI':>11}" if nocma else "")
    print(head)
    for key in keys:
        line = f"  {key[0]:<15}{key[1]:>10}"
        for c in cols:
            v = busbw(c, key)
            line += f"{statistics.median(v):>11.3f}" if v else f"{'-':>11}"
        for a, b in (("Weft-UCX", "Open MPI"), ("Weft-UCX", "Weft-Gloo")):
            m, lo, hi = ratio(a, b, key)
            line += f"{f'{m:.2f} ({lo:.2f}..{hi:.2f})':>23}"
        if nocma:
            line += f"{ratio('no-cma', 'Open MPI', key)[0]:>11.2f}"
        print(line)

    lat = {"Weft-UCX all-reduce 8 B": [weft_rows(f"{out}/ucx_lat.{r}.json") for r in rng],
           "Open MPI all-reduce 8 B": [mpi_rows(f"{out}/mpi_lat.{r}.log") for r in rng],
           "Weft-Gloo all-reduce 8 B": [weft_rows(f"{out}/gloo_lat.{r}.json") for r in rng]}
    us = {name: [rows[("allreduce", 8)][0] for rows in runs] for name, runs in lat.items()}
    wrong += [(name, r + 1, ("allreduce", 8)) for name, runs in lat.items()
              for r, rows in enumerate(runs) if rows[("allreduce", 8)][2] != 0]
    us["ucx_perftest tag_lat one-way"] = [tag_lat(f"{out}/tag_lat.{r}.log") for r in rng]
    print(f"\n# latency (us): median over {rounds} round(s) (lowest..highest round)")
    for name, v in us.items():
        print(f"  {name:<30}{statistics.median(v):>10.2f}  ({min(v):.2f}..{max(v):.2f})")
    ucx, tag, mpi = (statistics.median(us[k]) for k in
                     ("Weft-UCX all-reduce 8 B", "ucx_perftest tag_lat one-way",
                      "Open MPI all-reduce 8 B"))
    print(f"  {'Weft-UCX all-reduce / tag_lat':<30}{ucx / tag:>10.2f}")
    print(f"  {'Weft-UCX / Open MPI all-reduce':<30}{ucx / mpi:>10.2f}")

    # The vCPUs' placement per round (line_latency.c): near 25-60 ns, far 170-260 ns.
    lines = []
    for r in rng:
        try:
            with open(f"{out}/line.{r}.log") as f:
                lines.append("/".join(f.read().split()) or "-")
        except OSError:
            lines.append("-")
    print("\n# cross-core cache line one-way (ns), before/after each round's sweeps: "
          + ", ".join(f"round {r} {v}" for r, v in zip(rng, lines)))

    for name, r, key in wrong:
        print(f"! {name} round {r}: {key[0]} {key[1]} B has wrong values")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
