#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write the sampled-data test cases of tests/unit/samples/test_samples_systems.c into
tests/data/sampling/ (run: python3 tests/gen/gen_sampling.py, from anywhere).

Three smooth Hessenberg systems of index 2, 3 and 4 on [-1, 1] whose entries
are rational, exponential and trigonometric functions of t.  For each system:

  iR.lth                 the system with every block written as an expression:
                         lth differentiates it exactly (Taylor-mode AD), so its
                         decomposition is the exact reference;
  iR_G[_nE].lth + CSVs   the same system with every t-dependent block replaced
                         by samples("...") on grid G:
                           u = 201 uniform points on [-1, 1],
                           c = 101 Chebyshev-Lobatto points -cos(pi k / 100),
                         without noise, or with seeded Gaussian noise of
                         standard deviation 1e-E added to every value (E = 8, 5).

Sample values are the exact function values correctly rounded to double
(mpmath at 40 digits), written in the shortest form that reads back exactly;
the noise is drawn from random.Random(seed) with a fixed seed per file, so the
files are reproducible.  Only the Python standard library and mpmath (a
dependency of sympy) are used.
"""
import math
import os
import random

import mpmath

mpmath.mp.dps = 40

# Blocks in lth syntax ('^' is power).  Entries depending on t are sampled.
SYSTEMS = {
    "i2": {
        "blocks": [2, 1],
        "note": "index 2, z_1 in R^2, u in R; Pi = A(2,1) A(1,2) = exp(t/2) + 0.5/(2 + t)",
        "A": {
            (1, 1): [["-1 + 0.5*sin(2*t)", "1/(1 + t^2)"], ["exp(-t)", "-2 + cos(3*t)"]],
            (1, 2): [["1"], ["1/(2 + t)"]],
            (2, 1): [["exp(t/2)", "0.5"]],
        },
        "f": {
            1: [["sin(t)"], ["1"]],
            2: [["cos(2*t)/(2 + t)"]],
        },
    },
    "i3": {
        "blocks": [2, 2, 1],
        "note": "index 3, z_1, z_2 in R^2, u in R; Pi = A(3,2) A(2,1) A(1,3) > 0.5 on [-1, 1]",
        "A": {
            (1, 1): [["sin(t)", "1"], ["0", "-1/(2 + t)"]],
            (1, 2): [["1", "0"], ["0", "1"]],
            (1, 3): [["1"], ["exp(-t/2)"]],
            (2, 1): [["1", "0.3*cos(t)"], ["0", "1"]],
            (2, 2): [["0", "1/(3 + t)"], ["-1", "0"]],
            (3, 2): [["1 + 0.2*sin(2*t)", "1"]],
        },
        "f": {
            1: [["exp(t)"], ["0"]],
            2: [["0"], ["sin(3*t)"]],
            3: [["1/(1.5 + t)"]],
        },
    },
    "i4": {
        "blocks": [2, 2, 2, 1],
        "note": "index 4, z_1, z_2, z_3 in R^2, u in R; Pi = A(4,3) A(3,2) A(2,1) A(1,4) > 1",
        "A": {
            (1, 1): [["0", "1"], ["-1/(1 + t^2)", "sin(t)"]],
            (1, 4): [["1"], ["cos(t)/2"]],
            (2, 1): [["1", "0"], ["exp(t/3)", "1"]],
            (2, 2): [["0", "0.5"], ["0", "0"]],
            (3, 2): [["1", "0.2*sin(2*t)"], ["0", "1"]],
            (4, 3): [["1", "1/(2 + t)"]],
        },
        "f": {
            1: [["sin(2*t)"], ["0"]],
            3: [["0"], ["exp(-t)"]],
            4: [["cos(t)"]],
        },
    },
}

GRIDS = {
    "u": [-1.0 + 2.0 * k / 200 for k in range(201)],
    "c": [-math.cos(math.pi * k / 100) for k in range(101)],
}
GRIDS["u"][0], GRIDS["u"][-1] = -1.0, 1.0
GRIDS["c"][0], GRIDS["c"][-1], GRIDS["c"][50] = -1.0, 1.0, 0.0
NOISE = {"": 0.0, "_n8": 1e-8, "_n5": 1e-5}

NAMES = {"sin": mpmath.sin, "cos": mpmath.cos, "exp": mpmath.exp}
HEADER = "# SPDX-License-Identifier: GPL-3.0-or-later\n"


def value(expr, t):
    """Exact value of an lth expression at t, correctly rounded to double."""
    env = dict(NAMES)
    env["t"] = mpmath.mpf(t)
    return float(eval(expr.replace("^", "**"), {"__builtins__": {}}, env))


def depends_on_t(block):
    return any("t" in e for row in block for e in row)


def literal(block):
    return "[" + "; ".join(", ".join(row) for row in block) + "]"


def block_items(sysdef):
    for (i, j), blk in sysdef["A"].items():
        yield "A(%d,%d)" % (i, j), "A%d%d" % (i, j), blk
    for i, blk in sysdef["f"].items():
        yield "f(%d)" % i, "f%d" % i, blk


def write_exact(outdir, name, sysdef):
    with open(os.path.join(outdir, name + ".lth"), "w") as out:
        out.write(HEADER)
        out.write("# Exact reference for the sampled-data tests (tests/gen/gen_sampling.py):\n")
        out.write("# %s.\n" % sysdef["note"])
        out.write("lth 1\nblocks %s\ninterval -1 1\n" % " ".join(map(str, sysdef["blocks"])))
        for label, _, blk in block_items(sysdef):
            out.write("%s = %s\n" % (label, literal(blk)))


def write_sampled(outdir, name, sysdef, grid, suffix, seed):
    case = "%s_%s%s" % (name, grid, suffix)
    sigma = NOISE[suffix]
    rng = random.Random(seed)
    times = GRIDS[grid]
    with open(os.path.join(outdir, case + ".lth"), "w") as out:
        out.write(HEADER)
        out.write("# %s, t-dependent blocks sampled on %s%s\n" % (
            sysdef["note"],
            "201 uniform points" if grid == "u" else "101 Chebyshev-Lobatto points",
            "" if sigma == 0 else " with noise %g (seed %d)" % (sigma, seed)))
        out.write("# (tests/gen/gen_sampling.py; exact reference: %s.lth)\n" % name)
        out.write("lth 1\nblocks %s\ninterval -1 1\n" % " ".join(map(str, sysdef["blocks"])))
        for label, tag, blk in block_items(sysdef):
            if not depends_on_t(blk):
                out.write("%s = %s\n" % (label, literal(blk)))
                continue
            csv = "%s_%s.csv" % (case, tag)
            out.write('%s = samples("%s")   # %s\n' % (label, csv, literal(blk)))
            with open(os.path.join(outdir, csv), "w") as c:
                c.write(HEADER)
                cols = ["%s%d%d" % (tag, i + 1, j + 1) for i in range(len(blk))
                        for j in range(len(blk[0]))]
                c.write("t, " + ", ".join(cols) + "\n")
                for t in times:
                    vals = [value(e, t) for row in blk for e in row]
                    if sigma:
                        vals = [v + rng.gauss(0.0, sigma) for v in vals]
                    c.write(", ".join(repr(x) for x in [t] + vals) + "\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = os.path.join(here, "..", "data", "sampling")
    os.makedirs(outdir, exist_ok=True)
    seed = 20240
    for name, sysdef in SYSTEMS.items():
        write_exact(outdir, name, sysdef)
        for grid in GRIDS:
            for suffix in NOISE:
                seed += 1
                write_sampled(outdir, name, sysdef, grid, suffix, seed)


if __name__ == "__main__":
    main()
