# SPDX-License-Identifier: GPL-3.0-or-later
# lth-decompose against docs/format.md section 2: JSON keys and sizes,
# the slope's force u = 2g/5, CSV layout, exit statuses 0/1/2/3, --check,
# --grid, --at, -o, and a singular Pi that must fail naming t.
# Usage: bash cli_decompose.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
DEC="$APPS/lth-decompose"
SLOPE="$DATA/slope.lth"


# err_has SUBSTRING DESCRIPTION: the last run's stderr holds SUBSTRING

# json_eq FILE PATH VALUE: the value printed by jsontool get equals VALUE
json_eq() {
  local got
  got=$("$JT" get "$1" "$2") || { fail "no value at $2 in $1"; return; }
  [ "$got" = "$3" ] || fail "$2 is '$got', expected '$3'"
}

# no_nonfinite FILE: no nan/inf tokens (the contract forbids them)
no_nonfinite() {
  if grep -Eiq '(^|[^a-z_])(nan|inf|infinity)([^a-z_]|$)' "$1"; then
    fail "$1 holds nan or inf"
  fi
}

[ -x "$DEC" ] || { echo "FAIL: $DEC not built" >&2; exit 1; }
[ -x "$JT" ] || { echo "FAIL: $JT not built" >&2; exit 1; }
[ -f "$SLOPE" ] || { echo "FAIL: $SLOPE missing" >&2; exit 1; }

# ---- the validator itself must be able to reject (else every check below is void)
printf '{"a": NaN}\n' >"$TMP/bad.json"
"$JT" validate "$TMP/bad.json" 2>/dev/null && fail "jsontool accepts NaN"
printf '{"a": [1, 2,]}\n' >"$TMP/bad.json"
"$JT" validate "$TMP/bad.json" 2>/dev/null && fail "jsontool accepts a trailing comma"
printf '{"a": [1, 2.5e-3, -0], "b": "x\\"y"}\n' >"$TMP/good.json"
"$JT" validate "$TMP/good.json" || fail "jsontool rejects valid JSON"

# ---- slope, JSON on the file's grid
# geometry of the slope: blocks 2 2 1, so s = 5, m = s - n_r = 4, p = 2
run 0 "slope --format json" "$DEC" "$SLOPE" --format json && cp "$TMP/out" "$TMP/slope.json"
"$JT" validate "$TMP/slope.json" || fail "slope JSON is not valid JSON"
no_nonfinite "$TMP/slope.json"
json_eq "$TMP/slope.json" index 3
json_eq "$TMP/slope.json" 'blocks[0]' 2
json_eq "$TMP/slope.json" 'blocks[2]' 1
json_eq "$TMP/slope.json" p 2
[ "$("$JT" len "$TMP/slope.json" blocks)" = 3 ] || fail "blocks should have 3 entries"
ngrid=101
if line=$(grep -E '^[[:space:]]*grid[[:space:]]+[0-9]+' "$SLOPE"); then
  read -r _ ngrid _ <<<"$line"
fi
npts=$("$JT" len "$TMP/slope.json" points)
[ "$npts" = "$ngrid" ] || fail "slope: $npts points, the file's grid has $ngrid"
last=$((npts - 1))
for k in 0 $((npts / 2)) $last; do
  pt="points[$k]"
  keys=$("$JT" keys "$TMP/slope.json" "$pt" | tr '\n' ' ')
  for key in t cond_pi P Ahat g Bhat q G; do
    case " $keys" in *" $key "*) ;; *) fail "$pt lacks key $key (has: $keys)" ;; esac
  done
  for spec in "P:4 4" "Ahat:4 4" "g:4" "Bhat:5 4" "q:5" "G:5 4"; do
    name=${spec%%:*}
    want=${spec#*:}
    got=$("$JT" shape "$TMP/slope.json" "$pt.$name")
    [ "$got" = "$want" ] || fail "$pt.$name has shape '$got', expected '$want'"
  done
  # u = lambda = 2g/5 with g = 9.81 (the constraint's second derivative)
  "$JT" near "$TMP/slope.json" "$pt.q[4]" 3.924 1e-12 || fail "$pt: u is not 2g/5"
  "$JT" near "$TMP/slope.json" "$pt.cond_pi" 1 1e-12 || fail "$pt: cond(Pi) of the 1 x 1 Pi = 5 is not 1"
done
read -r _ t0 t1 _ <<<"$(grep -E '^[[:space:]]*interval' "$SLOPE")"
"$JT" near "$TMP/slope.json" 'points[0].t' "$t0" 0 || fail "first point is not t0 = $t0"
"$JT" near "$TMP/slope.json" "points[$last].t" "$t1" 0 || fail "last point is not t1 = $t1"

# ---- CSV: quoted names (P[1,1] holds a comma), one row per grid point
run 0 "slope --format csv" "$DEC" "$SLOPE" --format csv && cp "$TMP/out" "$TMP/slope.csv"
no_nonfinite "$TMP/slope.csv"
header=$(head -n 1 "$TMP/slope.csv")
case "$header" in
  't,cond_pi,"P[1,1]","P[1,2]",'*) ;;
  *) fail "CSV header starts '$(printf %s "$header" | head -c 60)'" ;;
