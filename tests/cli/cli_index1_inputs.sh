# SPDX-License-Identifier: GPL-3.0-or-later
# Inputs in the constraints that fix index-1 unknowns (docs/equations.md
# section 11): data/circuit_io.lth is data/circuit_mna.lth with its voltage
# source as the input uV (in the constraint that fixes e1, so iV = (uV - e2)/R
# depends on it) and its current source as uI (in node 5's law, the index-2
# constraint), and outputs iV_out = iV, v4 = e4.  lth-solve gives the same
# unknowns as the file with the sources written in (1e-13), the outputs equal
# the unknowns they name; without uV's signal lth-solve refuses naming uV and
# lth-decompose still works; a z0 whose iV is not the one uV fixes is refused;
# lth-ic returns the index-1 values with uV in them.
# Usage: bash cli_index1_inputs.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
F="$DATA/circuit_io.lth"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
opts=(--times 0,1.3,2.5,5,7.5,10 --rtol 1e-12 --atol 1e-14 --format csv -q)

run 0 "solve with the sources as inputs" "$APPS/lth-solve" "$F" "${opts[@]}" && cp "$TMP/out" "$TMP/io.csv"
run 0 "solve with the sources written in" "$APPS/lth-solve" "$DATA/circuit_mna.lth" "${opts[@]}" &&
  cp "$TMP/out" "$TMP/mna.csv"
"$PY" - "$TMP/io.csv" "$TMP/mna.csv" <<'PY' || fail "the inputs' solution differs"
import sys
import numpy as np
a = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
b = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
assert a.shape == (6, 12) and b.shape == (6, 10), (a.shape, b.shape)
d = np.abs(a[:, :10] - b).max()
print("unknowns differ by", d)
# the same equations integrated the same way: rounding only, unknowns of size 1
assert d < 1e-13, d
assert np.abs(a[:, 10] - a[:, 2]).max() < 1e-15  # iV_out = iV
assert np.abs(a[:, 11] - a[:, 5]).max() < 1e-15  # v4 = e4
PY
grep -v '^uV(t)' "$F" >"$TMP/free.lth"
run 1 "free uV" "$APPS/lth-solve" "$TMP/free.lth" -q && err_has "uV" "names the free input"
run 0 "decompose with uV free" "$APPS/lth-decompose" "$TMP/free.lth" --at 1 -q
run 3 "an iV that the others do not fix" "$APPS/lth-solve" "$F" --z0 0,0,0.3,0.5,0.6,0.4,0.1,-0.2,0 &&
  err_has "the index-1 unknown iV is 0, but the other unknowns fix it to -0.1499999" "names iV"
# at t = 0.5 the source fixes e1 = uV = sin(0.5) and iV = (e1 - e2)/(2 + sin t) (components:
# e2 iL1 iL2 iL3 e5 | e1 iV e3 e4); the output iV_out is iV
run 0 "ic: index-1 values with the input" "$APPS/lth-ic" "$F" --at 0.5 --format json && {
  near "$TMP/out" 'z0[5]' "$(awk 'BEGIN { printf "%.17g", sin(0.5) }')" 1e-15 "e1 = uV(0.5)"
  e2=$("$JT" get "$TMP/out" 'z0[0]')
  near "$TMP/out" 'z0[6]' "$(awk -v e2="$e2" 'BEGIN { printf "%.17g", (sin(0.5) - e2) / (2 + sin(0.5)) }')" 1e-14 "iV"
  near "$TMP/out" 'y[0]' "$("$JT" get "$TMP/out" 'z0[6]')" 1e-15 "iV_out = iV"
}
finish cli_index1_inputs
