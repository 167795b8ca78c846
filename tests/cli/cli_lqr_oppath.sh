# SPDX-License-Identifier: GPL-3.0-or-later
# lth-lqr's operator path (--path auto|dense|operator; docs/lqr-example.md,
# "A large plant"): the shipped `problem lqr` examples and a small generated
# chain agree with the dense path where the smooth optimum exists, and are
# refused (exit 3, naming the impulse) where it does not; a generated chain of
# nx = 2,000 (scripts/gen-chain.py --lqr) takes the operator path by itself
# and meets the optimality conditions, checked by an independent integration
# (tests/cli/lqr_oppath_check.py); what only the dense path does is refused;
# time-varying data past nx = 3,000 are solved (gen-chain.py --time-varying), a jump
# that needs an impulse (--jump) is refused naming t.
# Usage: bash cli_lqr_oppath.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
TESTS=${LTH_TEST_DIR:?LTH_TEST_DIR must name tests/}
ROOT="$TESTS/.."
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
CHECK="$PY $TESTS/cli/lqr_oppath_check.py"
LQR="$APPS/lth-lqr"
DI="$DATA/lqr_double_integrator.lth"

if ! "$LQR" "$DI" --path operator --times 0,2 >/dev/null 2>&1; then
  # a build without KLU: the operator path is refused, naming why
  run 1 "no KLU: --path operator" "$LQR" "$DI" --path operator
  err_has "KLU" "no KLU"
  finish cli_lqr_oppath
  exit 0
fi

# ---- the shipped examples ----
for p in operator dense; do
  run 0 "double integrator: --path $p" "$LQR" "$DI" --path $p --times 0,0.5,1,2 \
    --format json -o "$TMP/di.$p.json"
done
$CHECK agree "$TMP/di.operator.json" "$TMP/di.dense.json" || fail "double integrator: the paths differ"
# no smooth optimum (impulses at both ends): the dense path answers exists = false,
# the operator path refuses naming what it found
run 0 "time-varying: --path dense" "$LQR" "$DATA/lqr_timevarying.lth" --path dense --times 0,1.5 \
  --format json -o "$TMP/tv.dense.json"
grep -q '"exists": false' "$TMP/tv.dense.json" || fail "time-varying: dense exists"
run 3 "time-varying: --path operator" "$LQR" "$DATA/lqr_timevarying.lth" --path operator \
  --times 0,1.5 --format json
err_has "terminal impulse" "time-varying: --path operator"
err_has "--path dense" "time-varying: --path operator"

# ---- a small generated chain (nx = 16): both paths ----
$PY "$ROOT/scripts/gen-chain.py" --lqr 8 1 "$TMP/c8.lth"
for p in operator dense; do
  run 0 "chain nx = 16: --path $p" "$LQR" "$TMP/c8.lth" --path $p --times 0,1,2.5,4 \
    --format json -o "$TMP/c8.$p.json"
done
$CHECK agree "$TMP/c8.operator.json" "$TMP/c8.dense.json" || fail "chain nx = 16: the paths differ"
# an inconsistent x0 (the first actuated mass displaced): the dense path finds the
# impulse at t0, the operator path refuses naming it (and never answers)
$PY "$ROOT/scripts/gen-chain.py" --lqr 8 1 "$TMP/c8i.lth" --inconsistent
run 0 "inconsistent chain: --path dense" "$LQR" "$TMP/c8i.lth" --path dense --times 0,4 \
  --format json -o "$TMP/c8i.dense.json"
grep -q '"exists": false' "$TMP/c8i.dense.json" || fail "inconsistent chain: dense exists"
run 3 "inconsistent chain: --path operator" "$LQR" "$TMP/c8i.lth" --path operator --times 0,4 \
  --format json
err_has "impulse at t0" "inconsistent chain: --path operator"
[ -s "$TMP/out" ] && fail "inconsistent chain: the operator path wrote an answer"

