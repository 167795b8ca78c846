#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install a build tree to a temporary prefix, then check what a user gets
# (docs/library.md, "Linking"):
#   1. `pkg-config --cflags --libs lth`: a program linked against liblth.so
#      runs with no LD_LIBRARY_PATH (lth.pc carries an rpath to its libdir);
#   2. `pkg-config --cflags --libs lth-static`: liblth.a linked in, no
#      liblth.so needed at run time;
#   3. `cc -static ... $(pkg-config --static --cflags --libs lth)`: a fully
#      static program (Libs.private is complete: GSL, LAPACKE, OpenBLAS and
#      its Fortran runtime, libm, OpenMP);
#   4. CMake's find_package(lth): lth::lth and lth::lth_static;
#   5. the installed tools, man pages, bash completion, docs and example data.
# The test program reads the installed example data, decomposes a grid in
# parallel (OpenMP) and solves an IVP (GSL), so every dependency is linked.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
pcdir=$(dirname "$(find "$prefix" -name lth.pc | head -n 1)")
export PKG_CONFIG_PATH="$pcdir"
unset LD_LIBRARY_PATH
datadir="$prefix/share/lth/data"
fail() { echo "check-install: $*" >&2; exit 1; }

cat >"$prefix/pendulum.c" <<'EOF'
/* The installed pendulum example: a parallel grid and an IVP, checked
 * against the closed form dx(t) = 0.05 cos(w t) + (0.1 / w) sin(w t). */
#include <lth/lth.h> /* every public header: each must compile installed */
#include <math.h>
#include <stdio.h>

int main(int argc, char **argv) {
  lth_error err;
  lth_error_clear(&err);
  lth_problem *pb = NULL;
  lth_grid_result *grid = NULL;
  lth_ivp_result *sol = NULL;
  const double *times, *z0;
  double t1 = 1.0, w = sqrt(9.81);
  if (argc < 2 || lth_problem_read(argv[1], &pb, &err) != LTH_OK) {
    fprintf(stderr, "pendulum: %s\n", err.message);
    return 1;
  }
  const lth_system *sys = lth_problem_system(pb);
  size_t n = lth_problem_grid(pb, &times);
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  lth_ivp_opts io;
  lth_ivp_opts_init(&io);
  lth_problem_z0(pb, &z0);
  int ok = lth_grid_store(sys, times, n, &go, &grid, &err) == LTH_OK &&
           lth_ivp_solve(sys, times[0], z0, &t1, 1, &io, &sol, &err) == LTH_OK;
  double dx = ok ? sol->z[2] : NAN, exact = 0.05 * cos(w) + (0.1 / w) * sin(w);
  if (ok) {
    printf("pendulum: %zu grid points; dx(1) = %.12f (exact %.12f)\n", n, dx, exact);
  } else {
    fprintf(stderr, "pendulum: %s\n", err.message);
  }
  lth_ivp_result_free(sol);
  lth_grid_result_free(grid);
  lth_problem_free(pb);
  return ok && fabs(dx - exact) < 1e-8 ? 0 : 1;
}
EOF

needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

echo "pkg-config --libs lth:          $(pkg-config --libs lth)"
cc -std=c11 -Wall -Wextra -Werror -o "$prefix/p_shared" "$prefix/pendulum.c" \
  $(pkg-config --cflags --libs lth) -lm
# (the listings are read whole before grep: `ldd | grep -q` under pipefail fails when grep's
# early exit cuts ldd off with SIGPIPE, although the line was found)
deps=$(needed "$prefix/p_shared")
grep -q '^liblth\.so' <<<"$deps" || fail "p_shared does not use liblth.so"
found=$(ldd "$prefix/p_shared")
grep -q "liblth.so.* => $prefix" <<<"$found" ||
  fail "p_shared does not find liblth.so in the prefix: $(grep lth <<<"$found")"
"$prefix/p_shared" "$datadir/pendulum.lth"

echo "pkg-config --libs lth-static:   $(pkg-config --libs lth-static)"
cc -std=c11 -Wall -Wextra -Werror -o "$prefix/p_static" "$prefix/pendulum.c" \
  $(pkg-config --cflags --libs lth-static)
deps=$(needed "$prefix/p_static")
grep -q '^liblth' <<<"$deps" && fail "p_static still needs liblth.so"
"$prefix/p_static" "$datadir/pendulum.lth"

echo "pkg-config --static --libs lth: $(pkg-config --static --libs lth)"
cc -static -std=c11 -Wall -Wextra -Werror -o "$prefix/p_full" "$prefix/pendulum.c" \
  $(pkg-config --static --cflags --libs lth) 2>"$prefix/static.log" ||
  fail "fully static link failed: $(cat "$prefix/static.log")"
[ -z "$(needed "$prefix/p_full")" ] || fail "p_full is not static: $(needed "$prefix/p_full")"
"$prefix/p_full" "$datadir/pendulum.lth"

cc -std=c11 -Wall -Wextra -Werror -o "$prefix/lqr_callbacks" examples/lqr_callbacks.c \
  $(pkg-config --cflags --libs lth) -lm
"$prefix/lqr_callbacks" >/dev/null
cc -std=c11 -Wall -Wextra -Werror -o "$prefix/ss_realization" examples/ss_realization.c \
  $(pkg-config --cflags --libs lth) -lm
"$prefix/ss_realization" "$datadir/circuit_io.lth" >"$prefix/ss.out"
# the first point as docs/control.md section 9 prints it (6 significant digits)
sed -n '/^\$ .\/ss_realization data\/circuit_io.lth$/,/^  D1 =/p' docs/control.md | tail -n +2 >"$prefix/ss.doc"
head -n "$(wc -l <"$prefix/ss.doc")" "$prefix/ss.out" | cmp -s - "$prefix/ss.doc" ||
  fail "examples/ss_realization.c does not print what docs/control.md section 9 shows"

cmake -S examples/cmake-consumer -B "$prefix/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/cmake-consumer" >/dev/null
"$prefix/cmake-consumer/consumer"
"$prefix/cmake-consumer/consumer_static"

# the installed tools on the installed data; man pages, completion, docs
"$prefix/bin/lth-decompose" "$datadir/slope.lth" --at 0.5 --format json >/dev/null
for tool in "$prefix"/bin/lth-*; do
  name=$(basename "$tool")
  [ -s "$prefix/share/man/man1/$name.1" ] || fail "no man page $name.1"
  [ -s "$prefix/share/bash-completion/completions/$name" ] || fail "no bash completion for $name"
done
for doc in README.md docs/user-guide.md docs/format.md docs/theory.md docs/library.md \
  docs/lqr-example.md; do
  [ -s "$prefix/share/doc/lth/$doc" ] || fail "no share/doc/lth/$doc"
done
echo "installed: $(ls "$prefix/bin" | wc -l) tools, $(ls "$prefix/share/man/man1" | wc -l) man pages," \
  "$(ls "$prefix/share/bash-completion/completions" | wc -l) completions," \
  "$(ls "$prefix/share/doc/lth/docs" | wc -l) docs, $(ls "$datadir" | wc -l) data files"
echo "install check passed"
