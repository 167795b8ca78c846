# SPDX-License-Identifier: GPL-3.0-or-later
# lth-bvp against docs/format.md section 2: data/index2.lth by single
# shooting, multiple shooting and finite differences (shooting and multiple
# agree to 1e-8, fd within its own error estimate), the boundary conditions and
# the constraint hold, cond_shooting is reported; missing, wrongly sized or
# dependent bc statements are input errors (exit 2), a singular shooting matrix
# is a numerical failure (exit 3); fd's start-up-layer warning at index 5.
# Usage: bash cli_bvp.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
BVP="$APPS/lth-bvp"
I2="$DATA/index2.lth"

# maxdiff A.json B.json NTIMES S: max |z_a - z_b| over all entries
maxdiff() {
  local k i out=""
  for ((k = 0; k < $3; k++)); do
    for ((i = 0; i < $4; i++)); do
      out="$out $("$JT" get "$1" "z[$k][$i]") $("$JT" get "$2" "z[$k][$i]")"
    done
  done
  awk -v v="$out" 'BEGIN { n = split(v, x, " "); m = 0;
    for (j = 1; j < n; j += 2) { d = x[j] - x[j + 1]; if (d < 0) d = -d; if (d > m) m = d }
    printf "%.17g\n", m }'
}

le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

[ -x "$BVP" ] || { echo "FAIL: $BVP not built" >&2; exit 1; }
[ -x "$JT" ] || { echo "FAIL: $JT not built" >&2; exit 1; }

# ---- index2: three methods on the same output times
T=0,0.25,0.5,1,1.5,2,2.5,2.75,3
NT=9
for m in shooting multiple fd; do
  run 0 "index2 --method $m" "$BVP" "$I2" --method $m --times $T --format json && cp "$TMP/out" "$TMP/$m.json"
  "$JT" validate "$TMP/$m.json" || fail "$m: JSON is not valid"
  keys=$("$JT" keys "$TMP/$m.json" . | tr '\n' ' ')
  for key in times z cond_shooting method bc_residual; do
    case " $keys" in *" $key "*) ;; *) fail "$m: JSON lacks key $key (has: $keys)" ;; esac
  done
  [ "$("$JT" shape "$TMP/$m.json" z)" = "$NT 4" ] || fail "$m: z is not $NT x 4"
  [ "$("$JT" get "$TMP/$m.json" method)" = "$m" ] || fail "$m: JSON method is not $m"
  "$JT" below "$TMP/$m.json" bc_residual 1e-12 || fail "$m: boundary residual is not < 1e-12"
  # the boundary conditions z_1[1](0) = 1, z_1[2](3) = 0
  near "$TMP/$m.json" 'z[0][0]' 1 1e-12 "$m bc at t0"
  near "$TMP/$m.json" "z[$((NT - 1))][1]" 0 1e-12 "$m bc at t1"
  c=$("$JT" get "$TMP/$m.json" cond_shooting)
  awk -v c="$c" 'BEGIN { exit !(c >= 1 && c < 1e8) }' || fail "$m: cond_shooting $c not in [1, 1e8)"
done
# the constraint 0.3 z_1[1] + z_1[3] = 0.2 sin(t) at every time (shooting)
for k in 0 3 6 8; do
  t=$("$JT" get "$TMP/shooting.json" "times[$k]")
  a=$("$JT" get "$TMP/shooting.json" "z[$k][0]")
  b=$("$JT" get "$TMP/shooting.json" "z[$k][2]")
  awk -v a="$a" -v b="$b" -v t="$t" 'BEGIN { r = 0.3 * a + b - 0.2 * sin(t); exit !(r < 1e-12 && r > -1e-12) }' ||
    fail "shooting: the constraint fails at t = $t"
done
d=$(maxdiff "$TMP/shooting.json" "$TMP/multiple.json" $NT 4)
le "$d" 1e-8 || fail "shooting and multiple shooting differ by $d (> 1e-8)"
d=$(maxdiff "$TMP/shooting.json" "$TMP/fd.json" $NT 4)
e=$("$JT" get "$TMP/fd.json" fd_error)
le "$d" "$e" || fail "fd differs from shooting by $d, more than its fd_error $e"
le "$e" 0.05 || fail "fd_error $e is not small (1001 points)"
o=$("$JT" get "$TMP/fd.json" fd_order)
awk -v o="$o" 'BEGIN { exit !(o > 0.9 && o < 1.1) }' || fail "fd_order $o is not ~1 (implicit Euler)"
near "$TMP/fd.json" fd_points 1001 0 "fd default points"
# fd: more points, smaller error
run 0 "fd --points 4001" "$BVP" "$I2" --method fd --points 4001 --times $T --format json && {
  d4=$(maxdiff "$TMP/shooting.json" "$TMP/out" $NT 4)
  le "$d4" "$(awk -v d="$d" 'BEGIN { print d / 3 }')" || fail "fd with 4001 points is not ~4x better ($d4 vs $d)"
}
run 0 "fd --no-order-check" "$BVP" "$I2" --method fd --no-order-check --times 0,3 --format json && {
  "$JT" get "$TMP/out" fd_error >/dev/null 2>&1 && fail "--no-order-check still prints fd_error"
  grep -Eiq 'nan|inf' "$TMP/out" && fail "--no-order-check output holds nan/inf"
}
run 0 "multiple --intervals 4" "$BVP" "$I2" --method multiple --intervals 4 --times $T --format json && {
  near "$TMP/out" intervals 4 0
  d=$(maxdiff "$TMP/shooting.json" "$TMP/out" $NT 4)
  le "$d" 1e-8 || fail "multiple shooting with 4 intervals differs from shooting by $d"
}

