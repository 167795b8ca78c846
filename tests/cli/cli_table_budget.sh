# SPDX-License-Identifier: GPL-3.0-or-later
# The automatic choice between the coefficient table and direct decompositions
# (lib/ivp/ivp_coef.c) is looked at within a build, not only between builds:
# on tests/data/table_narrow_panels.lth the table's panels come out narrow
# near t = 1.24, and one build ran for minutes (more than 2 minutes without
# an end) where direct decompositions solve the whole interval in 1.4 s.
#  - lth-solve (auto) ends, well within the bound below (9 s measured on a
#    2-core machine; the bound is 20 times that, against a hang, not a timing);
#  - its answer agrees with --coefficients direct within the two runs' own
#    error estimates.
# (The memory budget: below.)
# Usage: bash cli_table_budget.sh BUILD/apps   (env LTH_TEST_DIR = tests/)
. "$(dirname "$0")/testlib.sh"
SOLVE="$APPS/lth-solve"
F="${LTH_TEST_DIR:?}/data/table_narrow_panels.lth"
PY=/usr/bin/python3
# (rk8pd, which the default takes for this m = 12; cheb's auto decomposes directly)
if run 0 "lth-solve auto" timeout 180 "$SOLVE" "$F" -q --format json --method rk8pd; then
  cp "$TMP/out" "$TMP/auto.json"
  if run 0 "lth-solve direct" timeout 180 "$SOLVE" "$F" -q --format json --method rk8pd \
    --coefficients direct; then
    "$PY" - "$TMP/auto.json" "$TMP/out" <<'PY' || fail "auto and direct differ beyond their estimates"
import json, sys
import numpy as np
a, b = (json.load(open(f)) for f in sys.argv[1:3])
za, zb = np.array(a["z"]), np.array(b["z"])
bound = 10 * (a["error_estimate"] + b["error_estimate"]) + 1e-13 * max(1.0, np.abs(za).max())
d = np.abs(za - zb).max()
assert d <= bound, "difference %.3g, bound %.3g" % (d, bound)
PY
  fi
fi

# The memory budget counts the table's work arrays, which grow like s^2
# (docs/performance.md, "The table at size"), and is checked before they are
# allocated.  The index-3 chain of scripts/gen-chain.py with 30 masses
# (s = 63) needs about 32 MB of them: with --table-memory 10
#  - auto decomposes directly from t0 on and says so (stats.table_end = t0,
#    no panels), its answer the same as --coefficients direct within their
#    error estimates;
#  - --coefficients table fails (exit 3) naming the budget;
#  - with the default budget the table is used (no table_end: it covered all).
# Before, the budget counted the coefficients only: the table was built past it.
CHAIN="$TMP/chain63.lth"
"$PY" "${LTH_TEST_DIR:?}/../scripts/gen-chain.py" 30 3 "$CHAIN" || fail "gen-chain.py"
if run 0 "chain auto, 10 MB" "$SOLVE" "$CHAIN" -q --format json --rtol 1e-8 --table-memory 10; then
  cp "$TMP/out" "$TMP/small.json"
  [ "$("$JT" get "$TMP/small.json" stats.table_panels)" = 0 ] ||
    fail "10 MB: the table has $("$JT" get "$TMP/small.json" stats.table_panels) panels"
  near "$TMP/small.json" stats.table_end 0 0 "10 MB: table_end"
  if run 0 "chain direct" "$SOLVE" "$CHAIN" -q --format json --rtol 1e-8 --coefficients direct; then
    "$PY" - "$TMP/small.json" "$TMP/out" <<'PY' || fail "chain: auto (10 MB) and direct differ beyond their estimates"
import json, sys
import numpy as np
a, b = (json.load(open(f)) for f in sys.argv[1:3])
za, zb = np.array(a["z"]), np.array(b["z"])
bound = 10 * (a["error_estimate"] + b["error_estimate"]) + 1e-13 * max(1.0, np.abs(za).max())
d = np.abs(za - zb).max()
assert d <= bound, "difference %.3g, bound %.3g" % (d, bound)
PY
  fi
fi
if run 0 "chain auto, text" "$SOLVE" "$CHAIN" -q --rtol 1e-8 --table-memory 10; then
  grep -q "direct decompositions from t = 0 on" "$TMP/out" || fail "10 MB: the text does not say where direct decompositions took over"
fi
run 3 "chain table, 10 MB" "$SOLVE" "$CHAIN" -q --rtol 1e-8 --table-memory 10 --coefficients table &&
  err_has "memory budget" "chain table, 10 MB"
if run 0 "chain auto, default budget" "$SOLVE" "$CHAIN" -q --format json --rtol 1e-8; then
  [ "$("$JT" get "$TMP/out" stats.table_panels)" -ge 1 ] || fail "default budget: no table"
  "$JT" get "$TMP/out" stats.table_end >/dev/null 2>&1 && fail "default budget: the table stopped early"
fi
finish cli_table_budget
