# SPDX-License-Identifier: GPL-3.0-or-later
"""Mass matrices that are not diagonal (scripts/gen-chain.py --coupled-masses:
M tridiagonal and symmetric positive definite, as a consistent finite-element
mass matrix is), in the three forms of a data file, against SciPy:

    M v' = -c(t) K v - k(t) K x + C' lam + f(t),  x' = v,  0 = C x.

The reference eliminates the constraints by a basis N of null(C) (x = N q):
N' M N q'' = -c N' K N q' - k N' K N q + N' f, integrated by solve_ivp
(DOP853, rtol 1e-12), an independent route to the same x and v.  At size
the dense path refuses such an M of more than 7071 rows, naming it, before
anything large is allocated, and the operator path keeps it as a sparse LU
(docs/format.md, "Mass matrices at size"; tests/cli/cli_oppath_mass.sh
checks the solution at size against SciPy)."""

import os
import subprocess
import sys

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.linalg import null_space

from conftest import APPS, ROOT, run_tool

GEN = os.path.join(ROOT, "scripts", "gen-chain.py")
N, NC = 6, 1
TIMES = [1.0, 2.0]


def gen(path, *flags, n=N, m=NC):
    subprocess.run([sys.executable, GEN, *flags, str(n), str(m), path], check=True)
    return path


def reference():
    """x and v at TIMES from the null-space ODE (gen-chain.py's chain)."""
    n = N
    K = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    M = np.diag([1 + (i % 3) / 2 for i in range(n)]) + 0.1 * (np.eye(n, k=1) + np.eye(n, k=-1))
    C = np.zeros((NC, n))
    for j in range(NC):
        a = (j * (n - 1)) // NC
        C[j, a], C[j, a + 1] = 2.385, -1.0
    Nb = null_space(C)
    Mq, Kq = Nb.T @ M @ Nb, Nb.T @ K @ Nb
    e = np.zeros(n)
    e[n // 2] = 1.0
    eq = Nb.T @ e
    p = Nb.shape[1]

    def rhs(t, y):
        q, w = y[:p], y[p:]
        c, k = 0.05 + 0.01 * np.cos(2 * t), 2 + 0.3 * np.sin(t)
        return np.concatenate([w, np.linalg.solve(Mq, -c * Kq @ w - k * Kq @ q + np.sin(3 * t) * eq)])

    sol = solve_ivp(rhs, (0, 2), np.zeros(2 * p), method="DOP853", rtol=1e-12, atol=1e-14,
                    t_eval=TIMES)
    return {"x": (Nb @ sol.y[:p]).T, "v": (Nb @ sol.y[p:]).T}


@pytest.mark.parametrize("form", ["", "--mm", "--equations"])
def test_coupled_masses_against_scipy(tmp_path, form):
    flags = ["--coupled-masses"] + ([form] if form else [])
    path = gen(str(tmp_path / "chain.lth"), *flags)
    out = run_tool("lth-solve", path, "--times", "1,2", "--rtol", "1e-10", "--atol", "1e-12",
                   "--format", "json")
    z, names = np.array(out["z"]), out["components"]
    ref = reference()
    scale = max(1.0, np.abs(ref["x"]).max(), np.abs(ref["v"]).max())
    for u in ("x", "v"):
        # the block forms' z is [v; x; lam], the equation form names its unknowns
        col = [names.index("%s%d" % (u, i + 1)) if form == "--equations"
               else i + (N if u == "x" else 0) for i in range(N)]
        got = np.array([[z[k][c] for c in col] for k in range(len(TIMES))])
        # both solves to about 1e-10 relative; the estimate bounds lth's
        assert np.abs(got - ref[u]).max() <= 1e-8 * scale, (form, u, got, ref[u])


def test_coupled_masses_at_size(tmp_path):
    """n = 8000 > 7071: the dense path refuses M(1) naming it; the operator
    path (auto at this size) keeps M as a sparse LU and solves (in a build
    with SuiteSparse KLU; without it the refusal names KLU)."""
    path = gen(str(tmp_path / "big.lth"), "--mm", "--coupled-masses", n=8000, m=3)
    proc = run_tool("lth-ic", path, "--path", "dense", expect=3)
    assert "M(1)" in proc.stderr and "not diagonal" in proc.stderr, proc.stderr
    probe = subprocess.run([os.path.join(APPS, "lth-ic"), path], capture_output=True, text=True,
                           timeout=300)
    if probe.returncode != 0:
        assert "SuiteSparse KLU" in probe.stderr, probe.stderr
        return
    d = run_tool("lth-solve", path, "--times", "1", "--rtol", "1e-8", "--error-estimate", "off",
                 "--format", "json")
    assert d["path"] == "operator" and d["drift"] <= 1e-10, (d["path"], d["drift"])
