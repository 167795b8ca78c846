#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of tests/cli/cli_lqr_oppath.sh: lth-lqr's operator path against its
dense path, and against the optimality conditions of a generated chain.

  lqr_oppath_check.py agree OP.json DENSE.json
      both say exists and unique; x, lambda, u agree within 1e-7 * max(1, max
      |value|) and the costs within 1e-7 relative (both are collocation
      solutions at --rtol 1e-10: 100 x the tolerance is the dense path's own
      existence threshold, and the agreement stays well inside it)
  lqr_oppath_check.py conditions OUT.json STEM
      the chain of scripts/gen-chain.py --lqr (matrices STEM_A.mtx, ...): the
      path is the operator one; x(t0) = x0, lambda(t1) = C x(t1), B'lambda = 0
      and its derivative B'(H x + A' lambda) = 0 (the constraint the optimum
      must keep; B is constant) at every output time to 1e-8 relative; u = 0
      (the actuated chain is at rest and decoupled: the exact optimum), so
      that (x, lambda) solves the linear ODE x' = A x, lambda' = -H x - A'
      lambda: integrated from the reported (x(t0), lambda(t0)) by
      scipy's expm_multiply (independent of the collocation), it reproduces x
      and lambda at the other output times to 1e-8 relative, and the cost
      1/2 x0' lambda(t0) equals 1/2 x(t1)' C x(t1) + 1/2 int x' H x dt by
      Simpson's rule on 801 points of that integration to 1e-7 relative.
      With STEM_At.mtx (gen-chain.py --lqr --time-varying: A(t) = A -
      0.1 sin(t) At) the integration is scipy's DOP853 at rtol 1e-13 instead
      of expm_multiply, and A(t) is used in the derivative of B'lambda
"""
import json
import os
import sys

import numpy as np
import scipy.integrate
import scipy.io
import scipy.sparse
import scipy.sparse.linalg


def load(path):
    with open(path) as f:
        return json.load(f)


def agree(op, dn):
    a, b = load(op), load(dn)
    ok = a["exists"] and a["unique"] and b["exists"] and b["unique"]
    ok = ok and a.get("path") == "operator" and b.get("path") == "dense"
    for k in ("x", "lambda", "u"):
        x, y = np.array(a[k]), np.array(b[k])
        scale = max(1.0, float(np.max(np.abs(y))))
        d = float(np.max(np.abs(x - y)))
        print("%s: max difference %.3g (scale %.3g)" % (k, d, scale))
        ok = ok and d <= 1e-7 * scale
    dc = abs(a["cost"] - b["cost"])
    print("cost: %.17g vs %.17g" % (a["cost"], b["cost"]))
    return ok and dc <= 1e-7 * max(1.0, abs(b["cost"]))


def conditions(out, stem):
    r = load(out)
    A = scipy.io.mmread(stem + "_A.mtx").tocsr()
    B = scipy.io.mmread(stem + "_B.mtx").tocsr()
    H = scipy.io.mmread(stem + "_H.mtx").tocsr()
    C = scipy.io.mmread(stem + "_C.mtx").tocsr()
    At = scipy.io.mmread(stem + "_At.mtx").tocsr() if os.path.exists(stem + "_At.mtx") else None

    def A_at(tt):
        return A if At is None else A - 0.1 * np.sin(tt) * At

    t = np.array(r["times"])
    x, lam, u = np.array(r["x"]), np.array(r["lambda"]), np.array(r["u"])
    x0 = np.array(r["x0"])
    sx = max(1e-300, float(np.max(np.abs(x))))
    sl = max(1e-300, float(np.max(np.abs(lam))))
    checks = {
        "path": 0.0 if r.get("path") == "operator" else 1.0,
        "x(t0) - x0": float(np.max(np.abs(x[0] - x0))) / sx,
        "lambda(t1) - C x(t1)": float(np.max(np.abs(lam[-1] - C @ x[-1]))) / sl,
        "B' lambda": max(float(np.max(np.abs(B.T @ l))) for l in lam) / sl,
        "B'(H x + A' lambda)": max(float(np.max(np.abs(B.T @ (H @ xi + A_at(ti).T @ li))))
                                   for ti, xi, li in zip(t, x, lam)) / max(sx, sl),
        "u": float(np.max(np.abs(u))) / sx,
    }
    nx = len(x0)
    M = scipy.sparse.bmat([[A, None], [-H, -A.T]]).tocsc()
    z0 = np.concatenate([x[0], lam[0]])
    ts = np.linspace(t[0], t[-1], 801)
    if At is None:
        zs = scipy.sparse.linalg.expm_multiply(M, z0, start=t[0], stop=t[-1], num=801,
                                               endpoint=True)
    else:

        Mt = scipy.sparse.bmat([[At, None], [None, -At.T]]).tocsr()

        def rhs(tt, z):
            return M @ z - 0.1 * np.sin(tt) * (Mt @ z)
        sol = scipy.integrate.solve_ivp(rhs, (t[0], t[-1]), z0, method="DOP853",
                                        t_eval=np.unique(np.concatenate([ts, t])),
                                        rtol=1e-13, atol=1e-16 * max(sx, sl))
        if not sol.success:
            print("integration failed: %s" % sol.message)
            return False
        at = {float(tt): k for k, tt in enumerate(sol.t)}
        zs = np.array([sol.y[:, at[float(tt)]] for tt in ts])
        zt = [sol.y[:, at[float(tt)]] for tt in t]
    dev = 0.0
    for k in range(1, len(t)):
        j = int(round((t[k] - t[0]) / (ts[1] - ts[0])))
        if At is not None:
            zk = zt[k]
        elif abs(ts[j] - t[k]) > 1e-12 * max(1.0, abs(t[k])):
            zk = scipy.sparse.linalg.expm_multiply(M * (t[k] - t[0]), z0)
        else:
            zk = zs[j]
        dev = max(dev, float(np.max(np.abs(zk[:nx] - x[k]))) / sx,
                  float(np.max(np.abs(zk[nx:] - lam[k]))) / sl)
    checks["integration from z(t0)"] = dev
    ok = all(v <= 1e-8 for v in checks.values())
    q = np.array([z[:nx] @ (H @ z[:nx]) for z in zs])
    h = ts[1] - ts[0]
    integral = h / 3 * (q[0] + q[-1] + 4 * q[1:-1:2].sum() + 2 * q[2:-1:2].sum())
    J = 0.5 * zs[-1][:nx] @ (C @ zs[-1][:nx]) + 0.5 * integral
    rel = abs(J - r["cost"]) / abs(J)
    checks["cost vs quadrature"] = rel
    for k, v in checks.items():
        print("%s: %.3g" % (k, v))
    return ok and rel <= 1e-7


def main():
    what = sys.argv[1]
    ok = agree(*sys.argv[2:4]) if what == "agree" else conditions(*sys.argv[2:4])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
