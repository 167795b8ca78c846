# SPDX-License-Identifier: GPL-3.0-or-later
# The operator path's proof that Pi stays nonsingular between the
# integrator's points (lib/decomp/op_piproof.c, docs/enclosures.md): a Pi
# that dips towards singularity and comes back between two of CVODE's times,
# or whose determinant changes sign twice within one step, is refused naming
# t, as the dense path's scan refuses it; a Pi proven nonsingular is reported
# as proven (stats.pi_proven in the JSON, a line of the text report), on a
# small system and on the generated chain at s = 2003.
# Usage: bash cli_oppath_proof.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
TESTS=${LTH_TEST_DIR:?LTH_TEST_DIR must name tests/}
ROOT="$TESTS/.."

# z_1' = [0 1; -1 0] z_1 + [1; 0] u,  0 = a(t) z_1[1] + f_2: Pi = a(t), which
# comes within the given amount of 0 at t = 0.8123 (not a point that halving [0, 2] reaches)
# and is far from it at CVODE's points
dip() {
  cat <<DATA
lth 1
problem dae
blocks 2 1
interval 0 2
A(1,1) = [0, 1; -1, 0]
A(1,2) = [1; 0]
A(2,1) = [(t - 0.8123)^2 + $1, 0]
f(2) = $2
z0 = [1 0 0]
DATA
}
dip 1e-9 "-(t - 0.8123)^2 - 1e-9" >"$TMP/dip9.lth"
dip 1e-14 "-(t - 0.8123)^2 - 1e-14" >"$TMP/dip14.lth"
dip -1e-10 0 >"$TMP/twice.lth" # det Pi < 0 on (0.8123 - 1e-5, 0.8123 + 1e-5) only

# Pi = 1e-9 at t = 0.8123: cond 1e9, above --cond-max 1e6 (the dense path refuses)
for p in dense operator; do
  run 3 "dip 1e-9, --cond-max 1e6, --path $p" "$APPS/lth-solve" "$TMP/dip9.lth" --path $p \
    --times 2 --cond-max 1e6 --error-estimate off
  err_has "(t = 0.812" "dip 1e-9, --path $p: t of the dip"
done
# Pi = 1e-14 at t = 0.8123: above the default threshold 1e12
run 3 "dip 1e-14, --path operator" "$APPS/lth-solve" "$TMP/dip14.lth" --path operator --times 2 \
  --error-estimate off
err_has "(t = 0.812" "dip 1e-14: t of the dip"
# det Pi changes sign at 0.8123 - 1e-5 and back at 0.8123 + 1e-5, within one step
run 3 "two sign changes, --path operator" "$APPS/lth-solve" "$TMP/twice.lth" --path operator \
  --times 2 --project --error-estimate off
err_has "singular" "two sign changes: the message"
err_has "(t = 0.812" "two sign changes: the t"

# within the threshold the dip is proven nonsingular on all of [0, 2]
run 0 "dip 1e-9, default --cond-max" "$APPS/lth-solve" "$TMP/dip9.lth" --path operator \
  --times 1,2 --format json -o "$TMP/dip9.json"
[ "$("$JT" get "$TMP/dip9.json" stats.pi_proven)" = 1 ] ||
  fail "dip 1e-9: stats.pi_proven = $("$JT" get "$TMP/dip9.json" stats.pi_proven), not 1"
run 0 "dip 1e-9: text" "$APPS/lth-solve" "$TMP/dip9.lth" --path operator --times 2 \
  --error-estimate off
grep -q "^Pi             proven nonsingular on 100% of \[0, 2\]" "$TMP/out" ||
  fail "dip 1e-9: no proof line in the text report: $(grep -A1 '^Pi ' "$TMP/out")"

# the chain of gen-chain.py at s = 2003 (mm() blocks): proven on all of it
/usr/bin/python3 "$ROOT/scripts/gen-chain.py" --mm 1000 3 "$TMP/chain.lth" || fail "gen-chain.py --mm"
run 0 "chain s = 2003" "$APPS/lth-solve" "$TMP/chain.lth" --times 0.5,1,2 --rtol 1e-8 \
  --atol 1e-10 --error-estimate off --format json -o "$TMP/chain.json"
"$JT" get "$TMP/chain.json" path | grep -q operator || fail "chain: not on the operator path"
[ "$("$JT" get "$TMP/chain.json" stats.pi_proven)" = 1 ] ||
  fail "chain: stats.pi_proven = $("$JT" get "$TMP/chain.json" stats.pi_proven), not 1"

finish cli_oppath_proof
