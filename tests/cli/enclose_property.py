# SPDX-License-Identifier: GPL-3.0-or-later
"""Property test: nothing hides between the points lth looks at.

Random narrow features -- pulses (width 1e-6 .. 1e-2), kinks and jumps, at
random positions and at positions where tables and steps put their points
(0.5, 0.25, ...) -- in the load f and in the coefficient A of

    x' = lam,  y' = -k(t) y + F(t),  0 = x - sin t     (index 2, on [0, 1]),

through lth-solve in the block form and in the equation form, with the
coefficient table and with direct decompositions, for every --method, and on
the operator path (a quarter of the draws: CVODE's BDF or Adams, which
stepped over pulses of width 1.6e-3 to 1e-6 before its steps kept to the
data's stretches: 7 of 240 draws wrong).  Every
feature has a closed-form y (below).  A run passes when it exits 0 with y
within TOL of the truth at every output time, or exits non-zero naming the t
of its refusal ("t = ").  An exit 0 with a larger error fails the test.

    python3 tests/cli/enclose_property.py BUILD/apps [--draws N] [--seed S] [-v]

ctest runs 240 draws (cli_enclose_property.sh, ~10 s); the longer version is
`python3 tests/cli/enclose_property.py build/apps --draws 3000`.
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

TOL = 1e-7  # |y - truth| <= TOL max(1, |truth|); lth runs at rtol 1e-10
METHODS = ["rk8pd", "rkf45", "msadams", "msbdf", "bsimp", "cheb"]
SQPI = math.sqrt(math.pi)


def pos(x):
    return x if x > 0 else 0.0


# kind: (F(t) text, k(t) text, y0, exact y(t)) for feature centre c, width w
def feature(kind, c, w):
    if kind == "pulse_f":
        F = "(1/%r)*exp(-((t-%r)/%r)^2)" % (w, c, w)

        def y(t):
            return (math.exp(-(t - c)) * SQPI / 2 * math.exp(w * w / 4) *
                    (math.erf((t - c) / w - w / 2) + math.erf(c / w + w / 2)))
        return F, "1", 0.0, y
    if kind == "kink_f":
        return ("abs(t-%r) + (t-%r)" % (c, c), "1", 0.0,
                lambda t: 2 * (pos(t - c) - 1 + math.exp(-pos(t - c))))
    if kind == "jump_f":
        return ("1 + abs(t-%r)/(t-%r)" % (c, c), "1", 0.0,
                lambda t: 2 * (1 - math.exp(-pos(t - c))))
    if kind == "pulse_A":
        k = "1 + (0.5/%r)*exp(-((t-%r)/%r)^2)" % (w, c, w)
        return ("0", k, 1.0,
                lambda t: math.exp(-(t + 0.25 * SQPI * (math.erf((t - c) / w) + math.erf(c / w)))))
    if kind == "kink_A":
        return ("0", "1 + 5*(abs(t-%r) + (t-%r))" % (c, c), 1.0,
                lambda t: math.exp(-(t + 5 * pos(t - c) ** 2)))
    if kind == "jump_A":
        return ("0", "2 + abs(t-%r)/(t-%r)" % (c, c), 1.0,
                lambda t: math.exp(-(t + 2 * pos(t - c))))
    raise ValueError(kind)


def block_file(F, k, y0):
    return ("lth 1\nproblem dae\nblocks 2 1\ninterval 0 1\n"
            "A(1,1) = [0, 0; 0, -(%s)]\nA(1,2) = [1; 0]\nA(2,1) = [1, 0]\n"
            "f(1) = [0; %s]\nf(2) = -sin(t)\nz0 = [0 %r 1]\n" % (k, F, y0))


def equation_file(F, k, y0):
    return ("problem equations\nvariables x lam y\ninterval 0 1\n"
            "x' = lam\ny' = -(%s)*y + %s\n0 = x - sin(t)\nz0 = [0 1 %r]\n" % (k, F, y0))


def draw(rng):
    kind = rng.choice(["pulse_f", "pulse_f", "kink_f", "jump_f", "pulse_A", "kink_A", "jump_A"])
    # on the points tables and steps like (halves, quarters, ...) or anywhere
    c = rng.choice([0.5, 0.25, 0.75, 0.125, 0.375]) if rng.random() < 0.3 else rng.uniform(0.05, 0.95)
    w = 10 ** rng.uniform(-6, -2)
    # an output time just past the feature (where it is largest) half the time: one there
    # also stops the integrator at the feature, which then cannot be stepped over
    after = c + 3 * w if rng.random() < 0.5 else c + rng.uniform(0.01, 0.05)
    times = sorted({1.0, round(rng.uniform(0.02, 0.98), 6), round(min(0.99, after), 6)})
    d = {"kind": kind, "c": c, "w": w, "times": times,
         "form": rng.choice(["block", "block", "equations"]),
         "coef": rng.choice(["table", "direct"]), "method": rng.choice(METHODS), "path": "dense"}
    if rng.random() < 0.25:  # the operator path: CVODE's BDF, no table
        d.update(path="operator", coef=None, method=rng.choice(["msbdf", "msadams"]))
    return d


def run(apps, d, tmp):
    F, k, y0, exact = feature(d["kind"], d["c"], d["w"])
    text = (block_file if d["form"] == "block" else equation_file)(F, k, y0)
    path = os.path.join(tmp, "p.lth")
    with open(path, "w") as fh:
        fh.write(text)
    cmd = [os.path.join(apps, "lth-solve"), path, "--times", ",".join(repr(t) for t in d["times"]),
           "--method", d["method"], "--path", d["path"], "--format", "json"]
    if d["coef"]:
        cmd += ["--coefficients", d["coef"]]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        named = re.search(r"t = [-+0-9.eE]+|at t ?= ?[-+0-9.eE]+|at [-+0-9.eE]+", p.stderr)
        return ("refused", p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "",
                bool(named))
    res = json.loads(p.stdout)
    worst = 0.0
    for t, z in zip(res["times"], res["z"]):
        want = exact(t)
        worst = max(worst, abs(z[1] - want) / max(1.0, abs(want)))
    return ("ok" if worst <= TOL else "wrong", worst, True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("apps")
    ap.add_argument("--draws", type=int, default=240)
    ap.add_argument("--seed", type=int, default=20261126)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    counts = {"ok": 0, "wrong": 0, "refused": 0}
    failures = 0
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.draws):
            d = draw(rng)
            verdict, info, named = run(a.apps, d, tmp)
            counts[verdict] += 1
            if verdict == "ok":
                worst = max(worst, info)
            bad = verdict == "wrong" or (verdict == "refused" and not named)
            if bad or a.v:
                print("%s draw %d: %s %s" % ("FAIL" if bad else "    ", i, verdict, info), d,
                      file=sys.stderr if bad else sys.stdout)
            failures += bad
    print("enclose_property: %d draws, %d right (largest error %.2e, tolerance %.0e), %d refused "
          "naming t, %d wrong" % (a.draws, counts["ok"], worst, TOL, counts["refused"],
                                   counts["wrong"]))
    print("%d passed, %d failed" % (a.draws - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
