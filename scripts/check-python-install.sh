#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install a build tree to a temporary prefix and use the installed Python
# package, both ways docs/python.md gives (section 1):
#   1. `cmake --install`: the package must be in the prefix's site-packages
#      (python/CMakeLists.txt), load the installed liblth (not the build
#      tree's) without LTH_LIBRARY, and compute;
#   2. `pip install --no-build-isolation ./python` into a venv made with
#      --system-site-packages (Debian's numpy, setuptools and wheel), offline
#      (--no-index), over the installed liblth found with LTH_PREFIX: the same
#      checks from the venv; and the clear refusals pip's build gives when
#      liblth or NumPy is missing.
# Usage: bash scripts/check-python-install.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build}
# shellcheck source=/dev/null
. "$build/python/env.sh"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "check-python-install: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$prefix" >/dev/null
init=$(find "$prefix" -path '*/lth/__init__.py' | head -n 1)
[ -n "$init" ] || fail "the Python package was not installed under $prefix"
site=$(dirname "$(dirname "$init")")
echo "installed Python package: ${site#"$prefix"/}/lth"

# check PYTHON PREFIX WHERE: import lth from WHERE (a directory the package
# must be under) and compute, away from the source tree and its environment
check() {
  (cd "$prefix" && env -u LTH_LIBRARY -u PYTHONPATH "$@" - "$prefix" "$root/data/slope.lth" <<'PY'
import os, sys
import lth
prefix, where = os.path.realpath(sys.argv[1]), os.path.realpath(os.environ["WHERE"])
lib = os.path.realpath(lth.library_path())
assert lib.startswith(prefix + os.sep), "loads %s, not the installed library" % lib
assert os.path.realpath(lth.__file__).startswith(where + os.sep), lth.__file__
dec = lth.decompose(lth.load(sys.argv[2]), [0.5])
assert abs(dec.q[0, 4] - 3.924) < 1e-12, dec.q
print("python package check passed (%s; liblth: %s)"
      % (os.path.relpath(lth.__file__, prefix), os.path.relpath(lib, prefix)))
PY
  )
}
WHERE=$site check env PYTHONPATH="$site" "$LTH_PYTHON" ||
  fail "the package installed by cmake --install does not work"

# ---- pip, offline, into a venv over the installed library
src="$prefix/src"
cp -r "$root/python" "$src"  # pip builds in the tree it is given: keep the source clean
rm -rf "$src/build" "$src"/*.egg-info
"$LTH_PYTHON" -m venv --system-site-packages "$prefix/venv" ||
  fail "python3 -m venv failed: install python3-venv (bash scripts/install-deps.sh)"
pip=("$prefix/venv/bin/python" -m pip install --no-build-isolation --no-index --quiet
     --disable-pip-version-check)
# without liblth to be found: a refusal naming what to do
if env PKG_CONFIG_LIBDIR="$prefix/none" PKG_CONFIG_PATH= "${pip[@]}" "$src" \
    >"$prefix/log" 2>&1; then
  fail "pip installed lth without a liblth to find"
fi
grep -q "lth: pkg-config does not find liblth (lth.pc): build and install liblth first" \
  "$prefix/log" || fail "pip without liblth: no clear message: $(tail -n 20 "$prefix/log")"
# a venv without NumPy: a refusal naming it
"$LTH_PYTHON" -m venv "$prefix/bare"
if env LTH_PREFIX="$prefix" "$prefix/bare/bin/python" -m pip install --no-build-isolation \
    --no-index --quiet --disable-pip-version-check "$src" >"$prefix/log" 2>&1; then
  fail "pip installed lth into a venv without NumPy"
fi
grep -q "lth: NumPy is missing" "$prefix/log" ||
  fail "pip without NumPy: no clear message: $(tail -n 20 "$prefix/log")"
# and the real install
env LTH_PREFIX="$prefix" PKG_CONFIG_LIBDIR="$prefix/none" "${pip[@]}" "$src" >"$prefix/log" 2>&1 ||
  fail "pip install --no-build-isolation ./python failed: $(tail -n 30 "$prefix/log")"
WHERE="$prefix/venv" check "$prefix/venv/bin/python" ||
  fail "the package installed by pip does not work"
