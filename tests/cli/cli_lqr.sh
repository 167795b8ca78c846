# SPDX-License-Identifier: GPL-3.0-or-later
# lth-lqr against docs/format.md section 2 and closed forms:
# the double integrator on its singular arc (x1 = cosh(2 - t), x2 = -sinh(2 - t),
# u = x1, lambda = (sinh(2 - t), 0), J = sinh 2 cosh 2 / 2), the same off the
# arc (an impulse at t0 to x2 = -tanh 2, cost tanh(2)/2), the time-varying
# problem without a smooth optimum (impulses at both ends, infimum
# 0.3256983783 confirmed by direct transcription in tests/unit/lqr/test_lqr.c), the
# closed loop u = K [x; lambda], and the errors.
# Usage: bash cli_lqr.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
LQR="$APPS/lth-lqr"
DI="$DATA/lqr_double_integrator.lth"
TV="$DATA/lqr_timevarying.lth"

calc() { awk "BEGIN { printf \"%.17g\n\", $1 }"; }
# awk has no cosh/sinh
COSH() { echo "((exp($1) + exp(-($1))) / 2)"; }
SINH() { echo "((exp($1) - exp(-($1))) / 2)"; }

# gain_check FILE NTIMES NX NU: u = K [x; lambda] at every time (1e-9)
gain_check() {
  local f=$1 n=$2 nx=$3 nu=$4 k i j
  for ((k = 0; k < n; k++)); do
    local xl=""
    for ((j = 0; j < nx; j++)); do xl="$xl $("$JT" get "$f" "x[$k][$j]")"; done
    for ((j = 0; j < nx; j++)); do xl="$xl $("$JT" get "$f" "lambda[$k][$j]")"; done
    for ((i = 0; i < nu; i++)); do
      local row=""
      for ((j = 0; j < 2 * nx; j++)); do row="$row $("$JT" get "$f" "gain[$k][$i][$j]")"; done
      local u
      u=$(awk -v r="$row" -v z="$xl" 'BEGIN { n = split(r, K, " "); split(z, Z, " "); s = 0;
          for (j = 1; j <= n; j++) s += K[j] * Z[j]; printf "%.17g\n", s }')
      near "$f" "u[$k][$i]" "$u" 1e-9 "closed loop u = K [x; lambda] at time $k"
    done
  done
}

[ -x "$LQR" ] || { echo "FAIL: $LQR not built" >&2; exit 1; }
[ -x "$JT" ] || { echo "FAIL: $JT not built" >&2; exit 1; }

# ---- double integrator on the singular arc: the closed form
TIMES=(0 0.5 1 1.5 2)
run 0 "double integrator" "$LQR" "$DI" --times 0,0.5,1,1.5,2 --format json --gain && cp "$TMP/out" "$TMP/di.json"
"$JT" validate "$TMP/di.json" || fail "double integrator JSON is not valid"
keys=$("$JT" keys "$TMP/di.json" . | tr '\n' ' ')
for key in times x lambda u cost exists unique x0_consistent jump terminal_impulse gain note; do
  case " $keys" in *" $key "*) ;; *) fail "lth-lqr JSON lacks key $key (has: $keys)" ;; esac
done
[ "$("$JT" get "$TMP/di.json" exists)" = true ] || fail "double integrator: exists is not true"
[ "$("$JT" get "$TMP/di.json" unique)" = true ] || fail "double integrator: unique is not true"
[ "$("$JT" get "$TMP/di.json" terminal_impulse)" = false ] || fail "double integrator: terminal impulse"
[ "$("$JT" shape "$TMP/di.json" x)" = "5 2" ] || fail "x is not 5 x 2"
[ "$("$JT" shape "$TMP/di.json" u)" = "5 1" ] || fail "u is not 5 x 1"
for k in 0 1 2 3 4; do
  s="(2 - ${TIMES[$k]})"
  near "$TMP/di.json" "x[$k][0]" "$(calc "$(COSH "$s")")" 1e-8 "x1"
  near "$TMP/di.json" "x[$k][1]" "$(calc "-$(SINH "$s")")" 1e-8 "x2"
  near "$TMP/di.json" "lambda[$k][0]" "$(calc "$(SINH "$s")")" 1e-8 "lambda1"
  near "$TMP/di.json" "lambda[$k][1]" 0 1e-8 "lambda2"
  near "$TMP/di.json" "u[$k][0]" "$(calc "$(COSH "$s")")" 1e-8 "u = x1"
done
near "$TMP/di.json" cost "$(calc "$(SINH 2) * $(COSH 2) / 2")" 1e-8 "cost sinh(2) cosh(2) / 2"
gain_check "$TMP/di.json" 5 2 1
# H = I: Theorem 4 (P_1' = P_2) holds exactly
"$JT" below "$TMP/di.json" theorem4 1e-12 || fail "double integrator: Theorem 4 deviation"
grep -q "no smooth optimum" "$TMP/err" && fail "double integrator: stderr says no smooth optimum"

