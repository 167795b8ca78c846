# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 10, "Done when": the property test of tests/unit/decomp/test_wellposed_family.c
# through the tools, on a smaller sample: a chain block that passes through
# zero at a random t* (on and between grid points, inside [0, 1] and just
# outside).  lth-decompose, lth-solve, lth-bvp (shooting) and lth-lqr either
# exit 3 naming a t within one grid step (0.01) of t*, or exit 0 with the
# manufactured solution z* = (e^(t/3), t^2, cos t, sin 2t, sin t + 2) to 1e-6.
# Usage: bash cli_wellposed_family.sh BUILD/apps
. "$(dirname "$0")/testlib.sh"
for tool in lth-decompose lth-solve lth-bvp lth-lqr; do
  [ -x "$APPS/$tool" ] || { echo "FAIL: $APPS/$tool not built" >&2; exit 1; }
done
refused=0
solved=0

# judge WHAT TS: after `run`-less execution with status in $rc
judge() {
  local what=$1 ts=$2 t
  if [ "$rc" -eq 3 ]; then
    t=$(grep -Eo '\(t = [-+0-9.eE]+' "$TMP/err" | head -1 | sed 's/(t = //')
    if [ -z "$t" ] || ! awk -v a="$t" -v b="$ts" 'BEGIN { d = a - b; exit !(d <= 0.0100001 && -d <= 0.0100001) }'; then
      fail "$what, t* = $ts: refused without naming a t near t*: $(head -c 300 "$TMP/err")"
    fi
    refused=$((refused + 1))
    return 1
  elif [ "$rc" -ne 0 ]; then
    fail "$what, t* = $ts: exit status $rc: $(head -c 300 "$TMP/err")"
    return 1
  fi
  solved=$((solved + 1))
  return 0
}

# zcheck FILE.json K T WHAT: row K of z equals z*(T) to 1e-6 (relative to max(1, |z*|))
zcheck() {
  local i v
  local zs=($(awk -v t="$3" 'BEGIN { printf "%.17g %.17g %.17g %.17g %.17g", exp(t/3), t*t, cos(t), sin(2*t), sin(t) + 2 }'))
  for i in 0 1 2 3 4; do
    v=$("$JT" get "$1" "z[$2][$i]")
    awk -v a="$v" -v b="${zs[$i]}" 'BEGIN { d = a - b; s = b < 0 ? -b : b; s = s < 1 ? 1 : s; exit !(d <= 1e-6 * s && -d <= 1e-6 * s) }' ||
      fail "$4: z[$i](t = $3) = $v, exact ${zs[$i]}"
  done
}

draws=$(awk 'BEGIN { srand(20260110); for (k = 0; k < 16; k++) {
  kind = k % 2; a = 0.5 + 1.5 * rand(); u = rand();
  ts = (k % 4 == 0) ? int(100 * u + 0.5) / 100 : -0.2 + 1.4 * u;
  printf "%d %.17g %.17g\n", kind, a, ts } }')
while read -r kind a ts; do
  if [ "$kind" -eq 0 ]; then c="$a*(t - $ts)"; else c="$a*((t - $ts)^2 + 1e-14)"; fi
  z0=$(awk 'BEGIN { printf "%.17g; %.17g; %.17g; %.17g; %.17g", 1, 0, 1, 0, 2 }')
  cat >"$TMP/f.lth" <<EOF2
blocks 2 2 1
interval 0 1
grid 101
A(1,1) = [0, 0.5; -0.5, 0]
A(1,3) = [1; 0]
A(2,1) = eye
A(3,2) = [$c, 0]
f(1) = [exp(t/3)/3 - 0.5*t^2 - (sin(t) + 2); 2*t + 0.5*exp(t/3)]
f(2) = [-sin(t) - exp(t/3); 2*cos(2*t) - t^2]
f(3) = -($c)*cos(t)
z0 = [$z0]
bc B0 = [0, 1, 0, 0, 0; 0, 0, 0, 0, 0]
bc B1 = [0, 0, 0, 0, 0; 0, 0, 0, 1, 0]
bc beta = [0; $(awk 'BEGIN { printf "%.17g", sin(2) }')]
EOF2
  "$APPS/lth-decompose" "$TMP/f.lth" --format json >"$TMP/out" 2>"$TMP/err"
  rc=$?
  judge "decompose" "$ts"
  "$APPS/lth-solve" "$TMP/f.lth" --times 0.5,1 --format json >"$TMP/out" 2>"$TMP/err"
  rc=$?
  judge "solve" "$ts" && { zcheck "$TMP/out" 0 0.5 "solve t* = $ts"; zcheck "$TMP/out" 1 1 "solve t* = $ts"; }
  "$APPS/lth-bvp" "$TMP/f.lth" --times 0,0.5,1 --format json >"$TMP/out" 2>"$TMP/err"
  rc=$?
  judge "bvp" "$ts" && { zcheck "$TMP/out" 0 0 "bvp t* = $ts"; zcheck "$TMP/out" 2 1 "bvp t* = $ts"; }
  cat >"$TMP/l.lth" <<EOF2
problem lqr
sizes 2 1
interval 0 1
A = [0, 1; 0, 0]
B = [0; $c]
H = [1, 0; 0, 1]
C = [0, 0; 0, 0]
x0 = [1; 0]
EOF2
  "$APPS/lth-lqr" "$TMP/l.lth" --format json >"$TMP/out" 2>"$TMP/err"
  rc=$?
  judge "lqr" "$ts"
done <<<"$draws"
echo "cli_wellposed_family: $refused refusals naming t near t*, $solved answers"
[ "$refused" -ge 10 ] || fail "only $refused refusals: the sample does not exercise the family"
[ "$solved" -ge 10 ] || fail "only $solved answers: the sample does not exercise the family"
finish cli_wellposed_family
