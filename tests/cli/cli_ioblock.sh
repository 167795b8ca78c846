# SPDX-License-Identifier: GPL-3.0-or-later
# Inputs and outputs of the block form (docs/format.md section 1.4) and the
# outputs of lth-ic:
#  - a block-form file with inputs, B(1) (a dynamic row), B(3) (the
#    constraint: prescribed motion), C and D against the same system with
#    the signals written into f: lth-solve and lth-bvp give the same z within
#    their error estimates; with M(1) = m*eye scaling row 1 (B(1) too) the
#    same again; the equation-form file of the same plant (cli_io.sh) gives
#    the same z and y (z in the canonical order here);
#  - the outputs against y = C z + D u computed from the returned z in NumPy:
#    1e-14 relative (a few roundings of an inner product of 7 terms);
#  - without `outputs`, the outputs are named y[1], y[2];
#  - lth-ic writes the outputs of its z0 in text, CSV and JSON, for the block
#    form and the equation form, equal to C z0 + D u(t0) to 1e-14 relative;
#  - a free input: lth-solve and lth-ic refuse naming it (exit 1).
# Usage: bash cli_ioblock.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
SOLVE="$APPS/lth-solve"
BVP="$APPS/lth-bvp"
IC="$APPS/lth-ic"
DEC="$APPS/lth-decompose"
PY=/usr/bin/python3

# z = (v1, v2, x1, x2, lam): m v' = -k x + (cos t, sin t) lam + c(t) u1 e1,
# x' = v, 0 = cos(t) x1 + sin(t) x2 - 1 + u2
head_lth() {
  cat <<'LTH'
problem dae
blocks 2 2 1
interval 0 3
grid 7
param m = 2, k = 3
c(t) = 1 + 0.5*sin(t)
A(2,1) = eye
A(3,2) = [cos(t), sin(t)]
z0 = [0, 0, 1, 0, 5]
bc B0 = [0, 1, 0, 0, 0; 0, 0, 0, 0, 0]
bc B1 = [0, 0, 0, 0, 0; 0, 0, 0, 1, 0]
bc beta = [0; 0.5]
LTH
}
io_lth() {
  cat <<'LTH'
inputs u1 u2
u1(t) = sin(3*t)
u2(t) = 0.1*t^2
B(3) = [0, 1]
f(3) = -1
outputs y1 y2
C = [0, 0, 1, -0.5, 0; 0, 0, 0, 0, c(t)]
D = [0, 0; 2, 0]
LTH
}
{
  head_lth
  io_lth
  cat <<'LTH'
A(1,2) = -k/m*eye
A(1,3) = [cos(t); sin(t)]/m
B(1) = [c(t)/m, 0; 0, 0]
LTH
} >"$TMP/in.lth"
{
  head_lth
  io_lth
  cat <<'LTH'
M(1) = m*eye
A(1,2) = -k*eye
A(1,3) = [cos(t); sin(t)]
B(1) = [c(t), 0; 0, 0]
LTH
} >"$TMP/mass.lth"
{
  head_lth
  cat <<'LTH'
A(1,2) = -k/m*eye
A(1,3) = [cos(t); sin(t)]/m
f(1) = [c(t)/m*sin(3*t); 0]
f(3) = -1 + 0.1*t^2
LTH
} >"$TMP/forced.lth"
cat >"$TMP/eqn.lth" <<'LTH'
problem equations
variables x1 x2 v1 v2 lam
inputs u1, u2
interval 0 3
grid 7
param m = 2, k = 3
c(t) = 1 + 0.5*sin(t)
outputs y1 = x1 - 0.5*x2, y2 = c(t)*lam + 2*u1
x1' = v1
x2' = v2
m*v1' = -k*x1 + cos(t)*lam + c(t)*u1
m*v2' = -k*x2 + sin(t)*lam
0 = cos(t)*x1 + sin(t)*x2 - 1 + u2
u1(t) = sin(3*t)
u2(t) = 0.1*t^2
z0 = [1, 0, 0, 0, 5]
bc v2(0) = 0
bc x2(3) = 0.5
LTH

# The unknowns agree within the two runs' own error estimates (cli_io.sh
# says why not bitwise: f + B u is rounded in another order than the
# hand-written forcing, so a step or mesh decision may go the other way).
# EQN=1: the first file is the equation form; its z is put in the canonical
# order (v1, v2, x1, x2, lam) by the names in "components".
compare() {
  "$PY" - "$@" <<'PY'
import json, sys
import numpy as np
a, b = (json.load(open(f)) for f in sys.argv[1:3])
za, zb = np.array(a["z"]), np.array(b["z"])
if a["components"][0] == "v1" or "variables" in a:
    order = [a["components"].index(n) for n in ("v1", "v2", "x1", "x2", "lam")]
    za = za[:, order]
assert za.shape == zb.shape, (za.shape, zb.shape)
bound = 10 * (a["error_estimate"] + b["error_estimate"]) + 1e-13 * max(1.0, np.abs(za).max())
d = np.abs(za - zb).max()
assert d <= bound, "difference %.3g, bound %.3g" % (d, bound)
if "y" in a and "y" in b:
    ya, yb = np.array(a["y"]), np.array(b["y"])
    dy = np.abs(ya - yb).max()
    assert dy <= 3 * bound, "outputs differ by %.3g, bound %.3g" % (dy, 3 * bound)
PY
}

