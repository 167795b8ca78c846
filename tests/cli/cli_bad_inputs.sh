# SPDX-License-Identifier: GPL-3.0-or-later
# Every malformed data file in tests/bad/ must make lth-decompose fail as an
# input error (exit status 2: not a crash or signal, not success, usage or
# numerical failure), within 10 seconds, with a message naming the line that
# tests/bad/EXPECTED gives (":LINE:") and holding the expected substring.
# Usage: bash cli_bad_inputs.sh BUILD/apps   (env LTH_TEST_DIR = tests/)
set -u
APPS=${1:?usage: cli_bad_inputs.sh BUILD/apps}
TESTS=${LTH_TEST_DIR:?LTH_TEST_DIR must name the tests directory}
DEC="$APPS/lth-decompose"
BAD="$TESTS/bad"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

if [ ! -d "$BAD" ] || [ ! -f "$BAD/EXPECTED" ]; then
  echo "cli_bad_inputs: $BAD/EXPECTED does not exist yet; nothing to check"
  exit 0
fi
[ -x "$DEC" ] || { echo "FAIL: $DEC not built" >&2; exit 1; }

# Expected line and message substring per file, from EXPECTED.
declare -A want_line want_text
while read -r name line text; do
  case "$name" in '' | '#'*) continue ;; esac
  want_line[$name]=$line
  want_text[$name]=$text
done <"$BAD/EXPECTED"

checked=0
for file in "$BAD"/*.lth; do
  [ -e "$file" ] || continue
  name=$(basename "$file")
  if [ -z "${want_line[$name]+set}" ]; then
    fail "$name has no line in $BAD/EXPECTED (add: $name LINE MESSAGE-SUBSTRING)"
    continue
  fi
  timeout 10 "$DEC" "$file" --quiet >"$TMP/out" 2>"$TMP/err"
  rc=$?
  checked=$((checked + 1))
  case $rc in
    2) ;;
    124) fail "$name: no answer within 10 s"; continue ;;
    *)
      if [ "$rc" -gt 128 ]; then
        fail "$name: killed by signal $((rc - 128))"
      else
        fail "$name: exit status $rc, expected 2 (input error): $(head -c 300 "$TMP/err")"
      fi
      continue
      ;;
  esac
  grep -qF ":${want_line[$name]}:" "$TMP/err" ||
    fail "$name: message does not name line ${want_line[$name]}: $(head -c 300 "$TMP/err")"
  grep -qF -- "${want_text[$name]}" "$TMP/err" ||
    fail "$name: message lacks '${want_text[$name]}': $(head -c 300 "$TMP/err")"
  [ -s "$TMP/out" ] && fail "$name: a failing run printed a result"
done

for name in "${!want_line[@]}"; do
  [ -e "$BAD/$name" ] || fail "EXPECTED lists $name, which does not exist"
done

if [ "$failures" -ne 0 ]; then
  echo "cli_bad_inputs: $failures failure(s) over $checked files" >&2
  exit 1
fi
echo "cli_bad_inputs: $checked malformed files rejected with exit status 2 and the right line"
