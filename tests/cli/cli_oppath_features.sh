#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Nothing hides between the points on the operator path either
# (docs/enclosures.md, "Where lth uses them"): the features of
# tests/data/features/ through lth-solve and lth-bvp with --path operator,
# each against its closed form (the values are in the files' comments, or
# below).  Before this test:
#  - a pulse of width 5e-6 in the load fell between CVODE's steps and
#    between the collocation mesh's Gauss points: y(1) = 0 for 0.054, exit 0,
#    from both tools (and an error estimate of 0);
#  - a jump in a row the constraint never reaches (an answer exists) was
#    refused by lth-bvp's operator path after 53,248 intervals.
# An answer must lie within the tool's tolerance relative to max(1, |z|)
# (lth-bvp: --tol; lth-solve: 100 x --rtol, a BDF global error over a few
# hundred steps), or the tool must refuse (exit 3) naming the feature's t.
# Usage: bash cli_oppath_features.sh BUILD/apps   (env LTH_TEST_DIR = tests/)
. "$(dirname "$0")/testlib.sh"
D="${LTH_TEST_DIR:?LTH_TEST_DIR must name the tests directory}/data/features"
SOLVE="$APPS/lth-solve"
BVP="$APPS/lth-bvp"

# y_near WHAT FILE K COMPONENT TRUTH TOL
y_near() {
  near "$2" "z[$3][$4]" "$5" "$6" "$1: z[$3][$4]"
}

# ---- a pulse of width 5e-6 and height 1e4 at 0.503711, off every dyadic
# point: y' = -y + 1e4 exp(-((t - c)/w)^2), y(0) = 0 (pulse_bvp.lth's closed
# form times 1e4; mpmath, 40 digits)
sed 's/^param w = .*/param w = 0.000005/; s/^param c = .*/param c = 0.503711/;
     s/exp(-((t-c)\/w)^2)/10000*exp(-((t-c)\/w)^2)/' "$D/pulse_bvp.lth" >"$TMP/pulse_bvp.lth"
grep -q "10000\*exp" "$TMP/pulse_bvp.lth" || fail "pulse: the test's edit of pulse_bvp.lth"
grep -v '^bc ' "$TMP/pulse_bvp.lth" >"$TMP/pulse.lth"
Y2=0.088614805477172875702 # y(0.5038)
Y3=0.069276029268582709908 # y(0.75)
Y4=0.053952225842449777519 # y(1)
run 0 "pulse: lth-solve --path operator" "$SOLVE" "$TMP/pulse.lth" --path operator --z0 0,0,1 \
  --times 0.25,0.5038,0.75,1 --rtol 1e-8 --atol 1e-10 --format json && {
  cp "$TMP/out" "$TMP/ps.json"
  y_near "pulse lth-solve" "$TMP/ps.json" 0 1 0 1e-6
  y_near "pulse lth-solve" "$TMP/ps.json" 1 1 "$Y2" 1e-6
  y_near "pulse lth-solve" "$TMP/ps.json" 2 1 "$Y3" 1e-6
  y_near "pulse lth-solve" "$TMP/ps.json" 3 1 "$Y4" 1e-6
}
for tol in 1e-8 1e-11; do
  run 0 "pulse: lth-bvp --path operator --tol $tol" "$BVP" "$TMP/pulse_bvp.lth" --path operator \
    --tol "$tol" --times 0.25,0.5038,0.75,1 --format json && {
    cp "$TMP/out" "$TMP/pb.json"
    y_near "pulse lth-bvp tol $tol" "$TMP/pb.json" 1 1 "$Y2" "$tol"
    y_near "pulse lth-bvp tol $tol" "$TMP/pb.json" 2 1 "$Y3" "$tol"
    y_near "pulse lth-bvp tol $tol" "$TMP/pb.json" 3 1 "$Y4" "$tol"
  }
done

# ---- a kink of a coefficient at 0.5037: y' = -|t - c| y (kink_bvp.lth)
grep -v '^bc ' "$D/kink_bvp.lth" >"$TMP/kink.lth"
run 0 "kink: lth-solve --path operator" "$SOLVE" "$TMP/kink.lth" --path operator --z0 0,1,1 \
  --times 0.25,0.75,1 --rtol 1e-10 --atol 1e-12 --format json && {
  y_near "kink lth-solve" "$TMP/out" 0 1 0.90966852870339496 1e-8
  y_near "kink lth-solve" "$TMP/out" 1 1 0.85454279992327562 1e-8
  y_near "kink lth-solve" "$TMP/out" 2 1 0.77879012136166419 1e-8
}
for tol in 1e-8 1e-12; do
  run 0 "kink: lth-bvp --path operator --tol $tol" "$BVP" "$D/kink_bvp.lth" --path operator \
    --tol "$tol" --times 0.25,0.75,1 --format json && {
    y_near "kink lth-bvp tol $tol" "$TMP/out" 0 1 0.90966852870339496 "$tol"
    y_near "kink lth-bvp tol $tol" "$TMP/out" 1 1 0.85454279992327562 "$tol"
    y_near "kink lth-bvp tol $tol" "$TMP/out" 2 1 0.77879012136166419 "$tol"
  }
done

# ---- a jump in y2's row, which the constraint never reaches
# (jump_unreached_bvp.lth: the closed form and its values in its comment)
J="$D/jump_unreached_bvp.lth"
grep -v '^bc ' "$J" >"$TMP/jump.lth"
run 0 "jump: lth-solve --path operator" "$SOLVE" "$TMP/jump.lth" --path operator \
  --z0 1,1,0,-1.3324649974234045,0 --times 0.25,0.75,1 --rtol 1e-10 --atol 1e-12 --format json && {
  y_near "jump lth-solve" "$TMP/out" 0 1 0.67645900291377552 1e-8
  y_near "jump lth-solve" "$TMP/out" 0 3 -1.25892400033718 1e-8
  y_near "jump lth-solve" "$TMP/out" 1 1 0.13055571419850214 1e-8
  y_near "jump lth-solve" "$TMP/out" 1 3 -0.72042071162190665 1e-8
  y_near "jump lth-solve" "$TMP/out" 2 3 -0.33986499742340452 1e-8
}
run 0 "jump: lth-bvp --path operator" "$BVP" "$J" --path operator --times 0.25,0.75,1 \
  --format json && {
  y_near "jump lth-bvp" "$TMP/out" 0 1 0.67645900291377552 1e-8
  y_near "jump lth-bvp" "$TMP/out" 0 3 -1.25892400033718 1e-8
  y_near "jump lth-bvp" "$TMP/out" 1 1 0.13055571419850214 1e-8
  y_near "jump lth-bvp" "$TMP/out" 1 3 -0.72042071162190665 1e-8
  y_near "jump lth-bvp" "$TMP/out" 2 3 -0.33986499742340452 1e-8
}

# ---- a jump in the constraint: no solution; refused naming t = 0.5037
run 3 "jump in the constraint: lth-bvp --path operator" "$BVP" "$D/jump_constraint_bvp.lth" \
  --path operator && err_has "t = 0.5037" "jump in the constraint"

finish cli_oppath_features
