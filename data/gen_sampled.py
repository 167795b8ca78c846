#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write data/sampled_a11.csv, the sampled block A(1,1) of data/sampled.lth.

The 2 x 2 block is sampled from known smooth functions, so the derivative
estimates lth makes from the samples (and its error estimate) can be checked
against the exact derivatives:

    a11(t) = -1 + 0.5 sin(t)     a12(t) = 1
    a21(t) = -0.5 cos(t)         a22(t) = -2 + 0.25 t

Samples: uniform spacing h = 0.02 on [-0.1, 4.1], a little wider than the
problem's interval [0, 4] so that the local fits near t0 and t1 can be
centred.  Values are written with 17 significant digits (they read back
exactly).  Run: /usr/bin/python3 data/gen_sampled.py (from any directory).
"""
import math
import os

H = 0.02
T_FIRST, T_LAST = -0.1, 4.1


def block(t):
    """Entries of A(1,1) at t in row-major order (a11, a12, a21, a22)."""
    return (-1.0 + 0.5 * math.sin(t), 1.0, -0.5 * math.cos(t), -2.0 + 0.25 * t)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    n = int(round((T_LAST - T_FIRST) / H)) + 1
    with open(os.path.join(here, "sampled_a11.csv"), "w") as out:
        out.write("# SPDX-License-Identifier: GPL-3.0-or-later\n")
        out.write("# A(1,1) of data/sampled.lth, written by data/gen_sampled.py:\n")
        out.write("# a11 = -1 + 0.5 sin(t), a12 = 1, a21 = -0.5 cos(t), a22 = -2 + 0.25 t\n")
        out.write("t, a11, a12, a21, a22\n")
        for k in range(n):
            t = T_FIRST + k * H
            out.write(", ".join("%.17g" % x for x in (t,) + block(t)) + "\n")


if __name__ == "__main__":
    main()
