# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 10 ("never silently wrong") through the tools: every case of the issue
# that used to exit 0 with a wrong answer now exits non-zero naming t (or the
# condition) and the measure; the well-posed counterparts still solve.  Data
# files: tests/wellposed/*.lth (each says what it tests).
# Usage: bash cli_wellposed.sh BUILD/apps   (env LTH_TEST_DIR = tests/)
. "$(dirname "$0")/testlib.sh"
W="${LTH_TEST_DIR:?LTH_TEST_DIR must name the tests directory}/wellposed"
for tool in lth-decompose lth-ic lth-solve lth-bvp lth-lqr; do
  [ -x "$APPS/$tool" ] || { echo "FAIL: $APPS/$tool not built" >&2; exit 1; }
done
[ -x "$JT" ] || { echo "FAIL: $JT not built" >&2; exit 1; }

# err_t T TOL WHAT: the message names a time within TOL of T ("(t = ...)")
err_t() {
  local t
  t=$(grep -Eo '\(t = [-+0-9.eE]+' "$TMP/err" | head -1 | sed 's/(t = //')
  [ -n "$t" ] && awk -v a="$t" -v b="$1" -v tol="$2" 'BEGIN { d = a - b; exit !(d <= tol && -d <= tol) }' ||
    fail "$3: the message does not name t = $1 (+- $2): $(head -c 400 "$TMP/err")"
}

# cpu_below SECONDS WHAT CMD...: CMD's user + system time is below SECONDS
cpu_below() {
  local lim=$1 what=$2
  shift 2
  local start end
  start=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  "$@" >"$TMP/out" 2>"$TMP/err"
  end=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  awk -v a="$start" -v b="$end" -v lim="$lim" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { exit !((b - a) / hz < lim) }' || fail "$what: took $(((end - start)))/$(getconf CLK_TCK) s of CPU (limit $lim s)"
}

# ---- item 1: a chain block that vanishes where cond_pi = cond_chain = 1
run 3 "decompose cos_chain" "$APPS/lth-decompose" "$W/cos_chain.lth" --format json &&
  { err_has "cond_interval" "decompose cos_chain"; err_t 0.5 1e-12 "decompose cos_chain"; }
run 3 "solve cos_chain" "$APPS/lth-solve" "$W/cos_chain.lth" && err_t 0.5 1e-12 "solve cos_chain"
# one time only: the interval's scale comes with the file, not from a grid
run 3 "decompose cos_chain --at 0.5" "$APPS/lth-decompose" "$W/cos_chain.lth" --at 0.5 &&
  { err_has "cond_interval" "decompose --at 0.5"; err_t 0.5 1e-12 "decompose --at 0.5"; }
# a threshold above the amplification cond_interval^2 (index 3) lets the grid through
run 0 "decompose cos_chain --cond-max 1e33" "$APPS/lth-decompose" "$W/cos_chain.lth" --cond-max 1e33 \
  --format json
# ---- item 1: Pi changes sign between the integrator's steps; refused at once
cpu_below 1 "solve vanish4" "$APPS/lth-solve" "$W/vanish4.lth"
[ -s "$TMP/out" ] && fail "solve vanish4: printed a solution"
grep -q "singular" "$TMP/err" || fail "solve vanish4: no 'singular' in: $(head -c 300 "$TMP/err")"
err_t 0.503 1e-12 "solve vanish4"
# ---- item 5: --check on the index-5 chain of 1 x 1 blocks (p = 0)
run 0 "check carts5" "$APPS/lth-decompose" "$W/carts5.lth" --check --format json &&
  { "$JT" below "$TMP/out" worst 1e-13 || fail "check carts5: a residual above 1e-13"; }
# ---- p = 0 (the DAE alone fixes the motion): G is rounding noise, and rank
# decisions use the size of Nhat + Bhat and P, not sigma_1(G) itself.  An
# index-5 crane with a constraint written times 3 (equation form) and the
# same crane in the block form.
run 0 "ic crane5" "$APPS/lth-ic" "$W/crane5.lth" --format json && {
  near "$TMP/out" 'z0[2]' 0.7961264016309888 1e-12 "ic crane5 xc(0)"
  near "$TMP/out" 'z0[8]' -4.980632008154944 1e-11 "ic crane5 ux(0)"
}
run 0 "solve crane5" "$APPS/lth-solve" "$W/crane5.lth" --times 2 --format json && {
  near "$TMP/out" 'z[0][6]' -0.4161468365471424 1e-8 "solve crane5 x(2)"
  near "$TMP/out" 'z[0][2]' -0.31201897753376145 1e-8 "solve crane5 xc(2)"
  near "$TMP/out" 'z[0][8]' 1.6869441342664357 1e-7 "solve crane5 ux(2)"
  near "$TMP/out" 'z[0][9]' -1.1333360432339576 1e-7 "solve crane5 uy(2)"
}
for f in crane5 crane5_block; do
  run 0 "check $f" "$APPS/lth-decompose" "$W/$f.lth" --check --format json &&
    { "$JT" below "$TMP/out" worst 1e-13 || fail "check $f: a residual above 1e-13"; }
done
# ---- the a priori amplification cond_interval^(r-1) is no reason to refuse:
# index 6 with time-varying masses (cond_interval^5 = 2e16, measured 1e9)
run 0 "check mass6" "$APPS/lth-decompose" "$W/mass6.lth" --check --format json &&
  { "$JT" below "$TMP/out" worst 1e-13 || fail "check mass6: a residual above 1e-13"; }
