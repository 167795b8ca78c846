# SPDX-License-Identifier: GPL-3.0-or-later
# Index-1 parts of the equation form (docs/equations.md section 9) through the
# tools, on data/circuit_mna.lth (index 2 with four index-1 unknowns):
# lth-decompose reports the structure; lth-solve returns every unknown in the
# order of `variables`, against an independent integration of the ODE reduced
# by hand (scipy, rtol 1e-12); the JSON names the index-1 unknowns; a z0
# whose index-1 value is not the one the others fix is refused (--project
# accepts it); lth-ic returns them and refuses --fix of one; lth-bvp with
# boundary conditions on index-1 unknowns reproduces the initial-value
# solution; a DAE that is only index 1 is refused.
# Usage: bash cli_index1.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
F="$DATA/circuit_mna.lth"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

run 0 "decompose structure" "$APPS/lth-decompose" "$F" --at 0 -q && {
  grep -q '^               y   = {e1, iV} (index 1: fixed by the equations on lines 33, 34)$' "$TMP/out" ||
    fail "no index-1 line for {e1, iV}"
  grep -q '^               y   = {e3, e4} (index 1: fixed by the equations on lines 36, 37)$' "$TMP/out" ||
    fail "no index-1 line for {e3, e4}"
  grep -q '^               u   = {e5} (algebraic)$' "$TMP/out" || fail "u is not {e5}"
}
run 0 "solve csv" "$APPS/lth-solve" "$F" --times 0,2.5,5,7.5,10 --rtol 1e-12 --atol 1e-14 --format csv -q && {
  [ "$(head -n 1 "$TMP/out")" = 't,"e1","iV","e2","e3","e4","e5","iL1","iL2","iL3"' ] ||
    fail "CSV header is not the order of variables: $(head -n 1 "$TMP/out")"
  cp "$TMP/out" "$TMP/solve.csv"
  "$PY" - "$TMP/solve.csv" <<'PY' || fail "lth-solve differs from the reduced ODE"
import sys
import numpy as np
from scipy.integrate import solve_ivp
R2, R3, L1, L2, L3 = 2.0, 0.5, 0.5, 1.0, 2.0
def every(t, x):  # all unknowns from the state (e2, iL1, iL2), as the file's comment derives
    e2, i1, i2 = x
    e1 = np.sin(t); iV = (e1 - e2) / (2 + np.sin(t)); e3 = e2 - R2 * (i1 + i2); e4 = e3 - R3 * i2
    e5 = (e4 / L2 - 0.4 * np.sin(2 * t)) / (1 / L2 + 1 / L3)
    return np.array([e1, iV, e2, e3, e4, e5, i1, i2, i2 + 0.2 * np.cos(2 * t)])
def rhs(t, x):
    a = every(t, x)
    C = 1 + 0.5 * np.cos(t)
    return [((a[0] - x[0]) / (2 + np.sin(t)) - (x[0] - a[3]) / R2 + 0.5 * np.sin(t) * x[0]) / C,
            a[3] / L1, (a[4] - a[5]) / L2]
d = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
sol = solve_ivp(rhs, (0, 10), [0.3, 0.1, -0.2], method="DOP853", rtol=1e-12, atol=1e-14,
                t_eval=d[:, 0], dense_output=False)
ref = np.array([every(t, x) for t, x in zip(sol.t, sol.y.T)])
err = np.abs(d[:, 1:] - ref).max()
print("largest difference", err)
sys.exit(0 if err < 1e-9 else 1)  # both integrations' errors ~1e-12, unknowns of size 1
PY
}
run 0 "solve json" "$APPS/lth-solve" "$F" --times 1 --format json && {
  [ "$("$JT" get "$TMP/out" 'index1[0]')" = e1 ] || fail "index1[0] is not e1"
  [ "$("$JT" get "$TMP/out" 'components[5]')" = e1 ] || fail "components[5] is not e1 (after z's 5)"
  near "$TMP/out" 'variable_index[5]' 1 0 "variable_index of e1"
  near "$TMP/out" 'z[0][5]' "$(awk 'BEGIN { printf "%.17g", sin(1) }')" 1e-15 "z[0][5] = e1 = sin(1)"
}
run 3 "inconsistent index-1 value" "$APPS/lth-solve" "$F" --z0 0,-0.15,0.3,0.7,0.6,0.4,0.1,-0.2,0 &&
  err_has "the index-1 unknown e3 is 0.69999999999999996, but the other unknowns fix it to 0.5" "z0 e3"
run 0 "--project replaces it" "$APPS/lth-solve" "$F" --z0 0,-0.15,0.3,0.7,0.6,0.4,0.1,-0.2,0 --project --times 0 --format csv -q && {
  awk -F, 'NR == 2 { d = $5 - 0.5; exit !(d < 1e-12 && d > -1e-12) }' "$TMP/out" || fail "--project kept e3 = 0.7"
}
run 1 "--z0 count" "$APPS/lth-solve" "$F" --z0 1,2,3,4,5 && err_has "(with its index-1 unknowns) = 9 components" "--z0 count"
run 0 "ic" "$APPS/lth-ic" "$F" --fix e2=0.3,iL1=0.1,iL2=-0.2 --format csv && {
  awk -F, 'NR == 2 { d = $5 - 0.5; exit !(d < 1e-12 && d > -1e-12) }' "$TMP/out" || fail "ic: e3 is not 0.5"
}
run 1 "ic --fix an index-1 unknown" "$APPS/lth-ic" "$F" --fix e3=1 && err_has "e3 is an index-1 unknown" "--fix e3"
# the BVP with e3(0) = 0.5, iL1(0) = 0.1 and e4(10) from the IVP gives the IVP's solution
E4=$(awk -F, 'NR == 6 { print $6 }' "$TMP/solve.csv")
sed '/^z0/d' "$F" > "$TMP/bvp.lth"
cat >> "$TMP/bvp.lth" <<BC
bc B0 = [0 0 0 1 0 0 0 0 0; 0 0 0 0 0 0 1 0 0; 0 0 0 0 0 0 0 0 0]
bc B1 = [0 0 0 0 0 0 0 0 0; 0 0 0 0 0 0 0 0 0; 0 0 0 0 1 0 0 0 0]
bc beta = [0.5; 0.1; $E4]
BC
run 0 "bvp with index-1 unknowns in bc" "$APPS/lth-bvp" "$TMP/bvp.lth" --times 0,2.5,5,7.5,10 --format csv -q && {
  "$PY" - "$TMP/solve.csv" "$TMP/out" <<'PY' || fail "lth-bvp differs from lth-solve"
import sys
import numpy as np
a = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
b = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
err = np.abs(a - b).max()
print("largest difference", err)
sys.exit(0 if err < 1e-8 else 1)  # collocation at its default tolerance 1e-8 relative
PY
}
run 2 "only index 1" "$APPS/lth-decompose" "$LTH_DATA_DIR/../tests/bad/eq_index1.lth" &&
  err_has "every algebraic unknown, {y}, is fixed by the equation on line 7 (index 1)" "only index 1"
finish cli_index1
