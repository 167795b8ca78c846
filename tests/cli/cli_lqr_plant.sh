#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# lth-lqr on DAE plants with a cost (docs/control.md section 10, docs/format.md
# section 2.6), against plants reduced to ODEs by hand (lqr_plant_check.py):
#  - tests/data/lqr_lever.lth (index 3, time-invariant, a cross term y1*u):
#    the optimal cost and the gain at t0, acting on the manifold's
#    directions, against scipy.linalg.solve_continuous_are over a horizon of
#    30 (measured: 3e-15 and 5e-14);
#  - tests/data/lqr_spring_tv.lth (index 3, a time-varying spring, a
#    tracking term, a time-varying control weight, a final cost): the cost,
#    the gain and the feedforward at every time against SciPy's Riccati ODE
#    (DOP853, rtol 1e-12): 1e-10 and 1e-9 (measured: 2e-14 and 1e-12);
#  - on both: u = -K z + k at every time, and the closed loop's cost equals
#    the optimal cost to 1e-8 (measured: 2e-13);
#  - an index-1 unknown: its closed-loop values follow the constraint, its
#    gain column is zero;
#  - the times in the user's order, the JSON keys, the CSV and text headers,
#    lth-plot's picture of the closed loop;
#  - refusals: no cost (2), no input (2), no z0 (2), a cost that is not
#    quadratic (2, naming line:column), --method (1), R = 0 with a singular
#    Pi (3, naming t), a
#    conjugate point (3, naming t), an input the plant differentiates (2), a
#    final cost the inputs reach (2), closed-loop and optimal costs that
#    disagree (3);
#  - tests/data/lqr_singular.lth (R = 0, index 2): the cost, the trajectory
#    and u against the closed form to 1e-9 (measured: 4e-15), no gains;
#    an initial state off the arc: the impulse onto it (-1 - tanh 1); refused: an R
#    that vanishes at t = 0.5 (2, naming t).
# Usage: bash cli_lqr_plant.sh BUILD/apps   (env LTH_DATA_DIR = data/, LTH_TEST_DIR = tests/)
. "$(dirname "$0")/testlib.sh"
LQR="$APPS/lth-lqr"
TESTS=${LTH_TEST_DIR:-$(dirname "$0")/..}
CHECK="$(dirname "$0")/lqr_plant_check.py"
PY=/usr/bin/python3
LEVER="$TESTS/data/lqr_lever.lth"
SPRING="$TESTS/data/lqr_spring_tv.lth"

[ -x "$LQR" ] || { echo "FAIL: $LQR not built" >&2; exit 1; }
"$PY" -c 'import scipy.linalg, scipy.integrate' 2>/dev/null ||
  { echo "FAIL: cli_lqr_plant needs Debian's python3-scipy (bash scripts/install-deps.sh)" >&2; exit 1; }

check() { # WHAT MODE FILE.json
  "$PY" "$CHECK" "$2" "$3" || fail "$1 (lqr_plant_check.py $2)"
}

# ---- against SciPy
run 0 "lever" "$LQR" "$LEVER" --format json && cp "$TMP/out" "$TMP/lever.json" &&
  check "lever: the closed loop" loop "$TMP/lever.json" &&
  check "lever: the ARE" lever "$TMP/lever.json"
run 0 "spring" "$LQR" "$SPRING" --format json && cp "$TMP/out" "$TMP/spring.json" &&
  check "spring: the closed loop" loop "$TMP/spring.json" &&
  check "spring: the Riccati ODE" spring "$TMP/spring.json"
keys=$("$JT" keys "$TMP/spring.json" . | tr '\n' ' ')
for key in times variables inputs outputs z u y K k cost cost_closed feedback s p riccati_panels; do
  case " $keys" in *" $key "*) ;; *) fail "JSON lacks key $key (has: $keys)" ;; esac
done
[ "$("$JT" get "$TMP/spring.json" 'variables[4]')" = lam ] || fail "the variables' names"
[ "$("$JT" get "$TMP/spring.json" 'outputs[0]')" = y ] || fail "the outputs' names"
near "$TMP/spring.json" p 2 0 "two masses under one link: p = 2"

