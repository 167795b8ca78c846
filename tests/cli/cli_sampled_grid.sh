# SPDX-License-Identifier: GPL-3.0-or-later
# Sampled inputs do not depend on `grid` (docs/sampled-data.md, section 4):
# an RLC circuit (index 2) driven by a voltage source known through 2001
# samples of V(t) = sin(100 t) + 0.3 cos(70 t) on [0, 1], written in the
# equation form and in the block form, against the same files with V written
# as its formula.  The `grid` statement sets only where the tools report: with
# grid 13 and grid 51 the solution must converge with --rtol to the accuracy
# the samples allow, and the reported sampling_error must be of the size of
# the true error (within a factor 10 either way above a rounding floor).  With
# the decomposition done at the grid and interpolated in between, grid 13 was
# 30 % off in iL and grid 51 1.5e-8 off at every --rtol; equation files had
# no sampling_error at all.
# Usage: bash cli_sampled_grid.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
SOLVE="$APPS/lth-solve"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

# the samples: exact to rounding, and with seeded noise of 1e-7
"$PY" - "$TMP" <<'EOF'
import math, random, sys
random.seed(3)
d = sys.argv[1]
for name, noise in (("vs.csv", 0.0), ("vsn.csv", 1e-7)):
    with open(d + "/" + name, "w") as f:
        f.write("t,V\n")
        for k in range(2001):
            t = k / 2000
            v = math.sin(100 * t) + 0.3 * math.cos(70 * t) + noise * random.gauss(0, 1)
            f.write("%.17g,%.17g\n" % (t, v))
EOF
V='sin(100*t) + 0.3*cos(70*t)'

# eqn FILE GRID SOURCE: the circuit in the equation form (v, iL, iV)
eqn() {
  cat >"$1" <<EOF
problem equations
variables v iL iV
interval 0 1
grid $2
param R = 10, L = 0.5, C = 1e-3
C*v' = iV - iL - v/R
L*iL' = v
0 = v - ($3)
z0 = [0.3 0 0]
EOF
}
# block FILE GRID SOURCE: the same circuit in the block form, z_1 = (v, iL), u = iV
block() {
  cat >"$1" <<EOF
lth 1
blocks 2 1
interval 0 1
grid $2
A(1,1) = [-100, -1000; 2, 0]
A(1,2) = [1000; 0]
A(2,1) = [-1, 0]
f(2)   = $3
z0 = [0.3; 0; 0]
EOF
}

# errs A.json B.json: the largest |za - zb| over the times and components,
# then the same for the second component (iL) alone
errs() {
  "$PY" - "$1" "$2" <<'EOF'
import json, sys
try:
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
except (OSError, ValueError):
    a = b = None
if not a or not b or a["times"] != b["times"]:
    print("1e300 1e300")  # fails every comparison
else:
    d = [[abs(x - y) for x, y in zip(ra, rb)] for ra, rb in zip(a["z"], b["z"])]
    print(max(max(r) for r in d), max(r[1] for r in d))
EOF
}
covers() { # TRUTH ESTIMATE WHAT: within a factor 10 either way above the floor 1e-12
  [ -n "${LTH_VERBOSE:-}" ] && echo "$3: true $1, estimate $2"
  awk -v t="$1" -v e="$2" 'BEGIN { exit !(t <= 10 * e + 1e-12 && e <= 10 * t + 1e-12) }' ||
    fail "$3: sampling_error $2 is not within a factor 10 of the true error $1"
}
below() { # VALUE BOUND WHAT
  awk -v v="$1" -v b="$2" 'BEGIN { exit !(v <= b) }' || fail "$3: $1 is above $2"
}
sampling_error() {
  "$JT" get "$1" sampling_error 2>/dev/null || echo missing
}