esac
rows=$(($(wc -l <"$TMP/slope.csv") - 1))
[ "$rows" = "$npts" ] || fail "CSV has $rows data rows, expected $npts"
# unquote the names and split: 2 + 16 (P) + 16 (Ahat) + 4 (g) + 20 (Bhat) + 5 (q) + 20 (G) + cond_chain
names=$(printf '%s\n' "$header" | sed -e 's/"\([^",]*\),\([^",]*\)"/\1;\2/g')
IFS=, read -r -a cols <<<"$names"
[ "${#cols[@]}" = 84 ] || fail "CSV header has ${#cols[@]} columns, expected 84"
[ "${cols[62]:-}" = "q[5]" ] || fail "CSV column 63 is '${cols[62]:-}', expected q[5]"
[ "${cols[21]:-}" = "Ahat[1;4]" ] || fail "CSV column 22 is '${cols[21]:-}', expected Ahat[1,4]"
IFS=, read -r -a row1 <<<"$(sed -n 2p "$TMP/slope.csv")"
[ "${#row1[@]}" = 84 ] || fail "CSV row 1 has ${#row1[@]} cells, expected 84"
[ "${row1[62]:-}" = "$("$JT" get "$TMP/slope.json" 'points[0].q[4]')" ] ||
  fail "CSV q[5] '${row1[62]:-}' differs from the JSON value"

# ---- --check: Theorem 3 and the projector identities hold to rounding
run 0 "slope --check" "$DEC" "$SLOPE" --format json --check && cp "$TMP/out" "$TMP/check.json"
"$JT" validate "$TMP/check.json" || fail "--check JSON is not valid"
for key in worst theorem3_linear theorem3_affine idempotent commute structure; do
  "$JT" below "$TMP/check.json" "$key" 1e-12 || fail "--check residual $key is not < 1e-12"
done
[ "$("$JT" range "$TMP/check.json" rank_G)" = "2 2 $npts" ] || fail "rank G is not p = 2 at every point"
run 0 "slope --check text" "$DEC" "$SLOPE" --check
grep -q "check *passed" "$TMP/out" || fail "text report does not say the check passed"

# ---- --grid N and --at
run 0 "--grid 5" "$DEC" "$SLOPE" --format json --grid 5 && cp "$TMP/out" "$TMP/g5.json"
[ "$("$JT" len "$TMP/g5.json" points)" = 5 ] || fail "--grid 5 does not give 5 points"
"$JT" near "$TMP/g5.json" 'points[4].t' "$t1" 0 || fail "--grid 5 does not end at t1"
run 0 "--at=0.25,1" "$DEC" "$SLOPE" --format=json --at=0.25,1 && cp "$TMP/out" "$TMP/at.json"
[ "$("$JT" len "$TMP/at.json" points)" = 2 ] || fail "--at 0.25,1 does not give 2 points"
json_eq "$TMP/at.json" 'points[0].t' 0.25
run 1 "--at outside the interval" "$DEC" "$SLOPE" --at 0,1e6 && err_has "1000000" "--at outside"
run 1 "--at below the interval" "$DEC" "$SLOPE" --at -1
run 1 "--at with a non-number" "$DEC" "$SLOPE" --at 1,x
run 1 "--at nan" "$DEC" "$SLOPE" --at nan
run 1 "--grid 1" "$DEC" "$SLOPE" --grid 1
run 1 "unknown option" "$DEC" "$SLOPE" --no-such-option && err_has "--help" "unknown option"
run 1 "bad --format" "$DEC" "$SLOPE" --format xml
run 1 "no data file" "$DEC"
run 2 "missing data file" "$DEC" "$TMP/no-such-file.lth" && err_has "no-such-file.lth" "missing file"
if run 0 "--help" "$DEC" --help; then
  grep -q "Exit status" "$TMP/out" || fail "--help lacks the exit statuses"
fi
run 0 "--version" "$DEC" --version

