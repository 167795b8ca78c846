# SPDX-License-Identifier: GPL-3.0-or-later
"""The equation form's index-1 substitution on a pattern (docs/equations.md
section 10): scripts/gen-chain.py --equations --forces writes each spring
force as an algebraic unknown of its own, g_i = k(t) (x_{i-1} - x_i); at
n = 70 masses (71 forces: K diagonal and above the 64 rows from which it is
solved entry by entry) lth-solve gives the x and v of the same chain with
the forces substituted by hand (gen-chain.py --equations) within the two
solves' tolerances, and forces equal to k(t) (x_{i-1} - x_i) of its own x."""

import math
import os
import subprocess
import sys

import numpy as np

from conftest import ROOT, run_tool

GEN = os.path.join(ROOT, "scripts", "gen-chain.py")
N = 70


def solve(path, *flags):
    subprocess.run([sys.executable, GEN, "--equations", *flags, str(N), "3", path], check=True)
    out = run_tool("lth-solve", path, "--times", "1,2", "--rtol", "1e-10", "--atol", "1e-12",
                   "--format", "json")
    return np.array(out["z"]), out["components"]


def test_forces_as_by_hand(tmp_path):
    zf, nf = solve(str(tmp_path / "forces.lth"), "--forces")
    zh, nh = solve(str(tmp_path / "hand.lth"))
    scale = max(1.0, np.abs(zh).max())
    for u in ("x", "v"):
        for i in range(1, N + 1):
            a = zf[:, nf.index("%s%d" % (u, i))]
            b = zh[:, nh.index("%s%d" % (u, i))]
            assert np.abs(a - b).max() <= 1e-8 * scale, (u, i, a, b)
    for k, t in enumerate([1.0, 2.0]):
        x = [0.0] + [zf[k, nf.index("x%d" % i)] for i in range(1, N + 1)] + [0.0]
        kt = 2 + 0.3 * math.sin(t)
        for i in range(1, N + 2):
            g = zf[k, nf.index("g%d" % i)]
            assert abs(g - kt * (x[i - 1] - x[i])) <= 1e-12 * max(1.0, abs(g)), (t, i)
