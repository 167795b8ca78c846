# SPDX-License-Identifier: GPL-3.0-or-later
# lth-solve against docs/format.md section 2 and closed-form solutions:
# the linearised pendulum (dx = 0.05 cos(w t) + (0.1/w) sin(w t), w = sqrt(9.81)),
# the rotating rod at t = 1000 (q = s (-sin t, cos t), s = sin(sqrt(3) t)) with
# drift < 1e-10, inconsistent z0 (exit 3) and --project, CSV layout, the other
# integrators, --times order, exit statuses, -o.
# Usage: bash cli_solve.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
SOLVE="$APPS/lth-solve"
PEND="$DATA/pendulum.lth"
ROD="$DATA/rotating_rod.lth"

# calc AWK-EXPRESSION: evaluate with %.17g (awk has sin, cos, sqrt, exp)
calc() { awk "BEGIN { printf \"%.17g\n\", $1 }"; }

[ -x "$SOLVE" ] || { echo "FAIL: $SOLVE not built" >&2; exit 1; }
[ -x "$JT" ] || { echo "FAIL: $JT not built" >&2; exit 1; }

# ---- pendulum: the swing is a harmonic oscillator, the rest stays zero
TIMES=(0 1 2.5 7.3 10)
run 0 "pendulum" "$SOLVE" "$PEND" --times 0,1,2.5,7.3,10 --format json && cp "$TMP/out" "$TMP/pend.json"
"$JT" validate "$TMP/pend.json" || fail "pendulum JSON is not valid"
keys=$("$JT" keys "$TMP/pend.json" . | tr '\n' ' ')
for key in times z drift drift_rel projected z0_used stats; do
  case " $keys" in *" $key "*) ;; *) fail "lth-solve JSON lacks key $key (has: $keys)" ;; esac
done
[ "$("$JT" shape "$TMP/pend.json" z)" = "5 5" ] || fail "z is not 5 times x 5 components"
[ "$("$JT" shape "$TMP/pend.json" times)" = 5 ] || fail "times does not have 5 entries"
for k in 0 1 2 3 4; do
  t=${TIMES[$k]}
  near "$TMP/pend.json" "times[$k]" "$t" 0
  w="sqrt(9.81)"
  near "$TMP/pend.json" "z[$k][2]" "$(calc "0.05 * cos($w * $t) + 0.1 / $w * sin($w * $t)")" 1e-8 "pendulum dx"
  near "$TMP/pend.json" "z[$k][0]" "$(calc "-0.05 * $w * sin($w * $t) + 0.1 * cos($w * $t)")" 1e-8 "pendulum dx'"
  for i in 1 3 4; do near "$TMP/pend.json" "z[$k][$i]" 0 1e-12 "pendulum dy, dy', d lambda"; done
done
"$JT" below "$TMP/pend.json" drift 1e-10 || fail "pendulum drift is not < 1e-10"
[ "$("$JT" get "$TMP/pend.json" projected)" = false ] || fail "a consistent z0 was projected"

# ---- rotating rod: 1000 time units, exact solution at the end
# z = (p, q, lambda), q = s e, p = s' e + s e', lambda = -2 s', e = (-sin t, cos t)
run 0 "rotating rod" "$SOLVE" "$ROD" --times 0,250,1000 --format json && cp "$TMP/out" "$TMP/rod.json"
rod_exact() {
  local t=$1
  local s="sin(sqrt(3) * $t)" sp="sqrt(3) * cos(sqrt(3) * $t)"
  EX=("$(calc "-($sp) * sin($t) - ($s) * cos($t)")" "$(calc "($sp) * cos($t) - ($s) * sin($t)")"
      "$(calc "-($s) * sin($t)")" "$(calc "($s) * cos($t)")" "$(calc "-2 * ($sp)")")
}
for k in 1 2; do
  t=$("$JT" get "$TMP/rod.json" "times[$k]")
  rod_exact "$t"
  for i in 0 1 2 3 4; do near "$TMP/rod.json" "z[$k][$i]" "${EX[$i]}" 1e-8 "rotating rod at t = $t"; done
done
"$JT" below "$TMP/rod.json" drift 1e-10 || fail "rotating rod drift is not < 1e-10"
# a tighter tolerance gets ~1e-9 at t = 1000 (measured 8.5e-10)
run 0 "rotating rod --rtol 1e-11" "$SOLVE" "$ROD" --times 1000 --rtol 1e-11 --format json &&
  cp "$TMP/out" "$TMP/rod11.json"
