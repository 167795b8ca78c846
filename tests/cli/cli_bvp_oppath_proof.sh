# SPDX-License-Identifier: GPL-3.0-or-later
# lth-bvp's operator path proves Pi nonsingular and within --cond-max over
# [t0, t1] from the data's enclosures before collocating (lib/ivp/opivp_proof.c,
# docs/enclosures.md, "Pi between the points"), as lth-solve's operator path
# does between its output times (cli_oppath_proof.sh): a Pi that dips towards
# singularity between the mesh points, or whose determinant changes sign twice
# between two of them, is refused naming t (it was solved with exit status 0);
# a Pi proven nonsingular is reported (pi_proven in the JSON, a `Pi` line in
# the text report), on a small system and on a generated chain.
# Usage: bash cli_bvp_oppath_proof.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
TESTS=${LTH_TEST_DIR:?LTH_TEST_DIR must name tests/}
ROOT="$TESTS/.."

"$APPS/lth-bvp" "$DATA/index2.lth" --path operator --times 1 >/dev/null 2>"$TMP/err"
if [ $? -eq 1 ] && grep -q KLU "$TMP/err"; then
  # a build without KLU has no operator path for lth-bvp (cli_bvp_oppath.sh checks the refusal)
  finish cli_bvp_oppath_proof
  exit 0
fi

# cli_oppath_proof.sh's system with one boundary condition (p = 1): z_1[2](0) = 1
# (z_1[1] is fixed by the constraint).
# z_1' = [0 1; -1 0] z_1 + [1; 0] u,  0 = a(t) z_1[1] + f_2: Pi = a(t), which comes within
# the given amount of 0 at t = 0.8123 (not a point of the uniform mesh nor of its halvings)
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
bc B0 = [0, 1, 0]
bc B1 = [0, 0, 0]
bc beta = [1]
DATA
}
dip 1e-9 "-(t - 0.8123)^2 - 1e-9" >"$TMP/dip9.lth"
dip 1e-14 "-(t - 0.8123)^2 - 1e-14" >"$TMP/dip14.lth"
dip -1e-10 0 >"$TMP/twice.lth" # det Pi < 0 on (0.8123 - 1e-5, 0.8123 + 1e-5) only

# Pi = 1e-9 at t = 0.8123: cond 1e9, above --cond-max 1e6 (the dense path refuses it too)
for p in dense operator; do
  run 3 "dip 1e-9, --cond-max 1e6, --path $p" "$APPS/lth-bvp" "$TMP/dip9.lth" --path $p \
    --times 0,1,2 --cond-max 1e6
  err_has "(t = 0.812" "dip 1e-9, --path $p: t of the dip"
done
# Pi = 1e-14 at t = 0.8123: above the default threshold 1e12
run 3 "dip 1e-14, --path operator" "$APPS/lth-bvp" "$TMP/dip14.lth" --path operator --times 0,2
err_has "(t = 0.812" "dip 1e-14: t of the dip"
# det Pi changes sign at 0.8123 - 1e-5 and back at 0.8123 + 1e-5, between two mesh points
run 3 "two sign changes, --path operator" "$APPS/lth-bvp" "$TMP/twice.lth" --path operator \
  --times 0,2
err_has "singular" "two sign changes: the message"
err_has "(t = 0.812" "two sign changes: the t"

# within the threshold the dip is proven nonsingular on all of [0, 2]
run 0 "dip 1e-9, default --cond-max" "$APPS/lth-bvp" "$TMP/dip9.lth" --path operator \
  --times 0,1,2 --format json -o "$TMP/dip9.json"
[ "$("$JT" get "$TMP/dip9.json" pi_proven)" = 1 ] ||
  fail "dip 1e-9: pi_proven = $("$JT" get "$TMP/dip9.json" pi_proven), not 1"
"$JT" below "$TMP/dip9.json" pi_inv_bound 1e10 || fail "dip 1e-9: pi_inv_bound"
# ||Pi^-1|| = 1e9 at the dip: a bound can be no smaller
"$JT" below "$TMP/dip9.json" pi_inv_bound 0.99e9 2>/dev/null && fail "dip 1e-9: pi_inv_bound below 1/|Pi(0.8123)|"
run 0 "dip 1e-9: text" "$APPS/lth-bvp" "$TMP/dip9.lth" --path operator --times 0,2
grep -q "^Pi             proven nonsingular on 100% of \[0, 2\]" "$TMP/out" ||
  fail "dip 1e-9: no proof line in the text report: $(grep -A1 '^Pi ' "$TMP/out")"
# the dense path has its own scan and no such line
run 0 "dip 1e-9: text, --path dense" "$APPS/lth-bvp" "$TMP/dip9.lth" --path dense --times 0,2
grep -q "^Pi " "$TMP/out" && fail "dip 1e-9, --path dense: a Pi line of the operator path"

# the generated chain (equation form, s = 103): proven on all of it
/usr/bin/python3 "$ROOT/scripts/gen-chain.py" --bvp --equations 50 3 "$TMP/c50.lth" ||
  fail "gen-chain.py --bvp --equations"
run 0 "chain s = 103" "$APPS/lth-bvp" "$TMP/c50.lth" --path operator --times 0,1,2 \
  --format json -o "$TMP/c50.json"
[ "$("$JT" get "$TMP/c50.json" pi_proven)" = 1 ] ||
  fail "chain: pi_proven = $("$JT" get "$TMP/c50.json" pi_proven), not 1"
[ "$("$JT" get "$TMP/c50.json" pi_proofs)" -ge 2 ] ||
  fail "chain: pi_proofs = $("$JT" get "$TMP/c50.json" pi_proofs), below one per part (2)"

# a mass matrix solved inside the chain carries no enclosure: nothing proven, and said so
/usr/bin/python3 "$ROOT/scripts/gen-chain.py" --mm --coupled-masses --bvp 20 2 "$TMP/cm.lth" ||
  fail "gen-chain.py --mm --coupled-masses --bvp"
run 0 "coupled masses" "$APPS/lth-bvp" "$TMP/cm.lth" --path operator --times 0,1 --format json \
  -o "$TMP/cm.json"
[ "$("$JT" get "$TMP/cm.json" pi_proven)" = 0 ] ||
  fail "coupled masses: pi_proven = $("$JT" get "$TMP/cm.json" pi_proven), not 0"
[ "$("$JT" get "$TMP/cm.json" pi_inv_bound)" = null ] ||
  fail "coupled masses: pi_inv_bound = $("$JT" get "$TMP/cm.json" pi_inv_bound), not null"
run 0 "coupled masses: text" "$APPS/lth-bvp" "$TMP/cm.lth" --path operator --times 0,1
grep -q "^Pi             checked at the mesh points only" "$TMP/out" ||
  fail "coupled masses: the Pi line does not say the proof is off: $(grep -A2 '^Pi ' "$TMP/out")"

finish cli_bvp_oppath_proof
