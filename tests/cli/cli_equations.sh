# SPDX-License-Identifier: GPL-3.0-or-later
# The equation form through the tools, as docs/equations.md shows it:
# data/pendulum_equations.lth decomposes (index 3, blocks 2 2 1, p = 2, --check
# passes), its z0 (given in the order of `variables`) is consistent, lth-solve
# follows the exact solution (columns in the canonical order v1 v2 x1 x2 lambda),
# and a file with no Hessenberg form is refused (exit 2) with the message of the
# docs.  The other examples in data/ run through lth-decompose --check in
# cli_examples.sh and are checked against their exact solutions in
# tests/unit/reader/test_problem_equations.c.
# Usage: bash cli_equations.sh BUILD/apps   (env LTH_DATA_DIR, LTH_TEST_DIR)
. "$(dirname "$0")/testlib.sh"
DEC="$APPS/lth-decompose"
IC="$APPS/lth-ic"
SOLVE="$APPS/lth-solve"
FILE="$DATA/pendulum_equations.lth"
BAD="${LTH_TEST_DIR:?LTH_TEST_DIR must name the tests directory}/bad"

calc() { awk "BEGIN { printf \"%.17g\n\", $1 }"; }

for tool in "$DEC" "$IC" "$SOLVE" "$JT"; do
  [ -x "$tool" ] || { echo "FAIL: $tool not built" >&2; exit 1; }
done

# ---- section 1.3: the structure and the check
if run 0 "decompose" "$DEC" "$FILE" --at 0 --check --quiet; then
  for want in "index          r = 3" "blocks         2 2 1" "manifold       p = 2" \
    "check          passed"; do
    grep -qF -- "$want" "$TMP/out" || fail "lth-decompose output lacks '$want'"
  done
fi

# ---- section 1.4: the file's z0 is consistent
if run 0 "ic" "$IC" "$FILE"; then
  grep -q '^result .*: consistent$' "$TMP/out" || fail "lth-ic does not find z0 consistent"
fi

# ---- the solution against the exact one, canonical columns (v1, v2, x1, x2, lambda)
if run 0 "solve" "$SOLVE" "$FILE" --times 0,1,2.5 --format json; then
  cp "$TMP/out" "$TMP/solve.json"
  k=0
  for t in 0 1 2.5; do
    near "$TMP/solve.json" "z[$k][0]" "$(calc "-sin($t) - 19.62 * cos(2 * $t)")" 1e-9 "v1($t)"
    near "$TMP/solve.json" "z[$k][1]" "$(calc "cos($t) - 19.62 * sin(2 * $t)")" 1e-9 "v2($t)"
    near "$TMP/solve.json" "z[$k][2]" "$(calc "cos($t) - 9.81 * sin(2 * $t)")" 1e-9 "x1($t)"
    near "$TMP/solve.json" "z[$k][3]" "$(calc "sin($t) + 9.81 * (1 + cos(2 * $t))")" 1e-9 "x2($t)"
    near "$TMP/solve.json" "z[$k][4]" "$(calc "1 + 98.1 * sin($t)")" 1e-8 "lambda($t)"
    k=$((k + 1))
  done
fi
# the CSV rows the docs show (columns in the order of `variables`), against the
# exact solution to 1e-10 relative
rowcmp() { # CSV-ROW EXPECTED-ROW
  awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, ","); m = split(b, y, ","); if (n != m) exit 1;
    for (i = 1; i <= n; i++) { d = x[i] - y[i]; if (d < 0) d = -d; s = y[i] < 0 ? -y[i] : y[i];
      if (d > 1e-10 * (s > 1 ? s : 1)) exit 1 } }'
}
if run 0 "solve csv" "$SOLVE" "$FILE" --times 0,1,2.5 --format csv; then
  rowcmp "$(grep '^0,' "$TMP/out")" "0,1,19.620000000000001,-19.620000000000001,1,1" ||
    fail "the t = 0 row differs from docs/equations.md: $(grep '^0,' "$TMP/out")"
  rowcmp "$(grep '^1,' "$TMP/out")" "1,-8.3799054512918,6.5690705182804,7.3233299482470,-17.300113208452,83.548303609655" ||
    fail "the t = 1 row differs from docs/equations.md: $(grep '^1,' "$TMP/out")"
fi

# ---- section 4: no Hessenberg form, in the user's terms
if run 2 "not a chain" "$DEC" "$BAD/eq_not_chain.lth" --quiet; then
  err_has "eq_not_chain.lth:7:1: the equation on line 7 involves the derivatives of both x and v" "not a chain"
  err_has "(substitute x' from its equation)" "not a chain"
fi
if run 2 "singular mass" "$DEC" "$BAD/eq_mass_singular.lth" --quiet; then
  err_has "the mass matrix of block {v1, v2} is singular at t = 0.3" "singular mass"
fi

# ---- section 5: the block form with a mass matrix, as printed there
cat >"$TMP/mass.lth" <<'LTH'
blocks 2 2 1
interval 0 2
M(1) = [2 + sin(t) 0.3*t; exp(-t) 1.5]
A(1,3) = [1; 0.5 + 0.1*t]
A(2,1) = eye
A(3,2) = [1 t]
LTH
if run 0 "M(1) example" "$DEC" "$TMP/mass.lth" --check --quiet; then
  grep -qF "check          passed" "$TMP/out" || fail "the M(1) example does not pass --check"
fi

# ---- names of any length: two unknowns sharing their first 100 characters
# stay two unknowns, and the tools print their whole names
P=$(printf 'a%.0s' $(seq 1 100))
cat >"$TMP/long.lth" <<LTH
problem equations
variables ${P}x ${P}y lambda
interval 0 1
${P}x' = ${P}y
${P}y' = -${P}x + lambda
0 = ${P}x - sin(t)
LTH
if run 0 "long names" "$SOLVE" "$TMP/long.lth" --z0 0,1,0 --times 1 --format csv; then
  head -1 "$TMP/out" | grep -qF "t,\"${P}x\",\"${P}y\",\"lambda\"" ||
    fail "long names: the CSV header lacks the whole names: $(head -c 300 "$TMP/out")"
fi
# --fix takes the whole name (y = x' = cos t is 1 at t = 0)
run 0 "long names --fix" "$IC" "$TMP/long.lth" --fix "${P}y=1" --format json
run 1 "long names --fix, cut name" "$IC" "$TMP/long.lth" --fix "${P}=1" --format json

finish cli_equations