TIMES=0.05,0.15,0.25,0.35,0.45,0.55,0.65,0.75,0.85,0.95,1
for form in eqn block; do
  for src in vs vsn; do
    rm -f "$TMP"/st*.json
    for g in 13 51; do
      $form "$TMP/s.lth" $g "samples(\"$src.csv\")"
      $form "$TMP/e.lth" $g "$V"
      run 0 "$form $g exact V" "$SOLVE" "$TMP/e.lth" --project --rtol 1e-13 --atol 1e-16 \
        --format json -q && cp "$TMP/out" "$TMP/e.json"
      run 0 "$form $g exact V (times)" "$SOLVE" "$TMP/e.lth" --project --rtol 1e-13 \
        --atol 1e-16 --times "$TIMES" --format json -q && cp "$TMP/out" "$TMP/et.json"
      for rtol in 1e-8 1e-12; do
        what="$form, $src, grid $g, rtol $rtol"
        run 0 "$what" "$SOLVE" "$TMP/s.lth" --project --rtol "$rtol" --format json -q &&
          cp "$TMP/out" "$TMP/s.json" || continue
        se=$(sampling_error "$TMP/s.json")
        [ "$se" = missing ] && { fail "$what: no sampling_error"; continue; }
        read -r all iL <<<"$(errs "$TMP/s.json" "$TMP/e.json")"
        [ -n "${LTH_VERBOSE:-}" ] && echo "$what: error $all (iL $iL), sampling_error $se"
        # what the samples allow: with --rtol 1e-12 the integrator adds ~1e-12
        [ "$rtol" = 1e-12 ] && {
          covers "$all" "$se" "$what"
          below "$iL" "$(awk -v e="$se" 'BEGIN { print 10 * e + 1e-11 }')" "$what: iL error"
        }
        [ "$rtol" = 1e-8 ] && below "$iL" 1e-7 "$what: iL error"
        # the same times with either grid (--times): the grid sets output only
        run 0 "$what (times)" "$SOLVE" "$TMP/s.lth" --project --rtol "$rtol" --times "$TIMES" \
          --format json -q && cp "$TMP/out" "$TMP/st$g.json"
        read -r all iL <<<"$(errs "$TMP/st$g.json" "$TMP/et.json")"
        [ "$rtol" = 1e-12 ] &&
          below "$all" "$(awk -v e="$se" 'BEGIN { print 10 * e + 1e-11 }')" "$what, --times"
      done
    done
    read -r all iL <<<"$(errs "$TMP/st13.json" "$TMP/st51.json")"
    below "$all" "$(awk -v e="$se" 'BEGIN { print 10 * e + 1e-11 }')" \
      "$form, $src: grid 13 and grid 51 at the same times"
  done
done

# every tool names the sampling error of an equation file, in JSON and text
eqn "$TMP/s.lth" 13 'samples("vsn.csv")'
printf 'bc B0 = [0 1 0]\nbc B1 = [0 0 0]\nbc beta = [0]\n' >>"$TMP/s.lth"
run 0 "eqn text" "$SOLVE" "$TMP/s.lth" --project -q &&
  { grep -q '^sampling error ~' "$TMP/out" || fail "eqn text lacks the sampling error"; }
for tool in lth-ic lth-bvp; do
  run 0 "eqn $tool" "$APPS/$tool" "$TMP/s.lth" --format json &&
    { [ "$(sampling_error "$TMP/out")" != missing ] || fail "eqn $tool: no sampling_error"; }
  run 0 "eqn $tool text" "$APPS/$tool" "$TMP/s.lth" &&
    { grep -q '^sampling error ~' "$TMP/out" || fail "eqn $tool text lacks the sampling error"; }
done
run 0 "eqn decompose" "$APPS/lth-decompose" "$TMP/s.lth" --format json -q &&
  { "$JT" get "$TMP/out" 'summary.error_estimate.overall' >/dev/null 2>&1 ||
      fail "eqn decompose: no error_estimate"; }
run 0 "eqn decompose text" "$APPS/lth-decompose" "$TMP/s.lth" -q &&
  { grep -q '^error est\.' "$TMP/out" || fail "eqn decompose text lacks the error estimate"; }

finish cli_sampled_grid
