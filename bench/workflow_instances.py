#!/usr/bin/env python3
"""workflow_instances -- real WfCommons instances end to end (issue "Workflows as researchers have them"): for each
instance, its load time (`simulate --print`), faultline's HEFT schedule (the row's work_s) against the independent
HEFT of bench/heft_check.py on 4, 16 and 64 hosts, the failure-free simulated makespan, and under failures the
makespan of replication, substitution and hybrid (mean and 95 % CI over REPLICAS replicas, the same failures for the
three: common random numbers), as a markdown table.

Failures: exponential, each node's MTBF 4x the instance's failure-free makespan on 16 hosts (about four failures a
run), repairs in a tenth of it; hybrid with policy.error_budget = 2 (the greedy knapsack). Outputs kept on shared
storage (app.outputs = shared, the default), staged inputs not priced (app.stage_inputs = no), as heft_check assumes.

usage: workflow_instances.py [--replicas 10] [--faultline build/faultline] FILE.json...
"""
import argparse
import math
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def scenario(path, hosts, extra=""):
    return (f"[run]\nname = instance\nreplicas = 1\nevents = none\n[platform]\nnodes = {hosts}\n"
            f"[failures]\nmodel = none\n[app]\nkind = workflow\ngraph = {os.path.abspath(path)}\nstage_inputs = no\n"
            f"[strategy]\nkind = replication\n{extra}")


def run(fl, tmp, text, args):
    ini = os.path.join(tmp, "s.ini")
    db = os.path.join(tmp, "r.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    with open(ini, "w") as f:
        f.write(text)
    t0 = time.monotonic()
    p = subprocess.run([fl, "simulate", ini, "--quiet", "--db", db] + args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    return db, wall


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def ci(v):
    if len(v) < 2:
        return v[0], 0.0
    return statistics.mean(v), 1.96 * statistics.stdev(v) / math.sqrt(len(v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--replicas", type=int, default=10)
    ap.add_argument("--faultline", default=os.path.join(HERE, "..", "build", "faultline"))
    a = ap.parse_args()
    print("| instance | tasks | edges | load (s) | HEFT 4 / 16 / 64 hosts: faultline = independent | failure-free "
          "simulated (16 hosts) | replication | substitution | hybrid |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for path in a.files:
            name = os.path.basename(path)[:-5]
            heft = []
            tasks = edges = None
            for hosts in (4, 16, 64):
                db, _ = run(a.faultline, tmp, scenario(path, hosts), [])
                (fw, ff), = rows(db, "SELECT work_s, makespan_s FROM runs")
                out = subprocess.run([sys.executable, os.path.join(HERE, "heft_check.py"), path, "--hosts",
                                      str(hosts)], capture_output=True, text=True, check=True).stdout.split()
                tasks, edges, py = int(out[0]), int(out[1]), float(out[2])
                rel = abs(fw - py) / py
                worst = max(worst, rel)
                heft.append(f"{fw:.6g}{' =' if rel <= 1e-9 else ' vs ' + format(py, '.6g')}")
                if hosts == 16:
                    free16 = ff
            _, load = run(a.faultline, tmp, scenario(path, 16), ["--print"])
            mtbf = 4.0 * free16
            extra = (f"[failures]\nmodel = exponential\nnode_mtbf = {mtbf:.6g}s\nrepair = {mtbf / 40:.6g}s\n"
                     f"[policy]\nerror_budget = 2\n")
            text = scenario(path, 16).replace("[failures]\nmodel = none\n", "") + extra
            cells = []
            for strategy in ("replication", "substitution", "hybrid"):
                db, _ = run(a.faultline, tmp, text.replace("kind = replication", f"kind = {strategy}"),
                            ["--replicas", str(a.replicas)])
                ms = [r[0] for r in rows(db, "SELECT makespan_s FROM runs WHERE status = 'completed'")]
                n = rows(db, "SELECT COUNT(*) FROM runs")[0][0]
                if ms:
                    m, h = ci(ms)
                    cells.append(f"{m:.4g} ± {h:.2g}" + ("" if len(ms) == n else f" ({len(ms)}/{n} done)"))
                else:
                    cells.append(f"none of {n} done")
            print(f"| {name} | {tasks} | {edges} | {load:.2f} | {' / '.join(heft)} | {free16:.6g} | "
                  + " | ".join(cells) + " |")
    print(f"\nworst relative difference between the two HEFTs: {worst:.3g}")


if __name__ == "__main__":
    main()
