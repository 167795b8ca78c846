# SPDX-License-Identifier: GPL-3.0-or-later
# lth-bvp --method collocation (the default): agrees with single shooting on
# data/index2.lth within its own error estimate, reports cond_bvp,
# error_estimate, tol, stages and the mesh; the 10-second pendulum BVP of
# data/pendulum_10s_bvp.lth against its closed form at tol 1e-10; the
# Ascher-Petzold problem with its condition at t1 is refused naming cond_bvp;
# a DAE with no free constants (p = 0) needs no bc statements; the options of
# one method are refused with another; --coefficients direct agrees with the
# default (a table at the Gauss points).
# Usage: bash cli_bvp_colloc.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
BVP="$APPS/lth-bvp"
I2="$DATA/index2.lth"
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# ---- the default method on index2 against single shooting (accurate to ~1e-11)
T=0,0.25,0.5,1,1.5,2,2.5,2.75,3
run 0 "index2 default" "$BVP" "$I2" --times $T --format json && cp "$TMP/out" "$TMP/col.json"
run 0 "index2 shooting" "$BVP" "$I2" --times $T --method shooting --format json &&
  cp "$TMP/out" "$TMP/sh.json"
[ "$("$JT" get "$TMP/col.json" method)" = collocation ] || fail "the default method is not collocation"
for key in cond_bvp error_estimate tol stages intervals drift cond_shooting bc_residual; do
  "$JT" get "$TMP/col.json" "$key" >/dev/null 2>&1 || fail "collocation JSON lacks $key"
done
near "$TMP/col.json" tol 1e-8 0 "default tol"
near "$TMP/col.json" stages 7 0 "default stages at 1e-8"
est=$("$JT" get "$TMP/col.json" error_estimate)
le "$est" 1e-8 || fail "error_estimate $est above the tolerance 1e-8"
d=0
for k in 0 1 2 3 4 5 6 7 8; do
  for i in 0 1 2 3; do
    d=$(awk -v d="$d" -v a="$("$JT" get "$TMP/col.json" "z[$k][$i]")" \
      -v b="$("$JT" get "$TMP/sh.json" "z[$k][$i]")" \
      'BEGIN { x = a - b; if (x < 0) x = -x; print (x > d ? x : d) }')
  done
done
# the estimate is honest: the true error is within 10x of it (plus shooting's own ~1e-11)
le "$d" "$(awk -v e="$est" 'BEGIN { print 10 * e + 1e-10 }')" ||
  fail "collocation differs from shooting by $d, more than 10x its estimate $est"
c=$("$JT" get "$TMP/col.json" cond_bvp)
cs=$("$JT" get "$TMP/sh.json" cond_bvp)
awk -v a="$c" -v b="$cs" 'BEGIN { r = a / b; exit !(r > 0.5 && r < 2) }' ||
  fail "cond_bvp by collocation ($c) and by shooting ($cs) disagree"
run 0 "text" "$BVP" "$I2" --times 0,3 && {
  grep -q "^cond_bvp" "$TMP/out" || fail "text lacks cond_bvp"
  grep -q "^error  *~" "$TMP/out" || fail "text lacks the error estimate"
}

# ---- stages and tolerance
run 0 "--stages 2 --tol 1e-6" "$BVP" "$I2" --stages 2 --tol 1e-6 --format json && {
  near "$TMP/out" stages 2 0
  near "$TMP/out" tol 1e-6 0
  "$JT" below "$TMP/out" error_estimate 1e-6 || fail "--tol 1e-6: estimate above 1e-6"
}

# ---- the 10-second pendulum against its closed form (file comment), tol 1e-10
run 0 "pendulum_10s_bvp" "$BVP" "$DATA/pendulum_10s_bvp.lth" --tol 1e-10 --times 0,2.5,5,7.5,10 \
  --format json && {
  for k in 0 1 2 3 4; do
    t=$("$JT" get "$TMP/out" "times[$k]")
    dx=$("$JT" get "$TMP/out" "z[$k][2]")
    v=$("$JT" get "$TMP/out" "z[$k][0]")
    awk -v t="$t" -v dx="$dx" -v v="$v" 'BEGIN { w = sqrt(9.81); b = 0.2084508445660409;
      e1 = dx - (0.05 * cos(w * t) + b * sin(w * t));
      e2 = v - w * (b * cos(w * t) - 0.05 * sin(w * t));
      if (e1 < 0) e1 = -e1; if (e2 < 0) e2 = -e2; exit !(e1 < 1e-9 && e2 < 1e-9) }' ||
      fail "pendulum_10s_bvp: z at t = $t is off the closed form by more than 1e-9"
  done
}

# ---- --coefficients: the table at the Gauss points (auto) and direct decompositions
# everywhere agree to the tolerance; a bad value is a usage error
run 0 "pendulum_10s_bvp direct" "$BVP" "$DATA/pendulum_10s_bvp.lth" --tol 1e-10 \
  --times 0,2.5,5,7.5,10 --coefficients direct --format json && {
  cp "$TMP/out" "$TMP/dir.json"
  run 0 "pendulum_10s_bvp auto" "$BVP" "$DATA/pendulum_10s_bvp.lth" --tol 1e-10 \
    --times 0,2.5,5,7.5,10 --format json
  for k in 0 1 2 3 4; do
    for i in 0 1 2 3 4; do
      a=$("$JT" get "$TMP/out" "z[$k][$i]")
      b=$("$JT" get "$TMP/dir.json" "z[$k][$i]")
      awk -v a="$a" -v b="$b" 'BEGIN { x = a - b; if (x < 0) x = -x; exit !(x < 2e-10) }' ||
        fail "--coefficients direct and auto differ at z[$k][$i]: $a vs $b"
    done
  done
}
run 1 "--coefficients bad" "$BVP" "$DATA/pendulum_10s_bvp.lth" --coefficients sometimes &&
  err_has "coefficients" "--coefficients bad"

