#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# lth-ss, the minimal realization of a plant with inputs (docs/format.md
# section 2.7), on data/carts_io.lth (index 3, an input in a dynamic row and
# one in the constraint: derivative feedthrough up to u''):
#  - the JSON's keys and shapes, the basis orthonormal to 1e-12 (ss_check.py);
#  - the .mat read back by scipy.io.loadmat holds the JSON's numbers (1e-15)
#    and names, to a file and through standard output;
#  - simulating the realization (x' = A x + B u + g between the times by
#    cubic splines, x0 from lth-solve's consistent z0 through Z) reproduces
#    lth-solve's outputs y and unknowns z at t = 0, 0.5, ..., 3 to 1e-8, with
#    the change of state and with --raw (measured: 2e-11);
#  - --raw and the change of state describe the same plant
#    (D_j = Draw_j + C Q^T K_{j+1}); the block form of the same plant gives
#    the same realization; a free input changes nothing; the times asked
#    change the basis only within its tolerance, and another --basis-start
#    only by a constant rotation;
#  - the text report names inputs, outputs and unknowns;
#  - refusals: no inputs (exit 2), times outside the interval or not numbers,
#    --basis-start outside, --format csv, --format mat to a terminal (exit 1),
#    a singular Pi at a reported time, a basis ODE too loose to stay in the
#    state space (exit 3 naming t), and a failed --format mat leaves no file
#    behind.
# Usage: bash cli_ss.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
SS="$APPS/lth-ss"
SOLVE="$APPS/lth-solve"
CHECK="$(dirname "$0")/ss_check.py"
PY=/usr/bin/python3
IO="$DATA/carts_io.lth"

[ -x "$SS" ] || { echo "FAIL: $SS not built" >&2; exit 1; }
"$PY" -c 'import scipy.io, scipy.integrate' 2>/dev/null ||
  { echo "FAIL: cli_ss needs Debian's python3-scipy (bash scripts/install-deps.sh)" >&2; exit 1; }

# check WHAT ARGS...: ss_check.py, its failures counted here
check() {
  local what=$1
  shift
  "$PY" "$CHECK" "$@" || fail "$what (ss_check.py $*)"
}

# ---- JSON: keys and shapes, on the file's grid and at given times
run 0 "json" "$SS" "$IO" --format json && cp "$TMP/out" "$TMP/io.json" &&
  check "json shapes" shapes "$TMP/io.json"
keys=$("$JT" keys "$TMP/io.json" . | tr '\n' ' ')
for key in times A B C D p inputs outputs g y_f Z Dz z_f Q state_change raw nb nd \
  derivative_feedthrough derivative_feedthrough_z derivative_feedthrough_bound components \
  orth_err range_err amplification basis_start rtol atol steps decomps; do
  case " $keys" in *" $key "*) ;; *) fail "lth-ss JSON lacks key $key (has: $keys)" ;; esac
done
names=$(for e in "inputs[0]" "inputs[1]" "outputs[0]" "outputs[1]"; do "$JT" get "$TMP/io.json" "$e"; done | tr '\n' ' ')
[ "$names" = "u1 u2 y1 tension " ] || fail "the names of inputs and outputs: $names"
near "$TMP/io.json" p 2 0
near "$TMP/io.json" nd 3 0 "three D maps (u, u', u'')"
near "$TMP/io.json" nb 1 0 "the change of state leaves B0 only"
near "$TMP/io.json" derivative_feedthrough 2 0 "the tension responds to u2''"
# closed forms: the constraint differentiated twice gives
# lam = -m u2'' - c(t) cos(t) u1 + (terms in x, v), so the tension
# c lam + 2 u1 has D2 = -m c(t) for u2'' and D0 = 2 - c(t)^2 cos(t) for u1;
# the position y1 sees no u'' and the tension no u' (c = 1 + 0.5 sin t, m = 2)
for k in 0 1 2 3; do
  c=$(awk -v t="$k" 'BEGIN { printf "%.17g", 1 + 0.5 * sin(t) }')
  near "$TMP/io.json" "D[$k][2][1][1]" "$(awk -v c="$c" 'BEGIN { printf "%.17g", -2 * c }')" 1e-12 \
    "tension's u2'' coefficient -m c(t) at t = $k"
  near "$TMP/io.json" "D[$k][0][1][0]" "$(awk -v c="$c" -v t="$k" 'BEGIN { printf "%.17g", 2 - c * c * cos(t) }')" \
    1e-12 "tension's u1 coefficient 2 - c^2 cos t at t = $k"
  for e in "D[$k][2][0][0]" "D[$k][2][0][1]" "D[$k][1][1][0]" "D[$k][1][1][1]"; do
    near "$TMP/io.json" "$e" 0 1e-12 "$e (no u'' in y1, no u' in the tension)"
  done
done

# ---- the .mat against the JSON; to a file, and through standard output.  A
# build without libmatio (cmake -DLTH_MATIO=OFF, or no libmatio-dev) must
# refuse --format mat instead, and write nothing.
have_mat=1
if "$SS" "$IO" --format mat -o "$TMP/probe.mat" 2>"$TMP/err"; then
  :
