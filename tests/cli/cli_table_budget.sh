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
# Usage: bash cli_table_budget.sh BUILD/apps   (env LTH_TEST_DIR = tests/)
. "$(dirname "$0")/testlib.sh"
SOLVE="$APPS/lth-solve"
F="${LTH_TEST_DIR:?}/data/table_narrow_panels.lth"
PY=/usr/bin/python3
if run 0 "lth-solve auto" timeout 180 "$SOLVE" "$F" -q --format json; then
  cp "$TMP/out" "$TMP/auto.json"
  if run 0 "lth-solve direct" timeout 180 "$SOLVE" "$F" -q --format json --coefficients direct; then
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
finish cli_table_budget