# ---- times in the user's order: the same rows as sorted
run 0 "times in any order" "$LQR" "$SPRING" --times 3,0,1 --format json && cp "$TMP/out" "$TMP/perm.json"
for pair in "0 3" "1 0" "2 1"; do
  set -- $pair
  for key in "z[$1][0]" "u[$1][0]" "K[$1][0][2]" "k[$1][0]"; do
    want=$("$JT" get "$TMP/perm.json" "$key")
    near "$TMP/spring.json" "${key/\[$1\]/[$2]}" "$want" 1e-12 "--times 3,0,1 row $1"
  done
done

# ---- an index-1 unknown (e = x1 + x2): its values and a zero gain column
sed 's/^variables x1 x2 v1 v2 lam/variables x1 x2 v1 v2 lam e/; s/^outputs y1 = x1, y2 = v2/outputs y1 = x1, y2 = v2, ye = e/;
     s/^z0 = .*/z0 = [0.6, 0.3, -0.2, -0.1, 0, 0.9]/; s/^cost integral \(.*\)/cost integral \1 + 0.3*ye^2/' \
  "$LEVER" >"$TMP/index1.lth"
echo "0 = e - x1 - x2" >>"$TMP/index1.lth"
run 0 "index-1" "$LQR" "$TMP/index1.lth" --times 0,2 --format json && cp "$TMP/out" "$TMP/i1.json" &&
  check "index-1: the closed loop" loop "$TMP/i1.json"
for q in 0 1; do
  e=$(awk -v a="$("$JT" get "$TMP/i1.json" "z[$q][0]")" -v b="$("$JT" get "$TMP/i1.json" "z[$q][1]")" \
    'BEGIN { printf "%.17g\n", a + b }')
  near "$TMP/i1.json" "z[$q][5]" "$e" 1e-12 "the index-1 unknown e = x1 + x2 at row $q"
  near "$TMP/i1.json" "y[$q][2]" "$e" 1e-12 "the output ye = e at row $q"
  near "$TMP/i1.json" "K[$q][0][5]" 0 0 "the gain on the index-1 unknown"
done

# ---- CSV and text
run 0 "csv" "$LQR" "$SPRING" --times 0,2 --format csv --gain
[ "$(head -1 "$TMP/out")" = 't,"x1","x2","v1","v2","lam","u","y","K[u,x1]","K[u,x2]","K[u,v1]","K[u,v2]","K[u,lam]","k[u]"' ] ||
  fail "CSV header: $(head -1 "$TMP/out")"
[ "$(wc -l <"$TMP/out")" -eq 3 ] || fail "CSV rows"
run 0 "text" "$LQR" "$SPRING"
grep -q '^cost  *0.70633804' "$TMP/out" || fail "text: the cost line: $(grep cost "$TMP/out")"
grep -q 'u = -K(t) z + k(t)' "$TMP/out" || fail "text: the feedback"
grep -q '^ *t  *x1  *x2  *v1  *v2  *lam  *u  *y$' "$TMP/out" || fail "text: the table's header"

# ---- lth-plot draws the closed loop by name
if command -v gnuplot >/dev/null; then
  run 0 "lth-plot" "$APPS/lth-plot" "$TMP/spring.json" -o "$TMP/spring.svg" &&
    for word in "lth-lqr" ">lam<" ">u<" ">y<" "closed loop's cost"; do
      grep -qF -- "$word" "$TMP/spring.svg" || fail "lth-plot: the picture lacks $word"
    done
fi

