#!/bin/bash
# extend.sh SRC [FAULTLINE_BUILD_TYPE] — the registries' promise, demonstrated: a copy of the project (its git
# files) gains one strategy (alternate.c), one failure model (uniform.c), one report format (latex.c), one
# checkpoint interval rule that adapts as the run goes (cautious.c) and one app kind (scaled.c: bsp with a key of its own), each as one new file
# plus one line in its registry's list, and one result column as one line of FL_RUN_COLUMNS; the copy is built and
# they are run together:
#   faultline keys lists the strategy and the rule; simulate runs the strategy under the new law and stores rows
#   that say so; report --format latex writes them as a LaTeX table; the rule gives half of Young's interval after a
#   failure, growing back to Young's with each failure-free one, and an engine that cannot ask it before every
#   interval refuses it;
#   faultline columns lists the column, and the rows have it, not applicable (NULL) where nothing fills it; keys lists
#   the app kind and its key, and a job of it does its work times that key; help lists the strategy, the law, the
#   app kind, the rule and the format.
# Exit 0 when all of it works; 77 when the copy cannot be built here (no compiler or CMake); 1 otherwise.
# ctest runs it as extend_demo (label slow: it builds the project once more).
set -euo pipefail
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/faultline-extend-XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v cmake >/dev/null || exit 77

