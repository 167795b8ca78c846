# SPDX-License-Identifier: GPL-3.0-or-later
# The behaviour the driver gives every tool alike (apps/common/app_driver.h):
# -o keeps an existing file's mode; a full disk or a signal leaves no file
# behind and a write error gives the system's reason; a non-finite result is exit 3 naming the
# quantity and t in every format (never exit 2 "error writing"); lth-ic's
# norms do not overflow; the common options (--times/--at, --grid, -q,
# --threads, --format csv for lth-ic) mean the same in every tool; the
# progress line; lth-decompose --fields.
# Usage: bash cli_driver.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
TOOLS="lth-decompose lth-ic lth-solve lth-bvp lth-lqr"
for t in $TOOLS; do [ -x "$APPS/$t" ] || { echo "FAIL: $APPS/$t not built" >&2; exit 1; }; done
[ -x "$JT" ] || { echo "FAIL: $JT not built" >&2; exit 1; }
IC="$APPS/lth-ic"
PEND="$DATA/pendulum.lth"
I2="$DATA/index2.lth"
LQR="$DATA/lqr_double_integrator.lth"

# the file of each tool's runs below
file_of() { case $1 in lth-lqr) echo "$LQR" ;; lth-bvp) echo "$I2" ;; *) echo "$PEND" ;; esac; }

# ---- -o FILE replacing an existing file keeps its mode; a new file gets the umask's
for t in lth-ic lth-decompose; do
  out="$TMP/secret-$t.json"
  : >"$out" && chmod 600 "$out"
  run 0 "$t -o over a 0600 file" "$APPS/$t" "$(file_of $t)" --format json -o "$out"
  [ -s "$out" ] || fail "$t -o wrote nothing"
  mode=$(stat -c %a "$out")
  [ "$mode" = 600 ] || fail "$t -o replaced a 0600 file by a $mode one"
  chmod 640 "$out"
  run 0 "$t -o over a 0640 file" "$APPS/$t" "$(file_of $t)" --format json -o "$out"
  [ "$(stat -c %a "$out")" = 640 ] || fail "$t -o did not keep mode 640"
  rm -f "$out"
  (umask 027 && "$APPS/$t" "$(file_of $t)" --format json -o "$out") 2>/dev/null
  [ "$(stat -c %a "$out")" = 640 ] || fail "$t -o: a new file under umask 027 is $(stat -c %a "$out"), not 640"
done

# ---- a full disk or a file-size limit: exit 2 with the system's reason, no file left
for t in $TOOLS; do
  for fmt in text json csv; do
    run 2 "$t -o /dev/full ($fmt)" "$APPS/$t" "$(file_of $t)" --format $fmt -q -o /dev/full &&
      err_has "No space left on device" "$t -o /dev/full ($fmt)"
    "$APPS/$t" "$(file_of $t)" --format $fmt -q >/dev/full 2>"$TMP/err"
    rc=$?
    [ $rc = 2 ] || fail "$t >/dev/full ($fmt): exit status $rc, expected 2"
    err_has "error writing to standard output: No space left on device" "$t >/dev/full ($fmt)"
  done
done
# bash's ulimit -f counts 1024-byte blocks; with SIGXFSZ ignored write(2) fails with EFBIG
(trap '' XFSZ && ulimit -f 4 && "$APPS/lth-decompose" "$PEND" --format json -o "$TMP/limit.json") \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 2 ] || fail "-o over the file-size limit: exit status $rc, expected 2"
err_has "cannot write output file $TMP/limit.json: File too large" "-o over the file-size limit"
(ulimit -f 4 && exec "$APPS/lth-decompose" "$PEND" --format json -o "$TMP/limit.json") 2>/dev/null
rc=$?
[ $rc = $((128 + $(kill -l XFSZ))) ] || fail "-o over the file-size limit: exit status $rc, not SIGXFSZ"
left=$(ls "$TMP"/limit.json* 2>/dev/null)
[ -z "$left" ] || fail "-o over the file-size limit left $left"

# ---- SIGTERM or SIGINT while -o FILE is written: the run ends by that signal
# and its temporary file (megabytes already) goes with it
for sig in TERM INT; do
  set -m # job control: a script's background job would otherwise ignore SIGINT
  "$APPS/lth-decompose" "$PEND" --grid 10000000 --format json -q -o "$TMP/sig.json" &
  pid=$!
  set +m
  grown=0
  for _ in $(seq 1 600); do
    size=$(stat -c %s "$TMP"/sig.json.tmp.* 2>/dev/null | head -1)
    [ -n "$size" ] && [ "$size" -gt 2000000 ] && { grown=1; break; }
    sleep 0.1
  done
  kill -$sig $pid
  wait $pid
  rc=$?
  [ $grown = 1 ] || fail "SIG$sig: the temporary file of -o never grew past 2 MB"
  [ $rc = $((128 + $(kill -l $sig))) ] || fail "SIG$sig: exit status $rc, not death by SIG$sig"
  left=$(ls "$TMP"/sig.json* 2>/dev/null)
  [ -z "$left" ] || fail "SIG$sig during -o left $left"
  rm -f "$TMP"/sig.json*
