# SPDX-License-Identifier: GPL-3.0-or-later
# lth-decompose --fields with the norms of the results (docs/user-guide.md
# section 2, docs/format.md section 2.2):
#  - the default output has no norm keys (it is the contract's, unchanged);
#  - --fields norms writes t and the six 1-norms, each the largest column sum
#    of |entries| of the matrix the full output writes (vectors: the sum of
#    |entries|), within the rounding of that sum, on shipped examples of
#    index 3 and 5 and on an equation-form file;
#  - CSV: the norm columns after cond_chain; text: a "1-norms:" line;
#  - on the index-3 chain of scripts/gen-chain.py (s = 63) the norms are a
#    small fraction of the full output;
#  - unknown names are usage errors.
# Usage: bash cli_decompose_fields.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
DEC="$APPS/lth-decompose"
PY=/usr/bin/python3
for f in index5 mass_varying pendulum; do
  F="$DATA/$f.lth"
  run 0 "$f full" "$DEC" "$F" --at 0.25,1 --format json -q || continue
  cp "$TMP/out" "$TMP/full.json"
  run 0 "$f norms" "$DEC" "$F" --at 0.25,1 --format json -q --fields norms || continue
  "$PY" - "$TMP/full.json" "$TMP/out" <<'PY' || fail "$f: norms"
import json, sys
import numpy as np
full, nrm = (json.load(open(p)) for p in sys.argv[1:3])
names = ["P", "Ahat", "g", "Bhat", "q", "G"]
for a, b in zip(full["points"], nrm["points"]):
    assert not any(k.startswith("norm_") for k in a), "default output has norm keys"
    assert list(b) == ["t"] + ["norm_" + n for n in names], list(b)
    assert a["t"] == b["t"]
    for n in names:
        x = np.abs(np.array(a[n], dtype=float))
        want = x.sum() if x.ndim == 1 else (x.sum(axis=0).max() if x.size else 0.0)
        rows = x.shape[0] if x.size else 1
        tol = 4 * rows * np.finfo(float).eps * max(want, 1e-300)
        assert abs(b["norm_" + n] - want) <= tol, (n, b["norm_" + n], want)
PY
done
F="$DATA/mass_varying.lth"
run 0 "csv" "$DEC" "$F" --at 1 --format csv --fields norm_q,cond_chain,norm_P &&
  { [ "$(head -1 "$TMP/out")" = "t,cond_chain,norm_P,norm_q" ] || fail "CSV header: $(head -1 "$TMP/out")"; }
run 0 "text" "$DEC" "$F" --at 1 --fields norms,q && {
  grep -Eq "^  1-norms:  P [0-9.]+  Ahat [0-9.]+  g [0-9.]+  Bhat [0-9.]+  q [0-9.]+  G [0-9.]+$" "$TMP/out" ||
    fail "text: no 1-norms line: $(grep -n norms "$TMP/out")"
  grep -Eq "^  (P|Ahat|G) \(" "$TMP/out" && fail "text: --fields norms,q prints matrices"
}
CHAIN="$TMP/chain.lth"
"$PY" "${LTH_TEST_DIR:?}/../scripts/gen-chain.py" 30 3 "$CHAIN" || fail "gen-chain.py"
if run 0 "chain full" "$DEC" "$CHAIN" --at 1 --format json -q -o "$TMP/cfull.json" &&
  run 0 "chain norms" "$DEC" "$CHAIN" --at 1 --format json -q --fields cond_pi,norms -o "$TMP/cnorm.json"; then
  full=$(wc -c <"$TMP/cfull.json") small=$(wc -c <"$TMP/cnorm.json")
  [ "$small" -lt $((full / 20)) ] || fail "chain: --fields cond_pi,norms writes $small bytes of $full"
fi
run 1 "--fields norm" "$DEC" "$F" --fields P,norm && err_has "'norm'" "--fields P,norm"
run 1 "--fields norm_Q" "$DEC" "$F" --fields norm_Q && err_has "'norm_Q'" "--fields norm_Q"
finish cli_decompose_fields
