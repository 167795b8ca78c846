# SPDX-License-Identifier: GPL-3.0-or-later
# The common options mean the same in every tool (apps/common/app_driver.c):
# --times and --at are one option, --grid N, -q, --threads N (1..256) do not
# change the numbers, lth-ic takes one time and writes CSV, the progress line
# appears on a terminal for every tool (not with -q), and lth-decompose
# --fields selects what it writes in every format.
# Usage: bash cli_options.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
TOOLS="lth-decompose lth-ic lth-solve lth-bvp lth-lqr"
for t in $TOOLS; do [ -x "$APPS/$t" ] || { echo "FAIL: $APPS/$t not built" >&2; exit 1; }; done
[ -x "$JT" ] || { echo "FAIL: $JT not built" >&2; exit 1; }
PEND="$DATA/pendulum.lth"
SLOPE="$DATA/slope.lth"
file_of() {
  case $1 in lth-lqr) echo "$DATA/lqr_double_integrator.lth" ;; lth-bvp) echo "$DATA/index2.lth" ;;
  lth-decompose) echo "$SLOPE" ;; *) echo "$PEND" ;; esac
}
times_of() { [ "$1" = lth-ic ] && echo 0.5 || echo 0,0.5,1; }

# ---- --times and --at: one option; -q and --threads do not change the numbers
for t in $TOOLS; do
  f=$(file_of $t) T=$(times_of $t)
  run 0 "$t --times" "$APPS/$t" "$f" --times "$T" --format csv && cp "$TMP/out" "$TMP/times.csv"
  run 0 "$t --at" "$APPS/$t" "$f" --at "$T" --format csv &&
    { cmp -s "$TMP/out" "$TMP/times.csv" || fail "$t: --at $T and --times $T differ"; }
  rows=$(($(wc -l <"$TMP/times.csv") - 1))
  [ "$rows" = "$(echo "$T" | tr , '\n' | wc -l)" ] || fail "$t --times $T: $rows CSV rows"
  run 0 "$t -q --threads 1" "$APPS/$t" "$f" --times "$T" --format csv -q --threads 1 &&
    { cmp -s "$TMP/out" "$TMP/times.csv" || fail "$t: -q --threads 1 changes the output"; }
  run 0 "$t --quiet --threads 2" "$APPS/$t" "$f" --times "$T" --format csv --quiet --threads 2 &&
    { cmp -s "$TMP/out" "$TMP/times.csv" || fail "$t: --threads 2 changes the output"; }
  run 1 "$t --threads 0" "$APPS/$t" "$f" --threads 0 && err_has "1 to 256" "$t --threads 0"
  run 1 "$t --threads 257" "$APPS/$t" "$f" --threads 257
  run 1 "$t --times outside" "$APPS/$t" "$f" --times 99 && err_has "--times: time 99" "$t --times 99"
  run 1 "$t --at outside" "$APPS/$t" "$f" --at 99 && err_has "--at: time 99" "$t --at 99"
  case $t in lth-solve | lth-bvp) # atol 0 would be the library's default, printed as 0
    run 1 "$t --atol 0" "$APPS/$t" "$f" --atol 0 && err_has "--atol" "$t --atol 0" ;;
  esac
  run 0 "$t --help" "$APPS/$t" --help &&
    for o in "--times" "--at" "--format" "--output" "--quiet" "--threads" "--cond-max"; do
      grep -q -- "$o" "$TMP/out" || fail "$t --help does not mention $o"
    done
done

# ---- --grid N where there are output times; lth-ic takes one time
for t in lth-decompose lth-solve lth-bvp lth-lqr; do
  run 0 "$t --grid 4" "$APPS/$t" "$(file_of $t)" --grid 4 --format csv &&
    { [ "$(wc -l <"$TMP/out")" = 5 ] || fail "$t --grid 4 does not give 4 rows"; }
  run 1 "$t --at with --grid" "$APPS/$t" "$(file_of $t)" --at 1 --grid 3 &&
    err_has "--at and --grid exclude each other" "$t --at --grid"
done
IC="$APPS/lth-ic"
run 1 "lth-ic --grid" "$IC" "$PEND" --grid 3
run 1 "lth-ic two times" "$IC" "$PEND" --at 0,1 && err_has "one time" "lth-ic --at 0,1"
run 1 "lth-ic two times (--times)" "$IC" "$PEND" --times 0,1 && err_has "--times takes one time" "lth-ic --times 0,1"
run 0 "lth-ic --times T" "$IC" "$PEND" --times 0.5 --format json && near "$TMP/out" t 0.5 0

