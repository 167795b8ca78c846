# SPDX-License-Identifier: GPL-3.0-or-later
# Conveniences of the data file give the tools' outputs of their hand-written
# equivalents (docs/equations.md section 2.1):
#  - named functions of t: data/mass_varying.lth with its coefficients and
#    loads as named functions: lth-decompose, lth-ic and lth-solve print the
#    same bytes (the same expressions are evaluated);
#  - derivatives of products: Newton's law with time-varying masses written
#    as (m(t)*v)' = F against the product rule by hand: the same bytes (lth
#    builds m'(t) as the chain rule gives it, which is how it is written
#    here), and the exact solution x1 = sin t, lambda = cos 2t to 1e-8;
#  - d.x and x_dot name x' for lth-ic --fix, as x' does.
# Usage: bash cli_sugar.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
SOLVE="$APPS/lth-solve"
IC="$APPS/lth-ic"
DEC="$APPS/lth-decompose"

# same WHAT FILE1 FILE2 TOOL ARGS...: the tool prints the same bytes for both
same() {
  local what=$1 a=$2 b=$3
  shift 3
  run 0 "$what ($a)" "$@" "$a" && cp "$TMP/out" "$TMP/same1" &&
    run 0 "$what ($b)" "$@" "$b" && {
    cmp -s "$TMP/same1" "$TMP/out" || fail "$what: the outputs differ: $(diff "$TMP/same1" "$TMP/out" | head -5)"
  }
}

# ---- named functions against data/mass_varying.lth
cat >"$TMP/named.lth" <<'LTH'
problem equations
variables x1 x2 v1 v2 lambda
interval 0 5
grid 51
param k = 3
m11(t) = 2 + sin(t)
m22(t) = 1.5 + 0.5*cos(t)
f1(t) = m11(t)*(-sin(t)) - 0.3*cos(t) + k*sin(t) - cos(2*t)
f2(t) = -0.3*sin(t) - m22(t)*cos(t) + k*cos(t) - cos(2*t)
x1' = v1
x2' = v2
m11(t)*v1' + 0.3*v2' = -k*x1 + lambda + f1(t)
0.3*v1' + m22(t)*v2' = -k*x2 + lambda + f2(t)
0 = x1 + x2 - sin(t) - cos(t)
z0 = [0 1 1 0 1]
LTH
M="$DATA/mass_varying.lth"
same "solve csv" "$TMP/named.lth" "$M" "$SOLVE" --format csv
same "decompose csv" "$TMP/named.lth" "$M" "$DEC" --format csv
same "ic csv" "$TMP/named.lth" "$M" "$IC" --at 1.5 --guess 0.9,0.1,0.1,-1,0 --format csv

# ---- (m(t)*v)' against the product rule by hand
cat >"$TMP/momentum.lth" <<'LTH'
problem equations
variables x1 x2 v1 v2 lambda
interval 0 5
grid 6
param k = 3
m1(t) = 2 + sin(t)
m2(t) = 1.5 + 0.5*cos(t)
x1' = v1
x2' = v2
(m1(t)*v1)' = -k*x1 + lambda + cos(t)^2 - m1(t)*sin(t) + k*sin(t) - cos(2*t)
(m2(t)*v2)' = -k*x2 + lambda + 0.5*sin(t)^2 - m2(t)*cos(t) + k*cos(t) - cos(2*t)
0 = x1 + x2 - sin(t) - cos(t)
z0 = [0 1 1 0 1]
LTH
cat >"$TMP/by_hand.lth" <<'LTH'
problem equations
variables x1 x2 v1 v2 lambda
interval 0 5
grid 6
param k = 3
x1' = v1
x2' = v2
(2 + sin(t))*v1' + cos(t)*v1 = -k*x1 + lambda + cos(t)^2 - (2 + sin(t))*sin(t) + k*sin(t) - cos(2*t)
(1.5 + 0.5*cos(t))*v2' + 0.5*(-sin(t))*v2 = -k*x2 + lambda + 0.5*sin(t)^2 - (1.5 + 0.5*cos(t))*cos(t) + k*cos(t) - cos(2*t)
0 = x1 + x2 - sin(t) - cos(t)
z0 = [0 1 1 0 1]
LTH
same "product rule: solve csv" "$TMP/momentum.lth" "$TMP/by_hand.lth" "$SOLVE" --format csv
same "product rule: decompose csv" "$TMP/momentum.lth" "$TMP/by_hand.lth" "$DEC" --format csv
run 0 "product rule: exact solution" "$SOLVE" "$TMP/momentum.lth" --format csv && {
  awk -F, 'NR > 1 { t = $1; e = $2 - sin(t); if (e < 0) e = -e; f = $6 - cos(2 * t); if (f < 0) f = -f;
    if (e > 1e-8 || f > 1e-8) bad = 1 } END { exit bad }' "$TMP/out" ||
    fail "(m(t)*v)' = F: x1 or lambda differs from sin t, cos 2t by more than 1e-8: $(cat "$TMP/out")"
}

# ---- x' spelled d.x and x_dot
S="$DATA/slope_equations.lth"
run 0 "--fix x'" "$IC" "$S" --fix "x'=-0.5" --format json && cp "$TMP/out" "$TMP/fix1.json"
for spelling in d.x x_dot; do
  run 0 "--fix $spelling" "$IC" "$S" --fix "$spelling=-0.5" --format json && {
    "$JT" diff "$TMP/fix1.json" "$TMP/out" --rtol 0 --atol 0 --ignore stats ||
      fail "--fix $spelling=-0.5 differs from --fix x'=-0.5"
  }
done
run 1 "--fix d.lambda" "$IC" "$S" --fix d.lambda=1 && err_has "neither a component's name" "--fix d.lambda"
finish cli_sugar
