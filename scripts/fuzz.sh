#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Fuzz the data-file reader (lib/problem*.c, lib/expr.c, ...) with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz.sh [SECONDS]        (default 60)
#
# Builds fuzz/fuzz_problem.c together with lib/*.c straight from the sources
# with clang (Debian: clang, libclang-rt-14-dev), seeds a working corpus in
# $LTH_FUZZ_DIR (default build-fuzz/) from fuzz/corpus, gives samples("a.csv")
# and samples("b.csv") two small CSV files to read, runs
# -max_total_time=SECONDS -max_len=4096 -timeout=5, then prints the number of
# executions and of crashes (crash-, leak-, timeout-, oom- artifacts).  Exits
# nonzero if anything was found; reproduce with
#   build-fuzz/fuzz_problem build-fuzz/artifacts/crash-...
set -euo pipefail

secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${LTH_FUZZ_DIR:-$root/build-fuzz}
mkdir -p "$out/corpus" "$out/artifacts"

# OpenBLAS threads only slow the fuzzer down
export OPENBLAS_NUM_THREADS=1

# lth takes its BLAS from OpenBLAS: link libgsl alone, not GSL's gslcblas
read -r -a cflags <<<"$(pkg-config --cflags lapacke openblas gsl)"
read -r -a libs <<<"$(pkg-config --libs lapacke openblas) -lgsl -lm"
clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -fno-omit-frame-pointer -I"$root/include" -I"$root/lib" "${cflags[@]}" \
  "$root"/lib/*.c "$root/fuzz/fuzz_problem.c" "${libs[@]}" -o "$out/fuzz_problem"

# the keywords of the format, so mutations reach the statements quickly
cat >"$out/lth.dict" <<'DICT'
"lth 1"
"problem dae"
"problem lqr"
"blocks "
"sizes "
"interval "
"grid "
"param "
"sampling order "
"A("
"f("
"z0 = "
"x0 = "
"bc B0 = "
"bc B1 = "
"bc beta = "
"B = "
"H = "
"C = "
" = "
"eye"
"samples(\"a.csv\")"
"samples(\"b.csv\")"
"sin("
"exp("
"log("
"sqrt("
"abs("
"pi"
"t^2"
"#"
"["
"]"
";"
","
"\x0a"
DICT

cp -n "$root"/fuzz/corpus/* "$out/corpus/" 2>/dev/null || true

# two small CSVs (1 x 1 and 2 x 1 blocks on [-1, 6]) so samples("a.csv") and
# samples("b.csv") reach the sampled-data code; other names fail to open
mkdir -p "$out/csv"
awk 'BEGIN { print "t, a"; for (k = 0; k <= 70; k++) printf "%.3f, %.17g\n", -1 + 0.1 * k, sin(0.1 * k) }' \
  >"$out/csv/a.csv"
awk 'BEGIN { for (k = 0; k <= 70; k++) printf "%.3f, %.17g, %.17g\n", -1 + 0.1 * k, cos(0.1 * k), 2 }' \
  >"$out/csv/b.csv"
export LTH_FUZZ_BASEDIR="$out/csv"

status=0
"$out/fuzz_problem" "$out/corpus" -dict="$out/lth.dict" -max_total_time="$secs" -max_len=4096 \
  -timeout=5 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/artifacts/" \
  >"$out/fuzz.log" 2>&1 || status=$?

runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$out/fuzz.log" | grep -Eo '[0-9]+$' || true)
crashes=$(find "$out/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
  -o -name 'oom-*' \) | wc -l)
echo "fuzz_problem: ${runs:-?} executions in ${secs} s, ${crashes} crash(es)/leak(s)/timeout(s)"
echo "log: $out/fuzz.log"
if [ "$crashes" -ne 0 ] || [ "$status" -ne 0 ]; then
  find "$out/artifacts" -type f | sed 's/^/  artifact: /'
  tail -n 40 "$out/fuzz.log"
  exit 1
fi
