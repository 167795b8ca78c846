# SPDX-License-Identifier: GPL-3.0-or-later
# A mass matrix that is not diagonal on the operator path (include/lth/
# opdecomp.h, lth_opsys_mass_rows: M kept as a sparse factorization, never
# M^-1 formed), on the chain of scripts/gen-chain.py --coupled-masses (M
# tridiagonal, symmetric positive definite):
# - at s = 403 the operator and dense paths agree (lth-decompose to rounding,
#   lth-ic, lth-solve within the solves' error estimates);
# - at s = 20,003 (n = 10,000 > 7071, where M^-1 A(1,j) would be 1e8
#   entries per Taylor order) lth-solve finishes in seconds and agrees with an
#   independent SciPy solution of the chain's ODE (oppath_check.py chain ...
#   coupled) within its own error estimate; the equation form of the same
#   chain (s = 10,003) too; lth-ic's z0 satisfies the constraints;
# - the dense path refuses such M at that size naming it, lth-bvp's operator
#   path (collocation) refuses it naming the mass matrix, and an M that
#   changes with t is refused at that size naming it (at s = 403 both paths
#   solve it densely and agree).
# Usage: bash cli_oppath_mass.sh BUILD/apps
. "$(dirname "$0")/testlib.sh"
TESTS=${LTH_TEST_DIR:?LTH_TEST_DIR must name tests/}
ROOT="$TESTS/.."
CHECK="/usr/bin/python3 $TESTS/cli/oppath_check.py"
[ -x /usr/bin/python3 ] || CHECK="python3 $TESTS/cli/oppath_check.py"
GEN="/usr/bin/python3 $ROOT/scripts/gen-chain.py"
[ -x /usr/bin/python3 ] || GEN="python3 $ROOT/scripts/gen-chain.py"

# a build without SuiteSparse KLU: such an M past n = 7071 is refused, naming KLU
$GEN --mm --coupled-masses 10000 3 "$TMP/c20k.lth" || fail "gen-chain.py --coupled-masses 10000"
if ! "$APPS/lth-ic" "$TMP/c20k.lth" --path operator --at 0.7 >/dev/null 2>"$TMP/probe.err"; then
  grep -q "SuiteSparse KLU" "$TMP/probe.err" || fail "no KLU: the refusal does not name KLU"
  finish cli_oppath_mass
  exit 0
fi

# ---- s = 403: both paths ----
$GEN --mm --coupled-masses 200 3 "$TMP/c403.lth" || fail "gen-chain.py --coupled-masses 200"
for p in operator dense; do
  run 0 "s = 403: lth-decompose --path $p" "$APPS/lth-decompose" "$TMP/c403.lth" --path $p \
    --at 0.3,0.9 --order 2 --fields cond_pi,g,q,cond_chain --format json -o "$TMP/c403.$p.dec.json"
  run 0 "s = 403: lth-ic --path $p" "$APPS/lth-ic" "$TMP/c403.lth" --path $p --at 0.4 \
    --format json -o "$TMP/c403.$p.ic.json"
done
$CHECK decompose "$TMP/c403.operator.dec.json" "$TMP/c403.dense.dec.json" ||
  fail "s = 403: lth-decompose differs"
$CHECK ic "$TMP/c403.operator.ic.json" "$TMP/c403.dense.ic.json" || fail "s = 403: lth-ic differs"
# lth-solve at s = 203 (the dense path's solve at s = 403 takes seconds)
$GEN --mm --coupled-masses 100 3 "$TMP/c203.lth" || fail "gen-chain.py --coupled-masses 100"
for p in operator dense; do
  run 0 "s = 203: lth-solve --path $p" "$APPS/lth-solve" "$TMP/c203.lth" --path $p --rtol 1e-8 \
    --atol 1e-10 --times 0.5,1,2 --format json -o "$TMP/c203.$p.sol.json"
done
$CHECK solve "$TMP/c203.operator.sol.json" "$TMP/c203.dense.sol.json" ||
  fail "s = 203: lth-solve differs"

