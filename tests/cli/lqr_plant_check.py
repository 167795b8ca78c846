#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of lth-lqr on DAE plants with a cost (tests/cli/cli_lqr_plant.sh).

    lqr_plant_check.py loop FILE.json     the closed loop is the feedback's
    lqr_plant_check.py lever FILE.json    tests/data/lqr_lever.lth vs SciPy's ARE
    lqr_plant_check.py spring FILE.json   tests/data/lqr_spring_tv.lth vs SciPy's
                                          Riccati ODE

Each plant is reduced to an ODE by hand here (the files say how), so SciPy
solves an independent problem: the algebraic Riccati equation
(scipy.linalg.solve_continuous_are) for the time-invariant lever, the
Riccati differential equations for P, p, c integrated backwards by
solve_ivp (DOP853, rtol 1e-12) for the time-varying spring.  The gain lth
reports on the DAE's unknowns acts on the manifold's directions: for the
lever, z = (2q, q, 2q', q', lam), so the gain on (q, q') is
(2 K[x1] + K[x2], 2 K[v1] + K[v2]) (lth puts no weight on lam).
Exit status 1 with a message on the first failed check.
"""
import json
import sys

import numpy as np
import scipy.integrate as si
import scipy.linalg as sl


def fail(msg):
    print("lqr_plant_check: " + msg)
    sys.exit(1)


def close(what, got, want, tol):
    got, want = np.asarray(got, float), np.asarray(want, float)
    err = np.max(np.abs(got - want)) if got.size else 0.0
    if not err <= tol:
        fail("%s: %s vs %s (difference %.3g > %.3g)" % (what, got, want, err, tol))


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def loop(r):
    """u = -K z + k at every time; the closed loop's cost is the optimum's."""
    K, k, z, u = (np.array(r[key], float) for key in ("K", "k", "z", "u"))
    n, nu, nv = K.shape
    if z.shape != (n, nv) or u.shape != (n, nu) or k.shape != (n, nu):
        fail("shapes: K %s, k %s, z %s, u %s" % (K.shape, k.shape, z.shape, u.shape))
    if len(r["variables"]) != nv or len(r["inputs"]) != nu or len(r["times"]) != n:
        fail("names and sizes disagree")
    for q in range(n):
        scale = 1.0 + np.abs(K[q]).max() * np.abs(z[q]).max() + np.abs(k[q]).max()
        close("u = -K z + k at t = %g" % r["times"][q], u[q], -K[q] @ z[q] + k[q], 1e-10 * scale)
    close("the closed loop's cost", r["cost_closed"], r["cost"], 1e-8 * max(1.0, abs(r["cost"])))


def lever(r):
    m1, m2, k1, k2, d = 2.0, 1.5, 3.0, 1.0, 0.4
    M = 4 * m1 + m2
    A = np.array([[0.0, 1.0], [-(4 * k1 + k2) / M, -d / M]])
    B = np.array([[0.0], [2.0 / M]])
    Q = np.diag([4.0, 0.5])  # y1 = x1 = 2q, y2 = v2 = q'
    R = np.array([[0.05]])
    N = np.array([[0.1], [0.0]])  # 0.1 y1 u = 0.2 q u = 2 x'N u
    P = sl.solve_continuous_are(A, B, Q, R, s=N)
    Kare = np.linalg.solve(R, B.T @ P + N.T)[0]
    x0 = np.array([0.3, -0.1])
    # the horizon (30) is long: P(t0) is the ARE's to far below 1e-10
    close("the cost against the ARE's x0'P x0", r["cost"], x0 @ P @ x0, 1e-9)
    names = r["variables"]
    ix = {v: names.index(v) for v in ("x1", "x2", "v1", "v2", "lam")}
    K = np.array(r["K"][0][0])
    Kq = np.array([2 * K[ix["x1"]] + K[ix["x2"]], 2 * K[ix["v1"]] + K[ix["v2"]]])
    close("the gain at t0 on (q, q') against the ARE's", Kq, Kare, 1e-8 * np.abs(Kare).max())
    close("the gain on lam", K[ix["lam"]], 0.0, 0.0)
    close("the feedforward k (no forcing, no linear terms)", r["k"], np.zeros_like(r["k"]), 1e-12)
    if r["times"][0] != 0.0:
        fail("the first time is not t0")


def spring(r):
    T = 4.0
    r_ = lambda t: 0.5 * np.cos(t)  # noqa: E731
    rho = lambda t: 0.1 + 0.05 * t  # noqa: E731

    def ab(t):
        A = np.array([[0.0, 1.0], [-(2.0 + 0.5 * np.sin(2 * t)) / 2.0, -0.1]])
        return A, np.array([[0.0], [0.5]])

    def rhs(t, y):  # P (4), p (2), c: -P' = Q + PA + A'P - PBR^-1B'P, ...
        P, p = y[:4].reshape(2, 2), y[4:6]
        A, B = ab(t)
        Rinv = 1.0 / rho(t)
        Q, q, c0 = np.diag([1.0, 0.0]), np.array([-r_(t), 0.0]), r_(t) ** 2
        PB = P @ B
        dP = -(Q + P @ A + A.T @ P - Rinv * PB @ PB.T)
        dp = -(q + A.T @ p - Rinv * PB @ (B.T @ p))
        dc = -(c0 - Rinv * float(B.T @ p) ** 2)
        return np.concatenate([dP.ravel(), dp, [dc]])

    yT = np.concatenate([np.diag([3.0, 0.5]).ravel(), [0.0, 0.0], [0.0]])
    times = np.array(r["times"], float)
    sol = si.solve_ivp(rhs, (T, 0.0), yT, method="DOP853", rtol=1e-12, atol=1e-14,
                       dense_output=True)
    if not sol.success:
        fail("SciPy's Riccati integration failed: " + sol.message)
    x0 = np.array([1.0, 0.3])
    y0 = sol.sol(0.0)
    J = x0 @ y0[:4].reshape(2, 2) @ x0 + 2 * y0[4:6] @ x0 + y0[6]
    # both integrate to about 1e-12 on this benign horizon (measured: 2e-14
    # in the cost, 1e-12 in the gains)
    close("the cost against SciPy's Riccati ODE", r["cost"], J, 1e-10 * max(1.0, abs(J)))
    names = r["variables"]
    ix = {v: names.index(v) for v in ("x1", "x2", "v1", "v2")}
    for q, t in enumerate(times):
        y = sol.sol(t)
        P, p = y[:4].reshape(2, 2), y[4:6]
        _, B = ab(t)
        Kw = (B.T @ P)[0] / rho(t)  # u = -Kw x + kw
        kw = -float(B.T @ p) / rho(t)
        K = np.array(r["K"][q][0])
        Kx = np.array([K[ix["x1"]] + K[ix["x2"]], K[ix["v1"]] + K[ix["v2"]]])
        close("the gain at t = %g" % t, Kx, Kw, 1e-9 * max(1.0, np.abs(Kw).max()))
        close("the feedforward at t = %g" % t, r["k"][q][0], kw, 1e-9 * max(1.0, abs(kw)))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("loop", "lever", "spring"):
        print(__doc__)
        return 2
    r = load(sys.argv[2])
    {"loop": loop, "lever": lever, "spring": spring}[sys.argv[1]](r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
