#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# lth-bvp and a jump the constraints never see (docs/collocation.md section 8,
# "Impulses"): tests/data/features/jump_unreached_bvp.lth (index 3) has a jump
# in block row 2's data in the row A(3,2) never touches, so the differential
# components stay continuous.  Every method answers within its tolerance of
# the closed form in the file's comment (collocation: --tol relative to
# max(1, |z|) <= 1.4; shooting and multiple shooting at --rtol 1e-10: 1e-8;
# finite differences: its own estimate fd_error, or a refusal naming t near
# the jump); a jump of A(2,2) in that row passes too.  The same jump moved to
# the reached row (y1's, which the constraint y1 = sin t differentiates) is
# refused by every method and by the operator path, exit 3, naming t = 0.5037
# and the entry.  Before, every one of these was refused.
# Usage: bash cli_bvp_reach.sh BUILD/apps   (env LTH_TEST_DIR = tests/)
. "$(dirname "$0")/testlib.sh"
BVP="$APPS/lth-bvp"
F="${LTH_TEST_DIR:?LTH_TEST_DIR must name the tests directory}/data/features/jump_unreached_bvp.lth"
TIMES=0.25,0.75,1

# the closed form at $TIMES: z[k][i] within tol
check_closed_form() {
  local what=$1 file=$2 tol=$3
  near "$file" "z[0][0]" 0.96891242171064473 "$tol" "$what: x1(0.25)"
  near "$file" "z[0][1]" 0.67645900291377552 "$tol" "$what: x2(0.25)"
  near "$file" "z[0][3]" -1.25892400033718 "$tol" "$what: y2(0.25)"
  near "$file" "z[1][1]" 0.13055571419850214 "$tol" "$what: x2(0.75)"
  near "$file" "z[1][3]" -0.72042071162190665 "$tol" "$what: y2(0.75)"
  near "$file" "z[2][1]" 0 "$tol" "$what: x2(1)"
  near "$file" "z[2][3]" -0.33986499742340452 "$tol" "$what: y2(1)"
  near "$file" "z[2][4]" -0.8414709848078965 "$tol" "$what: u(1)"
}

# ---- the jump in the unreached row: answered
run 0 "unreached jump, collocation" "$BVP" "$F" --times "$TIMES" --format json &&
  cp "$TMP/out" "$TMP/c.json" && check_closed_form "collocation" "$TMP/c.json" 1.4e-8
for m in shooting multiple; do
  run 0 "unreached jump, $m" "$BVP" "$F" --method "$m" --rtol 1e-10 --times "$TIMES" \
    --format json && cp "$TMP/out" "$TMP/$m.json" && check_closed_form "$m" "$TMP/$m.json" 1e-8
done
"$BVP" "$F" --method fd --times "$TIMES" --format json >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ]; then
  check_closed_form "fd" "$TMP/out" "$("$JT" get "$TMP/out" fd_error)"
elif [ "$rc" -eq 3 ]; then
  t=$(sed -n 's/.*(t = \([-0-9.eE+]*\)).*/\1/p' "$TMP/err")
  awk -v t="$t" 'BEGIN { d = t - 0.5037; if (d < 0) d = -d; exit !(t != "" && d < 0.01) }' ||
    fail "unreached jump, fd: refused without naming t near 0.5037: $(cat "$TMP/err")"
  grep -q "without an impulse" "$TMP/err" && fail "unreached jump, fd: refused as an impulse"
else
  fail "unreached jump, fd: exit $rc: $(head -c 400 "$TMP/err")"
fi

# ---- A(2,2) jumps in that row: answered (x1, y1, u are fixed by the constraint)
sed 's|^A(2,2) = .*|A(2,2) = [0, 0; 0, -1 + 0.5*(t-c)/abs(t-c)]|' "$F" >"$TMP/a22.lth"
run 0 "A(2,2) jumps in the unreached row" "$BVP" "$TMP/a22.lth" --times "$TIMES" --format json && {
  near "$TMP/out" "z[0][0]" 0.96891242171064473 1.4e-8 "A(2,2) jump: x1(0.25)"
  near "$TMP/out" "z[2][2]" 0.8414709848078965 1.4e-8 "A(2,2) jump: y1(1)"
  near "$TMP/out" "z[2][1]" 0 1.4e-8 "A(2,2) jump: x2(1) (the bc)"
}

# ---- the same jump in the reached row: refused, naming t and the entry
sed 's|^f(2) = .*|f(2) = [(t-c)/(4*abs(t-c)); 0]|' "$F" >"$TMP/reached.lth"
for m in collocation shooting multiple fd; do
  run 3 "reached jump, $m" "$BVP" "$TMP/reached.lth" --method "$m" --times "$TIMES" && {
    err_has "no solution without an impulse" "reached jump, $m"
    err_has "f(2) entry 1" "reached jump, $m"
    t=$(sed -n 's/.*(t = \([-0-9.eE+]*\)).*/\1/p' "$TMP/err")
    awk -v t="$t" 'BEGIN { d = t - 0.5037; if (d < 0) d = -d; exit !(t != "" && d < 1e-12) }' ||
      fail "reached jump, $m: the refusal names t = '$t', not 0.5037"
  }
done
# (a build without KLU has no operator path: cli_bvp_oppath.sh checks its refusal)
if "$BVP" "$DATA/index2.lth" --path operator --times 1 >/dev/null 2>&1; then
  run 3 "reached jump, operator path" "$BVP" "$TMP/reached.lth" --path operator --times "$TIMES"
  err_has "no solution without an impulse" "reached jump, operator path"
  err_has "f(2) entry 1" "reached jump, operator path"
fi

finish cli_bvp_reach
