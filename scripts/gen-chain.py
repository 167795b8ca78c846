#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write the index-3 mechanical chain as a block-form data file, for measuring
the dense tools at size by hand (docs/performance.md, "The table at size").

n masses on a line, neighbours joined by springs and dampers whose stiffness
and damping vary in time (tridiagonal K(t), D(t)), and m <= n linear
constraints with a few nonzeros each (C, m x n).  Written in Clark's
Hessenberg form with blocks n, n, m:

    v' = -D(t) v - K(t) x + C' lambda + f(t)     (z_1 = v, velocities)
    x' = v                                       (z_2 = x, positions)
    0  = C x                                     (u = lambda, multipliers)

so Pi = C C' (m x m, constant), s = 2n + m.  The forcing f = sin(3t) pushes the middle
mass; z0 = 0 (at rest) is consistent, hidden constraints included.

Usage: gen-chain.py N M [OUT]   (OUT default: standard output)
       gen-chain.py --mm N M OUT  (the matrices as Matrix Market files beside OUT:
                                    OUT-T.mtx, OUT-I.mtx, OUT-C.mtx; the data file
                                    is then linear in N, the form for large N)
e.g.   python3 scripts/gen-chain.py 500 3 /tmp/chain1003.lth    (s = 1003)
       python3 scripts/gen-chain.py --mm 1500 3 /tmp/chain3003.lth
"""
import os
import sys


def tridiag(n, diag, off):
    """Rows of a tridiagonal n x n literal: diag on the diagonal, off beside it."""
    rows = []
    for i in range(n):
        row = ["0"] * n
        row[i] = diag(i)
        if i > 0:
            row[i - 1] = off(i - 1)
        if i + 1 < n:
            row[i + 1] = off(i)
        rows.append(", ".join(row))
    return "[" + ";\n ".join(rows) + "]"


def constraints(n, m):
    """m rows of C with two nonzeros each, spread along the chain: row j ties
    mass a to mass a + 1 (2.385 x_a - x_{a+1} = 0); rows are independent."""
    rows = []
    for j in range(m):
        a = (j * (n - 1)) // max(m, 1)
        row = ["0"] * n
        row[a] = "2.385"
        row[a + 1] = "-1"
        rows.append(", ".join(row))
    return rows


def write_mm(n, m, out):
    """The same chain with K(t) = k(t) T, D(t) = c(t) T (T = tridiag(-1, 2, -1)),
    the identity and C as Matrix Market files named after OUT."""
    base = os.path.splitext(out)[0]
    names = {w: base + "-" + w + ".mtx" for w in ("T", "I", "C")}
    with open(names["T"], "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n"
                % (n, n, 2 * n - 1))
        for i in range(1, n + 1):
            f.write("%d %d 2\n" % (i, i))
            if i < n:
                f.write("%d %d -1\n" % (i + 1, i))
    with open(names["I"], "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (n, n, n))
        for i in range(1, n + 1):
            f.write("%d %d 1\n" % (i, i))
    with open(names["C"], "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (m, n, 2 * m))
        for j in range(m):
            a = (j * (n - 1)) // max(m, 1)
            f.write("%d %d 2.385\n%d %d -1\n" % (j + 1, a + 1, j + 1, a + 2))
    rel = {w: os.path.basename(p) for w, p in names.items()}
    with open(out, "w") as f:
        w = f.write
        w("# The index-3 mechanical chain, n = %d masses, m = %d constraints, s = %d\n"
          % (n, m, 2 * n + m))
        w("# (written by scripts/gen-chain.py --mm)\n")
        w("blocks %d %d %d\ninterval 0 2\ngrid 5\n" % (n, n, m))
        w("A(1,1) = -(0.1 + 0.02*cos(2*t)) * mm(\"%s\")\n" % rel["T"])
        w("A(1,2) = -(2 + 0.3*sin(t)) * mm(\"%s\")\n" % rel["T"])
        w("A(1,3) = mm(\"%s\")'\n" % rel["C"])
        w("A(2,1) = mm(\"%s\")\n" % rel["I"])
        w("A(3,2) = mm(\"%s\")\n" % rel["C"])
        fv = ["0"] * n
        fv[n // 2] = "sin(3*t)"
        w("f(1) = [" + "; ".join(fv) + "]\n")
        w("z0 = [" + "; ".join(["0"] * (2 * n + m)) + "]\n")


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--mm":
        n, m = int(sys.argv[2]), int(sys.argv[3])
        if not (n >= 2 and 1 <= m <= n // 2):
            sys.exit("need N >= 2 and 1 <= M <= N/2")
        write_mm(n, m, sys.argv[4])
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n, m = int(sys.argv[1]), int(sys.argv[2])
    if not (n >= 2 and 1 <= m <= n // 2):
        sys.exit("need N >= 2 and 1 <= M <= N/2")
    out = open(sys.argv[3], "w") if len(sys.argv) > 3 else sys.stdout
    C = constraints(n, m)
    w = out.write
    w("# The index-3 mechanical chain, n = %d masses, m = %d constraints, s = %d\n"
      % (n, m, 2 * n + m))
    w("# (written by scripts/gen-chain.py)\n")
    w("blocks %d %d %d\ninterval 0 2\ngrid 5\n" % (n, n, m))
    w("k(t) = 2 + 0.3*sin(t)\nc(t) = 0.05 + 0.01*cos(2*t)\n")
    # stiffness: spring i joins masses i and i+1 (and the ends to the walls)
    w("A(1,1) = -" + tridiag(n, lambda i: "2*c(t)", lambda i: "-c(t)") + "\n")
    w("A(1,2) = -" + tridiag(n, lambda i: "2*k(t)", lambda i: "-k(t)") + "\n")
    w("A(1,3) = [" + ";\n ".join(
        ", ".join(C[j].split(", ")[i] for j in range(m)) for i in range(n)) + "]\n")
    w("A(2,1) = eye\n")
    w("A(3,2) = [" + ";\n ".join(C) + "]\n")
    f = ["0"] * n
    f[n // 2] = "sin(3*t)"
    w("f(1) = [" + "; ".join(f) + "]\n")
    # at rest, unforced at t = 0 (sin 0 = 0): consistent, lambda = 0 included
    w("z0 = [" + "; ".join(["0"] * (2 * n + m)) + "]\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
