# SPDX-License-Identifier: GPL-3.0-or-later
# lth-lqr's operator path beyond nx = 2,000 shows the weights H and C positive
# semidefinite by a sparse Cholesky factorization of W + delta I (SuiteSparse
# CHOLMOD, lib/lqr/lqr_psd.c), not by diagonal dominance alone.  Chains of
# scripts/gen-chain.py --lqr 1001 1 --weights KIND (nx = 2,002):
#   plus        H and C psd, not diagonally dominant (C with exact zero
#               eigenvalues): solved, and the optimality conditions hold
#               (tests/cli/lqr_oppath_check.py, an independent integration);
#   zero        H = Q'Q with Q rank deficient (exact zero eigenvalues), not
#               diagonally dominant: solved, the same conditions (all but the
#               cost's quadrature, which the tiny cost, 6e-11, puts at rounding);
#   indefinite  H with one eigenvalue -1e-6: refused (exit 2), naming H, nx, the
#               pivot and the Rayleigh quotient of the witness, which lies in
#               [-1.001e-6, -0.9e-6] (the eigenvalue is -1e-6; the witness
#               from the failed column alone gives -e (1 - e/2) / (1 + e),
#               e = 1e-6, and the Lanczos steps from it -e to rounding).
# The solves run at --rtol 1e-6 (5 stages: faster; this chain's optimum is smooth and
# the conditions still hold to ~1e-14).  A time-varying H that turns indefinite
# between the output times is refused at the scan point that finds it.
# Without CHOLMOD the non-dominant weights are refused naming the library.
# Usage: bash cli_lqr_psd.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
TESTS=${LTH_TEST_DIR:?LTH_TEST_DIR must name tests/}
ROOT="$TESTS/.."
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
CHECK="$PY $TESTS/cli/lqr_oppath_check.py"
LQR="$APPS/lth-lqr"
DI="$DATA/lqr_double_integrator.lth"

if ! "$LQR" "$DI" --path operator --times 0,2 >/dev/null 2>&1; then
  echo "cli_lqr_psd: no operator path in this build (KLU), nothing to check"
  finish cli_lqr_psd
  exit 0
fi
for k in plus zero indefinite; do
  $PY "$ROOT/scripts/gen-chain.py" --lqr 1001 1 "$TMP/$k.lth" --weights $k
done

run 0 "--path operator --help" "$LQR" --help
if ! grep -q "CHOLMOD" "$TMP/out"; then fail "--help does not name CHOLMOD"; fi

run 2 "indefinite H" "$LQR" "$TMP/indefinite.lth" --times 0,4
if grep -q "no SuiteSparse CHOLMOD" "$TMP/err"; then
  # a build without CHOLMOD: refused naming the missing library, never solved
  err_has "is not shown positive semidefinite" "no CHOLMOD"
  run 2 "no CHOLMOD: plus" "$LQR" "$TMP/plus.lth" --times 0,4
  err_has "CHOLMOD" "no CHOLMOD: plus"
  finish cli_lqr_psd
  exit 0
fi
err_has "H must be positive semidefinite, but it is indefinite (nx = 2002)" "indefinite H"
err_has "sparse Cholesky factorization of H + delta I" "indefinite H"
err_has "(t = 0)" "indefinite H"
rho=$(sed -n "s/.*x'Hx \/ x'x = \([-0-9.e+]*\).*/\1/p" "$TMP/err")
awk -v r="$rho" 'BEGIN { exit !(r != "" && r >= -1.001e-6 && r <= -0.9e-6) }' ||
  fail "indefinite H: Rayleigh quotient '$rho' not in [-1.001e-6, -0.9e-6]"

# H(t) = H_plus - (t/2) E, E = e_i e_j' + e_j e_i' on the free chain's first two
# velocities (where H_plus is I): the eigenvalue 1 - t/2 turns negative after t = 2,
# between the output times 0 and 1 and t1 = 4; the scan of [0, 4] (1025 points,
# spacing 4/1024) finds it at its first point past 2, t = 2.00390625
i=$((1001 + 2 + 1))
printf '%%%%MatrixMarket matrix coordinate real general\n2002 2002 2\n%d %d 1\n%d %d 1\n' \
  $i $((i + 1)) $((i + 1)) $i >"$TMP/e.mtx"
sed 's/^H = mm("plus_H.mtx")$/H = mm("plus_H.mtx") - 0.5*t*mm("e.mtx")/' "$TMP/plus.lth" \
  >"$TMP/tv.lth"
grep -q 'e.mtx' "$TMP/tv.lth" || fail "time-varying H: not written"
run 2 "time-varying H, indefinite after t = 2" "$LQR" "$TMP/tv.lth" --times 0,1
err_has "H must be positive semidefinite, but it is indefinite" "time-varying H"
err_has "(t = 2.0039" "time-varying H"

# C with the block [0.5 1; 1 0.5] on the actuated chain's positions (eigenvalue -0.5):
# refused naming C and nx, with no time (C is constant)
$PY - "$TMP/plus_C.mtx" "$TMP/cind_C.mtx" <<'PYEOF'
import sys
rows = open(sys.argv[1]).read().split("\n")
head = rows[1].split()
body = [r for r in rows[2:] if r.strip()] + ["1 2 1", "2 1 1"]
rows = [rows[0], "%s %s %d" % (head[0], head[1], len(body))] + body
open(sys.argv[2], "w").write("\n".join(rows) + "\n")
PYEOF
sed 's/^C = mm("plus_C.mtx")$/C = mm("cind_C.mtx")/' "$TMP/plus.lth" >"$TMP/cind.lth"
grep -q 'cind_C' "$TMP/cind.lth" || fail "indefinite C: not written"
run 2 "indefinite C" "$LQR" "$TMP/cind.lth" --times 0,4
err_has "C must be positive semidefinite, but it is indefinite (nx = 2002)" "indefinite C"
grep -q "(t = " "$TMP/err" && fail "indefinite C: names a time: $(cat "$TMP/err")"

run 0 "plus: H, C psd, not dominant" "$LQR" "$TMP/plus.lth" --times 0,1,2.5,4 --rtol 1e-6 --format json \
  -o "$TMP/plus.json"
$CHECK conditions "$TMP/plus.json" "$TMP/plus" >"$TMP/plus.check" ||
  fail "plus: optimality conditions: $(cat "$TMP/plus.check")"

run 0 "zero: H = Q'Q, rank deficient" "$LQR" "$TMP/zero.lth" --times 0,1,2.5,4 --rtol 1e-6 --format json \
  -o "$TMP/zero.json"
$CHECK conditions "$TMP/zero.json" "$TMP/zero" >"$TMP/zero.check"
awk -F': ' '!/^cost/ && !($2 <= 1e-8) { bad = 1 } END { exit bad }' "$TMP/zero.check" ||
  fail "zero: optimality conditions: $(cat "$TMP/zero.check")"
[ "$(grep -c ': ' "$TMP/zero.check")" -eq 8 ] || fail "zero: the check printed $(cat "$TMP/zero.check")"

finish cli_lqr_psd
