#!/usr/bin/env python3
"""cycles.py SOURCE_DIR — no two source files call each other (docs/architecture.md, "Where this departs"), save a
registry's list and its plugins (the list names the plugin, the plugin calls a helper of the registry), which are
listed below. A file A "calls" B when A uses a function or table defined (not static) in B. Cycles of two and three
files are looked for; exit 1 naming each one not allowed, 0 otherwise."""
import glob
import itertools
import os
import re
import sys

ALLOWED = {  # registry <-> plugin
    ("storage/ckpt/codec.c", "storage/ckpt/codec_zfp.c"),
    ("storage/ckpt/codec.c", "storage/ckpt/codec_multigrid.c"),
    ("policy/sched/dag.c", "policy/sched/heft.c"),
    ("policy/sched/dag.c", "policy/sched/minmin.c"),
    ("policy/sched/dag.c", "policy/sched/heft.c", "policy/sched/minmin.c"),
    ("policy/strategies/multilevel.c", "policy/strategies/registry.c"),
    ("policy/knapsack/knapsack.c", "policy/knapsack/mip.c"),
}

os.chdir(sys.argv[1] if len(sys.argv) > 1 else ".")
files = [f for d in ["cli", "sim", "analysis", "apps", "storage", "policy", "exec", "core"]
         for f in glob.glob(d + "/**/*.c", recursive=True)]


def strip(t):
    t = re.sub(r"/\*.*?\*/", "", t, flags=re.S)
    return re.sub(r'"(\\.|[^"\\])*"', '""', t)


src = {f: strip(open(f, errors="replace").read()) for f in files}
# one executable's files call each other; the MPI engine's and the CUDA one's are separate programs
group = {f: ("mpi" if "/mpi_inmem/" in f else "cuda" if "cuda" in f else "lib") for f in files}
defs = {}
for f, t in src.items():
    for m in re.finditer(r"^(?!static)[A-Za-z][^\n;]*?\b(fl_[a-z0-9_]+)\s*\([^;{]*\)\s*\n\{", t, re.M):
        defs.setdefault((group[f], m.group(1)), f)
    for m in re.finditer(r"^const [a-z_]+ (fl_[a-z0-9_]+)\s*=", t, re.M):
        defs.setdefault((group[f], m.group(1)), f)
edges = {f: set() for f in files}
for f, t in src.items():
    for tok in set(re.findall(r"\bfl_[a-z0-9_]+\b", t)):
        g = defs.get((group[f], tok)) or defs.get(("lib", tok))
        if g and g != f:
            edges[f].add(g)
bad = set()
for a in files:
    for b in edges[a]:
        if a in edges[b]:
            k = tuple(sorted((a, b)))
            if k not in ALLOWED:
                bad.add(k)
        for c in edges[b]:
            if c not in (a, b) and a in edges[c]:
                k = tuple(sorted((a, b, c)))
                if k not in ALLOWED and not any(tuple(sorted(p)) in ALLOWED for p in itertools.combinations(k, 2)):
                    bad.add(k)
for k in sorted(bad):
    print("cycle: " + " <-> ".join(k))
print("%d files, %d calls between files, %d cycles outside the registries" %
      (len(files), sum(len(e) for e in edges.values()), len(bad)))
sys.exit(1 if bad else 0)
