#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""lth-ss's output against what docs/format.md section 2.7 says it means.

    ss_check.py shapes RESULT.json            keys and shapes of the JSON
    ss_check.py mat RESULT.json RESULT.mat    the .mat holds the same numbers
    ss_check.py same A.json B.json RTOL       two realizations agree (maps only)
    ss_check.py raw CHANGED.json RAW.json     --raw and the change of state agree
    ss_check.py simulate SS.json SOLVE.json   the realization reproduces lth-solve

`simulate` integrates x' = A x + sum_j B_j u^(j) + g (cubic splines of the
maps between the JSON's times) from x0 = Z^+ (z0 - sum_j Dz_j u^(j) - z_f),
z0 lth-solve's first row, for the signals of data/carts_io.lth, and compares
y and z with lth-solve's at its times.  Prints what it checked; exit status 1
with the failures listed.
"""
import json
import sys

import numpy as np

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def arr(x):
    return np.array(x, dtype=float)


def shapes(path):
    R = load(path)
    n, p = len(R["times"]), R["p"]
    nu, ny, s, m = R["nu"], R["ny"], R["s"], R["m"]
    nb, nd = R["nb"], R["nd"]
    nk = nd - 1 if not R["raw"] else 0
    want = {"A": (n, p, p), "B": (n, nb, p, nu), "C": (n, ny, p), "D": (n, nd, ny, nu),
            "g": (n, p), "y_f": (n, ny), "Z": (n, s, p), "Dz": (n, nd, s, nu), "z_f": (n, s),
            "Q": (n, m, p), "state_change": (n, nk, m, nu), "orth_err": (n,),
            "range_err": (n,), "amplification": (n,)}
    for key, shape in want.items():
        got = np.shape(arr(R[key])) if np.prod(shape) > 0 else None
        if got is not None and got != shape:
            fail("%s: %s has shape %s, expected %s" % (path, key, got, shape))
    if len(R["inputs"]) != nu or len(R["outputs"]) != ny:
        fail("%s: %d input and %d output names for nu = %d, ny = %d"
             % (path, len(R["inputs"]), len(R["outputs"]), nu, ny))
    if nb != (nd if R["raw"] else 1):
        fail("%s: nb = %d with raw = %s and nd = %d" % (path, nb, R["raw"], nd))
    if not 0 <= R["derivative_feedthrough"] <= R["derivative_feedthrough_bound"] == nd - 1:
        fail("%s: derivative_feedthrough %d, bound %d, nd %d"
             % (path, R["derivative_feedthrough"], R["derivative_feedthrough_bound"], nd))
    # the basis: orthonormal, in the state space (rounding: 1e-12)
    Q = arr(R["Q"])
    for k in range(n):
        e = np.linalg.norm(Q[k].T @ Q[k] - np.eye(p))
        if e > 1e-12:
            fail("%s: Q^T Q - I = %.3g at t = %g" % (path, e, R["times"][k]))
    for key in ("orth_err", "range_err"):
        if max(R[key]) > 1e-12:
            fail("%s: %s up to %.3g" % (path, key, max(R[key])))
    print("shapes: %s: %d times, p = %d, nb = %d, nd = %d, keys and shapes as documented"
          % (path, n, p, nb, nd))
    return R


def mat(jpath, mpath):
    import scipy.io
    R = load(jpath)
    S = scipy.io.loadmat(mpath)
    n = len(R["times"])

    def per_time(key):  # JSON (time first) -> .mat (time last)
        a = arr(R[key])
        return np.moveaxis(a, 0, -1) if a.size else a

    def check(name, got, want):
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
        if got.size == 0 and want.size == 0:
            return
        if got.shape != want.shape:
            fail("%s: %s has shape %s, the JSON %s" % (mpath, name, got.shape, want.shape))
            return
        d = np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))
        if d > 1e-15:
            fail("%s: %s differs from the JSON by %.3g" % (mpath, name, d))

    check("times", S["times"], arr(R["times"]).reshape(n, 1))
    for key in ("A", "C", "Z", "Q"):
        check(key, S[key], per_time(key))
    for key in ("g", "y_f", "z_f"):
        check(key, S[key], per_time(key))
    for base, key, first in (("B", "B", 0), ("D", "D", 0), ("Dz", "Dz", 0),
                             ("K", "state_change", 1)):
        maps = arr(R[key])
        count = maps.shape[1] if maps.ndim > 1 else 0
        for j in range(count):
            check("%s%d" % (base, j + first), S["%s%d" % (base, j + first)],
                  np.moveaxis(maps[:, j], 0, -1))
        if "%s%d" % (base, count + first) in S:
            fail("%s: %s%d beyond the JSON's maps" % (mpath, base, count + first))
    for key in ("p", "nb", "nd", "derivative_feedthrough", "derivative_feedthrough_bound",
                "basis_start"):
        check(key, S[key], [[R[key]]])
    for key in ("orth_err", "range_err", "amplification"):
        check(key, S[key], arr(R[key]).reshape(n, 1))
    if bool(S["raw"][0, 0]) != R["raw"] or S["raw"].dtype != np.uint8:
        fail("%s: raw is %s (%s), the JSON %s" % (mpath, S["raw"], S["raw"].dtype, R["raw"]))
    for key in ("inputs", "outputs"):
        got = [str(c[0]) for c in S[key].ravel()]
        if got != R[key]:
            fail("%s: %s = %s, the JSON %s" % (mpath, key, got, R[key]))
    got = [str(c[0]) for c in S["components"].ravel()]
    if got != R["components"][:R["s"]]:
        fail("%s: components = %s, the JSON %s" % (mpath, got, R["components"]))
    print("mat: %s holds the numbers and names of %s (relative 1e-15)" % (mpath, jpath))


MAPS = ("A", "B", "C", "D", "g", "y_f", "Z", "Dz", "z_f", "Q", "state_change")


def same(apath, bpath, rtol):
    a, b = load(apath), load(bpath)
    worst = 0.0
    for key in MAPS:
        x, y = arr(a[key]), arr(b[key])
        if x.shape != y.shape:
            fail("%s, %s: %s shapes %s and %s" % (apath, bpath, key, x.shape, y.shape))
            continue
        if x.size:
            d = np.max(np.abs(x - y)) / max(1.0, np.max(np.abs(y)))
            worst = max(worst, d)
            if d > rtol:
                fail("%s, %s: %s differ by %.3g (relative) > %g" % (apath, bpath, key, d, rtol))
    print("same: %s and %s agree to %.2g (allowed %g)" % (apath, bpath, worst, rtol))


def raw(cpath, rpath):
    """x_raw = Q^T v = x + Q^T sum_k K_k u^(k-1): the same A and C, and
    D_j = Draw_j + C Q^T K_{j+1}, Dz_j = Dzraw_j + Z Q^T K_{j+1}."""
    c, r = load(cpath), load(rpath)
    worst = 0.0
    for k in range(len(c["times"])):
        Q = arr(c["Q"][k])
        for key in ("A", "C", "Z", "Q"):
            x, y = arr(c[key][k]), arr(r[key][k])
            if x.size:
                worst = max(worst, np.max(np.abs(x - y)))
        K = arr(c["state_change"][k])
        for key, M in (("D", arr(c["C"][k])), ("Dz", arr(c["Z"][k]))):
            for j in range(c["nd"]):
                want = arr(r[key][k][j])
                if j < len(K) and M.size:
                    want = want + M @ Q.T @ K[j]
                if want.size:
                    worst = max(worst, np.max(np.abs(arr(c[key][k][j]) - want)))
    if worst > 1e-11:
        fail("%s, %s: --raw and the change of state differ by %.3g" % (cpath, rpath, worst))
    print("raw: %s and %s describe the same plant (worst %.2g)" % (cpath, rpath, worst))


def signals(t, j):
    """u1 = sin 3t, u2 = 0.1 t^2 (data/carts_io.lth) and their derivatives."""
    return np.array([3.0 ** j * np.sin(3 * t + j * np.pi / 2),
                     [0.1 * t * t, 0.2 * t, 0.2][j] if j < 3 else 0.0])


def simulate(spath, solpath):
    from scipy.integrate import solve_ivp
    from scipy.interpolate import CubicSpline
    R, S = load(spath), load(solpath)
    t = arr(R["times"])
    A = CubicSpline(t, arr(R["A"]), axis=0)
    B = [CubicSpline(t, arr(R["B"])[:, j], axis=0) for j in range(R["nb"])]
    g = CubicSpline(t, arr(R["g"]), axis=0)

    def rhs(tt, x):
        return A(tt) @ x + g(tt) + sum(B[j](tt) @ signals(tt, j) for j in range(R["nb"]))

    def at(k, key, x, tt):  # Z x + sum_j Dz_j u^(j) + z_f, or y's
        M, maps, f = {"z": ("Z", "Dz", "z_f"), "y": ("C", "D", "y_f")}[key]
        return (arr(R[M][k]) @ x + arr(R[f][k])
                + sum(arr(R[maps][k][j]) @ signals(tt, j) for j in range(R["nd"])))

    k0 = int(np.argmin(abs(t - S["times"][0])))
    z0 = arr(S["z"][0])
    rest = z0 - at(k0, "z", np.zeros(R["p"]), t[k0])
    x0 = np.linalg.lstsq(arr(R["Z"][k0]), rest, rcond=None)[0]
    sol = solve_ivp(rhs, (t[0], t[-1]), x0, method="DOP853", rtol=1e-12, atol=1e-13,
                    dense_output=True)
    if not sol.success:
        fail("%s: the realization could not be integrated: %s" % (spath, sol.message))
        return
    worst = 0.0
    for i, tt in enumerate(S["times"]):
        k = int(np.argmin(abs(t - tt)))
        if abs(t[k] - tt) > 1e-12:
            fail("%s: no realization at lth-solve's time %g" % (spath, tt))
            continue
        x = sol.sol(tt)
        for key, ref in (("y", arr(S["y"][i])), ("z", arr(S["z"][i]))):
            d = np.max(np.abs(at(k, key, x, tt) - ref)) / max(1.0, np.max(np.abs(ref)))
            worst = max(worst, d)
            if d > 1e-8:
                fail("%s: %s at t = %g differs from lth-solve's by %.3g (relative)"
                     % (spath, key, tt, d))
    print("simulate: %s reproduces lth-solve's y and z at %d times to %.2g (allowed 1e-8)"
          % (spath, len(S["times"]), worst))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "shapes":
        shapes(args[0])
    elif cmd == "mat":
        mat(args[0], args[1])
    elif cmd == "same":
        same(args[0], args[1], float(args[2]))
    elif cmd == "raw":
        raw(args[0], args[1])
    elif cmd == "simulate":
        simulate(args[0], args[1])
    else:
        sys.exit("ss_check.py: unknown command %s" % cmd)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
