# SPDX-License-Identifier: GPL-3.0-or-later
# Inputs and outputs of the equation form (docs/equations.md section 11):
#  - a file with `inputs` and signals u(t) = ... (one input in a dynamic
#    row, one in the constraint: prescribed motion) against the same file
#    with the signals written into the equations as a known forcing:
#    lth-solve and lth-bvp give the same unknowns within their error
#    estimates;
#  - the outputs y1 = x1 - 0.5*x2, y2 = c(t)*lam + 2*u1 against y computed
#    from the returned z in NumPy: 1e-14 relative (a few roundings);
#  - the outputs in the JSON ("outputs", "y"), CSV and text;
#  - a free input: lth-solve and lth-bvp refuse naming it (exit 1), and
#    lth-decompose reports the decomposition with it at 0, saying so.
# Usage: bash cli_io.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
SOLVE="$APPS/lth-solve"
BVP="$APPS/lth-bvp"
DEC="$APPS/lth-decompose"
PY=/usr/bin/python3

head_lth() {
  cat <<'LTH'
problem equations
variables x1 x2 v1 v2 lam
interval 0 3
grid 7
param m = 2, k = 3
c(t) = 1 + 0.5*sin(t)
x1' = v1
x2' = v2
z0 = [1, 0, 0, 0, 5]
bc v2(0) = 0
bc x2(3) = 0.5
LTH
}
{
  head_lth
  cat <<'LTH'
inputs u1, u2
outputs y1 = x1 - 0.5*x2, y2 = c(t)*lam + 2*u1
m*v1' = -k*x1 + cos(t)*lam + c(t)*u1
m*v2' = -k*x2 + sin(t)*lam
0 = cos(t)*x1 + sin(t)*x2 - 1 + u2
u1(t) = sin(3*t)
u2(t) = 0.1*t^2
LTH
} >"$TMP/in.lth"
{
  head_lth
  cat <<'LTH'
m*v1' = -k*x1 + cos(t)*lam + c(t)*sin(3*t)
m*v2' = -k*x2 + sin(t)*lam
0 = cos(t)*x1 + sin(t)*x2 - 1 + 0.1*t^2
LTH
} >"$TMP/forced.lth"

# the unknowns agree within the two runs' own error estimates: the forcing
# f + B u is rounded in another order than the hand-written coefficient, so
# a step or mesh decision may go the other way; each answer is within its
# estimate of the true solution, so their difference is within the sum
# (times 10, the estimates' own margin, with a floor of 1e-13 for rounding)
for tool in "$SOLVE --project" "$BVP"; do
  name=${tool%% *}
  name=${name##*/}
  if run 0 "$name with inputs" $tool "$TMP/in.lth" --format csv; then
    head -1 "$TMP/out" | grep -qF ',"y1","y2"' || fail "$name: the CSV header lacks y1, y2: $(head -1 "$TMP/out")"
  fi
  if run 0 "$name json with inputs" $tool "$TMP/in.lth" --format json; then
    cp "$TMP/out" "$TMP/a.json"
    if run 0 "$name with the forcing written" $tool "$TMP/forced.lth" --format json; then
      "$PY" - "$TMP/a.json" "$TMP/out" <<'PY' || fail "$name: the unknowns differ beyond the error estimates"
import json, sys
import numpy as np
a, b = (json.load(open(f)) for f in sys.argv[1:3])
za, zb = np.array(a["z"]), np.array(b["z"])
assert za.shape == zb.shape, (za.shape, zb.shape)
bound = 10 * (a["error_estimate"] + b["error_estimate"]) + 1e-13 * max(1.0, np.abs(za).max())
d = np.abs(za - zb).max()
assert d <= bound, "difference %.3g, bound %.3g" % (d, bound)
PY
    fi
  fi
done

# outputs against y from z
if run 0 "lth-solve json" "$SOLVE" "$TMP/in.lth" --project --format json; then
  cp "$TMP/out" "$TMP/in.json"
  "$PY" - "$TMP/in.json" <<'PY' || fail "outputs against y computed from z"
import json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
assert d["outputs"] == ["y1", "y2"], d["outputs"]
t = np.array(d["times"]); z = np.array(d["z"]); y = np.array(d["y"])
assert y.shape == (len(t), 2), y.shape
ix = {n: d["components"].index(n) for n in ("x1", "x2", "lam")}
y1 = z[:, ix["x1"]] - 0.5 * z[:, ix["x2"]]
y2 = (1 + 0.5 * np.sin(t)) * z[:, ix["lam"]] + 2 * np.sin(3 * t)
size = np.abs(z).max() + 2
err = max(np.abs(y[:, 0] - y1).max(), np.abs(y[:, 1] - y2).max()) / size
assert err <= 1e-14, err
PY
fi
run 0 "lth-solve text" "$SOLVE" "$TMP/in.lth" --project &&
  { grep -qE '^ +t +x1 .* lam +y1 +y2$' "$TMP/out" || fail "text table lacks the outputs' columns"; }

# a free input
grep -v '^u2(t)' "$TMP/in.lth" >"$TMP/free.lth"
run 1 "lth-solve with a free input" "$SOLVE" "$TMP/free.lth" --project &&
  err_has "the input u2 has no signal: lth-solve needs its values" "lth-solve free input"
run 1 "lth-bvp with a free input" "$BVP" "$TMP/free.lth" && err_has "the input u2 has no signal" "lth-bvp"
run 0 "lth-decompose with a free input" "$DEC" "$TMP/free.lth" --at 1 &&
  { grep -qF "inputs         u1 u2 (free: 0 in g and q)" "$TMP/out" || fail "lth-decompose does not say u2 is taken as 0"; }
run 0 "lth-decompose json with a free input" "$DEC" "$TMP/free.lth" --at 1 --format json &&
  { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["inputs"] == ["u1", "u2"] and d["free_inputs"] == ["u2"], d' "$TMP/out" || fail "lth-decompose json: inputs, free_inputs"; }
finish cli_io
