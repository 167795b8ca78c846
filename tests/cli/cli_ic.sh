# SPDX-License-Identifier: GPL-3.0-or-later
# lth-ic against docs/format.md section 2: the pendulum's consistent
# values (exact numbers), --nearest against the oblique projection, --fix and
# its conflicts, --conditions (s - p rows, M0 z0 = b0), JSON keys and sizes,
# exit statuses 0/1/2/3, -o.
# Usage: bash cli_ic.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
IC="$APPS/lth-ic"
PEND="$DATA/pendulum.lth"



# vec FILE PATH N: the N numbers of a JSON vector, space separated
vec() {
  local k out=""
  for ((k = 0; k < $3; k++)); do out="$out $("$JT" get "$1" "$2[$k]")"; done
  echo "$out"
}

# dist "A..." "B...": Euclidean distance of two number lists
dist() {
  awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ");
    s = 0; for (i = 1; i <= n; i++) s += (x[i] - y[i])^2; printf "%.17g\n", sqrt(s) }'
}

[ -x "$IC" ] || { echo "FAIL: $IC not built" >&2; exit 1; }
[ -x "$JT" ] || { echo "FAIL: $JT not built" >&2; exit 1; }
[ -f "$PEND" ] || { echo "FAIL: $PEND missing" >&2; exit 1; }

# ---- pendulum, oblique projection (Corollary 3) of a guess with a wrong dy
# (0.2) and a wrong force (3): z = (dx', dy', dx, dy, d lambda); the state part
# keeps dx' = 0.1 and dx = 0.05, the constraint forces dy = dy' = 0 and
# dy'' = 0 forces d lambda = 0.
GUESS=0.1,0,0.05,0.2,3
run 0 "pendulum --guess" "$IC" "$PEND" --guess "$GUESS" --format json && cp "$TMP/out" "$TMP/obl.json"
"$JT" validate "$TMP/obl.json" || fail "oblique JSON is not valid"
keys=$("$JT" keys "$TMP/obl.json" . | tr '\n' ' ')
for key in t p z0 residual method guess tolerance; do
  case " $keys" in *" $key "*) ;; *) fail "lth-ic JSON lacks key $key (has: $keys)" ;; esac
done
"$JT" near "$TMP/obl.json" t 0 0 || fail "t is not t0 = 0"
"$JT" near "$TMP/obl.json" p 2 0 || fail "p is not 2"
[ "$("$JT" shape "$TMP/obl.json" z0)" = 5 ] || fail "z0 does not have s = 5 entries"
want=(0.1 0 0.05 0 0)
for k in 0 1 2 3 4; do
  near "$TMP/obl.json" "z0[$k]" "${want[$k]}" 1e-15 "oblique projection"
done
"$JT" below "$TMP/obl.json" residual 1e-14 || fail "oblique result residual is not ~0"
[ "$("$JT" get "$TMP/obl.json" method)" = project ] || fail "method is not project"
[ "$("$JT" len "$TMP/obl.json" changed)" = 2 ] || fail "changed should list 2 components"
near "$TMP/obl.json" 'changed[0]' 4 0
near "$TMP/obl.json" 'changed[1]' 5 0
# the text report names the components and marks what changed
run 0 "pendulum text" "$IC" "$PEND" --guess "$GUESS"
grep -Eq 'u\[1\].*\*' "$TMP/out" || fail "text report does not mark u[1] as changed"
grep -Eq 'z_2\[2\].*\*' "$TMP/out" || fail "text report does not mark z_2[2] as changed"
grep -q 'z0 = \[' "$TMP/out" || fail "text report lacks the z0 = [...] line"

# ---- default guess: the file's z0, which is consistent and comes back unchanged
run 0 "pendulum default" "$IC" "$PEND" --format json && cp "$TMP/out" "$TMP/def.json"
"$JT" near "$TMP/def.json" change 0 1e-15 || fail "the file's consistent z0 was changed"
"$JT" near "$TMP/def.json" 'z0[0]' 0.1 0 || fail "the file's z0 was not used as the guess"

