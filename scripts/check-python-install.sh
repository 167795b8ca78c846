#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install a build tree to a temporary prefix and use the installed Python
# package: it must be in the prefix's site-packages (python/CMakeLists.txt),
# load the installed liblth (not the build tree's) without LTH_LIBRARY, and
# compute.  Usage: bash scripts/check-python-install.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
# shellcheck source=/dev/null
. "$build/python/env.sh"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
init=$(find "$prefix" -path '*/lth/__init__.py' | head -n 1)
[ -n "$init" ] || { echo "the Python package was not installed under $prefix" >&2; exit 1; }
site=$(dirname "$(dirname "$init")")
echo "installed Python package: ${site#"$prefix"/}/lth"
env -u LTH_LIBRARY PYTHONPATH="$site" "$LTH_PYTHON" - "$prefix" <<'PY'
import os, sys
import lth
prefix = os.path.realpath(sys.argv[1])
lib = os.path.realpath(lth.library_path())
assert lib.startswith(prefix + os.sep), "loads %s, not the installed library" % lib
assert os.path.realpath(lth.__file__).startswith(prefix + os.sep)
dec = lth.decompose(lth.load("data/slope.lth"), [0.5])
assert abs(dec.q[0, 4] - 3.924) < 1e-12, dec.q
print("python package check passed (liblth: %s)" % os.path.relpath(lib, prefix))
PY
