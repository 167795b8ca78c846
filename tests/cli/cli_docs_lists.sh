#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Lists in the documentation that must follow the tree: docs/library.md's
# table of modules names every public header include/lth/*.h (and no other),
# and README's install table counts and names every tool apps/lth-*.c builds.
# Usage: bash cli_docs_lists.sh BUILD/apps   (env LTH_DATA_DIR = data/)
source "$(dirname "$0")/testlib.sh"
ROOT=$(cd "$DATA/.." && pwd)
LIB="$ROOT/docs/library.md"

# the header column of the modules table: rows "| `a.h`, `b.h` | ... |"
grep -E '^\| `[a-z_]+\.h`' "$LIB" | cut -d'|' -f2 | grep -oE '[a-z_]+\.h' | sort >"$TMP/listed"
(cd "$ROOT/include/lth" && ls -- *.h) | sort >"$TMP/headers"
[ -s "$TMP/headers" ] || fail "no headers in $ROOT/include/lth"
while read -r h; do
  grep -qx "$h" "$TMP/listed" || fail "docs/library.md: the modules table does not list include/lth/$h"
done <"$TMP/headers"
while read -r h; do
  grep -qx "$h" "$TMP/headers" || fail "docs/library.md lists $h, which is not in include/lth/"
done <"$TMP/listed"

# README: "| the N tools (`lth-a`, ...) | `bin/` |"
row=$(grep -E '^\| the [a-z]+ tools' "$ROOT/README.md")
[ -n "$row" ] || fail "README.md: no install-table row for the tools"
n=0
for src in "$ROOT"/apps/lth-*.c; do
  t=$(basename "$src" .c)
  n=$((n + 1))
  case $row in *"\`$t\`"*) ;; *) fail "README.md's install table does not name $t" ;; esac
done
words=(zero one two three four five six seven eight nine ten)
case $row in *"the ${words[$n]} tools"*) ;; *) fail "README.md: '$row' but $n tools are built" ;; esac
finish cli_docs_lists