elif grep -qF "built without libmatio" "$TMP/err"; then
  have_mat=0
  echo "cli_ss: lth-ss was built without libmatio: checking its refusal of --format mat"
  run 1 "mat without libmatio" "$SS" "$IO" --format mat -o "$TMP/io.mat"
  [ -e "$TMP/io.mat" ] && fail "a refused --format mat wrote $TMP/io.mat"
else
  fail "--format mat: $(head -c 300 "$TMP/err")"
fi
run 0 "raw json" "$SS" "$IO" --raw --at 0,1.25,3 --format json && cp "$TMP/out" "$TMP/raw3.json" &&
  check "raw shapes" shapes "$TMP/raw3.json"
if [ "$have_mat" = 1 ]; then
  run 0 "mat" "$SS" "$IO" --format mat -o "$TMP/io.mat" && check "mat = json" mat "$TMP/io.json" "$TMP/io.mat"
  "$SS" "$IO" --format mat >"$TMP/stdout.mat" 2>"$TMP/err" || fail "mat to standard output: $(cat "$TMP/err")"
  cmp -s "$TMP/io.mat" "$TMP/stdout.mat" || fail "the .mat through standard output differs from -o's"
  run 0 "raw mat" "$SS" "$IO" --raw --at 0,1.25,3 --format mat -o "$TMP/raw3.mat" &&
    check "raw mat = json" mat "$TMP/raw3.json" "$TMP/raw3.mat"
fi

# ---- what the realization means: it reproduces lth-solve (y and z)
run 0 "lth-solve" "$SOLVE" "$IO" --project --times 0,0.5,1,1.5,2,2.5,3 --format json -q &&
  cp "$TMP/out" "$TMP/sol.json"
run 0 "dense grid" "$SS" "$IO" --grid 601 --format json && cp "$TMP/out" "$TMP/g.json" &&
  check "simulation" simulate "$TMP/g.json" "$TMP/sol.json"
run 0 "dense grid, raw" "$SS" "$IO" --grid 601 --raw --format json && cp "$TMP/out" "$TMP/graw.json" &&
  check "simulation, raw" simulate "$TMP/graw.json" "$TMP/sol.json"
check "raw = change of state" raw "$TMP/g.json" "$TMP/graw.json"

# ---- the same plant written otherwise, or asked otherwise
sed -e '/^u1(t)/d' -e '/^u2(t)/d' "$IO" >"$TMP/free.lth"
run 0 "free inputs" "$SS" "$TMP/free.lth" --format json && check "free inputs" same "$TMP/out" "$TMP/io.json" 0
cat >"$TMP/block.lth" <<'LTH'
problem dae
blocks 2 2 1
interval 0 3
grid 4
param m = 2, k = 3
c(t) = 1 + 0.5*sin(t)
inputs u1 u2
outputs y1 tension
A(1,2) = -k/m*eye
A(1,3) = [cos(t); sin(t)]/m
A(2,1) = eye
A(3,2) = [cos(t), sin(t)]
f(3) = -1
B(1) = [c(t)/m, 0; 0, 0]
B(3) = [0, 1]
C = [0, 0, 1, -0.5, 0; 0, 0, 0, 0, c(t)]
D = [0, 0; 2, 0]
LTH
run 0 "block form" "$SS" "$TMP/block.lth" --format json && check "block form" same "$TMP/out" "$TMP/io.json" 1e-12
# the basis is carried from t0 in increasing time, whatever the order asked
run 0 "--at 3,1" "$SS" "$IO" --at 3,1 --format json && cp "$TMP/out" "$TMP/31.json"
run 0 "--at 1,3" "$SS" "$IO" --at 1,3 --format json && cp "$TMP/out" "$TMP/13.json"
for key in A B C D; do
  [ "$("$JT" get "$TMP/31.json" "$key[0]")" = "$("$JT" get "$TMP/13.json" "$key[1]")" ] ||
    fail "--at 3,1 and --at 1,3 give different $key at t = 3"
done
run 0 "--at 2" "$SS" "$IO" --at 2 --format json && cp "$TMP/out" "$TMP/2.json"
run 0 "--at 0,1,2,3" "$SS" "$IO" --at 0,1,2,3 --format json &&
  "$PY" - "$TMP/2.json" "$TMP/out" <<'EOF' || fail "the basis at t = 2 depends on the other times asked"
import json, sys
import numpy as np
a, b = (json.load(open(f)) for f in sys.argv[1:3])
d = max(np.max(np.abs(np.array(a[k][0]) - np.array(b[k][2]))) for k in ("A", "B", "C", "D", "Z"))
print("basis at t = 2 alone vs among 0, 1, 2, 3: %.2g" % d)
sys.exit(1 if d > 1e-9 else 0)
EOF
# another basis start gives the basis times a constant rotation R (both
# solve Q' = (I - Q Q^T) Ahat Q in the same space): A2 = R^T A1 R,
# B2 = R^T B1, C2 = C1 R, and the same D
run 0 "--basis-start 1.7" "$SS" "$IO" --at 0,1,2,3 --basis-start 1.7 --format json &&
  "$PY" - "$TMP/out" "$TMP/io.json" <<'EOF' || fail "--basis-start: not the same realization up to a constant rotation"