# ---- output order, CSV, text
run 0 "--times 3,0" "$BVP" "$I2" --times 3,0 --format json && {
  near "$TMP/out" 'times[0]' 3 0
  near "$TMP/out" 'z[1][0]' 1 1e-12 "--times 3,0"
}
run 0 "CSV" "$BVP" "$I2" --times $T --format csv && {
  [ "$(head -n 1 "$TMP/out")" = 't,"z[1]","z[2]","z[3]","z[4]"' ] || fail "CSV header '$(head -n 1 "$TMP/out")'"
  [ "$(($(wc -l <"$TMP/out") - 1))" = $NT ] || fail "CSV does not have $NT rows"
}
run 0 "text" "$BVP" "$I2" --times 0,3
grep -q "cond_shooting" "$TMP/out" || fail "text lacks cond_shooting"
grep -q "u\[1\]" "$TMP/out" || fail "text table lacks component names"

# ---- boundary-condition errors
run 2 "no bc statements" "$BVP" "$DATA/pendulum.lth" && {
  err_has "pendulum.lth" "no bc"
  err_has "bc B0" "no bc"
  err_has "bc beta" "no bc"
}
run 2 "lqr file" "$BVP" "$DATA/lqr_double_integrator.lth" && err_has "lth-lqr" "lqr file"
grep -v '^bc' "$I2" >"$TMP/rows.lth"
cat >>"$TMP/rows.lth" <<'EOF'
bc B0 = [1, 0, 0, 0]
bc B1 = [0, 0, 0, 0]
bc beta = 1
EOF
run 2 "one bc row, p = 2" "$BVP" "$TMP/rows.lth" && err_has "2 x 4" "one bc row"
grep -v '^bc' "$I2" >"$TMP/dep.lth"
cat >>"$TMP/dep.lth" <<'EOF'
bc B0 = [1, 0, 0, 0; 2, 0, 0, 0]
bc B1 = [0, 0, 0, 0; 0, 0, 0, 0]
bc beta = [1; 2]
EOF
run 2 "dependent bc" "$BVP" "$TMP/dep.lth" && err_has "dependent" "dependent bc"
# 0.3 z_1[1] + z_1[3] at t0 is fixed by the constraint: S has a zero row
grep -v '^bc' "$I2" >"$TMP/sing.lth"
cat >>"$TMP/sing.lth" <<'EOF'
bc B0 = [0.3, 0, 1, 0; 1, 0, 0, 0]
bc B1 = [0, 0, 0, 0; 0, 0, 0, 0]
bc beta = [0; 1]
EOF
run 3 "singular shooting matrix" "$BVP" "$TMP/sing.lth" && err_has "not uniquely solvable" "singular S"

# ---- index 5 by finite differences: the start-up layer warning
sed -e '/^z0 = /,/]$/d' "$DATA/index5.lth" >"$TMP/i5.lth"
cat >>"$TMP/i5.lth" <<'EOF'
bc B0 = [1,0,0,0,0,0,0,0,0; 0,0,1,0,0,0,0,0,0; 0,0,0,0,0,0,0,0,0; 0,0,0,0,0,0,0,0,0]
bc B1 = [0,0,0,0,0,0,0,0,0; 0,0,0,0,0,0,0,0,0; 0,0,0,0,1,0,0,0,0; 0,0,0,0,0,0,1,0,0]
bc beta = [0.1; 0.2; 0.3; 0.4]
EOF
run 0 "index5 shooting" "$BVP" "$TMP/i5.lth" --times 0,2 --format json && cp "$TMP/out" "$TMP/i5s.json"
grep -q warning "$TMP/err" && fail "index5 shooting warns: $(head -c 300 "$TMP/err")"
run 0 "index5 fd" "$BVP" "$TMP/i5.lth" --method fd --times 0,2 --format json && {
  err_has "first r = 5 steps" "index5 fd layer warning"
  "$JT" validate "$TMP/out" || fail "index5 fd JSON is not valid"
  near "$TMP/out" 'z[1][4]' 0.3 1e-10 "index5 fd bc"
}

# ---- usage
run 1 "--intervals without multiple" "$BVP" "$I2" --intervals 3
run 1 "--points without fd" "$BVP" "$I2" --points 100
run 1 "bad --method" "$BVP" "$I2" --method spline
run 1 "--times outside" "$BVP" "$I2" --times 4
run 2 "missing file" "$BVP" "$TMP/none.lth"
if run 0 "--help" "$BVP" --help; then
  grep -q "Exit status" "$TMP/out" || fail "--help lacks the exit statuses"
  grep -q "bc B0" "$TMP/out" || fail "--help does not name the bc statements"
fi
run 0 "--version" "$BVP" --version
run 0 "-o" "$BVP" "$I2" --times $T --method shooting --format json -o "$TMP/o.json"
[ -s "$TMP/out" ] && fail "-o also wrote to stdout"
cmp -s "$TMP/o.json" "$TMP/shooting.json" || fail "-o file differs from stdout output"

finish cli_bvp
