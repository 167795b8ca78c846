# SPDX-License-Identifier: GPL-3.0-or-later
# Error bars for sampled data in the tools (docs/sampled-data.md): lth-decompose
# writes "error_estimate" per point and in the summary, lth-solve and lth-bvp a
# "sampling_error"; each must cover what the samples actually cost, measured
# against the same file with the sampled block written as its formula
# (data/sampled.lth: A(1,1) = [-1 + 0.5 sin(t), 1; -0.5 cos(t), -2 + 0.25 t]).
# Noise of 1e-6 (seeded) makes the sampling error dominate the integrator's.
# Usage: bash cli_sampling_error.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
DEC="$APPS/lth-decompose"
SOLVE="$APPS/lth-solve"
BVP="$APPS/lth-bvp"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

# the samples with seeded noise, the sampled file and its exact twin
"$PY" - "$TMP" <<'EOF'
import math, random, sys
random.seed(7)
d = sys.argv[1]
with open(d + "/a11.csv", "w") as f:
    f.write("t,a11,a12,a21,a22\n")
    for k in range(201):
        t = -0.1 + 4.2 * k / 200
        row = [-1 + 0.5 * math.sin(t), 1.0, -0.5 * math.cos(t), -2 + 0.25 * t]  # row by row
        row = [x + 1e-6 * random.uniform(-1, 1) for x in row]
        f.write("%.17g," % t + ",".join("%.17g" % x for x in row) + "\n")
EOF
body='lth 1
blocks 2 1
interval 0 4
grid 9
A(1,2) = [1; 1]
A(2,1) = [1, 0]
f(1)   = [0; sin(t)]
f(2)   = -1
bc B0 = [0, 1, 0]
bc B1 = [0, 0, 0]
bc beta = [0.5]'
printf '%s\nA(1,1) = samples("a11.csv")\n' "$body" >"$TMP/s.lth"
printf '%s\nA(1,1) = [-1 + 0.5*sin(t), 1; -0.5*cos(t), -2 + 0.25*t]\n' "$body" >"$TMP/e.lth"
head -n 3 "$DATA/sampled_a11.csv" >/dev/null || fail "no data/sampled_a11.csv"

# maxdiff A.json B.json KEY: max |a - b| over the numbers of KEY
maxdiff() {
  "$PY" - "$1" "$2" "$3" <<'EOF'
import json, sys
def flat(x):
    return [y for e in x for y in flat(e)] if isinstance(x, list) else [x]
a, b = (json.load(open(p)) for p in sys.argv[1:3])
k = sys.argv[3]
if k.startswith("points."):
    f = k.split(".")[1]
    va = flat([p[f] for p in a["points"]]); vb = flat([p[f] for p in b["points"]])
else:
    va, vb = flat(a[k]) if isinstance(a[k], list) else [a[k]], flat(b[k]) if isinstance(b[k], list) else [b[k]]
print(max(abs(x - y) for x, y in zip(va, vb)))
EOF
}
covers() { # TRUTH ESTIMATE WHAT: within a factor 10 either way (+ rounding); measured 0.14..7.3
  [ -n "${LTH_VERBOSE:-}" ] && echo "$3: true $1, estimate $2"
  awk -v t="$1" -v e="$2" 'BEGIN { exit !(t <= 10 * e + 1e-13 && e <= 10 * t + 1e-13) }' ||
    fail "$3: estimate $2 does not cover the true error $1 (or is far above it)"
}

# ---- lth-decompose: per point and summary; q against the exact decomposition
run 0 "decompose sampled" "$DEC" "$TMP/s.lth" --format json -q && cp "$TMP/out" "$TMP/ds.json"
run 0 "decompose exact" "$DEC" "$TMP/e.lth" --format json -q && cp "$TMP/out" "$TMP/de.json"
"$JT" get "$TMP/de.json" 'summary.error_estimate' >/dev/null 2>&1 &&
  fail "exact data: decompose writes an error_estimate"
for key in q G g; do
  truth=$(maxdiff "$TMP/ds.json" "$TMP/de.json" "points.$key")
  est=$("$JT" get "$TMP/ds.json" "summary.error_estimate.$key")
  covers "$truth" "$est" "decompose $key"