rod_exact 1000
for i in 0 1 2 3 4; do near "$TMP/rod11.json" "z[0][$i]" "${EX[$i]}" 3e-9 "rotating rod, --rtol 1e-11"; done

# ---- inconsistent z0: exit 3 with the library's message; --project fixes it
BAD=0.1,0,0.05,0.2,3
run 3 "inconsistent --z0" "$SOLVE" "$PEND" --z0 "$BAD" --times 0,1 && {
  err_has "not consistent" "inconsistent z0"
  err_has "--project" "inconsistent z0"
  err_has "(lth-ic)" "inconsistent z0"
  grep -q "opts\." "$TMP/err" && fail "inconsistent z0: a library option name reached the tool's user: $(cat "$TMP/err")"
}
run 0 "--project" "$SOLVE" "$PEND" --z0 "$BAD" --times 0,1 --project --format json &&
  cp "$TMP/out" "$TMP/proj.json"
err_has "--project replaced it" "--project note"
err_has "u[1]" "--project note names the worst component"
[ "$("$JT" get "$TMP/proj.json" projected)" = true ] || fail "--project: projected is not true"
want=(0.1 0 0.05 0 0)
for i in 0 1 2 3 4; do near "$TMP/proj.json" "z0_used[$i]" "${want[$i]}" 1e-15 "--project z0_used"; done
near "$TMP/proj.json" z0_change "$(calc "sqrt(0.04 + 9)")" 1e-12 "--project"
near "$TMP/proj.json" z0_worst 5 0 "--project"
near "$TMP/proj.json" 'z[1][2]' "$(calc "0.05 * cos(sqrt(9.81)) + 0.1 / sqrt(9.81) * sin(sqrt(9.81))")" 1e-8 "--project solution"

# ---- CSV: quoted header, one row per time, the JSON's numbers
run 0 "CSV" "$SOLVE" "$PEND" --times 0,1,2.5,7.3,10 --format csv && cp "$TMP/out" "$TMP/pend.csv"
[ "$(head -n 1 "$TMP/pend.csv")" = 't,"z[1]","z[2]","z[3]","z[4]","z[5]"' ] ||
  fail "CSV header is '$(head -n 1 "$TMP/pend.csv")'"
[ "$(($(wc -l <"$TMP/pend.csv") - 1))" = 5 ] || fail "CSV does not have 5 data rows"
IFS=, read -r -a row <<<"$(sed -n 3p "$TMP/pend.csv")"
[ "${#row[@]}" = 6 ] || fail "CSV row has ${#row[@]} cells, expected 6"
[ "${row[0]}" = 1 ] || fail "CSV row 2 is not t = 1"
[ "${row[3]:-}" = "$("$JT" get "$TMP/pend.json" 'z[1][2]')" ] || fail "CSV dx(1) differs from JSON"

# ---- the other integrators
for m in msbdf rkf45 msadams bsimp cheb; do
  run 0 "--method $m" "$SOLVE" "$PEND" --times 0,1 --method $m --format json &&
    near "$TMP/out" 'z[1][2]' "$(calc "0.05 * cos(sqrt(9.81)) + 0.1 / sqrt(9.81) * sin(sqrt(9.81))")" 1e-6 "--method $m"
  [ "$("$JT" get "$TMP/out" method)" = "$m" ] || fail "--method $m: JSON method is not $m"
done

# ---- --times keep the user's order; options that change the integration
run 0 "--times out of order" "$SOLVE" "$PEND" --times 1,0 --format json && {
  near "$TMP/out" 'times[0]' 1 0
  near "$TMP/out" 'z[1][2]' 0.05 1e-15 "--times 1,0"
}
run 0 "--stabilize 0" "$SOLVE" "$ROD" --times 100 --stabilize 0 --format json &&
  near "$TMP/out" stats.gamma 0 0 "--stabilize 0"
run 0 "--stabilize 3" "$SOLVE" "$PEND" --times 5 --stabilize 3 --format json &&
  near "$TMP/out" stats.gamma 3 0 "--stabilize 3"
run 0 "--reproject" "$SOLVE" "$ROD" --times 10,20 --reproject --format json && {
  rod_exact 20
  near "$TMP/out" 'z[1][4]' "${EX[4]}" 1e-8 "--reproject"
}

