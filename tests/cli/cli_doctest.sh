#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Documentation that cannot go stale: every command shown in README.md and
# docs/*.md is run and its output compared with the printed one
# (tests/doctest/run_doctests.py; the rules are in tests/doctest/README.md),
# every JSON key the tools write is in docs/format.md, and the project points
# nowhere outside itself.  First, the harness itself is shown
# to catch a wrong figure, a wrong exit status, and to update only output
# lines with --update.
source "$(dirname "$0")/testlib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
HARNESS="$ROOT/tests/doctest/run_doctests.py"

# ---- the harness can fail, and --update touches output lines only
cat >"$TMP/t.md" <<'DOC'
Prose with a number 1.5 that is not output.

```sh
$ echo "x = 1.0000001, took 0.25 s"
x = 1, took 9 s
$ echo "y = 2"
y = 3
$ exit 3   # exit status 3
$ false
```
DOC
cp "$TMP/t.md" "$TMP/orig.md"
"$PY" "$HARNESS" --apps "$APPS" "$TMP/t.md" >"$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "harness on a wrong document: exit status $rc, expected 1"
grep -q "t.md:6: output differs" "$TMP/out" || fail "harness does not name t.md:6: $(cat "$TMP/out")"
grep -q "t.md:9: exit status 1, expected 0" "$TMP/out" || fail "harness misses the exit status"
grep -q "t.md:5:" "$TMP/out" && fail "harness rejects a match within tolerance (masked time)"
"$PY" "$HARNESS" --apps "$APPS" --update "$TMP/t.md" >"$TMP/out" 2>&1
diff "$TMP/orig.md" "$TMP/t.md" >"$TMP/diff"
[ "$(grep -c '^[<>]' "$TMP/diff")" -eq 2 ] && grep -q '^> y = 2$' "$TMP/diff" ||
  fail "--update changed more than the wrong output line: $(cat "$TMP/diff")"

# ---- counts of work compare within a factor of two, other numbers do not
cat >"$TMP/c.md" <<'DOC'
```sh
$ echo "statistics     101 steps, 1483 right-hand sides, 9 decompositions"
statistics     101 steps, 1496 right-hand sides, 5 decompositions
$ echo '{"steps": 700, "rtol": 1e-10}'
{"steps": 945, "rtol": 1e-10}
```
DOC
"$PY" "$HARNESS" --apps "$APPS" "$TMP/c.md" >"$TMP/out" 2>&1 ||
  fail "harness compares counts exactly: $(cat "$TMP/out")"
cat >"$TMP/c.md" <<'DOC'
```sh
$ echo "x = 1483 steps later, y = 1483"
x = 1496 steps later, y = 1496
```
DOC
"$PY" "$HARNESS" --apps "$APPS" "$TMP/c.md" >"$TMP/out" 2>&1 &&
  fail "harness compares a number that is not a count loosely"
cat >"$TMP/c.md" <<'DOC'
```sh
$ echo "statistics     101 steps, 3100 right-hand sides"
statistics     101 steps, 1496 right-hand sides
```
DOC
"$PY" "$HARNESS" --apps "$APPS" "$TMP/c.md" >"$TMP/out" 2>&1 &&
  fail "harness accepts a count off by more than a factor of two"

# ---- the project's documents
"$PY" "$HARNESS" --apps "$APPS" >"$TMP/doc" 2>&1 || fail "documentation examples:
$(cat "$TMP/doc")"
tail -n 1 "$TMP/doc"
grep '^skipped' "$TMP/doc"

# ---- every JSON key the tools write is documented in docs/format.md
"$PY" "$ROOT/tests/doctest/check_keys.py" --apps "$APPS" >"$TMP/keys" 2>&1 ||
  fail "undocumented JSON keys:
$(cat "$TMP/keys")"

# ---- nothing points outside the project
cd "$ROOT"
grep -rnE "shared/|MATH\.md|CONTRACT\.md|STYLE\.md|/work/" README.md docs include lib apps \
  examples data >"$TMP/ext" && fail "references outside the project:
$(cat "$TMP/ext")"
finish cli_doctest
