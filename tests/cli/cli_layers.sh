#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The layers of lib/ (scripts/check-layers.py, CONTRIBUTING.md): the tree
# passes -- no upward include, no cycle, no private header used across
# folders -- and the check itself fails on each kind of violation, planted in
# a copy of lib/ and include/.
source "$(dirname "$0")/testlib.sh"
ROOT=$(cd "$DATA/.." && pwd)
CHECK="$ROOT/scripts/check-layers.py"
PY=${PYTHON:-python3}

if run 0 "check-layers on the tree" "$PY" "$CHECK"; then
  grep -q "decomp .*-> " "$TMP/out" || fail "check-layers printed no graph: $(head -c 300 "$TMP/out")"
fi

# plant: a copy of the tree's lib/, include/ and the folders the check reads
plant() { # NAME FILE LINE: a copy with LINE prepended to FILE
  local dir="$TMP/$1"
  mkdir -p "$dir"
  cp -r "$ROOT/lib" "$ROOT/include" "$ROOT/tests" "$ROOT/scripts" "$dir/"
  for d in apps python bench examples; do mkdir -p "$dir/$d"; done
  printf '%s\n' "$3" | cat - "$dir/$2" >"$dir/$2.new" && mv "$dir/$2.new" "$dir/$2"
  echo "$dir"
}
expect_fail() { # WHAT DIR MESSAGE
  run 1 "$1" "$PY" "$CHECK" --quiet --root "$2" && err_has "$3" "$1"
}
d=$(plant upward lib/jet/jet.c '#include "lth/ivp.h"')
expect_fail "an upward include" "$d" "upward, from jet to ivp"
d=$(plant private lib/bvp/bvp_fd.c '#include "decomp/decomp_impl.h"')
expect_fail "another folder's private header" "$d" "private header of decomp"
d=$(plant cycle lib/core/status.c '#include "jet/expr_impl.h"')
expect_fail "a cycle through core" "$d" "cycle: "
d=$(plant front "include/lth/status.h" '')
mkdir -p "$d/apps" && printf '#include "ivp/ivp_impl.h"\n' >"$d/apps/x.c"
expect_fail "a tool using a private header" "$d" "apps/ may use public headers only"
finish cli_layers