# ---- s = 20,003: the block form ----
run 0 "s = 20003: lth-solve" "$APPS/lth-solve" "$TMP/c20k.lth" --times 0.5,1,1.5,2 --rtol 1e-8 \
  --atol 1e-10 --format json -o "$TMP/c20k.sol.json"
"$JT" get "$TMP/c20k.sol.json" path | grep -q operator || fail "s = 20003: not the operator path"
$CHECK chain 10000 3 "$TMP/c20k.sol.json" coupled || fail "s = 20003: against the reference"
"$JT" below "$TMP/c20k.sol.json" drift 1e-10 || fail "s = 20003: drift"
run 0 "s = 20003: lth-ic" "$APPS/lth-ic" "$TMP/c20k.lth" --at 0.7 --format json \
  -o "$TMP/c20k.ic.json"
"$JT" below "$TMP/c20k.ic.json" residual 1e-12 || fail "s = 20003: lth-ic residual"
run 0 "s = 20003: lth-decompose" "$APPS/lth-decompose" "$TMP/c20k.lth" --at 0.5 --format json \
  -o "$TMP/c20k.dec.json"
"$JT" get "$TMP/c20k.dec.json" path | grep -q operator || fail "s = 20003: lth-decompose path"
# the dense path cannot hold M^-1 A(1,j): refused naming M(1), before anything n x n
run 3 "s = 20003: --path dense" "$APPS/lth-ic" "$TMP/c20k.lth" --path dense &&
  err_has "the mass matrix M(1) (10000 x 10000) is not diagonal" "--path dense refusal"

# ---- s = 10,003: the equation form (m_i v_i' + 0.1 v_{i-1}' + 0.1 v_{i+1}' = ...) ----
$GEN --equations --coupled-masses 5000 3 "$TMP/e10k.lth" || fail "gen-chain.py --equations"
run 0 "equations s = 10003: lth-solve" "$APPS/lth-solve" "$TMP/e10k.lth" --times 1,2 \
  --rtol 1e-8 --atol 1e-10 --format json -o "$TMP/e10k.sol.json"
"$JT" get "$TMP/e10k.sol.json" path | grep -q operator || fail "equations: not the operator path"
$CHECK chain 5000 3 "$TMP/e10k.sol.json" coupled || fail "equations: against the reference"

# ---- what the operator path does not take ----
$GEN --mm --bvp --coupled-masses 300 3 "$TMP/b603.lth" || fail "gen-chain.py --bvp"
run 1 "lth-bvp --path operator" "$APPS/lth-bvp" "$TMP/b603.lth" --path operator &&
  err_has "does not take a mass matrix that is not diagonal" "lth-bvp --path operator"
# a mass matrix that changes with t, M(1) = (1 + 0.1 t) M0: at s = 403 the
# operator path keeps its dense solve (M's enclosure shows the change) and
# agrees with the dense path; at s = 20,003 it refuses naming M(1) and t
for f in c403 c20k; do
  sed 's/^M(1) = mm(\(.*\))$/M(1) = (1 + 0.1*t)*mm(\1)/' "$TMP/$f.lth" >"$TMP/$f.vary.lth"
  grep -q '^M(1) = (1 + 0.1\*t)\*mm(' "$TMP/$f.vary.lth" || fail "$f.vary.lth not written"
done
for p in operator dense; do
  run 0 "s = 403, M(t): lth-ic --path $p" "$APPS/lth-ic" "$TMP/c403.vary.lth" --path $p --at 0.4 \
    --format json -o "$TMP/v403.$p.ic.json"
done
$CHECK ic "$TMP/v403.operator.ic.json" "$TMP/v403.dense.ic.json" || fail "s = 403, M(t): differs"
run 2 "s = 20003, M(t): lth-ic" "$APPS/lth-ic" "$TMP/c20k.vary.lth" --at 0.4 &&
  err_has "the mass matrix M(1) changes with t" "time-varying M at size"

finish cli_oppath_mass
