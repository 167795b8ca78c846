#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Build lth and run every test: a -Werror build with the whole suite, the same
# suite under AddressSanitizer + UndefinedBehaviorSanitizer, an install to a
# temporary prefix with outside programs built against it (pkg-config and
# CMake), and a short fuzz run of the data-file parser.  This is what CI runs.
#   bash scripts/test.sh --quick   only the first step: the -Werror build and
#                                  the test suite (no ASan, install or fuzz)
#   LTH_FUZZ_SECONDS=N  length of the fuzz run (default 60; 0 skips it)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*) echo "usage: bash scripts/test.sh [--quick]" >&2; exit 1 ;;
esac
if [ "$quick" = 1 ]; then
  bash scripts/install-deps.sh
else
  LTH_WITH_FUZZ=1 bash scripts/install-deps.sh
fi
jobs=$(nproc)
step() { printf '\n==== %s ====\n' "$*"; }

step "build with -Werror and run the test suite"
cmake -S . -B build-ci -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLTH_WERROR=ON >/dev/null
cmake --build build-ci -j"$jobs"
(cd build-ci && ctest --output-on-failure -j"$jobs")
if [ "$quick" = 1 ]; then
  step "quick run passed (the full run adds ASan/UBSan, the install check and fuzzing)"
  exit 0
fi

step "AddressSanitizer + UndefinedBehaviorSanitizer"
# optimised (-O2 -g): the sanitizers check the same accesses and operations;
# unoptimised, the property families took 2.4 times as long
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLTH_SANITIZE=ON -DLTH_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ctest --output-on-failure -j"$jobs")

step "install to a temporary prefix and link outside programs against it"
bash scripts/check-install.sh build-ci
bash scripts/check-python-install.sh build-ci

if [ -f scripts/fuzz.sh ] && [ "${LTH_FUZZ_SECONDS:-60}" != 0 ]; then
  step "fuzz the data-file parser for ${LTH_FUZZ_SECONDS:-60} s"
  bash scripts/fuzz.sh "${LTH_FUZZ_SECONDS:-60}"
fi
step "all tests passed"
