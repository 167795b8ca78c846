#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Nothing hides between the points lth-bvp looks at (docs/collocation.md
# section 8): the reproducers of the issue through every method, each against
# its closed form (tests/data/features/*.lth, values in the comments):
#  - a pulse of width 0.005 in the load: shooting and multiple shooting
#    stepped over it (y = 0 for 0.0087534 at t = 0.51);
#  - a kink of a coefficient between collocation's mesh points: error 2.4e-8
#    above the tolerance 1e-8 with an estimate of 5.7e-16;
#  - a jump in the constraint, for which no solution exists: every method
#    returned one (exit 0); now each refuses, naming t = 0.5037.
# An answer must lie within the tool's tolerance (collocation: --tol relative
# to max(1, |z|); the shooting methods at rtol 1e-10: 1e-8; finite
# differences: its own estimate fd_error), or the tool must refuse (exit 3)
# naming the t of the feature.  Then the property test
# (tests/cli/bvp_features_property.py, 36 draws; its docstring gives the longer run).
# Usage: bash cli_bvp_features.sh BUILD/apps   (env LTH_TEST_DIR = tests/)
. "$(dirname "$0")/testlib.sh"
BVP="$APPS/lth-bvp"
D="${LTH_TEST_DIR:?LTH_TEST_DIR must name the tests directory}/data/features"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

# y_near WHAT FILE K TRUTH TOL: z[K][1] (y) of the JSON in FILE within TOL of TRUTH
y_near() {
  near "$2" "z[$3][1]" "$4" "$5" "$1 y at ${3}th time"
}

# fd's answer within its own estimate, or a refusal naming the feature's t
fd_check() {
  local what=$1 t_feature=$2 k=$3 truth=$4
  shift 4
  "$BVP" "$@" --method fd --format json >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -eq 0 ]; then
    local est
    est=$("$JT" get "$TMP/out" fd_error)
    near "$TMP/out" "z[$k][1]" "$truth" "$est" "$what (fd, within its estimate $est)"
  elif [ "$rc" -eq 3 ]; then
    local t
    t=$(sed -n 's/.*(t = \([-0-9.eE+]*\)).*/\1/p' "$TMP/err")
    awk -v t="$t" -v c="$t_feature" 'BEGIN { d = t - c; if (d < 0) d = -d; exit !(t != "" && d < 0.01) }' ||
      fail "$what (fd): refused without naming t near $t_feature: $(cat "$TMP/err")"
  else
    fail "$what (fd): exit $rc: $(head -c 400 "$TMP/err")"
  fi
}

# ---- a pulse of width 0.005 at 0.5 in the load
P="$D/pulse_bvp.lth"
for m in collocation shooting multiple; do
  run 0 "pulse $m" "$BVP" "$P" --method "$m" --times 0.25,0.51,0.75,1 --format json &&
    cp "$TMP/out" "$TMP/p.json" && {
    y_near "pulse $m" "$TMP/p.json" 0 0 1e-8
    y_near "pulse $m" "$TMP/p.json" 1 0.0087533936768809283 1e-8
    y_near "pulse $m" "$TMP/p.json" 2 0.0069019853724894888 1e-8
    y_near "pulse $m" "$TMP/p.json" 3 0.0053752716128421959 1e-8
  }
done
run 0 "pulse collocation tol 1e-11" "$BVP" "$P" --tol 1e-11 --times 0.51,1 --format json && {
  y_near "pulse tol 1e-11" "$TMP/out" 0 0.0087533936768809283 1e-11
  y_near "pulse tol 1e-11" "$TMP/out" 1 0.0053752716128421959 1e-11
}
fd_check "pulse" 0.5 0 0.0087533936768809283 "$P" --times 0.51,1

# ---- a kink of the coefficient at 0.5037, between the mesh points
K="$D/kink_bvp.lth"
for tol in 1e-8 1e-12; do
  run 0 "kink collocation tol $tol" "$BVP" "$K" --tol "$tol" --times 0.25,0.75,1 --format json && {
    cp "$TMP/out" "$TMP/k.json"
    y_near "kink tol $tol" "$TMP/k.json" 0 0.90966852870339496 "$tol"
    y_near "kink tol $tol" "$TMP/k.json" 1 0.85454279992327562 "$tol"
    y_near "kink tol $tol" "$TMP/k.json" 2 0.77879012136166419 "$tol"
    "$JT" below "$TMP/k.json" error_estimate "$tol" || fail "kink tol $tol: estimate above tol"
  }
done
for m in shooting multiple; do
  run 0 "kink $m" "$BVP" "$K" --method "$m" --times 0.25,0.75,1 --format json && {
    y_near "kink $m" "$TMP/out" 0 0.90966852870339496 1e-8
    y_near "kink $m" "$TMP/out" 2 0.77879012136166419 1e-8
  }
done
fd_check "kink" 0.5037 2 0.77879012136166419 "$K" --times 0.25,0.75,1

# ---- a jump in the constraint: no solution; every method names t = 0.5037
for m in collocation shooting multiple fd; do
  if run 3 "jump in the constraint, $m" "$BVP" "$D/jump_constraint_bvp.lth" --method "$m"; then
    err_has "no solution without an impulse" "jump $m"
    err_has "f(2) entry 1" "jump $m"
    t=$(sed -n 's/.*(t = \([-0-9.eE+]*\)).*/\1/p' "$TMP/err")
    awk -v t="$t" 'BEGIN { d = t - 0.5037; if (d < 0) d = -d; exit !(t != "" && d < 1e-12) }' ||
      fail "jump $m: the refusal names t = '$t', not 0.5037"
  fi
done

# ---- the property test: random pulses, kinks and jumps, every method
"$PY" "$(dirname "$0")/bvp_features_property.py" --apps "$APPS" --draws 36 --seed 1 >"$TMP/prop" 2>&1 ||
  fail "property test: $(cat "$TMP/prop")"

finish cli_bvp_features