# ---- -o FILE: the file gets exactly what stdout would
run 0 "-o" "$DEC" "$SLOPE" --format json -o "$TMP/o.json"
[ -s "$TMP/out" ] && fail "-o also wrote to stdout"
cmp -s "$TMP/o.json" "$TMP/slope.json" || fail "-o file differs from stdout output"

# ---- text report: the force, the hint, the index
run 0 "text" "$DEC" "$SLOPE"
grep -q "3.924" "$TMP/out" || fail "text report does not show u = 3.924"
grep -q "use --at T" "$TMP/out" || fail "text report lacks the --at hint"
grep -Eq "index +r = 3" "$TMP/out" || fail "text report lacks the index"

# ---- --order: derivatives of the results
run 0 "--order 2" "$DEC" "$SLOPE" --format json --order 2 --at 1 && cp "$TMP/out" "$TMP/ord.json"
[ "$("$JT" len "$TMP/ord.json" 'points[0].derivatives.Ahat')" = 2 ] || fail "--order 2 lacks 2 Ahat derivatives"
[ "$("$JT" shape "$TMP/ord.json" 'points[0].derivatives.Bhat[1]')" = "5 4" ] || fail "Bhat'' has the wrong shape"

# ---- singular Pi: Pi = [1, 2] [2; t - 1.5] = 2 (t - 0.5) vanishes at t = 0.5
cat >"$TMP/singular.lth" <<'EOF'
blocks 2 2 1
interval 0 1
grid [0, 0.25, 0.5, 0.75, 1]
A(1,3) = [2; t - 1.5]
A(2,1) = eye
A(3,2) = [1, 2]
EOF
run 3 "singular Pi" "$DEC" "$TMP/singular.lth" --format json && {
  err_has "t = 0.5" "singular Pi"
  grep -Eq "condition estimate|singular" "$TMP/err" || fail "singular Pi: no condition estimate"
}
run 3 "singular Pi, -o" "$DEC" "$TMP/singular.lth" -o "$TMP/sing.out"
[ -e "$TMP/sing.out" ] && fail "a failing run left its -o file"
ls "$TMP"/sing.out.tmp* >/dev/null 2>&1 && fail "a failing run left a temporary file"
# nearly singular: the chain condition 3/|t - 0.5| exceeds 1e12
run 3 "ill-conditioned Pi" "$DEC" "$TMP/singular.lth" --at 0.5000000000001 && {
  err_has "t = 0.5000000000001" "ill-conditioned Pi"
  err_has "condition estimate" "ill-conditioned Pi"
}
run 3 "--cond-max" "$DEC" "$TMP/singular.lth" --at 0.9 --cond-max 2 && err_has "t = 0.9" "--cond-max"
run 0 "away from the singularity" "$DEC" "$TMP/singular.lth" --at 0,1 --format json --check
no_nonfinite "$TMP/out"

# ---- sampled data: the error estimate is reported, and coarse samples warn
if [ -f "$DATA/sampled.lth" ] && [ -f "$DATA/sampled_a11.csv" ]; then
  run 0 "sampled" "$DEC" "$DATA/sampled.lth" --format json && cp "$TMP/out" "$TMP/sampled.json"
  json_eq "$TMP/sampled.json" 'sampling[0].block' 'A(1,1)'
  "$JT" below "$TMP/sampled.json" relative 1e-6 || fail "fine samples: relative error estimate above 1e-6"
  grep -q "warning" "$TMP/err" && fail "fine samples warn: $(head -c 300 "$TMP/err")"
  # every 6th sample (and the last, to keep covering the interval), degree 2
  total=$(grep -cv '^#' "$DATA/sampled_a11.csv")
  idx=0
  while IFS= read -r line; do
    case "$line" in
      '#'* | t*) echo "$line" ;;
      *)
        idx=$((idx + 1))
        if [ $((idx % 6)) = 1 ] || [ "$idx" = $((total - 1)) ]; then echo "$line"; fi
        ;;
    esac
  done <"$DATA/sampled_a11.csv" >"$TMP/coarse.csv"
  sed -e 's/sampled_a11\.csv/coarse.csv/' -e 's/^sampling order .*/sampling order 2/' \
    "$DATA/sampled.lth" >"$TMP/coarse.lth"
  run 0 "coarse samples" "$DEC" "$TMP/coarse.lth" --format json --quiet && {
    err_has "warning: sampled block A(1,1)" "coarse samples"
    "$JT" below "$TMP/out" relative 1e-6 2>/dev/null && fail "coarse samples: relative error estimate not above 1e-6"
  }
else
  echo "note: data/sampled.lth or its CSV is missing; sampled-data checks skipped"
fi

finish cli_decompose