# ---- refusals
grep -v '^cost' "$SPRING" >"$TMP/nocost.lth"
run 2 "no cost" "$LQR" "$TMP/nocost.lth" && err_has "no cost statements" "no cost"
grep -v '^z0' "$SPRING" >"$TMP/noz0.lth"
run 2 "no z0" "$LQR" "$TMP/noz0.lth" && err_has "needs the file's z0" "no z0"
sed 's/^inputs u$//; s/ + u$//; s/^cost integral .*/cost integral y^2/' "$SPRING" >"$TMP/noin.lth"
run 2 "no input" "$LQR" "$TMP/noin.lth" && err_has "no input to minimise over" "no input"
sed 's/^cost final .*/cost final y^3/' "$SPRING" >"$TMP/cubic.lth"
run 2 "cubic" "$LQR" "$TMP/cubic.lth" && err_has "cubic.lth:21:13: the cost is not quadratic" "cubic"
run 1 "--method" "$LQR" "$SPRING" --method shooting && err_has "--method is for" "--method"
sed 's/^cost integral .*/cost integral (y - r(t))^2/; /^cost final/d' "$SPRING" >"$TMP/r0.lth"
run 3 "R = 0" "$LQR" "$TMP/r0.lth" && err_has "must be invertible" "R = 0"
# R = 0 where the singular arc is of first order: the closed form (J* = tanh 1)
SING="$TESTS/data/lqr_singular.lth"
run 0 "singular" "$LQR" "$SING" --format json
"$PY" - "$TMP/out" <<'PYEOF' || fail "singular LQR against the closed form"
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["singular"] == 1 and "K" not in d, d.keys()
assert abs(d["cost"] - math.tanh(1)) <= 1e-9, d["cost"]
assert abs(d["cost_closed"] - math.tanh(1)) <= 1e-9, d["cost_closed"]
e2 = math.exp(2); a = 1 / (1 + e2); b = a * e2
for t, z, u in zip(d["times"], d["z"], d["u"]):
    x1, x2 = a * math.exp(t) - b * math.exp(-t), a * math.exp(t) + b * math.exp(-t)
    assert max(abs(z[0] - x1), abs(z[1] - x2), abs(u[0] - x2), abs(z[3] - x2)) <= 1e-9, (t, z, u)
PYEOF
run 0 "singular text" "$LQR" "$SING" --gain && { grep -qF "feedback       none" "$TMP/out" || fail "singular text: no feedback line"; }
sed 's/^z0 = .*/z0 = [1, 1, 1, 0]/' "$SING" >"$TMP/impulse.lth"
run 0 "impulse" "$LQR" "$TMP/impulse.lth" --format json &&
  "$PY" -c 'import json, math, sys
d = json.load(open(sys.argv[1]))
assert abs(d["impulse"][0] + 1 + math.tanh(1)) <= 1e-9 and abs(d["cost"] - math.tanh(1)) <= 1e-9, d
' "$TMP/out" || fail "impulse: the jump onto the arc"
sed 's/^cost integral .*/cost integral x1^2 + x2^2 + (t - 0.5)^2*u^2/' "$SING" >"$TMP/rank.lth"
run 2 "R changes rank" "$LQR" "$TMP/rank.lth" && err_has "changes rank at t = 0.5" "R changes rank"
sed 's/^cost integral .*/cost integral -3*y^2 + 0.01*u^2/; s/^interval 0 4/interval 0 30/; /^cost final/d' \
  "$SPRING" >"$TMP/conj.lth"
run 3 "conjugate point" "$LQR" "$TMP/conj.lth" && err_has "conjugate point" "conjugate point" &&
  err_has "(t = 29." "conjugate point"
(grep -v '^u[12](t)' "$DATA/carts_io.lth" && echo "cost integral y1^2 + u1^2 + u2^2") >"$TMP/carts.lth"
run 2 "an input in a constraint" "$LQR" "$TMP/carts.lth" && err_has "the input u2 reaches the plant through its derivatives" "prescribed"
sed 's/^outputs y = x1$/outputs y = x1, ft = lam + 2*u/; s/^cost final .*/cost final ft^2/' "$SPRING" >"$TMP/finu.lth"
run 2 "a final cost on u" "$LQR" "$TMP/finu.lth" && err_has "final cost weighs the inputs" "final u"
run 3 "costs that disagree" "$LQR" "$LEVER" --rtol 1e-2 && err_has "differs from the optimal cost" "rtol"

finish cli_lqr_plant
