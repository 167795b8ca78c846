# SPDX-License-Identifier: GPL-3.0-or-later
# Sparse blocks from Matrix Market files (docs/format.md, "Sparse blocks"):
# the shipped chain data/chain_sparse.lth, whose blocks are mm("...")
# combinations, against tests/data/chain_explicit.lth, the same problem with
# the matrices written as literals.  lth-decompose (every matrix at every
# grid point), lth-ic and lth-solve (every output) must agree to the
# tolerances tests/cli/sparse_check.py derives from the outputs' condition
# numbers and error estimates; then edits of the data file that must fail:
# a missing, misnamed, wrongly sized or malformed file is exit 2 naming the
# data file's line and column.
# Usage: bash cli_sparse.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
TESTS=${LTH_TEST_DIR:?LTH_TEST_DIR must name tests/}
SPARSE="$DATA/chain_sparse.lth"
EXPLICIT="$TESTS/data/chain_explicit.lth"
CHECK="/usr/bin/python3 $TESTS/cli/sparse_check.py"
[ -x /usr/bin/python3 ] || CHECK="python3 $TESTS/cli/sparse_check.py"

for tool in lth-decompose lth-ic lth-solve; do
  [ -x "$APPS/$tool" ] || { echo "FAIL: $APPS/$tool not built" >&2; exit 1; }
done

# ---- the same problem two ways ----
for form in sparse explicit; do
  f=$SPARSE
  [ "$form" = explicit ] && f=$EXPLICIT
  run 0 "$form: lth-decompose" "$APPS/lth-decompose" "$f" --check --format json -o "$TMP/$form.dec.json"
  "$JT" below "$TMP/$form.dec.json" worst 1e-10 || fail "$form: a --check residual exceeds 1e-10"
  run 0 "$form: lth-ic" "$APPS/lth-ic" "$f" --format json -o "$TMP/$form.ic.json"
  "$JT" below "$TMP/$form.ic.json" residual 1e-12 || fail "$form: the file's z0 is not consistent"
  run 0 "$form: lth-solve" "$APPS/lth-solve" "$f" --format json -o "$TMP/$form.sol.json"
  run 0 "$form: lth-solve, direct" "$APPS/lth-solve" "$f" --coefficients direct --format json \
    -o "$TMP/$form.dir.json"
done
$CHECK decompose "$TMP/sparse.dec.json" "$TMP/explicit.dec.json" || fail "lth-decompose differs"
$CHECK ic "$TMP/sparse.ic.json" "$TMP/explicit.ic.json" || fail "lth-ic differs"
$CHECK solve "$TMP/sparse.sol.json" "$TMP/explicit.sol.json" || fail "lth-solve differs"
$CHECK solve "$TMP/sparse.dir.json" "$TMP/explicit.dir.json" ||
  fail "lth-solve --coefficients direct differs"

# ---- the path is the data file's folder's, wherever the tool runs ----
cp "$SPARSE" "$DATA"/chain_K.mtx "$DATA"/chain_D.mtx "$DATA"/chain_G.mtx "$TMP"/
(cd / && "$APPS/lth-decompose" "$TMP/chain_sparse.lth" --at 1.5 --format json >"$TMP/moved.json") ||
  fail "chain_sparse.lth copied elsewhere and run from /: not read"

# ---- edits that must fail with exit 2 at the data file's line and column ----
# line: that of `A(1,2) = -(1 + 0.1*sin(t)) * mm("chain_K.mtx")` in
# chain_sparse.lth; its mm( starts at column 30, the file name at 34.
line=$(grep -n '^A(1,2) = ' "$SPARSE" | cut -d: -f1)
bad() { # WHAT SED-EXPR POSITION MESSAGE
  sed "$2" "$TMP/chain_sparse.lth" >"$TMP/bad.lth"
  run 2 "$1" "$APPS/lth-decompose" "$TMP/bad.lth" --quiet && {
    err_has "bad.lth:$3: " "$1"
    err_has "$4" "$1"
    [ -s "$TMP/out" ] && fail "$1: a failing run printed a result"
  }
}
bad "missing file" "s/chain_K.mtx/chain_X.mtx/" "$line:34" 'mm("chain_X.mtx"): cannot open'
bad "wrong size" "s/mm(\"chain_K.mtx\")/mm(\"chain_G.mtx\")/" "$line:10" \
  "A(1,2) is 4 x 4, but the matrix from mm(...) is 1 x 4"
bad "unterminated name" "s/chain_K.mtx\")/chain_K.mtx)/" "$line:33" "unterminated string"
bad "empty name" "s/\"chain_K.mtx\"/\"\"/" "$line:33" 'empty file name'
bad "division by zero" "s/mm(\"chain_K.mtx\")/mm(\"chain_K.mtx\")\/0/" "$line:47" "division by zero"
# a malformed entry inside the Matrix Market file: its line and column, too
sed 's/^3 2 -1.3$/3 2 -1.3 9/' "$DATA/chain_K.mtx" >"$TMP/chain_K.mtx"
run 2 "malformed entry" "$APPS/lth-decompose" "$TMP/chain_sparse.lth" --quiet &&
  err_has "chain_sparse.lth:$line:34: mm(\"chain_K.mtx\"), line 11, column 10: unexpected '9'" \
    "malformed entry"
cp "$DATA/chain_K.mtx" "$TMP/chain_K.mtx"

finish cli_sparse
