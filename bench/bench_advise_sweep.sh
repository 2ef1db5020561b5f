#!/usr/bin/env bash
# advise against a fine sweep of the same job (issue "The answer in one command"): does `faultline advise` pick the
# sweep's best configuration, or one tied with it within the paired 95 % CI, in at most a quarter of the sweep's
# simulations, with an interval within 10 % of the sweep's best?
#
#   1. `advise` on the job (its own database): its pick, its interval, the runs it simulated, its wall time;
#   2. the fine sweep, in another database: every strategy advise raced, at its rule's interval x 2^(k/8) for
#      k = -8..8 (steps of 9 %, half to twice the rule), replication also without checkpoints, 200 replicas a point
#      (the same seeds as advise's: common random numbers);
#   3. from the sweep's rows: the best point by mean objective; the paired difference (replica by replica) between
#      the sweep's point nearest advise's pick and that best, with its 95 % CI; the interval ratio.
#
# Usage: bench/bench_advise_sweep.sh SCENARIO.ini [--set k=v]...   (FAULTLINE: the binary; J: --jobs, every core;
#        SKIP="kind ...": strategies left out of the sweep, and of its count, e.g. one whose replicas take 40x longer
#        and whose mean is 1,000x the best; OBJ: advise's --objective, which the sweep's best is then taken by;
#        TOL: advise's --tolerance, percent, else its default)
# The two cases of docs/benchmarks.md:
#   bench/bench_advise_sweep.sh scenarios/compare-1M.ini --set app.spares=5000
#   OBJ=node-hours bench/bench_advise_sweep.sh scenarios/summit-class.ini --set run.sweep= --set app.nodes=2048 \
#     --set app.spares=64 --set failures.node_mtbf=2y
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-build/faultline}
S=$1
shift
SETS=("$@")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
J=${J:-$(nproc)}

t0=$(date +%s.%N)
"$F" advise "$S" "${SETS[@]}" --objective "${OBJ:-makespan}" ${TOL:+--tolerance "$TOL"} --db "$T/advise.sqlite" --jobs "$J" --format json --quiet \
  >"$T/advise.json"
t1=$(date +%s.%N)

# the sweep's commands: one per strategy configuration (its cost keys as advise set them), intervals swept
SKIP=${SKIP:-} python3 - "$T/advise.json" >"$T/plan.txt" <<'EOF'
import json, os, sys
a = json.load(open(sys.argv[1]))
skip = set(os.environ.get("SKIP", "").split())
a["ranking"] = [r for r in a["ranking"] if r["config"].get("strategy.kind") not in skip]
seen, never = {}, set()
for r in a["ranking"]:
    cfg = dict(r["config"])
    iv = cfg.pop("strategy.interval", None)
    key = tuple(sorted(cfg.items()))
    if iv == "never" or not (r.get("interval_s") or 0) > 0:
        never.add(key)  # replication's copies alone; a strategy that does not checkpoint
    elif iv is None:
        seen[key] = r["interval_s"]  # the rule's interval: the configuration without an interval of its own
for key, rule in seen.items():
    sets = " ".join("--set %s=%s" % kv for kv in key)
    grid = ",".join("%.6gs" % (rule * 2 ** (k / 8)) for k in range(-8, 9))
    print(sets + " --sweep strategy.interval=" + grid)
for key in never:
    print(" ".join("--set %s=%s" % kv for kv in key) + " --set strategy.interval=never")
EOF
while read -r line; do
  # shellcheck disable=SC2086
  "$F" simulate "$S" "${SETS[@]}" $line --replicas 200 --events none --db "$T/sweep.sqlite" --jobs "$J" --quiet \
    >/dev/null
done <"$T/plan.txt"
t2=$(date +%s.%N)
# advise's pick itself, 200 replicas on the same seeds (it may hold a count the sweep does not vary: app.spares)
python3 -c 'import json, sys; print(" ".join("--set %s=%s" % kv for kv in json.load(open(sys.argv[1]))["ranking"][0]["config"].items()))' \
  "$T/advise.json" >"$T/pick.txt"
# shellcheck disable=SC2046
"$F" simulate "$S" "${SETS[@]}" $(cat "$T/pick.txt") --replicas 200 --events none --db "$T/pick.sqlite" \
  --jobs "$J" --quiet >/dev/null 2>&1