# ---- lth-ic --format csv: a header and one row, the same numbers as the JSON
run 0 "lth-ic json" "$IC" "$PEND" --guess 0.1,0,0.05,0.2,3 --at 0.25 --format json && cp "$TMP/out" "$TMP/ic.json"
run 0 "lth-ic csv" "$IC" "$PEND" --guess 0.1,0,0.05,0.2,3 --at 0.25 --format csv && {
  [ "$(head -1 "$TMP/out")" = 't,"z[1]","z[2]","z[3]","z[4]","z[5]",residual' ] ||
    fail "lth-ic CSV header: $(head -1 "$TMP/out")"
  [ "$(wc -l <"$TMP/out")" = 2 ] || fail "lth-ic CSV is not a header and one row"
  want="$("$JT" get "$TMP/ic.json" t)"
  for k in 0 1 2 3 4; do want="$want,$("$JT" get "$TMP/ic.json" "z0[$k]")"; done
  want="$want,$("$JT" get "$TMP/ic.json" residual)"
  [ "$(sed -n 2p "$TMP/out")" = "$want" ] || fail "lth-ic CSV row $(sed -n 2p "$TMP/out") is not the JSON's $want"
}

# ---- the progress line: on a terminal (stderr), for every tool, not with -q
if command -v script >/dev/null 2>&1; then
  for t in $TOOLS; do
    case $t in
    lth-decompose) label=decomposing ;; lth-solve) label=integrating ;; lth-ic) continue ;;
    *) label=solving ;;
    esac
    f=$(file_of $t)
    script -qec "'$APPS/$t' '$f' -o /dev/null" /dev/null </dev/null >"$TMP/tty" 2>&1
    grep -q "$label: " "$TMP/tty" || fail "$t shows no progress line on a terminal: $(head -c 200 "$TMP/tty")"
    script -qec "'$APPS/$t' '$f' -o /dev/null -q" /dev/null </dev/null >"$TMP/tty" 2>&1
    grep -q "$label: " "$TMP/tty" && fail "$t -q still shows a progress line"
  done
  # finite differences report grid points, the order check's solves included
  script -qec "'$APPS/lth-bvp' '$DATA/index2.lth' --method fd --points 2001 -o /dev/null" /dev/null \
    </dev/null >"$TMP/tty" 2>&1
  grep -q "solving: 9000/9000 grid points" "$TMP/tty" || fail "lth-bvp fd progress: $(head -c 300 "$TMP/tty")"
  # not in a pipe
  "$APPS/lth-bvp" "$DATA/index2.lth" -o /dev/null 2>"$TMP/err"
  [ -s "$TMP/err" ] && fail "lth-bvp writes a progress line into a pipe: $(head -c 200 "$TMP/err")"
else
  echo "note: no script(1): progress-line checks skipped"
fi

# ---- lth-decompose --fields: the selected results, in the contract's order
DEC="$APPS/lth-decompose"
run 0 "decompose all" "$DEC" "$SLOPE" --at 0.5,1 --format json && cp "$TMP/out" "$TMP/all.json"
run 0 "--fields q,cond_pi" "$DEC" "$SLOPE" --at 0.5,1 --fields q,cond_pi --format json && {
  [ "$("$JT" keys "$TMP/out" 'points[1]' | tr '\n' ' ')" = "t cond_pi q " ] ||
    fail "--fields q,cond_pi: keys $("$JT" keys "$TMP/out" 'points[1]' | tr '\n' ' ')"
  for k in 0 1 2 3 4; do
    near "$TMP/out" "points[1].q[$k]" "$("$JT" get "$TMP/all.json" "points[1].q[$k]")" 0 "--fields q"
  done
  near "$TMP/out" summary.n_points 2 0 "--fields summary"
}
run 0 "--fields csv" "$DEC" "$SLOPE" --at 0.5 --fields cond_chain,g --format csv &&
  { [ "$(head -1 "$TMP/out")" = "t,g[1],g[2],g[3],g[4],cond_chain" ] || fail "--fields CSV header: $(head -1 "$TMP/out")"; }
run 0 "--fields text" "$DEC" "$SLOPE" --at 0.5 --fields Bhat && {
  grep -q "Bhat (5 x 4)" "$TMP/out" || fail "--fields Bhat: text lacks Bhat"
  grep -Eq "^  (P|Ahat|G) \(" "$TMP/out" && fail "--fields Bhat: text prints other matrices"
}
run 0 "--fields G --order 1" "$DEC" "$SLOPE" --at 0.5 --fields G --order 1 --format json &&
  { [ "$("$JT" keys "$TMP/out" 'points[0].derivatives' | tr '\n' ' ')" = "G " ] ||
    fail "--fields G --order 1: derivatives of $("$JT" keys "$TMP/out" 'points[0].derivatives' | tr '\n' ' ')"; }
run 0 "--fields check" "$DEC" "$SLOPE" --at 0.5 --check --fields check --format json &&
  { [ "$("$JT" keys "$TMP/out" 'points[0]' | tr '\n' ' ')" = "t check " ] || fail "--fields check: keys"; }
run 1 "--fields unknown" "$DEC" "$SLOPE" --fields P,Q && err_has "'Q'" "--fields P,Q"
run 1 "--fields check without --check" "$DEC" "$SLOPE" --fields check
run 1 "--fields empty item" "$DEC" "$SLOPE" --fields P,,q

finish cli_options
