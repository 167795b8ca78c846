# SPDX-License-Identifier: GPL-3.0-or-later
# The shipped examples as regression tests: every data/*.lth must decompose
# (lth-decompose --format json --check) with exit status 0, check residuals
# below 1e-10, and match its committed output data/expected/NAME.json.
#
# Tolerance: numbers agree to a relative 1e-9, normwise per JSON member
# (|a - e| <= 1e-9 max(|a|, |e|, max |e| over the member's matrix or vector)
# + 1e-13).  The results are exact to rounding, so this only absorbs
# different BLAS builds and compilers.  Rounding-level values whose size or
# place is noise are not compared: the "check" residuals, the worst-residual
# summary, and the times where a maximum is reached (ties break by rounding).
# Sampling error estimates ("error_estimate") are compared against an absolute
# floor of 1e-11: on the shipped sampled example (data exact to about 1e-14)
# they are rounding, 7e-14 .. 4.5e-13 with any kernel, so their digits are
# noise; one above the floor means the estimate stopped being rounding.
#
# A new example without an expected file fails, with the command to make one.
# Usage: bash cli_examples.sh BUILD/apps   (env LTH_DATA_DIR = data/)
set -u
APPS=${1:?usage: cli_examples.sh BUILD/apps}
DATA=${LTH_DATA_DIR:?LTH_DATA_DIR must name the data directory}
DEC="$APPS/lth-decompose"
JT="$APPS/../tests/tools/jsontool"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
IGNORE=(--ignore check --ignore check_worst --ignore t_check_worst --ignore t_cond_pi_max
        --ignore t_cond_chain_max --ignore t_error --ignore t_overall
        --floor error_estimate 1e-11)
failures=0
count=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

[ -x "$DEC" ] || { echo "FAIL: $DEC not built" >&2; exit 1; }
[ -x "$JT" ] || { echo "FAIL: $JT not built" >&2; exit 1; }

for file in "$DATA"/*.lth; do
  [ -e "$file" ] || continue
  name=$(basename "$file" .lth)
  count=$((count + 1))
  out="$TMP/$name.json"
  if ! timeout 300 "$DEC" "$file" --format json --check --quiet -o "$out" 2>"$TMP/err"; then
    fail "$name: lth-decompose failed: $(head -c 400 "$TMP/err")"
    continue
  fi
  if ! "$JT" validate "$out"; then
    fail "$name: output is not valid JSON"
    continue
  fi
  "$JT" below "$out" worst 1e-10 || fail "$name: a --check residual exceeds 1e-10"
  "$JT" near "$out" summary.rank_G_mismatches 0 0 || fail "$name: rank G differs from p"
  expected="$DATA/expected/$name.json"
  if [ ! -f "$expected" ]; then
    fail "$name: no expected output $expected; review the tool's output, then create it with
    BUILD/apps/lth-decompose data/$name.lth --format json --check --quiet -o data/expected/$name.json"
    continue
  fi
  "$JT" diff "$expected" "$out" --rtol 1e-9 --atol 1e-13 "${IGNORE[@]}" ||
    fail "$name: output differs from $expected"
done

# ---- the other tools on the examples shipped for them, against their committed
# output data/expected/TOOL/NAME.json.  The tools integrate with rtol 1e-10,
# so numbers are compared at relative 1e-8, absolute 1e-10; timings and step
# counts ("stats"; lth-ss's "steps", "decomps") and the prose "note" are not
# compared, nor where lth-solve's global error estimate peaks and its size in
# units of the tolerance (a rounding-level estimate, divided by atol, is noise).
tool_example() { # TOOL NAME ARGS...
  local tool=$1 name=$2
  shift 2
  local out="$TMP/$tool-$name.json" expected="$DATA/expected/$tool/$name.json"
  if ! timeout 300 "$APPS/$tool" "$DATA/$name.lth" "$@" --format json -o "$out" 2>"$TMP/err"; then
    fail "$tool $name: failed: $(head -c 400 "$TMP/err")"
    return
  fi
  "$JT" validate "$out" || { fail "$tool $name: output is not valid JSON"; return; }
  [ -f "$expected" ] || { fail "$tool $name: no expected output $expected; review, then create it with
    BUILD/apps/$tool data/$name.lth $* --format json -o data/expected/$tool/$name.json"; return; }
  "$JT" diff "$expected" "$out" --rtol 1e-8 --atol 1e-10 --ignore stats --ignore note \
    --ignore error_tol --ignore error_worst --ignore t_error_worst --ignore elapsed \
    --ignore steps --ignore decomps ||
    fail "$tool $name: output differs from $expected"
}
tool_example lth-ic index5 --guess 0,0,0,0,0,0,0,0,0 --at 0
tool_example lth-solve index5 --times 0,0.5,1,1.5,2
tool_example lth-bvp index2 --method shooting
tool_example lth-lqr lqr_timevarying --gain
tool_example lth-ss carts_io

[ "$count" -gt 0 ] || fail "no data/*.lth examples found in $DATA"
for expected in "$DATA"/expected/*.json; do
  [ -e "$expected" ] || continue
  name=$(basename "$expected" .json)
  [ -f "$DATA/$name.lth" ] || fail "$expected has no data file $DATA/$name.lth"
done

if [ "$failures" -ne 0 ]; then
  echo "cli_examples: $failures failure(s) over $count examples" >&2
  exit 1
fi
echo "cli_examples: $count examples match their expected output"