run 0 "solve mass6" "$APPS/lth-solve" "$W/mass6.lth" --times 6 --format json && {
  near "$TMP/out" 'z[0][0]' 2.5 1e-9 "solve mass6 x1(6)"
  near "$TMP/out" 'z[0][1]' 0.42192697936624607 1e-9 "solve mass6 x2(6)"
  near "$TMP/out" 'z[0][3]' 1.9601702866503659 1e-9 "solve mass6 x4(6)"
  near "$TMP/out" 'z[0][5]' 0.1353352832366127 1e-9 "solve mass6 u(6)"
}
run 0 "ic mass6" "$APPS/lth-ic" "$W/mass6.lth" --format json && near "$TMP/out" 'z0[5]' 1 1e-12 "ic mass6 u(0)"
# ---- items 2, 3: Ascher-Petzold alpha = 50, condition at t1: every method refuses
for m in shooting multiple fd; do
  run 3 "bvp ap50_t1 $m" "$APPS/lth-bvp" "$W/ap50_t1.lth" --method $m && {
    err_has "not uniquely solvable" "bvp ap50_t1 $m"
    c=$(grep -Eo 'condition estimate [0-9.e+]+' "$TMP/err" | head -1 | awk '{ print $3 }')
    awk -v c="$c" 'BEGIN { exit !(c > 1e20) }' || fail "bvp ap50_t1 $m: condition $c not > 1e20"
  }
  # ... and solves the same problem with its condition at t0: z = (e^t, e^t, -e^t / (2 - t))
  run 0 "bvp ap50_t0 $m" "$APPS/lth-bvp" "$W/ap50_t0.lth" --method $m --times 0,1 --format json && {
    tol=1e-8
    [ $m = fd ] && tol=1e-3
    near "$TMP/out" 'z[1][0]' 2.718281828459045 $tol "bvp ap50_t0 $m x1(1)"
    near "$TMP/out" "z[1][2]" -2.718281828459045 $tol "bvp ap50_t0 $m y(1)"
  }
done
# ---- item 3 and the bc items: dependent conditions, a condition on u
for f in bc_dependent bc_algebraic; do
  for m in shooting multiple fd; do
    run 3 "bvp $f $m" "$APPS/lth-bvp" "$W/$f.lth" --method $m &&
      err_has "dependent on the consistent manifold" "bvp $f $m"
  done
done
err_has "row 1 involves z[5] (u[1]) at t0, which the algebraic constraints fix" "bvp bc_algebraic fd"
# ---- items 4 and 6: LQR data
# (each refusal names the statement at fault: file:line:col, as other input errors do)
run 2 "lqr Aly-Chan" "$APPS/lth-lqr" "$W/lqr_aly_chan.lth" &&
  err_has "lqr_aly_chan.lth:12:1: H must be positive semidefinite" "lqr Aly-Chan" &&
  err_has "eigenvalue -1 " "lqr Aly-Chan"
run 2 "lqr H indefinite" "$APPS/lth-lqr" "$W/lqr_H_indefinite.lth" &&
  err_has "lqr_H_indefinite.lth:9:1: H must be positive semidefinite" "lqr H indefinite" &&
  err_has "eigenvalue -0.5 " "lqr H indefinite"
run 2 "lqr C indefinite" "$APPS/lth-lqr" "$W/lqr_C_indefinite.lth" --method shooting &&
  err_has "lqr_C_indefinite.lth:10:1: C must be positive semidefinite" "lqr C indefinite"
run 2 "lqr H asymmetric" "$APPS/lth-lqr" "$W/lqr_H_asymmetric.lth" &&
  { err_has "lqr_H_asymmetric.lth:10:1: H must be symmetric" "lqr H asymmetric"; err_t 0.005 0.005 "lqr H asymmetric"; }
run 3 "lqr B vanishing" "$APPS/lth-lqr" "$W/lqr_B_vanishing.lth" &&
  { err_has "B'H B" "lqr B vanishing"; err_t 0.503 1e-6 "lqr B vanishing"; }
# a solution that overflows names its t
sed 's/^x0 = .*/x0 = [1e308; -1e308]/' "$DATA/lqr_double_integrator.lth" >"$TMP/huge.lth"
run 3 "lqr overflow" "$APPS/lth-lqr" "$TMP/huge.lth" && err_has "(t = " "lqr overflow"
# ---- lth-ic: --fix blames the conflicting value; a guess that overflows
run 3 "ic --fix order" "$APPS/lth-ic" "$W/fix_order.lth" --fix 2=0.5,3=1,4=7 &&
  err_has "lth-ic: z[4] (u[1]) = 7 conflicts" "ic --fix order"
run 3 "ic huge guess" "$APPS/lth-ic" "$DATA/slope.lth" --guess 1.7e308,-1.7e308,1.7e308,-1.7e308,1 &&
  { err_has "not finite" "ic huge guess"; err_t 0 0 "ic huge guess"; }
# ---- --stabilize 1e8 with an explicit method (the default until cheb): refused at
# once, not 15 minutes
cpu_below 1 "solve --stabilize 1e8" "$APPS/lth-solve" "$DATA/slope.lth" --stabilize 1e8 \
  --method rk8pd
grep -q "stiff" "$TMP/err" || fail "solve --stabilize 1e8: no reason given: $(head -c 300 "$TMP/err")"
run 0 "solve --stabilize 1e8 --method msbdf" "$APPS/lth-solve" "$DATA/slope.lth" --stabilize 1e8 \
  --method msbdf --times 1,2

finish cli_wellposed