# ---- --nearest: residual < 1e-12 and never farther from the guess than the
# oblique projection; the pendulum's P is orthogonal, so they coincide there;
# index2's P = [0; 0; 1][0.3, 0, 1] is oblique, so the nearest is strictly closer
run 0 "pendulum --nearest" "$IC" "$PEND" --guess "$GUESS" --nearest --format json &&
  cp "$TMP/out" "$TMP/near.json"
"$JT" below "$TMP/near.json" residual 1e-12 || fail "--nearest residual is not < 1e-12"
g=$(echo "$GUESS" | tr , ' ')
d_near=$(dist "$(vec "$TMP/near.json" z0 5)" "$g")
d_obl=$(dist "$(vec "$TMP/obl.json" z0 5)" "$g")
awk -v a="$d_near" -v b="$d_obl" 'BEGIN { exit !(a <= b * (1 + 1e-14)) }' ||
  fail "pendulum: --nearest is farther from the guess ($d_near) than the oblique projection ($d_obl)"
I2="$DATA/index2.lth"
G2="1.5,-0.7,2.2,0.4"
run 0 "index2 oblique" "$IC" "$I2" --guess "$G2" --format json && cp "$TMP/out" "$TMP/o2.json"
run 0 "index2 --nearest" "$IC" "$I2" --guess "$G2" --nearest --format json && cp "$TMP/out" "$TMP/n2.json"
"$JT" below "$TMP/n2.json" residual 1e-12 || fail "index2 --nearest residual is not < 1e-12"
"$JT" below "$TMP/o2.json" residual 1e-12 || fail "index2 oblique residual is not < 1e-12"
g=$(echo "$G2" | tr , ' ')
d_near=$(dist "$(vec "$TMP/n2.json" z0 4)" "$g")
d_obl=$(dist "$(vec "$TMP/o2.json" z0 4)" "$g")
awk -v a="$d_near" -v b="$d_obl" 'BEGIN { exit !(a < 0.99 * b) }' ||
  fail "index2: --nearest ($d_near) is not closer to the guess than the oblique projection ($d_obl)"
# oblique keeps the state part: z_1[1], z_1[2] unchanged, z_1[3] = 0.2 sin(0) - 0.3 z_1[1]
near "$TMP/o2.json" 'z0[0]' 1.5 1e-15 "index2 oblique"
near "$TMP/o2.json" 'z0[1]' -0.7 1e-15 "index2 oblique"
near "$TMP/o2.json" 'z0[2]' -0.45 1e-15 "index2 oblique"

# ---- --conditions: s - p rows; M0 z0 = b0 holds for the result, not for the guess
run 0 "index2 --conditions" "$IC" "$I2" --guess "$G2" --conditions --format json &&
  cp "$TMP/out" "$TMP/c2.json"
[ "$("$JT" shape "$TMP/c2.json" conditions.M0)" = "2 4" ] || fail "index2 M0 is not (s - p) x s = 2 x 4"
[ "$("$JT" shape "$TMP/c2.json" conditions.b0)" = 2 ] || fail "index2 b0 does not have s - p = 2 entries"
z=$(vec "$TMP/c2.json" z0 4)
for i in 0 1; do
  row=$(vec "$TMP/c2.json" "conditions.M0[$i]" 4)
  b=$("$JT" get "$TMP/c2.json" "conditions.b0[$i]")
  awk -v m="$row" -v z="$z" -v g="$g" -v b="$b" 'BEGIN { split(m, M, " "); split(z, Z, " ");
      split(g, G, " "); r = -b; q = -b; for (j = 1; j <= 4; j++) { r += M[j] * Z[j]; q += M[j] * G[j] }
      exit !(r < 1e-13 && r > -1e-13 && (q > 1e-3 || q < -1e-3)) }' ||
    fail "condition row $i: M0 z0 = b0 fails for the result or holds for the inconsistent guess"