# the project's files as git knows them (tracked and untracked but not ignored)
(cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$work"

# one file and one line per extension
add() { # FILE DIR LIST_FILE ENTRY
  cp "$here/$1" "$work/$2/"
  grep -q '/\* one line per entry, above this one \*/' "$work/$3"
  sed -i "s|^  /\* one line per entry, above this one \*/|  X($4) \\\\\n&|" "$work/$3"
}
add alternate.c policy/strategies policy/strategies/registry.c alternate
add uniform.c sim/failure_models sim/failure_models/fm.c uniform
add latex.c analysis/formats analysis/formats/format.c latex
add cautious.c policy/intervals policy/intervals/rule.h cautious
add scaled.c sim/apps sim/sim_impl.h scaled
# a column: its line (name, SQL type, how the row holds it, unit, engines, summarised, meaning) is all of it
sed -i 's|^  /\* one line per entry, above this one \*/|  X(extend_demo_s, "REAL", REAL, "s", SIM, SUM, "extend.sh'"'"'s column") \\\n&|' \
  "$work/storage/columns.h"
# what the copy differs in: the four new files, and one added line in each list
for list in policy/strategies/registry.c sim/failure_models/fm.c analysis/formats/format.c policy/intervals/rule.h \
  sim/sim_impl.h storage/columns.h; do
  d=$(diff "$src/$list" "$work/$list" || true)
  [ "$(printf '%s\n' "$d" | grep -c '^>')" = 1 ] && [ "$(printf '%s\n' "$d" | grep -c '^<')" = 0 ] ||
    { echo "extend: $list: not one added line: $d" >&2; exit 1; }
done
new=$(cd "$work" && find . -name '*.c' | sort | while read -r f; do [ -e "$src/$f" ] || echo "$f"; done)
[ "$(printf '%s\n' "$new" | wc -l)" = 5 ] || { echo "extend: new files: $new" >&2; exit 1; }
echo "extend: the copy differs in five new files and one line in each of six lists"
cmake -S "$work" -B "$work/build" -DCMAKE_BUILD_TYPE="${2:-RelWithDebInfo}" >"$work/cmake.log" 2>&1 ||
  { tail -20 "$work/cmake.log"; exit 1; }
cmake --build "$work/build" --target faultline -j"$(nproc)" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
fl="$work/build/faultline"
cd "$work"

fail() { echo "extend: $*" >&2; exit 1; }
"$fl" keys | grep -q '^  alternate ' || fail "faultline keys does not list alternate"
# the strategy's own key, declared in its file: listed with its owner, and refused with file, line, key, value
"$fl" keys | grep -q '^strategy.alternate_period .*default 2 .*(declared by strategy alternate)' ||
  fail "faultline keys does not list strategy.alternate_period as the strategy's: $("$fl" keys | grep alternate_period)"
cat >demo.ini <<'INI'
[run]
replicas = 4
[platform]
nodes = 72
[failures]
model = uniform
node_mtbf = 5d
[app]
nodes = 64
work = 24h
[strategy]
kind = alternate
interval = 1h
checkpoint_cost = 1min
file_cost = 5min
restart_cost = 2min
alternate_period = 3
INI
set +e
msg=$("$fl" simulate demo.ini --db bad.sqlite --quiet --set strategy.alternate_period=1 2>&1 >/dev/null)
code=$?
set -e
[ "$code" = 2 ] && printf '%s\n' "$msg" | grep -q "strategy.alternate_period=1: alternate needs at least 2" && [ ! -e bad.sqlite ] ||
  fail "a bad alternate_period: exit $code, '$msg'"
"$fl" simulate demo.ini --db demo.sqlite --quiet >/dev/null || fail "simulate failed"
q() { sqlite3 demo.sqlite "$1"; }
[ "$(q "SELECT COUNT(*) FROM runs WHERE strategy = 'alternate' AND failure_model = 'uniform' AND status = 'completed'")" = 4 ] ||
  fail "rows: $(q 'SELECT strategy, failure_model, status FROM runs')"
[ "$(q 'SELECT SUM(failures) > 0 FROM runs')" = 1 ] || fail "no failure drawn from the uniform law"
[ "$(q 'SELECT MIN(checkpoints) > 10 FROM runs')" = 1 ] || fail "no checkpoints"
# the key's value reaches the strategy: one in 3 to files is not one in 2 (the same failures, other costs)
"$fl" simulate demo.ini --db demo2.sqlite --quiet --set strategy.alternate_period=2 >/dev/null || fail "simulate 2"
[ "$(sqlite3 demo2.sqlite 'SELECT SUM(makespan_s) FROM runs')" != "$(q 'SELECT SUM(makespan_s) FROM runs')" ] ||
  fail "strategy.alternate_period changed nothing"
# odd checkpoints to buddy, even ones to files: the row's interval rule names the pattern's levels
"$fl" report demo.sqlite --format latex >demo.tex || fail "report --format latex failed"
grep -q '\\begin{tabular}' demo.tex && grep -q 'alternate' demo.tex || fail "latex: $(cat demo.tex)"
"$fl" rerun demo.sqlite 2 | grep -q identical || fail "rerun of a row of the new strategy and law differs"
# the interval rule: listed; half of Young's interval at the start and after each failure, growing by a quarter of
# Young's with each failure-free one up to Young's (Young: sqrt(2 x 60 s x 5 d / 64) = 900 s): the work between
# consecutive checkpoints (but the last, shorter one) is 450, 675 or 900 s, and 450 after every restart
"$fl" keys | grep -q '^  cautious .*half of Young' || fail "faultline keys does not list the rule cautious"
for rule in young cautious; do
  "$fl" simulate demo.ini --db "rule-$rule.sqlite" --quiet --events all --set strategy.kind=checkpoint \
    --set strategy.interval="$rule" >/dev/null || fail "simulate with interval $rule"
done
[ "$(sqlite3 rule-young.sqlite 'SELECT DISTINCT interval_s FROM runs')" = 900.0 ] &&
  [ "$(sqlite3 rule-cautious.sqlite "SELECT DISTINCT interval_rule || ' ' || interval_s FROM runs")" = "cautious 450.0" ] ||
  fail "cautious: $(sqlite3 rule-cautious.sqlite 'SELECT interval_rule, interval_s FROM runs')"
steps() { # DB: the distinct work between consecutive checkpoints, '+' marking those with a restart between
  sqlite3 "$1" "WITH e AS (SELECT e.run_id, e.id, k.name, e.value, r.work_s FROM events e
      JOIN event_kinds k ON k.code = e.kind JOIN runs r ON r.id = e.run_id WHERE k.name IN ('checkpoint', 'restart')),
    c AS (SELECT run_id, value, work_s, name,
      LAG(value) OVER (PARTITION BY run_id ORDER BY id) AS prev,
      (SELECT COUNT(*) FROM e x WHERE x.run_id = e.run_id AND x.name = 'restart' AND x.id < e.id) AS restarts,
      LAG((SELECT COUNT(*) FROM e x WHERE x.run_id = e.run_id AND x.name = 'restart' AND x.id < e.id))
        OVER (PARTITION BY run_id ORDER BY id) AS prev_restarts
      FROM e WHERE name = 'checkpoint')
    SELECT DISTINCT CASE WHEN prev IS NULL THEN 'first ' ELSE '' END
      || CASE WHEN restarts > prev_restarts THEN '+' ELSE '' END || CAST(ROUND(value - COALESCE(prev, 0)) AS INT)
    FROM c WHERE value < work_s - 1e-6 ORDER BY 1"
}
[ "$(steps rule-cautious.sqlite | tr '\n' ' ')" = "+450 675 900 first 450 " ] ||
  fail "cautious's intervals: $(steps rule-cautious.sqlite | tr '\n' ' ')"