# ---- the index-5 example from its pasted z0; sampled data
run 0 "index5" "$SOLVE" "$DATA/index5.lth" --times 0,1,2 --format json && {
  "$JT" below "$TMP/out" drift 1e-10 || fail "index5 drift is not < 1e-10"
  "$JT" below "$TMP/out" z0_residual 1e-14 || fail "index5's pasted z0 is not consistent"
}
if [ -f "$DATA/sampled.lth" ]; then
  run 0 "sampled" "$SOLVE" "$DATA/sampled.lth" --times 0,4 --format json &&
    [ "$("$JT" get "$TMP/out" 'sampling[0].block')" = 'A(1,1)' ] || fail "sampled: no sampling report"
fi

# ---- text report
run 0 "text" "$SOLVE" "$PEND" --times 0,1
grep -q "drift" "$TMP/out" || fail "text lacks the drift line"
grep -q "steps" "$TMP/out" || fail "text lacks the statistics"
grep -q "z_2\[1\]" "$TMP/out" || fail "text table lacks component names"

# ---- errors and usage
run 1 "no z0" "$SOLVE" "$DATA/index2.lth" && err_has "lth-ic" "no z0"
run 1 "--z0 with 3 values" "$SOLVE" "$PEND" --z0 1,2,3
run 1 "--times outside" "$SOLVE" "$PEND" --times 0,11
run 1 "--times and --grid" "$SOLVE" "$PEND" --times 1 --grid 3
run 1 "bad --method" "$SOLVE" "$PEND" --method euler
run 1 "negative --stabilize" "$SOLVE" "$PEND" --stabilize -1
run 2 "missing file" "$SOLVE" "$TMP/none.lth"
if run 0 "--help" "$SOLVE" --help; then
  grep -q "Exit status" "$TMP/out" || fail "--help lacks the exit statuses"
  grep -q "Ahat - G P" "$TMP/out" || fail "--help does not explain --stabilize"
fi
run 0 "--version" "$SOLVE" --version
run 0 "-o" "$SOLVE" "$PEND" --times 0,1,2.5,7.3,10 --format csv -o "$TMP/o.csv"
[ -s "$TMP/out" ] && fail "-o also wrote to stdout"
cmp -s "$TMP/o.csv" "$TMP/pend.csv" || fail "-o file differs from stdout output"

# ---- --coefficients: the table and direct decompositions agree; stats say which served
run 0 "--coefficients direct" "$SOLVE" "$DATA/rotating_rod.lth" --times 0,5,10 --format json --coefficients direct &&
  cp "$TMP/out" "$TMP/cdir.json"
run 0 "--coefficients table" "$SOLVE" "$DATA/rotating_rod.lth" --times 0,5,10 --format json --coefficients table && {
  [ "$("$JT" get "$TMP/out" stats.coefficients)" = table ] || fail "stats.coefficients is not table"
  [ "$("$JT" get "$TMP/cdir.json" stats.coefficients)" = direct ] || fail "stats.coefficients is not direct"
  "$JT" diff "$TMP/cdir.json" "$TMP/out" --rtol 1e-8 --atol 1e-9 --ignore stats \
    --ignore error_tol --ignore error_worst --ignore t_error_worst ||
    fail "table and direct runs differ by more than 1e-8"
}
run 1 "--coefficients bad" "$SOLVE" "$DATA/rotating_rod.lth" --coefficients hermite