# ---- Ascher-Petzold (alpha = 50) with its one condition at t1: refused
cat >"$TMP/ap.lth" <<'EOF'
blocks 2 1
interval 0 1
param a = 50
A(1,1) = [a - 1/(2-t), 0; (1-a)/(t-2), -1]
A(1,2) = [(2-t)*a; a-1]
A(2,1) = [t+2, t^2-4]
f(1) = [(3-t)/(2-t)*exp(t); 2*exp(t)]
f(2) = -(t^2+t-2)*exp(t)
bc B0 = [0, 0, 0]
bc B1 = [1, 0, 0]
bc beta = [2.718281828459045]
EOF
run 3 "Ascher-Petzold, condition at t1" "$BVP" "$TMP/ap.lth" && err_has "cond_bvp" "Ascher-Petzold"
sed -e 's/^bc B0 = .*/bc B0 = [1, 0, 0]/' -e 's/^bc B1 = .*/bc B1 = [0, 0, 0]/' \
  -e 's/^bc beta = .*/bc beta = [1]/' "$TMP/ap.lth" >"$TMP/ap0.lth"
run 0 "Ascher-Petzold, condition at t0" "$BVP" "$TMP/ap0.lth" --tol 1e-10 --times 0.5 --format json && {
  near "$TMP/out" 'z[0][0]' "$(awk 'BEGIN { printf "%.17g", exp(0.5) }')" 1e-9 "AP x1(0.5)"
  near "$TMP/out" 'z[0][2]' "$(awk 'BEGIN { printf "%.17g", -exp(0.5) / 1.5 }')" 1e-9 "AP y(0.5)"
}

# ---- p = 0: z1 = sin t fixed by the constraint, u = cos t; no bc needed
cat >"$TMP/p0.lth" <<'EOF'
blocks 1 1
interval 0 1
A(1,2) = [1]
A(2,1) = [1]
f(2) = -sin(t)
EOF
# (fd differentiates the constraint by implicit Euler: u is first-order there)
for m in collocation:1e-12 shooting:1e-12 fd:1e-3; do
  run 0 "p = 0, ${m%:*}" "$BVP" "$TMP/p0.lth" --method "${m%:*}" --times 0.5 --format json && {
    near "$TMP/out" 'z[0][0]' "$(awk 'BEGIN { printf "%.17g", sin(0.5) }')" 1e-12 "p = 0 $m z"
    near "$TMP/out" 'z[0][1]' "$(awk 'BEGIN { printf "%.17g", cos(0.5) }')" "${m#*:}" "p = 0 $m u"
  }
done
printf 'bc B0 = [1, 0]\nbc B1 = [0, 0]\nbc beta = [0]\n' >>"$TMP/p0.lth"
run 2 "p = 0 with a bc row" "$BVP" "$TMP/p0.lth" && err_has "p = 0" "p = 0 with bc"

# ---- options of one method with another
run 1 "--tol with shooting" "$BVP" "$I2" --method shooting --tol 1e-6 && err_has "--tol" "--tol"
run 1 "--stages 9" "$BVP" "$I2" --stages 9
run 1 "--tol 0" "$BVP" "$I2" --tol 0
run 3 "--max-intervals 8 at 1e-12" "$BVP" "$DATA/pendulum_10s_bvp.lth" --tol 1e-12 --max-intervals 8 &&
  err_has "intervals" "--max-intervals"

# ---- modes e^{+-40t}: single shooting cannot, and says the conditions are not the cause
# (it used to name a state component as "fixed by the constraints"); collocation and
# multiple shooting agree
cat >"$TMP/dich.lth" <<'EOF'
blocks 3 1
interval 0 1
A(1,1) = [40, 1, 0; 1, -40, 0; 0, 0, 0]
A(1,2) = [0; 0; 1]
A(2,1) = [0, 0, 1]
f(1) = [1; 1; 0]
f(2) = -sin(t)
bc B0 = [0, 1, 0, 0; 0, 0, 0, 0]
bc B1 = [0, 0, 0, 0; 1, 0, 0, 0]
bc beta = [1; 1]
EOF
run 3 "dichotomic, shooting" "$BVP" "$TMP/dich.lth" --method shooting && {
  err_has "use collocation or multiple shooting" "dichotomic shooting"
  grep -q "which the algebraic constraints fix" "$TMP/err" && fail "dichotomic shooting blames a state component"
}
run 0 "dichotomic, collocation" "$BVP" "$TMP/dich.lth" --tol 1e-10 --times 0,0.5,1 --format json &&
  cp "$TMP/out" "$TMP/dc.json"
run 0 "dichotomic, multiple" "$BVP" "$TMP/dich.lth" --method multiple --times 0,0.5,1 --format json && {
  "$JT" diff "$TMP/dc.json" "$TMP/out" --rtol 1e-8 --atol 1e-9 --ignore method --ignore cond_shooting \
    --ignore cond_bvp --ignore error_estimate --ignore tol --ignore stages --ignore intervals \
    --ignore drift --ignore rtol --ignore atol --ignore bc_residual ||
    fail "collocation and multiple shooting differ on the dichotomic problem"
}

finish cli_bvp_colloc