[ "$(sqlite3 rule-cautious.sqlite 'SELECT SUM(failures) FROM runs')" -gt 0 ] || fail "cautious: no failure"
# an engine that does not ask before every interval refuses it, naming engine, rule and strategy
set +e
msg=$("$fl" simulate scenarios/workload-periods.ini --db bad4.sqlite --quiet --set strategy.interval=cautious 2>&1 >/dev/null)
code=$?
set -e
[ "$code" = 2 ] && printf '%s\n' "$msg" | grep -q "strategy.interval=cautious: the sim (workload) engine cannot honour cautious, which strategy 'checkpoint' would checkpoint by: it needs to be asked before every interval how the run went" &&
  [ ! -e bad4.sqlite ] || fail "cautious on the workload engine: exit $code, '$msg'"
# the column: listed, in the schema, NULL where nothing fills it
"$fl" columns | grep -q '^| `extend_demo_s` | real | s | sim | summarised |' || fail "faultline columns: no extend_demo_s"
[ "$(q 'SELECT COUNT(*) FROM runs WHERE extend_demo_s IS NULL')" = 4 ] || fail "extend_demo_s: $(q 'SELECT extend_demo_s FROM runs')"
# the app kind: listed with its key; its job does app.work x app.work_scale; a bad value refused; its key refused
# where another kind runs
"$fl" keys | grep -q '^  scaled ' || fail "faultline keys does not list the app kind scaled"
"$fl" keys | grep -q '^app.work_scale .*(declared by app scaled)' || fail "faultline keys does not list app.work_scale"
"$fl" simulate demo.ini --db app.sqlite --quiet --set app.kind=scaled --set app.work_scale=2 >/dev/null ||
  fail "simulate app.kind=scaled"
[ "$(sqlite3 app.sqlite "SELECT DISTINCT app || ' ' || work_s FROM runs")" = "scaled 172800.0" ] ||
  fail "scaled: $(sqlite3 app.sqlite 'SELECT app, work_s FROM runs')"
set +e
msg=$("$fl" simulate demo.ini --db bad2.sqlite --quiet --set app.kind=scaled --set app.work_scale=0 2>&1 >/dev/null)
code=$?
set -e
[ "$code" = 2 ] && printf '%s\n' "$msg" | grep -q "app.work_scale=0: must be positive" && [ ! -e bad2.sqlite ] ||
  fail "a bad app.work_scale: exit $code, '$msg'"
set +e
msg=$("$fl" simulate demo.ini --db bad3.sqlite --quiet --set app.work_scale=2 2>&1 >/dev/null)
code=$?
set -e
[ "$code" = 2 ] && printf '%s\n' "$msg" | grep -q "app.kind = scaled reads this key" ||
  fail "app.work_scale given to bsp: exit $code, '$msg'"
# help names them too: the strategy, the law, the app kind and the rule (help simulate), the format (help report)
h=$("$fl" help simulate)
printf '%s\n' "$h" | grep -q '^strategies:.* alternate (bsp' && printf '%s\n' "$h" | grep -q '^failure models:.* uniform' &&
  printf '%s\n' "$h" | grep -q '^app kinds:.*scaled' && printf '%s\n' "$h" | grep -q '^interval rules .*cautious' ||
  fail "faultline help simulate: $h"
"$fl" help report | grep -q '^  latex ' || fail "faultline help report does not list latex"
echo "extend: a strategy, a failure model, a report format, an interval rule and an app kind, one file and one line"
echo "extend: each, and a column of one line: built and run"
cat demo.tex
