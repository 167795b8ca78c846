# SPDX-License-Identifier: GPL-3.0-or-later
# The tools' operator path (--path auto|dense|operator; docs/user-guide.md,
# "Large sparse systems"): lth-solve, lth-ic and lth-decompose forced onto it
# on shipped examples agree with the dense path within what the requested
# tolerances and the solves' own global error estimates allow
# (tests/cli/oppath_check.py); a generated chain with Matrix Market blocks
# (scripts/gen-chain.py --mm, s = 2003) takes the operator path by itself and
# agrees with an independent SciPy solution; what the operator path cannot do
# is refused naming why.
# Usage: bash cli_oppath.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
TESTS=${LTH_TEST_DIR:?LTH_TEST_DIR must name tests/}
ROOT="$TESTS/.."
CHECK="/usr/bin/python3 $TESTS/cli/oppath_check.py"
[ -x /usr/bin/python3 ] || CHECK="python3 $TESTS/cli/oppath_check.py"

# ---- shipped examples, both paths ----
# (inputs and outputs: carts_io, circuit_mna; index-1 unknowns of the
# equation form: pendulum_equations; mass matrices: mass_varying)
for ex in chain_sparse pendulum two_carts slope index5 mass_varying carts_io circuit_mna \
  pendulum_equations; do
  f="$DATA/$ex.lth"
  for p in operator dense; do
    run 0 "$ex: lth-solve --path $p" "$APPS/lth-solve" "$f" --path $p --rtol 1e-8 --atol 1e-10 \
      --times 0.25,0.5,1 --format json -o "$TMP/$ex.$p.sol.json"
    run 0 "$ex: lth-ic --path $p" "$APPS/lth-ic" "$f" --path $p --format json \
      -o "$TMP/$ex.$p.ic.json"
    run 0 "$ex: lth-decompose --path $p" "$APPS/lth-decompose" "$f" --path $p --at 0.3,0.9 \
      --order 2 --fields cond_pi,g,q,cond_chain --format json -o "$TMP/$ex.$p.dec.json"
  done
  $CHECK solve "$TMP/$ex.operator.sol.json" "$TMP/$ex.dense.sol.json" || fail "$ex: lth-solve differs"
  $CHECK ic "$TMP/$ex.operator.ic.json" "$TMP/$ex.dense.ic.json" || fail "$ex: lth-ic differs"
  $CHECK decompose "$TMP/$ex.operator.dec.json" "$TMP/$ex.dense.dec.json" ||
    fail "$ex: lth-decompose differs"
done
# an inconsistent z0 with --project: the same projection on both paths
for p in operator dense; do
  run 0 "--project, --path $p" "$APPS/lth-solve" "$DATA/pendulum.lth" --path $p --project \
    --z0 0.1,0,0.05,0.2,3 --times 1 --rtol 1e-8 --atol 1e-10 --format json -o "$TMP/pr.$p.json"
done
"$JT" get "$TMP/pr.operator.json" projected | grep -q true || fail "--project: not projected"
$CHECK solve "$TMP/pr.operator.json" "$TMP/pr.dense.json" || fail "--project: lth-solve differs"
run 3 "inconsistent z0 without --project" "$APPS/lth-solve" "$DATA/pendulum.lth" --path operator \
  --z0 0.1,0,0.05,0.2,3 --times 1 && err_has "not consistent" "inconsistent z0"

# ---- a chain at size: the automatic choice takes the operator path ----
/usr/bin/python3 "$ROOT/scripts/gen-chain.py" --mm 1000 3 "$TMP/chain.lth" || fail "gen-chain.py --mm"
run 0 "chain s = 2003: lth-solve" "$APPS/lth-solve" "$TMP/chain.lth" --times 0.5,1,1.5,2 \
  --rtol 1e-8 --atol 1e-10 --format json -o "$TMP/chain.sol.json"
$CHECK chain 1000 3 "$TMP/chain.sol.json" || fail "chain: lth-solve against the reference"
run 0 "chain: text report" "$APPS/lth-solve" "$TMP/chain.lth" --times 1 --error-estimate off
grep -q "^path           operator (s = 2003 >= " "$TMP/out" || fail "chain: no operator path line"
run 0 "chain: lth-ic" "$APPS/lth-ic" "$TMP/chain.lth" --at 0.7 --format json -o "$TMP/chain.ic.json"
"$JT" get "$TMP/chain.ic.json" path | grep -q operator || fail "chain: lth-ic not on the operator path"
"$JT" below "$TMP/chain.ic.json" residual 1e-12 || fail "chain: lth-ic residual"
run 0 "chain: lth-decompose" "$APPS/lth-decompose" "$TMP/chain.lth" --at 0.5 --format json \
  -o "$TMP/chain.dec.json"
