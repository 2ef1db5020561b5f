#!/usr/bin/env python3
"""heft_check -- an independent HEFT of a WfCommons instance, to check the schedule faultline computes.

Written from the papers and from docs/workflows.md, not from faultline's C: Topcuoglu, Hariri and Wu, "Performance-
effective and low-complexity task scheduling for heterogeneous computing", IEEE TPDS 13(3), 2002 (upward ranks with
mean costs, tasks by decreasing rank, each to the host of earliest finish time with the insertion policy), on the
graph docs/workflows.md describes: a task's flops are its runtime times the speed of the machine it ran on
(speedInMHz x 1e6), else times the reference speed; an edge for every parent the file names and for every file a
task writes and another reads (the file's first writer in task order sends it; the bytes of a pair's files add
up); ties in rank in the topological order of Kahn's algorithm (a FIFO queue seeded with the tasks without parents
in file order, children by index). Identical hosts of speed SPEED joined by routes of latency LAT and bandwidth BW,
and no staged inputs (faultline's app.stage_inputs = no).

usage: heft_check.py FILE.json --hosts H [--speed 1e9] [--lat 2e-6] [--bw 25e9] [--ref-speed 1e9]
prints: tasks, edges and the schedule's length (makespan) with 17 significant digits
"""
import argparse
import bisect
import json
from collections import deque


def load(path, ref_speed):
    with open(path) as f:
        doc = json.load(f)
    wf = doc["workflow"]
    if "specification" in wf:  # schema 1.5: structure, execution and files in lists of their own
        spec, ex = wf["specification"], wf.get("execution", {})
        tasks = spec["tasks"]
        machines = ex.get("machines", [])
        runs = {}
        for t in ex.get("tasks", []):
            runs.setdefault(t["id"], t)
        sizes = {}
        for f in spec.get("files", []):
            sizes.setdefault(f.get("id", f.get("name")), f.get("sizeInBytes", f.get("size")))
        names = [t.get("id", t.get("name")) for t in tasks]
    else:
        tasks = wf["tasks"]
        machines = wf.get("machines", [])
        runs = None
        names = [t.get("name", t.get("id")) for t in tasks]
    mhz = {}
    for m in machines:
        cpu = m.get("cpu", {})
        mhz.setdefault(m.get("nodeName"), cpu.get("speedInMHz", cpu.get("speed")))
    index = {n: i for i, n in enumerate(names)}
    flops, uses, raw = [], [], []
    for i, t in enumerate(tasks):
        if runs is not None:
            run = runs[names[i]]
            ms = run.get("machines")
            machine = ms[0] if isinstance(ms, list) and ms and isinstance(ms[0], str) else None
        else:
            run = t
            machine = t.get("machine")
        runtime = run.get("runtimeInSeconds", run.get("runtime"))
        speed = mhz.get(machine)
        flops.append(runtime * (speed * 1e6 if speed and speed > 0 else ref_speed))
        for p in t.get("parents", []):
            raw.append((index[p], i, 0.0))
        if runs is not None:
            for out, key in ((0, "inputFiles"), (1, "outputFiles")):
                for fid in t.get(key, []):
                    uses.append((fid, -out, i, float(sizes[fid])))
        else:
            for f in t.get("files", []):
                uses.append((f.get("name", f.get("id")), -(f["link"] == "output"), i,
                             float(f.get("sizeInBytes", f.get("size")))))
    uses.sort(key=lambda u: (u[0].encode(), u[1], u[2]))  # by file (byte order), writers first, task order
    k = 0
    while k < len(uses):
        j, producer = k, (uses[k][2] if uses[k][1] == -1 else None)
        while j < len(uses) and uses[j][0] == uses[k][0]:
            fid, neg_out, task, size = uses[j]
            if neg_out == 0 and producer is not None and producer != task:
                raw.append((producer, task, size))
            j += 1
        k = j
    merged = {}  # a pair's bytes add up (whole bytes: exact in any order)
    for s, d, b in raw:
        merged[(s, d)] = merged[(s, d)] + b if (s, d) in merged else b
    return names, flops, merged


def heft(n, flops, edges, hosts, speed, lat, bw):
    children = [[] for _ in range(n)]
    parents = [[] for _ in range(n)]
    for (s, d), b in sorted(edges.items()):
        children[s].append((d, b))
        parents[d].append((s, b))
    indeg = [len(p) for p in parents]
    queue = deque(i for i in range(n) if indeg[i] == 0)
    topo = []
    while queue:
        i = queue.popleft()
        topo.append(i)
        for d, _ in children[i]:
            indeg[d] -= 1
            if indeg[d] == 0:
                queue.append(d)
    assert len(topo) == n, "a cycle"
    pos = {t: k for k, t in enumerate(topo)}

    def comm(b):
        return lat + b / bw if b > 0 else 0.0

    inv = 1.0 / speed
    rank = [0.0] * n
    for i in reversed(topo):
        best = 0.0
        for d, b in children[i]:
            best = max(best, comm(b) + rank[d])
        rank[i] = flops[i] * inv + best
    order = sorted(range(n), key=lambda i: (-rank[i], pos[i]))
    starts = [[] for _ in range(hosts)]  # per host: busy slots sorted by start
    slots = [[] for _ in range(hosts)]
    host, finish = [None] * n, [0.0] * n
    makespan = 0.0
    for i in order:
        d = flops[i] / speed
        best = None
        for p in range(hosts):
            ready = 0.0
            for m, b in parents[i]:
                arrive = finish[m] + (comm(b) if host[m] != p and b > 0 else 0.0)
                ready = max(ready, arrive)
            t, at = ready, len(slots[p])
            lo = bisect.bisect_right([f for _, f in slots[p]], ready)  # the first slot ending after ready
            for k in range(lo, len(slots[p])):
                s0, f0 = slots[p][k]
                if t + d <= s0:
                    at = k
                    break
                t = max(t, f0)
            if best is None or t + d < best[0]:
                best = (t + d, t, p, at)
        f, s, p, at = best
        slots[p].insert(at, (s, f))
        host[i], finish[i] = p, f
        makespan = max(makespan, f)
    return makespan


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--hosts", type=int, required=True)
    ap.add_argument("--speed", type=float, default=1e9)
    ap.add_argument("--lat", type=float, default=2e-6)
    ap.add_argument("--bw", type=float, default=25e9)
    ap.add_argument("--ref-speed", type=float, default=1e9)
    a = ap.parse_args()
    names, flops, edges = load(a.file, a.ref_speed)
    m = heft(len(names), flops, edges, a.hosts, a.speed, a.lat, a.bw)
    print(f"{len(names)} {len(edges)} {m:.17g}")


if __name__ == "__main__":
    main()