python3 - "$T/advise.json" "$T/sweep.sqlite" "$t0" "$t1" "$t2" "$T/pick.sqlite" <<'EOF'
import json, math, sqlite3, sys
a = json.load(open(sys.argv[1]))
t0, t1, t2 = map(float, sys.argv[3:6])
obj = {"makespan": "makespan_s", "node-hours": "node_hours", "energy": "energy_j"}[a["objective"]]
db = sqlite3.connect(sys.argv[2])
rows = db.execute("SELECT strategy, checkpoint_cost_s, interval_s, replica, %s FROM runs" % obj).fetchall()
points = {}
for strat, cost, iv, rep, y in rows:
    points.setdefault((strat, round(cost or 0, 6), iv), {})[rep] = y
def mean(d): return sum(d.values()) / len(d)
best = min(points, key=lambda p: mean(points[p]))
pick = a["ranking"][0]
ps = pick["config"]["strategy.kind"]
piv = pick.get("interval_s")
near = ("advise's pick, 200 replicas", 0, piv)
points[near] = {rep: y for rep, y in sqlite3.connect(sys.argv[6]).execute("SELECT replica, %s FROM runs" % obj)}
common = sorted(set(points[near]) & set(points[best]))
d = [points[near][r] - points[best][r] for r in common]
n = len(d); md = sum(d) / n
sd = math.sqrt(sum((x - md) ** 2 for x in d) / (n - 1)) if n > 1 else 0.0
from statistics import NormalDist
try:
    from scipy.stats import t as tdist; q = tdist.ppf(0.975, n - 1)
except Exception:
    q = 1.96 + 2.4 / n  # (t quantile at n >= 100: within 0.1 %)
ci = q * sd / math.sqrt(n)
unit = 3600.0 if obj == "makespan_s" else 1.0
fmt = lambda v: ("%.4g h" % (v / 3600)) if obj == "makespan_s" else "%.4g" % v
print("advise: %.1f s, %d runs simulated; pick %s (%s)" % (t1 - t0, a["simulated"], pick["label"], pick["verdict"]))
print("sweep: %.1f s, %d runs, %d points; best %s at %s: %s" % (t2 - t1, len(rows), len(points) - 1, best[0],
      "%.3g h" % (best[2] / 3600) if best[2] else "never", fmt(mean(points[best]))))
print("advise's pick, simulated again (%s): %s; paired difference to the sweep's best %+.3g %s +- %.2g (95 %%, %d replicas): %s" %
      (pick["label"], fmt(mean(points[near])), md / unit,
       "h" if unit > 1 else "", ci / unit, n, "BETTER" if md + ci < 0 else "tied" if md - ci <= 0 else "WORSE"))
def paired(p, q):
    c = sorted(set(points[p]) & set(points[q]))
    x = [points[p][r] - points[q][r] for r in c]
    m = sum(x) / len(x)
    v = math.sqrt(sum((y - m) ** 2 for y in x) / (len(x) - 1)) if len(x) > 1 else 0.0
    return m, (1.96 + 2.4 / len(x)) * v / math.sqrt(len(x))
# the sweep's plateau: its points of the best's strategy that its 200 replicas cannot tell from the best
plateau = sorted(p[2] for p in points if p[0] == best[0] and p[1] == best[1] and p[2] and
                 (lambda m_h: m_h[0] - m_h[1] <= 0)(paired(p, best)))
if plateau and piv:
    print("the sweep's plateau (intervals tied with its best, paired 95 %%): %.3g .. %.3g h; advise's %.3g h %s it" %
          (plateau[0] / 3600, plateau[-1] / 3600, piv / 3600,
           "inside" if plateau[0] * 0.999 <= piv <= plateau[-1] * 1.001 else "OUTSIDE"))
if best[2] and piv:
    print("interval: advise %.3g h, sweep's best %.3g h: ratio %.3f (%s 10 %%)" % (piv / 3600, best[2] / 3600,
          piv / best[2], "within" if abs(piv / best[2] - 1) <= 0.10 else "NOT within"))
print("relative: the pick's mean is %.3f %% above the sweep's best" % (100 * md / mean(points[best])))
print("simulations: advise %d, sweep %d: %.3f of the sweep's (target <= 0.25)" % (a["simulated"], len(rows),
      a["simulated"] / len(rows)))
EOF