import json, sys
import numpy as np
b, a = (json.load(open(f)) for f in sys.argv[1:3])
q = lambda r, key, k: np.array(r[key][k])
R = q(a, "Q", 0).T @ q(b, "Q", 0)
d = np.abs(R.T @ R - np.eye(len(R))).max()
for k in range(4):
    d = max(d, np.abs(q(a, "Q", k).T @ q(b, "Q", k) - R).max(),
            np.abs(R.T @ q(a, "A", k) @ R - q(b, "A", k)).max(),
            np.abs(R.T @ q(a, "B", k)[0] - q(b, "B", k)[0]).max(),
            np.abs(q(a, "C", k) @ R - q(b, "C", k)).max(),
            np.abs(q(a, "D", k) - q(b, "D", k)).max())
print("basis from 1.7 vs from 0: a constant rotation to %.2g" % d)
sys.exit(1 if d > 1e-10 else 0)
EOF

# ---- text: the user's names, and what is left out
run 0 "text" "$SS" "$IO" --at 1 && cp "$TMP/out" "$TMP/io.txt"
for s in "inputs         u1, u2" "outputs        y1, tension" "x[1]'" "u2''" "tension " \
  "    lam " "(D1: zero to rounding at this t, left out)" \
  "C x + D0 u + D1 u' + D2 u'' + y_f" "v = Q x + K1 u + K2 u'"; do
  grep -qF -- "$s" "$TMP/io.txt" || fail "text lacks '$s'"
done
run 0 "text, grid" "$SS" "$IO" -q && { [ "$(grep -c '^At t = ' "$TMP/out")" = 2 ] ||
  fail "text on the grid shows $(grep -c '^At t = ' "$TMP/out") times, expected the ends"; }

# ---- refusals
run 2 "no inputs" "$SS" "$DATA/pendulum.lth" && err_has "the plant has no inputs" "no inputs"
run 1 "time outside" "$SS" "$IO" --at 1,5 && err_has "time 5 lies outside the interval" "--at 5"
run 1 "time not a number" "$SS" "$IO" --at 1,x && err_has "item 2 is not a finite number" "--at x"
run 1 "--basis-start outside" "$SS" "$IO" --basis-start 4 && err_has "outside the interval" "--basis-start 4"
run 1 "--format csv" "$SS" "$IO" --format csv && err_has "expected one of text|json|mat" "--format csv"
cat >"$TMP/sing.lth" <<'LTH'
problem equations
variables x1 x2 v1 v2 lam
inputs u1
outputs y = lam
interval 0 2
grid 5
x1' = v1
x2' = v2
v1' = -x1 + (t - 1)*lam + u1
v2' = -x2 + (t - 1)*lam
0 = (t - 1)*(x1 + x2)
LTH
run 3 "singular Pi at t = 1" "$SS" "$TMP/sing.lth" && err_has "(t = 1" "singular Pi"
run 0 "before the singular time" "$SS" "$TMP/sing.lth" --at 0.5 -q
# a basis ODE far too loose for one step from 0 to 3 leaves the state space
# (||P Q|| ~ 1e-3 here, the limit 1e-8): refused naming t and the flags
run 3 "loose basis tolerance" "$SS" "$IO" --rtol 1e-2 --atol 1 --at 3 -q &&
  err_has "tighten --rtol and --atol (t = 3)" "loose basis tolerance"
# a binary file is not written to a terminal (script(1) gives the tool one)
if [ "$have_mat" = 0 ]; then
  :
elif command -v script >/dev/null; then
  script -qec "'$SS' '$IO' --format mat" /dev/null >"$TMP/tty" 2>&1
  rc=$?
  [ "$rc" = 1 ] || fail "--format mat to a terminal: exit status $rc, expected 1"
  grep -qF "give -o FILE.mat" "$TMP/tty" || fail "--format mat to a terminal: $(head -c 300 "$TMP/tty")"
else
  echo "cli_ss: no script(1): the terminal check is skipped"
fi
mkdir -p "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$SS" "$TMP/sing.lth" --format mat -o "$TMP/sing.mat" 2>/dev/null
[ $? = $((have_mat ? 3 : 1)) ] || fail "--format mat on the singular plant: wrong exit status"
[ -e "$TMP/sing.mat" ] && fail "a failed --format mat left $TMP/sing.mat"
[ -z "$(ls -A "$TMP/tmpdir")" ] || fail "--format mat left temporary files: $(ls "$TMP/tmpdir")"
ls "$TMP"/sing.mat.tmp.* >/dev/null 2>&1 && fail "a failed -o left a temporary file"
if [ "$have_mat" = 1 ]; then
  TMPDIR="$TMP/tmpdir" "$SS" "$IO" --format mat -o "$TMP/ok.mat" 2>/dev/null || fail "--format mat with TMPDIR"
  [ -z "$(ls -A "$TMP/tmpdir")" ] || fail "--format mat left temporary files: $(ls "$TMP/tmpdir")"
fi
finish cli_ss
