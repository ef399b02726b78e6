#!/usr/bin/env python3
"""Runs `collbench topo` under a launcher and checks its JSON (issue 26 item 1).

usage: run_topo.py RANKS HOSTS MESH -- LAUNCHER... COLLBENCH

The launcher command (weftrun -n RANKS ..., or scripts/netns-hosts.sh run ...) is followed by
`topo --out FILE --mesh MESH`. Checks: exit 0; "weft_topology": 1; one record per rank, in
rank order, each with a host and hwloc indexes (>= 0 for package, core and PU); the host,
NUMA and L3 groups each partition the ranks, NUMA and L3 groups inside a host; HOSTS hosts;
the proposed order is a permutation that keeps every host's ranks together.
"""
import json
import os
import subprocess
import sys
import tempfile


def partition(groups, n, what):
    flat = sorted(r for g in groups for r in g)
    assert flat == list(range(n)), f"{what} groups {groups} do not partition {n} ranks"


def main():
    ranks, hosts, mesh = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    assert sys.argv[4] == "--"
    cmd = sys.argv[5:]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "topo.json")
        proc = subprocess.run(cmd + ["topo", "--out", out, "--mesh", mesh], capture_output=True,
                              text=True, timeout=240)
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        if proc.returncode == 77:
            sys.exit(77)
        assert proc.returncode == 0, f"exit {proc.returncode}"
        doc = json.load(open(out))
    assert doc["weft_topology"] == 1, doc
    assert [r["rank"] for r in doc["ranks"]] == list(range(ranks)), doc["ranks"]
    for r in doc["ranks"]:
        assert r["host"] and r["package"] >= 0 and r["core"] >= 0 and r["pu"] >= 0, r
    for what in ("hosts", "numa_nodes", "l3"):
        partition(doc[what], ranks, what)
    host_of = {r: i for i, g in enumerate(doc["hosts"]) for r in g}
    for what in ("numa_nodes", "l3"):
        for g in doc[what]:
            assert len({host_of[r] for r in g}) == 1, f"{what} group {g} spans hosts"
    assert len(doc["hosts"]) == hosts, f"{doc['hosts']}: expected {hosts} hosts"
    order = doc["proposed_order"]
    assert sorted(order) == list(range(ranks)), order
    seen = [host_of[r] for r in order]
    assert all(seen[i] <= seen[i + 1] for i in range(len(seen) - 1)) or \
        len(set(seen)) == 1, f"the proposed order {order} mixes hosts"
    print(f"ok: {ranks} ranks on {hosts} host(s), proposed order {order}")


if __name__ == "__main__":
    main()
