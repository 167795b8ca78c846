#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install the Debian packages lth needs, if any are missing (uses sudo when not root).
#   LTH_WITH_FUZZ=1  also install clang and its fuzzer runtime (for scripts/fuzz.sh)
#   LTH_WITH_BENCH=1 also install what the benchmarks use: hyperfine (start-up timings in
#                    docs/performance.md); SUNDIALS (IDA, the peer of bench_ida, bench_peer
#                    and bench_scale) comes with the library's CVODE above
set -euo pipefail
pkgs=(gcc make cmake pkg-config libgsl-dev liblapacke-dev libopenblas-dev check
  python3 groff-base) # python3: man pages, completion, doc tests; groff: man page test
# the Python package and its tests, and the pictures (lth-plot draws with gnuplot)
pkgs+=(python3-numpy python3-pytest python3-matplotlib gnuplot-nox)
# lth-ss --format mat (MATLAB/Octave .mat files; the tool builds without it), and
# the tests' independent references: reading it back and simulating it (scipy.io,
# scipy.integrate), lth.ss's transfer functions (scipy.linalg)
pkgs+=(libmatio-dev python3-scipy)
# the integrator of large sparse systems (lth_opivp_solve: SUNDIALS CVODE; the library
# builds without it and that solver then refuses), and the benchmarks' peer, IDA
pkgs+=(libsundials-dev)
# the sparse factorization of a large Pi in the operator form (SuiteSparse KLU; the
# library builds without it and then factors Pi densely)
pkgs+=(libsuitesparse-dev)
# `pip install --no-build-isolation ./python` into a venv, offline
# (scripts/check-python-install.sh): venv with its pip, setuptools, wheel
pkgs+=(python3-venv python3-pip python3-setuptools python3-wheel)
if [ "${LTH_WITH_FUZZ:-0}" = 1 ]; then
  pkgs+=(clang libclang-rt-14-dev)
fi
if [ "${LTH_WITH_BENCH:-0}" = 1 ]; then
  pkgs+=(hyperfine)
fi
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "lth: installing missing packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