done
"$JT" get "$TMP/ds.json" 'points[0].error_estimate.overall' >/dev/null || fail "no per-point error_estimate"
run 0 "decompose text" "$DEC" "$TMP/s.lth" -q && {
  grep -q '^error est\.' "$TMP/out" || fail "decompose text lacks the error estimate line"
}

# ---- lth-solve: sampling_error against the exact run
printf 'z0 = [0.5; 0.5; 0]\n' >>"$TMP/s.lth"
printf 'z0 = [0.5; 0.5; 0]\n' >>"$TMP/e.lth"
run 0 "solve sampled" "$SOLVE" "$TMP/s.lth" --format json --project -q && cp "$TMP/out" "$TMP/ss.json"
run 0 "solve exact" "$SOLVE" "$TMP/e.lth" --format json --project -q && cp "$TMP/out" "$TMP/se.json"
"$JT" get "$TMP/se.json" sampling_error >/dev/null 2>&1 && fail "exact data: solve writes sampling_error"
covers "$(maxdiff "$TMP/ss.json" "$TMP/se.json" z)" "$("$JT" get "$TMP/ss.json" sampling_error)" "solve z"
run 0 "solve text" "$SOLVE" "$TMP/s.lth" --project -q && {
  grep -q '^sampling error ~' "$TMP/out" || fail "solve text lacks the sampling error"
}

# ---- lth-bvp (collocation)
run 0 "bvp sampled" "$BVP" "$TMP/s.lth" --format json -q && cp "$TMP/out" "$TMP/bs.json"
run 0 "bvp exact" "$BVP" "$TMP/e.lth" --format json -q && cp "$TMP/out" "$TMP/be.json"
covers "$(maxdiff "$TMP/bs.json" "$TMP/be.json" z)" "$("$JT" get "$TMP/bs.json" sampling_error)" "bvp z"
# ---- lth-lqr: a sampled weight H (noise 1e-6) against its formula
"$PY" - "$TMP" <<'EOF'
import math, random, sys
random.seed(11)
with open(sys.argv[1] + "/h.csv", "w") as f:
    f.write("t,h11,h12,h21,h22\n")
    for k in range(201):
        t = -0.1 + 2.2 * k / 200
        row = [1 + 0.5 * math.sin(t), 0.0, 0.0, 1.0]
        row = [x + 1e-6 * random.uniform(-1, 1) for x in row]
        row[2] = row[1]  # symmetric
        f.write("%.17g," % t + ",".join("%.17g" % x for x in row) + "\n")
EOF
lqr='lth 1
problem lqr
sizes 2 1
interval 0 2
grid 11
A = [0, 1; 0, 0]
B = [0; 1]
C = [0, 0; 0, 0]
x0 = [1; -0.5]'
printf '%s\nH = samples("h.csv")\n' "$lqr" >"$TMP/ls.lth"
printf '%s\nH = [1 + 0.5*sin(t), 0; 0, 1]\n' "$lqr" >"$TMP/le.lth"
run 0 "lqr sampled" "$APPS/lth-lqr" "$TMP/ls.lth" --format json && cp "$TMP/out" "$TMP/qs.json"
run 0 "lqr exact" "$APPS/lth-lqr" "$TMP/le.lth" --format json && cp "$TMP/out" "$TMP/qe.json"
"$JT" get "$TMP/qe.json" sampling_error >/dev/null 2>&1 && fail "exact data: lqr writes sampling_error"
t=$(maxdiff "$TMP/qs.json" "$TMP/qe.json" x)
t2=$(maxdiff "$TMP/qs.json" "$TMP/qe.json" u)
covers "$(awk -v a="$t" -v b="$t2" 'BEGIN { print (a > b ? a : b) }')" "$("$JT" get "$TMP/qs.json" sampling_error)" "lqr x, u"
covers "$(maxdiff "$TMP/qs.json" "$TMP/qe.json" cost)" "$("$JT" get "$TMP/qs.json" sampling_error_cost)" "lqr cost"

finish cli_sampling_error
