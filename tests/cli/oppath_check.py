#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of tests/cli/cli_oppath.sh: the operator path against the dense path
and against an independent reference solution of the generated chain.

  oppath_check.py solve OP.json DENSE.json   z agrees within what both solves'
      global error estimates and the requested rtol/atol allow
  oppath_check.py ic OP.json DENSE.json      z0 agrees to the decompositions'
      rounding (1e-9 relative to max(1, |z0|))
  oppath_check.py decompose OP.json DENSE.json  g, q, cond_pi, cond_chain agree
  oppath_check.py chain N M OP.json [coupled]  z against the chain's projected
      ODE (scripts/gen-chain.py --mm, and with "coupled" --coupled-masses),
      integrated by SciPy at rtol 1e-12
"""
import json
import sys

import numpy as np


def load(path):
    with open(path) as f:
        return json.load(f)


def allowed(a, b):
    """What two solves may differ by: 3 x the sum of their error estimates
    plus 10 x the tolerance's scale atol + rtol max |z| (the estimate is an
    estimate; the floor keeps a tiny estimate from making the test flaky)."""
    z = np.abs(np.array(a["z"])).max()
    floor = max(a["atol"] + a["rtol"] * z, b["atol"] + b["rtol"] * z)
    return 3 * (a["error_estimate"] + b["error_estimate"]) + 10 * floor


def solve(op, dn):
    a, b = load(op), load(dn)
    assert a["path"] == "operator" and b["path"] == "dense", (a["path"], b["path"])
    d = np.abs(np.array(a["z"]) - np.array(b["z"])).max()
    tol = allowed(a, b)
    print("solve: max |z_op - z_dense| = %.3g, allowed %.3g" % (d, tol))
    return d <= tol


def ic(op, dn):
    a, b = load(op), load(dn)
    za, zb = np.array(a["z0"]), np.array(b["z0"])
    d = np.abs(za - zb).max()
    tol = 1e-9 * max(1.0, np.abs(zb).max())
    print("ic: max |z0_op - z0_dense| = %.3g, allowed %.3g" % (d, tol))
    return d <= tol and a["residual"] <= a["tolerance"]


def decompose(op, dn):
    a, b = load(op), load(dn)
    ok = True
    for pa, pb in zip(a["points"], b["points"]):
        for key in ("g", "q"):
            va, vb = np.array(pa[key]), np.array(pb[key])
            tol = 1e-9 * max(1.0, np.abs(vb).max())
            if np.abs(va - vb).max() > tol:
                print("decompose: %s at t = %g differs by %.3g > %.3g"
                      % (key, pa["t"], np.abs(va - vb).max(), tol))
                ok = False
        for key in ("g", "q"):  # --order: the derivatives
            if "derivatives" in pb:
                va = np.array(pa["derivatives"][key], dtype=float)
                vb = np.array(pb["derivatives"][key], dtype=float)
                tol = 1e-9 * max(1.0, np.abs(vb).max())
                if va.shape != vb.shape or np.abs(va - vb).max() > tol:
                    print("decompose: derivatives of %s at t = %g differ" % (key, pa["t"]))
                    ok = False
        for key in ("cond_pi", "cond_chain"):  # estimates: agree within 10 %
            if abs(pa[key] - pb[key]) > 0.1 * pb[key]:
                print("decompose: %s at t = %g: %g vs %g" % (key, pa["t"], pa[key], pb[key]))
                ok = False
    return ok and len(a["points"]) == len(b["points"])


def chain_reference(n, m, times, coupled=False):
    """The chain of gen-chain.py --mm: M v' = -c T v - k T x + C' lam + f,
    x' = v, 0 = C x, with M = I, or with --coupled-masses the tridiagonal
    M = tridiag(0.1, 1 + (i-1 mod 3)/2, 0.1).  Differentiating C x = 0 twice,
    C M^{-1} (C' lam - rest) = 0 with rest = c T v + k T x - f gives
    lam = (C M^{-1} C')^{-1} C M^{-1} rest, and (v, x) obey an ODE (M^{-1} by a
    sparse LU, SciPy's, independent of lth's KLU)."""
    from scipy.integrate import solve_ivp
    from scipy.sparse import diags
    from scipy.sparse.linalg import splu

    T = diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]).tocsr()
    C = np.zeros((m, n))
    for j in range(m):
        a = (j * (n - 1)) // max(m, 1)
        C[j, a], C[j, a + 1] = 2.385, -1.0
    if coupled:
        d = 1 + (np.arange(n) % 3) / 2
        lu = splu(diags([0.1 * np.ones(n - 1), d, 0.1 * np.ones(n - 1)], [-1, 0, 1]).tocsc())
        minv = lu.solve
    else:
        def minv(b):
            return b
    MiCt = np.column_stack([minv(C[j].copy()) for j in range(m)])
    Pi = C @ MiCt

    def parts(t, y):
        v, x = y[:n], y[n:]
        c, k = 0.05 + 0.01 * np.cos(2 * t), 2 + 0.3 * np.sin(t)
        f = np.zeros(n)
        f[n // 2] = np.sin(3 * t)
        rest = minv(c * (T @ v) + k * (T @ x) - f)
        lam = np.linalg.solve(Pi, C @ rest)
        return -rest + MiCt @ lam, lam

    def rhs(t, y):
        return np.concatenate([parts(t, y)[0], y[:n]])

    sol = solve_ivp(rhs, (0.0, max(times)), np.zeros(2 * n), method="DOP853", rtol=1e-12,
                    atol=1e-14, t_eval=times)
    assert sol.success, sol.message
    rows = []
    for k, t in enumerate(sol.t):
        y = sol.y[:, k]
        rows.append(np.concatenate([y, parts(t, y)[1]]))
    return np.array(rows)


def chain(n, m, op, masses=""):
    a = load(op)
    assert a["path"] == "operator", a["path"]
    ref = chain_reference(int(n), int(m), np.array(a["times"]), masses == "coupled")
    z = np.array(a["z"])
    comps = a.get("components", [])
    if comps and not comps[0].startswith("z_"):  # the equation form: by name, v, x, lam
        at = {c: k for k, c in enumerate(comps)}
        names = ["v%d" % (i + 1) for i in range(int(n))] + \
            ["x%d" % (i + 1) for i in range(int(n))] + ["lam%d" % (j + 1) for j in range(int(m))]
        z = z[:, [at[c] for c in names]]
    d = np.abs(z - ref).max()
    z = np.abs(ref).max()
    tol = 3 * a["error_estimate"] + 10 * (a["atol"] + a["rtol"] * z)
    print("chain: max |z - z_ref| = %.3g (error estimate %.3g), allowed %.3g"
          % (d, a["error_estimate"], tol))
    # the estimate itself: not below a tenth of the true error above the floor
    est_ok = d <= 10 * a["error_estimate"] + 10 * (a["atol"] + a["rtol"] * z)
    return d <= tol and est_ok


if __name__ == "__main__":
    what, args = sys.argv[1], sys.argv[2:]
    ok = {"solve": solve, "ic": ic, "decompose": decompose, "chain": chain}[what](*args)
    sys.exit(0 if ok else 1)
