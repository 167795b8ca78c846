#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install what is missing, build lth (Release) and run the main job on a
# shipped example: Clark's decomposition of the sliding mass on a slope.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLTH_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "+ build/apps/lth-decompose data/slope.lth --at 0,1"
build/apps/lth-decompose data/slope.lth --at 0,1
echo
echo "The tools are in build/apps; try build/apps/lth-decompose --help."
