#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install a build tree to a temporary prefix, then build and run outside
# programs against the installed library: the callback example through
# pkg-config, and a small program through CMake's find_package(lth).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name lth.pc | head -n 1)")/..
export PKG_CONFIG_PATH="$libdir/pkgconfig"
export LD_LIBRARY_PATH="$libdir"

echo "pkg-config --cflags --libs lth: $(pkg-config --cflags --libs lth)"
cc -std=c11 -Wall -Wextra -Werror -o "$prefix/lqr_callbacks" examples/lqr_callbacks.c \
  $(pkg-config --cflags --libs lth) -lm
"$prefix/lqr_callbacks"

cmake -S examples/cmake-consumer -B "$prefix/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/cmake-consumer" >/dev/null
"$prefix/cmake-consumer/consumer"
"$prefix/cmake-consumer/consumer_static"
echo "install check passed"