done
run 0 "pendulum --conditions text" "$IC" "$PEND" --conditions
grep -q "M0 (3 x 5)" "$TMP/out" || fail "pendulum --conditions does not print M0 with s - p = 3 rows"
grep -q "b0 (3)" "$TMP/out" || fail "pendulum --conditions does not print b0 with 3 entries"

# ---- --fix: a consistent value with prescribed components
run 0 "pendulum --fix" "$IC" "$PEND" --fix 1=-0.3,3=0.2 --format json && cp "$TMP/out" "$TMP/fix.json"
want=(-0.3 0 0.2 0 0)
for k in 0 1 2 3 4; do near "$TMP/fix.json" "z0[$k]" "${want[$k]}" 1e-15 "--fix"; done
"$JT" below "$TMP/fix.json" residual 1e-14 || fail "--fix residual is not ~0"
# a value that contradicts the algebraic constraint (d lambda must be 0)
run 3 "--fix conflicting algebraic value" "$IC" "$PEND" --fix 5=1 && {
  err_has "u[1]" "--fix 5=1"
  err_has "z[5]" "--fix 5=1"
}
# more independent prescriptions than p = 2
run 3 "--fix too many" "$IC" "$PEND" --fix 1=0.1,3=0.2,4=0.1 && err_has "p = 2" "--fix too many"
run 1 "--fix index out of range" "$IC" "$PEND" --fix 6=1
run 1 "--fix not I=V" "$IC" "$PEND" --fix 3
run 1 "--fix twice" "$IC" "$PEND" --fix 3=1,3=2
run 1 "--fix with --nearest" "$IC" "$PEND" --fix 3=1 --nearest

# ---- the index-5 example: its z0 is Corollary 3 of a zero guess (pasted digits)
I5="$DATA/index5.lth"
run 0 "index5 zero guess" "$IC" "$I5" --guess 0,0,0,0,0,0,0,0,0 --format json && cp "$TMP/out" "$TMP/i5.json"
"$JT" below "$TMP/i5.json" residual 1e-14 || fail "index5 residual is not ~0"
run 0 "index5 file z0" "$IC" "$I5" --format json && cp "$TMP/out" "$TMP/i5f.json"
"$JT" near "$TMP/i5f.json" change 0 1e-15 || fail "index5: the file's z0 is not consistent as pasted"
for k in 0 4 8; do
  near "$TMP/i5.json" "z0[$k]" "$("$JT" get "$TMP/i5f.json" "z0[$k]")" 1e-16 "index5 z0 vs file"
done
run 0 "index5 --at 1.3" "$IC" "$I5" --at 1.3 --format json && near "$TMP/out" t 1.3 0

# ---- errors and usage
run 1 "--guess with 2 values" "$IC" "$PEND" --guess 1,2 && err_has "s = 5" "--guess length"
run 1 "--at outside" "$IC" "$PEND" --at 11 && err_has "11" "--at outside"
run 1 "bad --format" "$IC" "$PEND" --format xml
run 1 "no data file" "$IC"
run 2 "missing file" "$IC" "$TMP/none.lth" && err_has "none.lth" "missing file"
cat >"$TMP/singular.lth" <<'EOF'
blocks 2 2 1
interval 0 1
A(1,3) = [2; t - 1.5]
A(2,1) = eye
A(3,2) = [1, 2]
EOF
run 3 "singular Pi at --at" "$IC" "$TMP/singular.lth" --at 0.5 && err_has "t = 0.5" "singular Pi"
if run 0 "--help" "$IC" --help; then
  grep -q "Exit status" "$TMP/out" || fail "--help lacks the exit statuses"
  grep -q "lth-ic data/pendulum.lth" "$TMP/out" || fail "--help lacks an example"
fi
run 0 "--version" "$IC" --version
run 0 "-o" "$IC" "$PEND" --guess "$GUESS" --format json -o "$TMP/o.json"
[ -s "$TMP/out" ] && fail "-o also wrote to stdout"
cmp -s "$TMP/o.json" "$TMP/obl.json" || fail "-o file differs from stdout output"

finish cli_ic
