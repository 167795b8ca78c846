#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Property test: nothing hides between the points lth-bvp looks at.

Random index-2 boundary-value problems with narrow pulses (width 1e-4 .. 1e-2
at random positions), kinks and jumps in the load f and in the coefficient A,
and kinks or jumps in the constraint, through `lth-bvp --method M` for every
method, and collocation on the operator path (`--path operator`).  The model, z_1 = (x, y), u = lam:

    x' = lam,   y' = a(t) y + g(t),   0 = x - sin t - k(t),
    y(0) + b1 y(1) = beta,

has the reference solution x = sin t + k, lam = cos t + k' and
y = Phi (y0 + int_0^t g / Phi), Phi = exp(int_0^t a), with int a in closed form
and the remaining integral by adaptive Gauss-Legendre quadrature split at every
feature: independent of lth.

A draw passes when the tool either answers within what it states --
collocation: max |z - ref| <= tol max(1, max |ref|); the shooting methods
(which state no estimate): <= 1000 rtol max(1, max |ref|); finite
differences: <= its own estimate, fd_error (fd_error_layer within the first
r steps), up to that estimate's own O(h) error (5 % at the default 1001
points) -- or refuses (exit 3).  A jump in the constraint has no solution:
every method must refuse naming t within 1e-9 of the jump.  Refusals of
solvable draws are allowed only for finite differences, whose grid is fixed
("cannot resolve the data" at a pulse narrower than its cells); they are
counted and printed.

    python3 tests/cli/bvp_features_property.py --apps build/apps --draws 36 --seed 1
    python3 tests/cli/bvp_features_property.py --apps build/apps --draws 2000 --seed 7  # long run
