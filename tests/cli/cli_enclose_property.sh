#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The property test of tests/cli/enclose_property.py (random pulses, kinks and
# jumps in f and A through lth-solve, every method, table and direct, block
# and equation form; no exit 0 with an error above its tolerance), 240 draws.
# The longer version: python3 tests/cli/enclose_property.py build/apps --draws 3000
# Usage: bash cli_enclose_property.sh BUILD/apps
set -u
APPS=${1:?usage: $0 BUILD/apps}
exec python3 "$(dirname "$0")/enclose_property.py" "$APPS" --draws 240