err_has "the operator path writes t, cond_pi, g, q and cond_chain" "chain: lth-decompose's note"
"$JT" get "$TMP/chain.dec.json" path | grep -q operator || fail "chain: lth-decompose path"
[ "$(wc -c <"$TMP/chain.dec.json")" -lt 400000 ] || fail "chain: lth-decompose wrote a large file"

# a mass matrix that is not diagonal (gen-chain.py --coupled-masses: a
# tridiagonal SPD M(1), eliminated as the exact jet solve M^-1 A(1,j)): both
# paths agree within the solves' error estimates
/usr/bin/python3 "$ROOT/scripts/gen-chain.py" --mm --coupled-masses 20 3 "$TMP/cm.lth" ||
  fail "gen-chain.py --coupled-masses"
for p in operator dense; do
  run 0 "coupled masses: lth-solve --path $p" "$APPS/lth-solve" "$TMP/cm.lth" --path $p \
    --rtol 1e-8 --atol 1e-10 --times 0.5,1,2 --format json -o "$TMP/cm.$p.sol.json"
done
$CHECK solve "$TMP/cm.operator.sol.json" "$TMP/cm.dense.sol.json" || fail "coupled masses: differs"

# a block that is not sparse (eye: 25 % of s^2 stored at s = 503) does not keep
# auto on the dense path (12 s there against 1 s, include/lth/defaults.h)
/usr/bin/python3 "$ROOT/scripts/gen-chain.py" --mm 250 3 "$TMP/c503.lth" || fail "gen-chain.py --mm"
sed -i 's/^A(2,1) = mm(.*/A(2,1) = eye/' "$TMP/c503.lth"
run 0 "s = 503 with eye: lth-ic" "$APPS/lth-ic" "$TMP/c503.lth" --format json -o "$TMP/c503.json"
"$JT" get "$TMP/c503.json" path | grep -q operator || fail "s = 503 with eye: not the operator path"
# and below the size auto stays dense
run 0 "chain_sparse: auto" "$APPS/lth-ic" "$DATA/chain_sparse.lth" --format json -o "$TMP/small.json"
"$JT" get "$TMP/small.json" path | grep -q dense || fail "s = 9: not the dense path"

# ---- refusals ----
run 1 "chain: --fields P" "$APPS/lth-decompose" "$TMP/chain.lth" --at 0.5 --fields g,P &&
  err_has "--fields P: at s = 2003" "--fields P" && err_has "2000 x 2000" "--fields P"
run 1 "chain: --fields norm_G" "$APPS/lth-decompose" "$TMP/chain.lth" --at 0.5 --fields norm_G &&
  err_has "the norm of G is 2003 x 2000" "--fields norm_G"
run 1 "--path operator --nearest" "$APPS/lth-ic" "$DATA/pendulum.lth" --path operator --nearest &&
  err_has "does not take --nearest" "--nearest"
run 1 "--path operator --method rk8pd" "$APPS/lth-solve" "$DATA/pendulum.lth" --path operator \
  --method rk8pd && err_has "explicit --method" "--method rk8pd"
run 1 "--path operator --stabilize" "$APPS/lth-solve" "$DATA/pendulum.lth" --path operator \
  --stabilize 1 && err_has "--stabilize" "--stabilize"
run 1 "--path operator, sampled data" "$APPS/lth-solve" "$DATA/sampled.lth" --path operator &&
  err_has "sampled data" "sampled data"
run 1 "--path operator --check" "$APPS/lth-decompose" "$DATA/pendulum.lth" --path operator --check &&
  err_has "--check" "--check"
# auto at size with what only the dense path does: the dense path, said so
run 0 "chain: auto --check falls back" "$APPS/lth-decompose" "$TMP/chain.lth" --at 0.5 --check \
  --fields cond_pi --format json -o "$TMP/fb.json"
err_has "the dense path (s x s matrices) is used" "auto --check"
"$JT" get "$TMP/fb.json" path | grep -q dense || fail "auto --check: not on the dense path"
run 1 "--path nonsense" "$APPS/lth-solve" "$DATA/pendulum.lth" --path sparse

finish cli_oppath
