# SPDX-License-Identifier: GPL-3.0-or-later
# lth-bvp's operator path (--path auto|dense|operator; docs/user-guide.md,
# "Boundary-value problems"): the shipped BVP examples forced onto it agree
# with the dense collocation within both error estimates and the tolerance
# (tests/cli/bvp_oppath_check.py); a generated chain (scripts/gen-chain.py
# --bvp, s = 1003, p = 994) takes it by itself, meets its conditions, and is
# reproduced by an independent integration from its z(t0); what only the
# dense path does is refused naming why.
# Usage: bash cli_bvp_oppath.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
TESTS=${LTH_TEST_DIR:?LTH_TEST_DIR must name tests/}
ROOT="$TESTS/.."
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
CHECK="$PY $TESTS/cli/bvp_oppath_check.py"

if ! "$APPS/lth-bvp" "$DATA/index2.lth" --path operator --times 1 >/dev/null 2>&1; then
  # a build without KLU: the operator path is refused, naming why
  run 1 "no KLU: --path operator" "$APPS/lth-bvp" "$DATA/index2.lth" --path operator
  err_has "KLU" "no KLU"
  finish cli_bvp_oppath
  exit 0
fi

# ---- shipped examples, both paths ----
for f in "$DATA/chain_bvp.lth" "$DATA/index2.lth" "$DATA/pendulum_bvp.lth" \
  "$DATA/pendulum_forced_bvp.lth" "$DATA/pendulum_10s_bvp.lth" "$DATA/rlc_periodic.lth" \
  "$TESTS/data/chain_bvp_matrices.lth" "$TESTS/data/three_masses.lth"; do
  ex=$(basename "$f" .lth)
  for p in operator dense; do
    run 0 "$ex: --path $p" "$APPS/lth-bvp" "$f" --path $p --format json -o "$TMP/$ex.$p.json"
  done
  $CHECK agree "$TMP/$ex.operator.json" "$TMP/$ex.dense.json" || fail "$ex: the paths differ"
done
# data that are not smooth: a kink and a pulse between mesh points cost the operator path
# mesh, not accuracy; a jump the constraints hold has no solution and is refused as on
# the dense path (it answered one before)
F="$TESTS/data/features"
for ex in kink_bvp pulse_bvp; do
  for p in operator dense; do
    run 0 "$ex: --path $p" "$APPS/lth-bvp" "$F/$ex.lth" --path $p --times 0.25,0.75,1 \
      --format json -o "$TMP/$ex.$p.json"
  done
  $CHECK agree "$TMP/$ex.operator.json" "$TMP/$ex.dense.json" || fail "$ex: the paths differ"
done
run 3 "jump in the constraint, --path operator" "$APPS/lth-bvp" "$F/jump_constraint_bvp.lth" \
  --path operator && err_has "no solution without an impulse" "jump, operator path"

run 0 "text report on the operator path" "$APPS/lth-bvp" "$DATA/index2.lth" --path operator
grep -q "^path           operator (--path operator" "$TMP/out" || fail "no operator path line"
grep -q "KLU's estimate for the collocation system" "$TMP/out" || fail "cond_shooting's meaning"

# ---- a small chain, both paths (the dense one still fits) ----
$PY "$ROOT/scripts/gen-chain.py" --bvp --equations 50 3 "$TMP/c50.lth" || fail "gen-chain.py --bvp"
for p in operator dense; do
  run 0 "chain s = 103: --path $p" "$APPS/lth-bvp" "$TMP/c50.lth" --path $p \
    --times 0,0.5,1,1.5,2 --format json -o "$TMP/c50.$p.json"
done
$CHECK agree "$TMP/c50.operator.json" "$TMP/c50.dense.json" || fail "chain s = 103: paths differ"

# ---- conditions from Matrix Market files: bc B0 = mm("..."), the same as written out ----
for form in mm block; do
  flag=$([ $form = mm ] && echo --mm || true)
  $PY "$ROOT/scripts/gen-chain.py" $flag --bvp 20 2 "$TMP/c20$form.lth" || fail "gen-chain.py $form"
  run 0 "chain s = 42, bc as $form" "$APPS/lth-bvp" "$TMP/c20$form.lth" --times 0,1 \
    --format json -o "$TMP/c20$form.json"