# ---- the same, x0 = (1, 0) off the arc: an impulse at t0 moves x2 to -tanh 2
sed -e 's/^x0 = .*/x0 = [1; 0]/' "$DI" >"$TMP/off.lth"
run 0 "double integrator off the arc" "$LQR" "$TMP/off.lth" --times 0,2 --format json && cp "$TMP/out" "$TMP/off.json"
[ "$("$JT" get "$TMP/off.json" exists)" = false ] || fail "off the arc: exists is not false"
[ "$("$JT" get "$TMP/off.json" jump_in_range_B)" = true ] || fail "off the arc: jump not in range(B)"
near "$TMP/off.json" 'x0_consistent[0]' 1 1e-9 "off the arc"
near "$TMP/off.json" 'x0_consistent[1]' "$(calc "-$(SINH 2) / $(COSH 2)")" 1e-9 "off the arc"
near "$TMP/off.json" 'jump[0]' 0 1e-12 "off the arc"
near "$TMP/off.json" 'x[0][1]' "$(calc "-$(SINH 2) / $(COSH 2)")" 1e-9 "the arc starts after the jump"
near "$TMP/off.json" cost "$(calc "$(SINH 2) / $(COSH 2) / 2")" 1e-9 "infimum tanh(2)/2"
err_has "impulse at t0" "off the arc"
grep -q "and one at t1" "$TMP/err" && fail "off the arc: a terminal impulse is claimed"

# ---- time-varying: no smooth optimum, impulses at t0 and t1, the infimum
run 0 "time-varying" "$LQR" "$TV" --times 0,0.375,0.75,1.125,1.5 --format json --gain && cp "$TMP/out" "$TMP/tv.json"
"$JT" validate "$TMP/tv.json" || fail "time-varying JSON is not valid"
[ "$("$JT" get "$TMP/tv.json" exists)" = false ] || fail "time-varying: exists is not false"
[ "$("$JT" get "$TMP/tv.json" unique)" = true ] || fail "time-varying: unique is not true"
[ "$("$JT" get "$TMP/tv.json" jump_in_range_B)" = true ] || fail "time-varying: jump not in range(B)"
[ "$("$JT" get "$TMP/tv.json" terminal_impulse)" = true ] || fail "time-varying: no terminal impulse"
[ "$("$JT" get "$TMP/tv.json" have_trajectory)" = true ] || fail "time-varying: no trajectory"
near "$TMP/tv.json" cost 0.3256983783 1e-8 "time-varying infimum"
# the jump is along B(0) = (0, 1.2): x1 stays, and the arc starts at x0_consistent
near "$TMP/tv.json" 'jump[0]' 0 1e-12 "time-varying"
near "$TMP/tv.json" 'x0_consistent[0]' 1 1e-12 "time-varying"
"$JT" near "$TMP/tv.json" 'x0_consistent[1]' 0 0.1 2>/dev/null && fail "time-varying: x0_consistent equals x0"
near "$TMP/tv.json" 'x[0][1]' "$("$JT" get "$TMP/tv.json" 'x0_consistent[1]')" 1e-9 "arc after the jump"
# on the arc lambda_2 = 0 (0 = B' lambda)
for k in 0 2 4; do near "$TMP/tv.json" "lambda[$k][1]" 0 1e-9 "B' lambda = 0"; done
case "$("$JT" get "$TMP/tv.json" note)" in
  "no smooth optimum: the optimal control has an impulse at t0"*"and one at t1"*"singular arc after the jump and the cost is the infimum"*) ;;
  *) fail "time-varying note: $("$JT" get "$TMP/tv.json" note)" ;;
esac
err_has "no smooth optimum" "time-varying stderr"
gain_check "$TMP/tv.json" 5 2 1
run 0 "time-varying text" "$LQR" "$TV" --times 0,1.5
grep -q "NO smooth optimum" "$TMP/out" || fail "text does not say NO smooth optimum"
grep -q "NOT a smooth optimum" "$TMP/out" || fail "text does not label the arc"
grep -q "infimum" "$TMP/out" || fail "text does not call the cost the infimum"
grep -q "the optimal trajectory" "$TMP/out" && fail "text calls the arc the optimal trajectory"

