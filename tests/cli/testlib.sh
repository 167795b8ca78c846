# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the command-line tests (sourced, not run): the build's tool
# directory is the script's first argument, the data directory comes from
# LTH_DATA_DIR (CTest sets it).  Checks record failures and go on; the script
# ends with `finish NAME`.
set -u
APPS=${1:?usage: $0 BUILD/apps}
DATA=${LTH_DATA_DIR:?LTH_DATA_DIR must name the data directory}
JT="$APPS/../tests/tools/jsontool"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run WANT WHAT CMD...: run CMD (stdout to $TMP/out, stderr to $TMP/err) and
# check its exit status.
run() {
  local want=$1 what=$2
  shift 2
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "$what: exit status $rc, expected $want; stderr: $(head -c 600 "$TMP/err")"
    return 1
  fi
  return 0
}

err_has() {
  grep -qF -- "$1" "$TMP/err" || fail "$2: stderr lacks '$1': $(head -c 600 "$TMP/err")"
}

# near FILE.json KEY VALUE TOL [WHAT]
near() {
  "$JT" near "$1" "$2" "$3" "$4" ||
    fail "${5:-$1}: $2 = $("$JT" get "$1" "$2" 2>&1) differs from $3 by more than $4"
}

finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$1: $failures failure(s)" >&2
    exit 1
  fi
  echo "$1: all checks passed"
}
