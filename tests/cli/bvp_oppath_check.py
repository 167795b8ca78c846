#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of tests/cli/cli_bvp_oppath.sh: lth-bvp's operator path against its
dense path, and against an independent integration of the generated chain.

  bvp_oppath_check.py agree OP.json DENSE.json
      z agrees within 3 x the sum of both error estimates plus 10 x the
      tolerance's scale tol * max(1, max |z|) (the estimates are estimates;
      the floor keeps a tiny one from making the test flaky)
  bvp_oppath_check.py ivp BVP.json FILE N M LTH_SOLVE
      the chain of scripts/gen-chain.py --bvp --equations N M: lth-solve
      (CVODE on the operator path, rtol 1e-11) started from the BVP's z(t0)
      reproduces its z at the other output times to 1e-7 relative, and meets
      the conditions at t1 (v_i(t1) = 0 for the free masses) to 1e-7: the
      boundary-value solution is a solution of the DAE through data the
      collocation did not use
"""
import json
import subprocess
import sys

import numpy as np


def load(path):
    with open(path) as f:
        return json.load(f)


def agree(op, dn):
    a, b = load(op), load(dn)
    assert a["path"] == "operator" and b["path"] == "dense", (a["path"], b["path"])
    za, zb = np.array(a["z"]), np.array(b["z"])
    d = np.abs(za - zb).max()
    scale = max(1.0, np.abs(zb).max())
    tol = 3 * (a["error_estimate"] + b["error_estimate"]) + 10 * a["tol"] * scale
    print("agree: max |z_op - z_dense| = %.3g, allowed %.3g" % (d, tol))
    return d <= tol


def ivp(bvp, path, n, m, solve):
    n, m = int(n), int(m)
    o = load(bvp)
    assert o["path"] == "operator", o["path"]
    names = o["components"]
    z = np.array(o["z"])
    order = (["x%d" % i for i in range(1, n + 1)] + ["v%d" % i for i in range(1, n + 1)]
             + ["lam%d" % j for j in range(1, m + 1)])
    at = {nm: k for k, nm in enumerate(names)}
    z0 = ",".join("%.17g" % z[0][at[nm]] for nm in order)
    times = ",".join("%.17g" % t for t in o["times"])
    r = subprocess.run([solve, path, "--z0", z0, "--times", times, "--rtol", "1e-11", "--atol",
                        "1e-13", "--format", "json"], capture_output=True, text=True)
    if r.returncode:
        print("lth-solve failed: " + r.stderr[:600])
        return False
    i = load_text(r.stdout)
    iz = np.array([[row[i["components"].index(nm)] for nm in names] for row in i["z"]])
    scale = max(1.0, np.abs(z).max())
    d = np.abs(z - iz).max()
    anchors = {(j * (n - 1)) // m + 1 for j in range(m)}
    free = [k for k in range(n) if k not in anchors]
    vt1 = max(abs(iz[-1][at["v%d" % (k + 1)]]) for k in free)
    print("ivp: max |z_bvp - z_ivp| = %.3g (scale %.3g); max |v_free(t1)| from the IVP = %.3g"
          % (d, scale, vt1))
    return d <= 1e-7 * scale and vt1 <= 1e-7 * scale


def load_text(s):
    return json.loads(s)


def main():
    cmd = sys.argv[1]
    ok = agree(*sys.argv[2:4]) if cmd == "agree" else ivp(*sys.argv[2:7])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
