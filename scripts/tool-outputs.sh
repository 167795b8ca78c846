#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every tool on every shipped example, outputs into one folder: to check that a
# change of the code's shape changed no number.  Run it with two builds and
# compare the folders:
#   bash scripts/tool-outputs.sh build-old/apps /tmp/old
#   bash scripts/tool-outputs.sh build/apps /tmp/new
#   diff -r /tmp/old /tmp/new
# Timings are masked (JSON keys with "seconds", text figures followed by " s");
# everything else must be bitwise the same.  Set OPENBLAS_NUM_THREADS=1 and
# LTH_NUM_THREADS=1 for runs whose table stretches would depend on timing.
set -u
APPS=${1:?usage: tool-outputs.sh BUILD/apps OUTDIR}
OUT=${2:?usage: tool-outputs.sh BUILD/apps OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
mask() {
  sed -E 's/("[A-Za-z_]*(seconds|elapsed)[A-Za-z_]*" *: *)[-+0-9.eE]+/\1<time>/g;
          s/[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)? (s|ms|points\/s)\b/<time> \2/g'
}
run() { # NAME TOOL ARGS...
  local name=$1 tool=$2
  shift 2
  "$APPS/$tool" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
  echo "exit $?" >>"$OUT/$name.err"
  mask <"$OUT/$name.out" >"$OUT/$name.tmp" && mv "$OUT/$name.tmp" "$OUT/$name.out"
  mask <"$OUT/$name.err" >"$OUT/$name.tmp" && mv "$OUT/$name.tmp" "$OUT/$name.err"
}
for f in data/*.lth; do
  n=$(basename "$f" .lth)
  run "$n.decompose" lth-decompose "$f" --check
  run "$n.decompose.json" lth-decompose "$f" --check --format json
  if grep -q '^problem lqr' "$f"; then
    run "$n.lqr" lth-lqr "$f"
    run "$n.lqr.json" lth-lqr "$f" --format json
    continue
  fi
  if grep -q '^inputs' "$f"; then
    run "$n.ss" lth-ss "$f"
    run "$n.ss.json" lth-ss "$f" --format json
  fi
  run "$n.ic" lth-ic "$f"
  run "$n.ic.json" lth-ic "$f" --format json
  run "$n.solve" lth-solve "$f"
  run "$n.solve.json" lth-solve "$f" --format json
  run "$n.solve.direct" lth-solve "$f" --coefficients direct --format json
  if grep -q '^bc' "$f"; then
    for m in collocation shooting multiple fd; do
      run "$n.bvp.$m" lth-bvp "$f" --method "$m" --format json
    done
  fi
done
echo "tool-outputs: $(find "$OUT" -name '*.out' | wc -l) runs in $OUT"
