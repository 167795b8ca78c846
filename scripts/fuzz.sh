#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Fuzz lth with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer:
#   fuzz_problem    the data-file reader (lib/reader/, lib/jet/, ...)
#   fuzz_decompose  parse, decompose at several t with --check's identities,
#                   scan Pi: traps on a success with a non-finite number or a
#                   numerical error that names no t
#
#   scripts/fuzz.sh [SECONDS]        (default 60, shared by the harnesses)
#
# Builds each fuzz/fuzz_*.c together with lib/*/*.c straight from the sources
# with clang (Debian: clang, libclang-rt-14-dev), seeds a working corpus per
# harness in $LTH_FUZZ_DIR (default build-fuzz/) from fuzz/corpus (and
# fuzz/corpus_decompose for fuzz_decompose, whose bytes choose a valid
# problem, so that nearly every input reaches the decomposition), gives samples("a.csv") and samples("b.csv") two small CSV
# files to read, runs each harness for SECONDS / 2 with -max_len=4096
# -timeout=5, then prints the number of executions and of crashes (crash-,
# leak-, timeout-, oom- artifacts).  Exits nonzero if anything was found;
# reproduce with
#   build-fuzz/fuzz_problem build-fuzz/artifacts/fuzz_problem/crash-...
set -euo pipefail

secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${LTH_FUZZ_DIR:-$root/build-fuzz}
harnesses=(fuzz_problem fuzz_decompose)
each=$((secs / ${#harnesses[@]}))
[ "$each" -ge 1 ] || each=1
mkdir -p "$out"

# OpenBLAS threads only slow the fuzzer down
export OPENBLAS_NUM_THREADS=1

# lth takes its BLAS from OpenBLAS: link libgsl alone, not GSL's gslcblas
read -r -a cflags <<<"$(pkg-config --cflags lapacke openblas gsl)"
read -r -a libs <<<"$(pkg-config --libs lapacke openblas) -lgsl -lm"
for h in "${harnesses[@]}"; do
  clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -fno-omit-frame-pointer -I"$root/include" -I"$root/lib" "${cflags[@]}" \
    "$root"/lib/*/*.c "$root/fuzz/$h.c" "${libs[@]}" -o "$out/$h"
done

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
"k(t) = "
"k(t)"
"k(2*t)"
")'"
"#"
"["
"]"
";"
","
"\x0a"
DICT

# the parser starts from every statement kind (bad ones too); the
# decomposition's bytes choose a problem (any bytes do: these are a start)
mkdir -p "$out/corpus/fuzz_problem" "$out/corpus/fuzz_decompose"
cp -n "$root"/fuzz/corpus/* "$out/corpus/fuzz_problem/" 2>/dev/null || true
cp -n "$root"/fuzz/corpus_decompose/* "$out/corpus/fuzz_decompose/" 2>/dev/null || true
for h in "${harnesses[@]}"; do mkdir -p "$out/artifacts/$h"; done
export LTH_FUZZ_STATS=1

# two small CSVs (1 x 1 and 2 x 1 blocks on [-1, 6]) so samples("a.csv") and
# samples("b.csv") reach the sampled-data code; other names fail to open
mkdir -p "$out/csv"
awk 'BEGIN { print "t, a"; for (k = 0; k <= 70; k++) printf "%.3f, %.17g\n", -1 + 0.1 * k, sin(0.1 * k) }' \
  >"$out/csv/a.csv"
awk 'BEGIN { for (k = 0; k <= 70; k++) printf "%.3f, %.17g, %.17g\n", -1 + 0.1 * k, cos(0.1 * k), 2 }' \
  >"$out/csv/b.csv"
export LTH_FUZZ_BASEDIR="$out/csv"

status=0
total=0
for h in "${harnesses[@]}"; do
  rc=0
  dict=(-dict="$out/lth.dict")
  [ "$h" = fuzz_decompose ] && dict=() # its bytes choose a problem: no keywords
  "$out/$h" "$out/corpus/$h" "${dict[@]}" -max_total_time="$each" -max_len=4096 \
    -timeout=5 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/artifacts/$h/" \
    >"$out/$h.log" 2>&1 || rc=$?
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$out/$h.log" | grep -Eo '[0-9]+$' || true)
  crashes=$(find "$out/artifacts/$h" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | wc -l)
  echo "$h: ${runs:-?} executions in ${each} s, ${crashes} crash(es)/leak(s)/timeout(s)"
  grep -E '^fuzz_decompose: [0-9]+ of' "$out/$h.log" | tail -1 || true
  echo "log: $out/$h.log"
  if [ "$crashes" -ne 0 ] || [ "$rc" -ne 0 ]; then
    find "$out/artifacts/$h" -type f | sed 's/^/  artifact: /'
    tail -n 40 "$out/$h.log"
    status=1
  fi
  total=$((total + crashes))
done
exit "$status"