"""
import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np

# "operator": collocation on the operator path (--path operator), which kept no
# mesh points at the data's features before (a pulse of width 5e-6 fell between
# its Gauss points: y = 0 for 0.054)
METHODS = ["collocation", "shooting", "multiple", "fd", "operator"]
RTOL = 1e-10  # lth-bvp's default for the shooting methods


def expr_num(v):
    return repr(float(v))


GL_X, GL_W = np.polynomial.legendre.leggauss(20)


def quad(f, a, b, depth=0):
    """int_a^b f by 20-point Gauss-Legendre, halved until the halves agree
    with the whole to 1e-15 relative (the stretches between the features'
    break points are smooth: a level or two)."""
    def gl(lo, hi):
        m, r = 0.5 * (lo + hi), 0.5 * (hi - lo)
        return r * sum(wk * f(m + r * xk) for xk, wk in zip(GL_X, GL_W))

    mid = 0.5 * (a + b)
    whole, left, right = gl(a, b), gl(a, mid), gl(mid, b)
    if abs(whole - (left + right)) <= 1e-15 * max(1.0, abs(whole)) or depth >= 30:
        return left + right
    return quad(f, a, mid, depth + 1) + quad(f, mid, b, depth + 1)


class Feature:
    """One feature: kind in pulse, kink, jump; where: a (coefficient), g
    (load) or k (constraint)."""

    def __init__(self, kind, where, c, amp, w=0.0):
        self.kind, self.where, self.c, self.amp, self.w = kind, where, c, amp, w

    def text(self):
        c, a, w = expr_num(self.c), expr_num(self.amp), expr_num(self.w)
        if self.kind == "pulse":
            return "%s*exp(-((t-%s)/%s)^2)" % (a, c, w)
        if self.kind == "kink":
            return "%s*abs(t-%s)" % (a, c)
        return "%s*(t-%s)/abs(t-%s)" % (a, c, c)  # a jump of 2 amp at c

    def value(self, t):
        if self.kind == "pulse":
            return self.amp * math.exp(-(((t - self.c) / self.w) ** 2))
        if self.kind == "kink":
            return self.amp * abs(t - self.c)
        return self.amp * math.copysign(1.0, t - self.c)

    def slope(self, t):
        """d/dt (kinks and jumps only; used for k)."""
        if self.kind == "kink":
            return self.amp * math.copysign(1.0, t - self.c)
        return 0.0

    def integral(self, t):
        """int_0^t of the feature."""
        c, a = self.c, self.amp
        if self.kind == "pulse":
            w = self.w
            return a * w * math.sqrt(math.pi) / 2 * (math.erf((t - c) / w) - math.erf(-c / w))
        if self.kind == "kink":
            return a * ((t - c) * abs(t - c) + c * abs(c)) / 2
        return a * (abs(t - c) - abs(c))

    def breaks(self):
        if self.kind != "pulse":
            return [self.c]
        return [self.c + s * self.w for s in (-8, -4, -2, -1, 0, 1, 2, 4, 8)]


class Draw:
    def __init__(self, rng, impulse):
        self.feats = []
        n = rng.choice([1, 1, 2, 3])
        for _ in range(n):
            kind = rng.choice(["pulse", "pulse", "kink", "jump"])
            where = rng.choice(["a", "g", "g"] + (["k"] if kind == "kink" else []))
            c = rng.uniform(0.03, 0.97)
            w = 10 ** rng.uniform(-4, -2) if kind == "pulse" else 0.0
            if where == "a":
                amp = rng.uniform(-3, 3) if kind == "pulse" else rng.uniform(-1.5, 1.5)
            elif where == "g":
                amp = rng.uniform(-5, 5) if kind == "pulse" else rng.uniform(-1, 1)
            else:
                amp = rng.uniform(-0.5, 0.5)
            self.feats.append(Feature(kind, where, c, amp, w))
        if impulse:  # a jump in the constraint: no solution
            self.feats.append(Feature("jump", "k", rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.4)))
        self.impulse = impulse
        self.a0, self.g0 = rng.uniform(-1.5, 0.5), rng.uniform(-1, 1)
        self.om = rng.uniform(0.5, 4)
        self.b1, self.beta = rng.choice([0.0, 0.5, -0.3]), rng.uniform(-2, 2)
        self.times = sorted({round(rng.uniform(0.01, 0.99), 6) for _ in range(5)} | {1.0})

    def of(self, where):
        return [f for f in self.feats if f.where == where]

    # ---- data file ----
    def lth(self):
        a = "%s" % expr_num(self.a0) + "".join(" + " + f.text() for f in self.of("a"))
        g = "%s*cos(%s*t)" % (expr_num(self.g0), expr_num(self.om))
        g += "".join(" + " + f.text() for f in self.of("g"))
        k = "".join(" - " + f.text() for f in self.of("k"))
        return "\n".join([
            "lth 1", "problem dae", "blocks 2 1", "interval 0 1",
            "A(1,1) = [0, 0; 0, %s]" % a,
            "A(1,2) = [1; 0]", "A(2,1) = [1, 0]",
            "f(1) = [0; %s]" % g,
            "f(2) = -sin(t)%s" % k,
            "bc B0 = [0, 1, 0]", "bc B1 = [0, %s, 0]" % expr_num(self.b1),
            "bc beta = [%s]" % expr_num(self.beta), ""])

    # ---- reference ----
    def A(self, t):  # int_0^t a
        return self.a0 * t + sum(f.integral(t) for f in self.of("a"))

    def g(self, t):
        return self.g0 * math.cos(self.om * t) + sum(f.value(t) for f in self.of("g"))

    def reference(self):
        br = sorted({0.0, 1.0} | {b for f in self.feats for b in f.breaks() if 0 < b < 1})
        grid = sorted(set(br) | set(self.times))

        def h(s):
            return self.g(s) * math.exp(-self.A(s))

        cum, I = 0.0, {0.0: 0.0}
        for lo, hi in zip(grid[:-1], grid[1:]):
            cum += quad(h, lo, hi)
            I[hi] = cum
        P1 = math.exp(self.A(1.0))
        y0 = (self.beta - self.b1 * P1 * I[1.0]) / (1 + self.b1 * P1)
        ref = []
        for t in self.times:
            x = math.sin(t) + sum(f.value(t) for f in self.of("k"))
            lam = math.cos(t) + sum(f.slope(t) for f in self.of("k"))
            y = math.exp(self.A(t)) * (y0 + I[t])
            ref.append([x, y, lam])
        return np.array(ref)

    def describe(self):
        return ", ".join("%s %s at %.6g (amp %.3g%s)" % (f.kind, f.where, f.c, f.amp,
                                                          ", w %.3g" % f.w if f.w else "")
                         for f in self.feats)


def run(apps, path, method, times, tol):
    op = method == "operator"
    cmd = [os.path.join(apps, "lth-bvp"), path, "--method", "collocation" if op else method,
           "--format", "json", "--times", ",".join(repr(t) for t in times)]
    if method in ("collocation", "operator"):
        cmd += ["--tol", repr(tol)]
    if op:
        cmd += ["--path", "operator"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def named_t(stderr):
    m = re.search(r"\(t = ([-+0-9.eE]+)\)", stderr)
    return float(m.group(1)) if m else None


def check(apps, d, tmp, rng, stats):
    """Returns a list of failure messages for one draw."""
    fails = []
    path = os.path.join(tmp, "draw.lth")
    with open(path, "w") as fp:
        fp.write(d.lth())
    ref = None if d.impulse else d.reference()
    for method in METHODS:
        tol = rng.choice([1e-6, 1e-8, 1e-10])
        rc, out, err = run(apps, path, method, d.times, tol)
        key = method
        if d.impulse:
            tj = [f.c for f in d.feats if f.where == "k" and f.kind == "jump"][0]
            t = named_t(err)
            if rc != 3 or t is None or abs(t - tj) > 1e-9:
                fails.append("%s: a jump in the constraint at %.17g: exit %d, %s" %
                             (method, tj, rc, (err or out[:200]).strip()))
            stats[key]["refused"] += 1
            continue
        if rc != 0:
            stats[key]["refused"] += 1
            if rc != 3 or method != "fd":
                fails.append("%s: exit %d on a solvable problem: %s" % (method, rc, err.strip()))
            continue
        try:
            res = json.loads(out)
            z = np.array(res["z"])
        except (ValueError, KeyError) as e:
            fails.append("%s: unreadable output (%s)" % (method, e))
            continue
        scale = max(1.0, float(np.max(np.abs(ref))))
        e = float(np.max(np.abs(z - ref))) / scale
        if method in ("collocation", "operator"):
            bound = tol
        elif method == "fd":
            # its estimate is asymptotically exact, e24 2^q/(2^q - 1) from the N/2, N and
            # 2N solutions: its own error is O(h) relative (the next term of the
            # expansion), measured up to 3e-4 at h = 1e-3; 5 % covers that
            h = 1.0 / (res["fd_points"] - 1)
            layer = [k for k, t in enumerate(d.times) if t <= 4.0 * h]
            est = max(res["fd_error"], res["fd_error_layer"] if layer else 0.0)
            bound = (1 + 50 * h) * est / scale
        else:
            bound = 1e3 * RTOL
        stats[key]["answered"] += 1
        stats[key]["worst"] = max(stats[key]["worst"], e / bound)
        if not e <= bound:
            fails.append("%s: error %.3e above the stated %.3e" % (method, e, bound))
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", required=True, help="the build's tool directory (build/apps)")
    ap.add_argument("--draws", type=int, default=36)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="directory to keep the data files of failing draws in")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    stats = {m: {"answered": 0, "refused": 0, "worst": 0.0} for m in METHODS}
    nfail = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.draws):
            d = Draw(rng, impulse=(i % 12 == 11))
            fails = check(a.apps, d, tmp, rng, stats)
            if fails:
                nfail += 1
                print("draw %d (%s):" % (i, d.describe()))
                for f in fails:
                    print("  FAIL " + f)
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    with open(os.path.join(a.keep, "draw%d.lth" % i), "w") as fp:
                        fp.write("# %s\n# times %s\n" % (d.describe(), d.times) + d.lth())
    for m in METHODS:
        s = stats[m]
        print("%-12s answered %3d, refused %3d, worst error / stated %.3g" %
              (m, s["answered"], s["refused"], s["worst"]))
    print("%d of %d draws failed" % (nfail, a.draws))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