for tool in "$SOLVE --project" "$BVP"; do
  name=${tool%% *}
  name=${name##*/}
  if run 0 "$name json, block form with inputs" $tool "$TMP/in.lth" --format json; then
    cp "$TMP/out" "$TMP/in.json"
    run 0 "$name, the forcing written" $tool "$TMP/forced.lth" --format json &&
      { compare "$TMP/in.json" "$TMP/out" || fail "$name: inputs against the forcing written"; }
    run 0 "$name, with M(1)" $tool "$TMP/mass.lth" --format json &&
      { compare "$TMP/out" "$TMP/in.json" || fail "$name: M(1) B(1) against B(1)/m"; }
    run 0 "$name, the equation form" $tool "$TMP/eqn.lth" --format json &&
      { compare "$TMP/out" "$TMP/in.json" || fail "$name: the equation form against the block form"; }
  fi
  if run 0 "$name csv, block form" $tool "$TMP/in.lth" --format csv; then
    head -1 "$TMP/out" | grep -qF ',"y1","y2"' || fail "$name: the CSV header lacks y1, y2: $(head -1 "$TMP/out")"
  fi
done

# the outputs against y = C z + D u by hand
if run 0 "lth-solve json" "$SOLVE" "$TMP/in.lth" --project --format json; then
  cp "$TMP/out" "$TMP/in.json"
  "$PY" - "$TMP/in.json" <<'PY' || fail "outputs against C z + D u"
import json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
assert d["outputs"] == ["y1", "y2"], d["outputs"]
t = np.array(d["times"]); z = np.array(d["z"]); y = np.array(d["y"])
assert y.shape == (len(t), 2), y.shape
y1 = z[:, 2] - 0.5 * z[:, 3]
y2 = (1 + 0.5 * np.sin(t)) * z[:, 4] + 2 * np.sin(3 * t)
err = max(np.abs(y[:, 0] - y1).max(), np.abs(y[:, 1] - y2).max()) / (np.abs(z).max() + 2)
assert err <= 1e-14, err
PY
fi
run 0 "lth-solve text" "$SOLVE" "$TMP/in.lth" --project &&
  { grep -qE '^ +t +z_1\[1\] .* u\[1\] +y1 +y2$' "$TMP/out" || fail "text table lacks the outputs' columns: $(grep -m1 ' t ' "$TMP/out")"; }

# default names without `outputs`
grep -v '^outputs' "$TMP/in.lth" >"$TMP/noname.lth"
run 0 "lth-solve, outputs not named" "$SOLVE" "$TMP/noname.lth" --project --format csv &&
  { head -1 "$TMP/out" | grep -qF ',"y[1]","y[2]"' || fail "default output names: $(head -1 "$TMP/out")"; }

# lth-ic: the outputs of z0, block form and equation form
for f in in eqn; do
  if run 0 "lth-ic json ($f)" "$IC" "$TMP/$f.lth" --format json; then
    "$PY" - "$TMP/out" <<'PY' || fail "lth-ic ($f): y against C z0 + D u(t0)"
import json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
assert d["outputs"] == ["y1", "y2"], d["outputs"]
z = dict(zip(d["components"], d["z0"])) if "variables" in d else None
z0 = np.array(d["z0"]); t = d["t"]
if z is not None:
    x1, x2, lam = z["x1"], z["x2"], z["lam"]
else:
    x1, x2, lam = z0[2], z0[3], z0[4]
want = np.array([x1 - 0.5 * x2, (1 + 0.5 * np.sin(t)) * lam + 2 * np.sin(3 * t)])
y = np.array(d["y"])
assert y.shape == (2,), y.shape
err = np.abs(y - want).max() / (np.abs(z0).max() + 2)
assert err <= 1e-14, (y, want, err)
assert abs(want[1] - 4.6) < 1e-12, want  # lam = 4.6 at t = 0, u1(0) = 0
PY
  fi
  if run 0 "lth-ic csv ($f)" "$IC" "$TMP/$f.lth" --format csv; then
    head -1 "$TMP/out" | grep -qE ',"y1","y2",residual$' || fail "lth-ic csv ($f) header: $(head -1 "$TMP/out")"
    [ "$(tail -1 "$TMP/out" | tr ',' '\n' | wc -l)" -eq 9 ] || fail "lth-ic csv ($f): not 9 columns"
  fi
  run 0 "lth-ic text ($f)" "$IC" "$TMP/$f.lth" &&
    { grep -qE '^  y2 +4\.6$' "$TMP/out" || fail "lth-ic text ($f) lacks y2 = 4.6"; }
done
run 0 "lth-ic, no outputs" "$IC" "$TMP/forced.lth" --format json &&
  { ! grep -q '"outputs"' "$TMP/out" || fail "lth-ic writes outputs for a file without them"; }

# a free input
grep -v '^u2(t)' "$TMP/in.lth" >"$TMP/free.lth"
run 1 "lth-solve, a free input" "$SOLVE" "$TMP/free.lth" --project && err_has "the input u2 has no signal" "lth-solve"
run 1 "lth-ic, a free input" "$IC" "$TMP/free.lth" && err_has "the input u2 has no signal" "lth-ic"
run 0 "lth-decompose, a free input" "$DEC" "$TMP/free.lth" --at 1 &&
  { grep -qF "inputs         u1 u2 (free: 0 in g and q)" "$TMP/out" || fail "lth-decompose does not say u2 is taken as 0"; }
finish cli_ioblock
