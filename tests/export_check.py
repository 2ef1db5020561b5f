#!/usr/bin/env python3
"""Reads `faultline export` output the way an analyst would (Python's csv and json modules, no faultline code) and
checks it against the results file itself (Python's sqlite3) and against hand-known unit conversions.

usage: export_check.py DB EXPORT.csv EXPORT.json  -- exit 0 when every check holds, 1 with the reasons otherwise."""
import csv
import json
import math
import sqlite3
import sys

db_path, csv_path, json_path = sys.argv[1:4]
problems = []


def fail(msg):
    problems.append(msg)


with open(csv_path, newline="") as f:
    reader = csv.reader(f)
    header = next(reader)
    csv_rows = list(reader)
with open(json_path) as f:
    doc = json.load(f)
cols = doc["columns"]
names = [c["name"] for c in cols]
if header != names:
    fail("CSV header and JSON columns differ")
types = {c["name"]: c["type"] for c in cols}
units = {c["name"]: c["unit"] for c in cols}
if len(csv_rows) != len(doc["rows"]):
    fail(f"{len(csv_rows)} CSV rows, {len(doc['rows'])} JSON rows")
# a column empty in every row is left out (export --all-columns keeps them)
for i, name in enumerate(names):
    if csv_rows and all(row[i] == "" for row in csv_rows if len(row) == len(names)):
        fail(f"{name}: empty in every row, yet exported")


def typed(name, text):
    """A CSV field as the column's declared type says it reads (None: empty)."""
    if text == "":
        return None
    t = types[name]
    if t == "integer":
        return int(text)  # raises on anything but an integer
    if t == "real":
        return float(text)  # 'inf' included
    return text


for r, (crow, jrow) in enumerate(zip(csv_rows, doc["rows"])):
    if len(crow) != len(names):
        fail(f"row {r}: {len(crow)} fields, {len(names)} columns")
        continue
    for name, text in zip(names, crow):
        try:
            v = typed(name, text)
        except ValueError:
            fail(f"row {r}: {name} = {text!r} is not {types[name]}")
            continue
        j = jrow.get(name)
        if isinstance(v, float) and math.isfinite(v):
            # the shortest digits that read back: one digit fewer would not (0.7, not 0.69999999999999996; a
            # reader without a round-trip parser, pandas' default, then gets the same double)
            mant = text.lower().split("e")[0].lstrip("-").replace(".", "").lstrip("0").rstrip("0")
            n = max(len(mant), 1)
            if n > 1 and float("%.*g" % (n - 1, v)) == v:
                fail(f"row {r}: {name} = {text!r}: {n} digits where {n - 1} read back the same")
        if isinstance(v, float) and math.isinf(v):
            ok = j is None  # JSON has no infinity
        elif types[name] == "integer" and isinstance(j, str):
            ok = int(j) == v  # beyond 2^63: JSON carries it as text, exactly
        elif types[name] == "real" and v is not None:
            ok = isinstance(j, (int, float)) and float(j) == v
        else:
            ok = j == v
        if not ok:
            fail(f"row {r}: {name}: CSV {text!r}, JSON {j!r}")

# every results column equals the file's own value, exactly
con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
con.row_factory = sqlite3.Row
db_rows = {row["id"]: row for row in con.execute("SELECT * FROM runs")}
for crow in csv_rows:
    rec = dict(zip(names, crow))
    row = db_rows[int(rec["id"])]
    for name in row.keys():
        if name == "scenario_text":
            continue
        want = row[name]
        if name not in rec:
            if any(r[name] is not None for r in db_rows.values()):
                fail(f"{name}: left out of the export, yet some row of the file has it")
            continue
        got = typed(name, rec[name])
        if name == "seed" and want is not None and want < 0:
            want += 2**64
        if want != got and not (isinstance(want, int) and isinstance(got, float) and float(want) == got):
            fail(f"run {rec['id']}: {name}: file {want!r}, export {got!r}")
    if row["makespan_s"]:
        waste = 1.0 - row["work_s"] / row["makespan_s"]
        if typed("waste", rec["waste"]) != waste:
            fail(f"run {rec['id']}: waste {rec['waste']} != {waste}")

# units: SI base units, by hand from the scenario (test_export.c's)
hand = {
    "failures.node_mtbf": ("s", {2 * 365.25 * 86400, 5 * 365.25 * 86400}),
    "app.work": ("s", {86400.0}),
    "strategy.checkpoint_cost": ("s", {600.0}),
    "failures.repair": ("s", {math.inf}),
    "platform.node_speed": ("flop/s", {1e9}),
    "app.checkpoint_size": ("B", {2.0 * 1024**3}),
    "platform.nodes": ("", {600}),
    "strategy.kind": ("", {"checkpoint", "buddy"}),
}
# compound keys also as numbers: SimGrid's Idle:AllCores (Epsilon taken as Idle) and a grid's ROWSxCOLS
hand["platform.node_power.idle_w"] = ("W", {100.0})
hand["platform.node_power.epsilon_w"] = ("W", {100.0})
hand["platform.node_power.busy_w"] = ("W", {200.0})
for name, (unit, values) in hand.items():
    if units.get(name) != unit:
        fail(f"{name}: unit {units.get(name)!r}, expected {unit!r}")
    seen = {typed(name, rec) for rec in (dict(zip(names, c))[name] for c in csv_rows)}
    if seen != values:
        fail(f"{name}: values {sorted(map(str, seen))}, expected {sorted(map(str, values))}")
for name, t in types.items():
    if name.endswith("_s") and t != "text" and units[name] != "s":
        fail(f"{name}: a duration column whose unit is {units[name]!r}")

if problems:
    print("\n".join(problems[:20]))
    sys.exit(1)
print(f"export_check: {len(csv_rows)} rows x {len(names)} columns: types, values and units hold")