done
grep -q 'bc B0 = mm("' "$TMP/c20mm.lth" || fail "gen-chain.py --mm --bvp: no mm() in bc"
$PY -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
d = max(abs(x - y) for ra, rb in zip(a["z"], b["z"]) for x, y in zip(ra, rb))
sys.exit(0 if d <= 1e-12 * max(1.0, max(abs(x) for r in b["z"] for x in r)) else 1)
' "$TMP/c20mm.json" "$TMP/c20block.json" || fail "bc from mm() differs from [...]"
sed -i 's/^bc beta = mm(/bc beta = sin(t)*mm(/' "$TMP/c20mm.lth"
run 2 "bc with mm() times a function of t" "$APPS/lth-bvp" "$TMP/c20mm.lth" --times 1
err_has "must be constant" "mm() in bc times sin(t)"

# ---- conditions that fix nothing the constraints leave free: not uniquely solvable ----
cat >"$TMP/fixnothing.lth" <<'DATA'
lth 1
problem dae
blocks 2 1
interval 0 2
A(1,1) = [0, 1; -1, 0]
A(1,2) = [1; 0]
A(2,1) = [1 + t^2, 0]
f(2) = -1
bc B0 = [1, 0, 0]
bc B1 = [0, 0, 0]
bc beta = [1]
DATA
run 3 "conditions on what the constraint fixes, --path operator" "$APPS/lth-bvp" \
  "$TMP/fixnothing.lth" --path operator --times 1
err_has "not uniquely solvable" "fixes nothing: operator path"
err_has "the boundary conditions are dependent on the solution manifold" "fixes nothing: wording"

# ---- the chain at s = 1003: auto takes the operator path ----
$PY "$ROOT/scripts/gen-chain.py" --bvp --equations 500 3 "$TMP/c500.lth" || fail "gen-chain.py"
run 0 "chain s = 1003" "$APPS/lth-bvp" "$TMP/c500.lth" --times 0,1,2 --format json \
  -o "$TMP/c500.json"
"$JT" get "$TMP/c500.json" path | grep -q operator || fail "chain s = 1003: not the operator path"
"$JT" below "$TMP/c500.json" error_estimate 1e-7 || fail "chain s = 1003: error estimate"
"$JT" below "$TMP/c500.json" bc_residual 1e-10 || fail "chain s = 1003: bc residual"
$CHECK ivp "$TMP/c500.json" "$TMP/c500.lth" 500 3 "$APPS/lth-solve" ||
  fail "chain s = 1003: the IVP from z(t0) does not reproduce the BVP's solution"

# ---- the dense path at s = 10,003 (p = 9,994): refused at once, naming s and the GB ----
# (before, it started a collocation of (7 p)^2 stage matrices and never came back; and the
# equation form's bc statements became four dense p x s arrays, 1.6 GB, while reading)
$PY "$ROOT/scripts/gen-chain.py" --bvp --equations 5000 3 "$TMP/c5000.lth" || fail "gen-chain.py"
if [ -x /usr/bin/time ]; then
  run 3 "chain s = 10003, --path dense" /usr/bin/time -f "peak %M KB" timeout 60 \
    "$APPS/lth-bvp" "$TMP/c5000.lth" --path dense --times 0,1,2
  kb=$(sed -n 's/^peak \([0-9]*\) KB$/\1/p' "$TMP/err")
  [ -n "$kb" ] && [ "$kb" -lt 500000 ] || fail "chain s = 10003: reading took $kb KB (the bc as dense p x s?)"
else
  run 3 "chain s = 10003, --path dense" timeout 60 "$APPS/lth-bvp" "$TMP/c5000.lth" --path dense \
    --times 0,1,2
fi
err_has "dense collocation at s = 10003 (p = 9994 free constants) needs about" "dense refusal"

# ---- what only the dense path does ----
run 1 "--path operator --method shooting" "$APPS/lth-bvp" "$DATA/index2.lth" --path operator \
  --method shooting && err_has "--method shooting, multiple or fd" "--method"
run 1 "--path operator --coefficients direct" "$APPS/lth-bvp" "$DATA/index2.lth" \
  --path operator --coefficients direct && err_has "--coefficients" "--coefficients"

finish cli_bvp_oppath
