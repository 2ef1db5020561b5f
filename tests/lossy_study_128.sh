#!/bin/sh
# The lossy-CG study at 128 x 128 (docs/lossy-cg.md): every solve of scenarios/lossy-cg.ini in one run, then what
# the docs say of it checked in its rows — 297 solves; failure-free 642 iterations for every codec; improved
# recovery 764 iterations on average after the early loss (58), about the failure-free count after the others
# (647, 646, 618) — and the report's table.
# usage: lossy_study_128.sh FAULTLINE SOURCE_DIR   (in a scratch directory)
set -eu
FL=$1
SRC=$2
DB=lossy_study_128.sqlite
rm -f "$DB" "$DB"-*
"$FL" run "$SRC/scenarios/lossy-cg.ini" --np 4 --quiet --set app.grid=128x128 --set app.iterations=1150 --db "$DB"
fail=0
check() { # what, sql, low, high
  v=$(sqlite3 "$DB" "$2")
  if awk -v v="$v" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; then
    echo "ok    $1: $v"
  else
    echo "FAIL  $1: $v, expected $3 .. $4"
    fail=1
  fi
}
check "solves" "SELECT COUNT(*) FROM runs" 297 297
check "failure-free solves of 642 iterations" \
  "SELECT COUNT(*) FROM runs WHERE lost_at IS NULL AND iterations = 642 AND status = 'completed'" 9 9
check "improved after the loss at 58 (mean)" \
  "SELECT AVG(iterations) FROM runs WHERE recovery_mode = 'improved' AND lost_at = 58" 740 790
check "improved after the loss at 225 (mean)" \
  "SELECT AVG(iterations) FROM runs WHERE recovery_mode = 'improved' AND lost_at = 225" 630 665
check "improved after the loss at 417 (mean)" \
  "SELECT AVG(iterations) FROM runs WHERE recovery_mode = 'improved' AND lost_at = 417" 630 665
check "improved after the loss at 610 (mean)" \
  "SELECT AVG(iterations) FROM runs WHERE recovery_mode = 'improved' AND lost_at = 610" 600 640
if "$FL" report "$DB" | grep -q 'aux iterations'; then echo "ok    the report's lossy table"; else echo "FAIL  no lossy table in the report"; fail=1; fi
exit $fail