# ---- what only the dense path does ----
run 1 "--path operator --gain" "$LQR" "$DI" --path operator --gain --times 0,2
err_has "--gain" "--path operator --gain"
run 1 "--path operator --method shooting" "$LQR" "$DI" --path operator --method shooting --times 0,2
err_has "--method shooting" "--path operator --method shooting"

# ---- a large chain (nx = 2,000): auto takes the operator path ----
$PY "$ROOT/scripts/gen-chain.py" --lqr 1000 1 "$TMP/c1000.lth"
run 0 "chain nx = 2000: auto" "$LQR" "$TMP/c1000.lth" --times 0,1,2.5,4 --format json \
  -o "$TMP/c1000.json"
$CHECK conditions "$TMP/c1000.json" "$TMP/c1000" || fail "chain nx = 2000: optimality conditions"
grep -q '"pi_proven": 1' "$TMP/c1000.json" || fail "chain nx = 2000: Pi not proven on the interval"

# ---- time-varying data past nx = 3,000 (the jump check once enclosed the blocks as
# nx x nx and refused them there): solved, and checked by an independent integration;
# a jump that needs an impulse is refused naming t (dense path: no smooth optimum) ----
$PY "$ROOT/scripts/gen-chain.py" --lqr 8 1 "$TMP/tv8.lth" --time-varying
for p in operator dense; do
  run 0 "time-varying chain nx = 16: --path $p" "$LQR" "$TMP/tv8.lth" --path $p \
    --times 0,1,2.5,4 --format json -o "$TMP/tv8.$p.json"
done
$CHECK agree "$TMP/tv8.operator.json" "$TMP/tv8.dense.json" ||
  fail "time-varying chain nx = 16: the paths differ"
$PY "$ROOT/scripts/gen-chain.py" --lqr 1501 1 "$TMP/tv1501.lth" --time-varying
run 0 "time-varying chain nx = 3002" "$LQR" "$TMP/tv1501.lth" --times 0,1,2.5,4 --format json \
  -o "$TMP/tv1501.json"
$CHECK conditions "$TMP/tv1501.json" "$TMP/tv1501" ||
  fail "time-varying chain nx = 3002: optimality conditions"
$PY "$ROOT/scripts/gen-chain.py" --lqr 8 1 "$TMP/j8.lth" --jump
run 0 "H jumps, nx = 16: --path dense" "$LQR" "$TMP/j8.lth" --path dense --times 0,4 \
  --format json -o "$TMP/j8.json"
grep -q '"exists": false' "$TMP/j8.json" || fail "H jumps, nx = 16: dense exists"
# its note lists 16-entry vectors: shortened with "... (N more)]", never cut mid-list
note=$("$LQR" "$TMP/j8.lth" --path dense --times 0,4 2>&1 | grep -m1 'x0_consistent = ')
[[ "$note" == *"more)], is not reachable"* && "$note" != *", ,"* ]] ||
  fail "H jumps, nx = 16: the note's vectors are cut off: $note"
for N in 8 1501; do
  $PY "$ROOT/scripts/gen-chain.py" --lqr $N 1 "$TMP/j$N.lth" --jump
  run 3 "H jumps, nx = $((2 * N)): --path operator" "$LQR" "$TMP/j$N.lth" --path operator \
    --times 0,4 --format json
  err_has "no solution without an impulse" "H jumps, nx = $((2 * N))"
  err_has "A(2,1) entry (" "H jumps, nx = $((2 * N))"
  t=$(sed -n 's/.*(t = \([-0-9.eE+]*\)).*/\1/p' "$TMP/err")
  awk -v t="$t" 'BEGIN { d = t - 2.3; if (d < 0) d = -d; exit !(t != "" && d < 1e-12) }' ||
    fail "H jumps, nx = $((2 * N)): the refusal names t = '$t', not 2.3"
done

finish cli_lqr_oppath
