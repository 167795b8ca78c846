# SPDX-License-Identifier: GPL-3.0-or-later
# Boundary conditions as equations through lth-bvp (docs/equations.md section
# 9): data/chain_bvp.lth (`bc x2(0) = 0`, `bc x2(t1) - x3(t1) = 0`,
# `bc x3'(t1) = 0`, ...) and tests/data/chain_bvp_matrices.lth (the same
# conditions as B0, B1, beta) give the same solution with every method, and
# so do tests/data/three_masses.lth and its conditions rewritten as equations
# (velocities of second-order unknowns at both ends); the data are the same
# doubles, so the outputs agree to rounding.  An equation-form file without
# conditions is refused with the number needed and how to write them.
# Usage: bash cli_bc_equations.sh BUILD/apps   (env LTH_DATA_DIR, LTH_TEST_DIR)
. "$(dirname "$0")/testlib.sh"
BVP="$APPS/lth-bvp"
TESTS="${LTH_TEST_DIR:?LTH_TEST_DIR must name the tests directory}"
for tool in "$BVP" "$JT"; do
  [ -x "$tool" ] || { echo "FAIL: $tool not built" >&2; exit 1; }
done

# same_bvp A B WHAT: lth-bvp on both files, every method, the same JSON
same_bvp() {
  for method in collocation shooting multiple fd; do
    run 0 "$3 ($method, equations)" "$BVP" "$1" --method "$method" --times 0,1,2 \
      --format json -q && cp "$TMP/out" "$TMP/a.json" || continue
    run 0 "$3 ($method, matrices)" "$BVP" "$2" --method "$method" --times 0,1,2 \
      --format json -q && cp "$TMP/out" "$TMP/b.json" || continue
    "$JT" diff "$TMP/b.json" "$TMP/a.json" --rtol 1e-13 --atol 1e-15 >"$TMP/diff" 2>&1 ||
      fail "$3 ($method): equation and matrix bc differ: $(head -c 600 "$TMP/diff")"
  done
}

same_bvp "$DATA/chain_bvp.lth" "$TESTS/data/chain_bvp_matrices.lth" "chain_bvp"

# three_masses: x2, x3 at t0 and the velocities x2', x3' at t1
sed -e '/^bc /d' "$TESTS/data/three_masses.lth" >"$TMP/three_eq.lth"
cat >>"$TMP/three_eq.lth" <<'BC'
bc x2(0) = 1
bc x3(t0) = 0.25
bc [x2'(2); x3'(t1)] = [0.5; -0.3]
BC
same_bvp "$TMP/three_eq.lth" "$TESTS/data/three_masses.lth" "three_masses"

# no conditions in an equation-form file: how many and how to write them
if run 2 "no bc" "$BVP" "$DATA/pendulum_equations.lth"; then
  err_has "no boundary conditions: lth-bvp needs p = 2" "no bc"
  err_has "(the DAE leaves free, e.g., x2, v2 at t0)" "no bc"
  err_has '`bc x(t0) = 1`' "no bc"
fi

finish cli_bc_equations
