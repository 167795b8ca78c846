#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The Python package's tests (tests/python, pytest): the build tree's package
# (<build>/python, made by python/CMakeLists.txt) over the build's liblth,
# compared with the build's tools.  Needs Debian's python3-numpy,
# python3-pytest and python3-matplotlib, and python3-scipy for the reference
# of test_ss.py (scripts/install-deps.sh).
# In an AddressSanitizer build the sanitizer runtime is preloaded into Python
# (leak checks off: the interpreter's own allocations are not ours).
# Usage: bash cli_python.sh BUILD/apps   (env LTH_DATA_DIR = data/)
set -u
APPS=$(cd "${1:?usage: cli_python.sh BUILD/apps}" && pwd)
ENV="$APPS/../python/env.sh"
if [ ! -f "$ENV" ]; then
  echo "FAIL: $ENV missing: configure with -DLTH_PYTHON_PACKAGE=ON" >&2
  exit 1
fi
# shellcheck source=/dev/null
. "$ENV"
if ! "$LTH_PYTHON" -c 'import numpy, pytest, matplotlib, scipy.linalg' 2>/dev/null; then
  echo "FAIL: $LTH_PYTHON lacks numpy, pytest, matplotlib or scipy: install the Debian" \
       "packages python3-numpy python3-pytest python3-matplotlib python3-scipy" \
       "(bash scripts/install-deps.sh)" >&2
  exit 1
fi
export LTH_APPS_DIR="$APPS" PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg
# BLAS on one thread, as the tools run it (apps/common/app_blas.c): the Python
# package's numbers equal the tools' to the last bit only with the same BLAS
# setting -- OpenBLAS's threaded LU rounds differently (docs/python.md)
export OPENBLAS_NUM_THREADS=1
if [ "${LTH_SANITIZE:-OFF}" = ON ]; then
  asan=$("$LTH_C_COMPILER" -print-file-name=libasan.so)
  ubsan=$("$LTH_C_COMPILER" -print-file-name=libubsan.so)
  export LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
fi
cd "$LTH_SOURCE_DIR" || exit 1
exec "$LTH_PYTHON" -m pytest -q -p no:cacheprovider tests/python