# ---- a stiff problem (data/stiff.lth): msbdf needs far fewer steps than
# rk8pd; u = k (y - cos t) + sin t amplifies the state's errors k = 1e4 times,
# which output_gain reports; the measured error of u stays within output_gain
# times the state's (measured: equal to it).  The global error estimate finds
# u off by more than the tolerance and its warning names u and the gain;
# without the estimate the gain alone warns
for m in rk8pd msbdf; do
  run 0 "stiff $m" "$SOLVE" "$DATA/stiff.lth" --method $m --format json && {
    cp "$TMP/out" "$TMP/stiff_$m.json"
    err_has "the estimated global error of z" "stiff $m"
    err_has "(largest in u at t = " "stiff $m"
    err_has "max ||Nhat + Bhat|| = 1e+04 amplifies the state's errors" "stiff $m"
    grep -q "amplifies the state's errors up to" "$TMP/err" && fail "stiff $m: two warnings"
    python3 - "$TMP/stiff_$m.json" <<'PY' || fail "stiff $m: errors or output_gain wrong"
import json, math, sys
r = json.load(open(sys.argv[1]))
g = r["output_gain"]
ex = max(abs(z[0] - (2 - math.cos(t))) for t, z in zip(r["times"], r["z"]))
ey = max(abs(z[1] - math.cos(t)) for t, z in zip(r["times"], r["z"]))
eu = max(abs(z[2] - math.sin(t)) for t, z in zip(r["times"], r["z"]))
ok = abs(g - 1e4) <= 1e-6 * 1e4 and max(ex, ey) < 1e-10 and eu <= 1.01 * g * max(ex, ey) + 1e-12
if not ok:
    print("gain %g, errors x %.2e y %.2e u %.2e" % (g, ex, ey, eu), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
  }
done
if [ -f "$TMP/stiff_rk8pd.json" ] && [ -f "$TMP/stiff_msbdf.json" ]; then
  s_rk=$("$JT" get "$TMP/stiff_rk8pd.json" stats.steps)
  s_bdf=$("$JT" get "$TMP/stiff_msbdf.json" stats.steps)
  [ "$s_bdf" -lt $((s_rk / 20)) ] || fail "stiff: msbdf took $s_bdf steps, rk8pd $s_rk (want 20x fewer)"
fi
run 0 "stiff, --error-estimate off" "$SOLVE" "$DATA/stiff.lth" --error-estimate off &&
  err_has "amplifies the state's errors up to" "stiff, --error-estimate off"
run 0 "pendulum, no amplification warning" "$SOLVE" "$PEND" --times 0,10
grep -q "amplifies\|global error" "$TMP/err" && fail "the pendulum (output_gain 9.81) warned: $(cat "$TMP/err")"
run 0 "pendulum, no amplification warning without the estimate" "$SOLVE" "$PEND" --times 0,10 \
  --error-estimate off
grep -q "amplifies" "$TMP/err" && fail "the pendulum (output_gain 9.81) warned of amplification"

# counts of one take the singular ("table of 1 panels" before)
run 0 "one panel" "$SOLVE" "$PEND" --times 0,1 --method rk8pd &&
  { grep -q '^coefficients   table of 1 panel (' "$TMP/out" ||
    fail "one panel: $(grep coefficients "$TMP/out")"; }

# constant data (the pendulum): the exact propagator, unless a method is given
w=$(awk 'BEGIN { printf "%.17g", sqrt(9.81) }')
run 0 "constant data, json" "$SOLVE" "$PEND" --times 0,2.5,10 --format json &&
  cp "$TMP/out" "$TMP/const.json"
[ "$("$JT" get "$TMP/const.json" stats.propagator)" = exponential ] ||
  fail "constant data: stats.propagator is $("$JT" get "$TMP/const.json" stats.propagator)"
[ "$("$JT" get "$TMP/const.json" stats.rhs_evals)" = 0 ] || fail "constant data: right-hand sides"
# (the error estimate: the default method's second solve, cheb for the pendulum's m = 4)
[ "$("$JT" get "$TMP/const.json" error_method)" = cheb ] || fail "constant data: error_method"
# dx(t) = 0.05 cos(w t) + (0.1/w) sin(w t), w = sqrt(9.81): exact to rounding (|dx| <= 0.06)
for k in 1 2; do
  t=$("$JT" get "$TMP/const.json" "times[$k]")
  got=$("$JT" get "$TMP/const.json" "z[$k][2]")
  awk -v t="$t" -v w="$w" -v got="$got" 'BEGIN {
    ex = 0.05 * cos(w * t) + (0.1 / w) * sin(w * t); d = got - ex; if (d < 0) d = -d
    exit !(d < 1e-14) }' || fail "constant data: dx($t) = $got, exact differs by more than 1e-14"
done
run 0 "constant data, explicit method" "$SOLVE" "$PEND" --times 0,2.5,10 --format json \
  --method rk8pd && cp "$TMP/out" "$TMP/int.json"
[ "$("$JT" get "$TMP/int.json" stats.propagator)" = integrator ] ||
  fail "--method rk8pd: stats.propagator is $("$JT" get "$TMP/int.json" stats.propagator)"
run 0 "constant data, text" "$SOLVE" "$PEND" --times 0,1 &&
  { grep -q '^propagator     the matrix exponential' "$TMP/out" ||
    fail "constant data: no propagator line: $(head -5 "$TMP/out")"; }
run 1 "--z0 with one value" "$SOLVE" "$PEND" --z0 1 && err_has "--z0 has 1 value;" "--z0 with one value"

finish cli_solve