# starting on the smooth optimal manifold (x0 = x0_consistent above): only the
# terminal impulse remains, and the cost is the same infimum (the jump at t0 is free)
xc=$("$JT" get "$TMP/tv.json" 'x0_consistent[1]')
sed -e "s/^x0 = .*/x0 = [1; $xc]/" "$TV" >"$TMP/tvc.lth"
run 0 "time-varying from x0_consistent" "$LQR" "$TMP/tvc.lth" --times 0,1.5 --format json && {
  [ "$("$JT" get "$TMP/out" exists)" = false ] || fail "terminal impulse only: exists is not false"
  [ "$("$JT" get "$TMP/out" terminal_impulse)" = true ] || fail "terminal impulse only: no terminal impulse"
  near "$TMP/out" 'jump[1]' 0 0 "terminal impulse only: no jump at t0"
  near "$TMP/out" cost "$("$JT" get "$TMP/tv.json" cost)" 1e-10 "the impulse at t0 is free"
  near "$TMP/out" 'terminal_jump[1]' "$("$JT" get "$TMP/tv.json" 'terminal_jump[1]')" 1e-10 "terminal jump"
  case "$("$JT" get "$TMP/out" note)" in
    "no smooth optimum: the optimal control has an impulse at t1"*) ;;
    *) fail "terminal impulse only: note '$("$JT" get "$TMP/out" note)'" ;;
  esac
}

# ---- CSV
run 0 "CSV --gain" "$LQR" "$DI" --times 0,1,2 --format csv --gain && {
  [ "$(head -n 1 "$TMP/out")" = 't,"x[1]","x[2]","lambda[1]","lambda[2]","u[1]","K[1,1]","K[1,2]","K[1,3]","K[1,4]"' ] ||
    fail "CSV header '$(head -n 1 "$TMP/out")'"
  [ "$(($(wc -l <"$TMP/out") - 1))" = 3 ] || fail "CSV does not have 3 rows"
}

# ---- errors
run 2 "DAE file" "$LQR" "$DATA/pendulum.lth" && err_has "problem lqr" "DAE file"
cat >"$TMP/sing.lth" <<'EOF'
problem lqr
sizes 2 1
interval 0 1
A = [0, 1; 0, 0]
B = [0; 1]
H = [1, 0; 0, t - 0.5]
C = [0, 0; 0, 0]
x0 = [1; 0]
EOF
run 3 "B'HB singular" "$LQR" "$TMP/sing.lth" --times 0,1 && {
  err_has "B'H B" "B'HB singular"
  grep -Eq 't = 0\.(5|49999)' "$TMP/err" || fail "B'HB singular: the message does not name t = 0.5"
}
run 1 "--times outside" "$LQR" "$DI" --times 3
run 1 "bad --format" "$LQR" "$DI" --format xml
run 2 "missing file" "$LQR" "$TMP/none.lth"
if run 0 "--help" "$LQR" --help; then
  grep -q "Exit status" "$TMP/out" || fail "--help lacks the exit statuses"
  grep -q "impulse" "$TMP/out" || fail "--help does not explain the impulses"
fi
run 0 "--version" "$LQR" --version
run 0 "-o" "$LQR" "$DI" --times 0,0.5,1,1.5,2 --format json --gain -o "$TMP/o.json"
[ -s "$TMP/out" ] && fail "-o also wrote to stdout"
cmp -s "$TMP/o.json" "$TMP/di.json" || fail "-o file differs from stdout output"

# ---- a long horizon: the double integrator on [0, 40] with x0 on the arc,
# x1 = cosh(40 - t) / cosh(40), u = x1, J = tanh(40) / 2.  Psi(t, t0)
# spreads its columns by e^80: collocation (the default) solves it; the
# shooting path refuses to judge W's rank (it used to say "no smooth optimum"
# with exit status 0).
cat >"$TMP/di40.lth" <<'EOF'
lth 1
problem lqr
sizes 2 1
interval 0 40
A = [0, 1; 0, 0]
B = [0; 1]
H = eye
C = [0, 0; 0, 0]
x0 = [1; -tanh(40)]
EOF
run 0 "T = 40, collocation" "$LQR" "$TMP/di40.lth" --times 0,20,40 --format json && {
  [ "$("$JT" get "$TMP/out" exists)" = true ] || fail "T = 40: exists is not true"
  [ "$("$JT" get "$TMP/out" unique)" = true ] || fail "T = 40: unique is not true"
  near "$TMP/out" cost 0.5 1e-9 "T = 40 cost"
  near "$TMP/out" 'x[1][0]' "$(awk 'BEGIN { printf "%.17g", (exp(20) + exp(-20)) / (exp(40) + exp(-40)) }')" 1e-9 "T = 40 x1(20)"
  near "$TMP/out" 'u[2][0]' "$(awk 'BEGIN { printf "%.17g", 2 / (exp(40) + exp(-40)) }')" 1e-9 "T = 40 u(40)"
}
run 3 "T = 40, shooting" "$LQR" "$TMP/di40.lth" --method shooting && err_has "cannot decide" "T = 40 shooting"
run 1 "bad --method" "$LQR" "$DI" --method fd

finish cli_lqr