done

# ---- a result that is not finite: exit 3 naming the quantity and t, every format.
# index 2, z = (z_1[1], z_1[2], u): the constraint z_1[2] = 0 makes u = -3 z_1[1],
# which overflows for z_1[1] = 1e308.
cat >"$TMP/big.lth" <<'EOF'
blocks 2 1
interval 0 1
grid 3
A(1,1) = [0, 0; 3, 0]
A(1,2) = [0; 1]
A(2,1) = [0, 1]
z0 = [1e308; 0; -3]
bc B0 = [1, 0, 0]
bc B1 = [0, 0, 0]
bc beta = [1e308]
EOF
sed 's/^x0 = .*/x0 = [1e308; 1e308]/' "$LQR" >"$TMP/lqrbig.lth"
for fmt in text json csv; do
  run 3 "lth-ic overflowing z0 ($fmt)" "$IC" "$TMP/big.lth" --format "$fmt" &&
    { err_has "consistent value is not finite" "ic z0 $fmt"; err_has "t = 0)" "ic z0 $fmt"; }
  run 3 "lth-solve overflowing z ($fmt)" "$APPS/lth-solve" "$TMP/big.lth" --project --format "$fmt" &&
    { err_has "u[1]" "solve $fmt"; err_has "t = 0)" "solve $fmt"; }
  run 3 "lth-bvp overflowing z ($fmt)" "$APPS/lth-bvp" "$TMP/big.lth" --format "$fmt" &&
    { err_has "u[1]" "bvp $fmt"; err_has "(t = " "bvp $fmt"; }
  run 3 "lth-lqr overflowing x ($fmt)" "$APPS/lth-lqr" "$TMP/lqrbig.lth" --format "$fmt" &&
    { err_has "not finite" "lqr $fmt"; err_has "(t = " "lqr $fmt"; }
  # the pendulum's consistent value of this guess is fine, but ||z0 - guess||
  # and ||M0 guess - b0|| are about 2.9e308: not representable
  run 3 "lth-ic change overflows ($fmt)" "$IC" "$PEND" --guess 1.7e308,-1.7e308,1.7e308,1.7e308,-1.7e308 \
    --format "$fmt" && { err_has "guess" "ic change $fmt"; err_has "is not finite (t = 0)" "ic change $fmt"; }
  grep -q "error writing" "$TMP/err" && fail "lth-ic change $fmt: $(cat "$TMP/err")"
done

# ---- lth-ic --guess near DBL_MAX: norms without overflow, honest labels.
# guess = 1e308 (1, 1, 1, 1, 1): z0 = (1e308, 0, 1e308, 0, 0), so ||z0 - guess|| =
# sqrt(3) 1e308 and ||M0 guess - b0|| = sqrt(3) 1e308 (M0 has orthonormal rows
# picking z_1[2], z_2[2], u): the guess is far from consistent.
G=1e308,1e308,1e308,1e308,1e308
run 0 "lth-ic --guess 1e308 json" "$IC" "$PEND" --guess "$G" --format json && {
  "$JT" validate "$TMP/out" || fail "lth-ic --guess 1e308: invalid JSON"
  near "$TMP/out" change 1.7320508075688772e308 1e294 "lth-ic --guess 1e308"
  near "$TMP/out" guess_residual 1.7320508075688772e308 1e294 "lth-ic --guess 1e308"
}
run 0 "lth-ic --guess 1e308 text" "$IC" "$PEND" --guess "$G" && {
  grep -qi "inf" "$TMP/out" && fail "lth-ic --guess 1e308 prints inf: $(grep -i inf "$TMP/out")"
  grep -q "^guess .*(inconsistent)" "$TMP/out" ||
    fail "lth-ic labels a guess with residual 1.7e308 consistent: $(grep '^guess' "$TMP/out")"
}
# a consistent guess near DBL_MAX is still called consistent
run 0 "lth-ic consistent huge guess" "$IC" "$PEND" --guess 1e308,0,1e308,0,0 &&
  { grep -q "^guess .*(consistent)" "$TMP/out" || fail "consistent huge guess not called consistent"; }

finish cli_driver
