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

Usage: gen-chain.py [--mm | --equations] [--masses] [--bvp] N M [OUT]
(OUT default: standard output)
e.g.   python3 scripts/gen-chain.py 500 3 /tmp/chain1003.lth    (s = 1003)

--masses gives mass i the value 1 + (i mod 3)/2 (the equation form writes m_i v_i' = ...,
the block forms M(1) = diag(m)); without it every mass is 1.  --coupled-masses adds
0.1 beside the diagonal: M tridiagonal, symmetric positive definite (diagonally
dominant), as a consistent finite-element mass matrix is (the equation form writes
m_i v_i' + 0.1*v_{i-1}' + 0.1*v_{i+1}' = ...); the dense path solves such an M densely
(up to n = 7071), the operator path keeps it as a sparse LU (docs/format.md).  --forces (with --equations)
makes each spring force an algebraic unknown of its own, g_i = k(t) (x_{i-1} - x_i)
(g1..g(n+1), x_0 = x_{n+1} = 0, the walls), and the velocities' equations
v_i' = -c(t) (...) + g_i - g_{i+1} + ...: n + 1 index-1 unknowns that lth substitutes
(docs/equations.md section 10).
--mm writes the matrices as Matrix Market files beside OUT (OUT_K.mtx, OUT_D.mtx,
OUT_C.mtx; docs/format.md, "Sparse blocks") and the blocks as mm(...) of them, so the
file is linear in n; --equations writes the same system as equations (docs/equations.md),
positions x1..xn, velocities v1..vn, multipliers lam1..lamm, one equation a line.
--bvp adds boundary conditions for lth-bvp instead of z0: the positions of the free masses
(those no constraint ties to a neighbour: every mass but a_j + 1) at t0 and their
velocities at t1, p = 2 (n - m) of them, with x_i(t0) = 0.01 i / n and v_i(t1) = 0.  As
equations (`bc x1(t0) = ...`) with --equations, as Matrix Market files OUT_B0.mtx,
OUT_B1.mtx, OUT_beta.mtx with --mm, as p x s literals otherwise.

--lqr N NU OUT writes a `problem lqr` file for lth-lqr instead (nx = 2N, nu = NU),
with A, B, H and C as Matrix Market files OUT_A.mtx, OUT_B.mtx, OUT_H.mtx, OUT_C.mtx:
N masses on springs and dampers, x = (positions, velocities), x' = A x + B u.  The
first 2 NU masses form a chain of their own between two walls with a force u_j on the
velocity of mass j (j = 1..NU); the other N - 2 NU masses form a second chain, not
coupled to the first, that no control reaches.  H = I (positions and velocities),
so B'HB = I; C = 1/2 on the positions (B(t1)'C = 0); [0, 4].  x0 is zero on the
actuated chain, which makes it consistent for any x0 of the other chain (its
optimality conditions decouple: u = 0 is the exact optimum, while x and lambda of
the free chain are not trivial); the free chain starts displaced,
q_i = 0.01 sin(pi i / (N - 2 NU + 1)).  --inconsistent displaces the first
actuated mass too (q_1 = 0.5): no smooth optimum, x0 needs an impulse.
--weights KIND replaces the weights on the free chain's positions q (m = N - 2 NU of
them) by ones that are positive semidefinite but not diagonally dominant, built from
the second differences (D q)_i = q_i - 2 q_(i+1) + q_(i+2) (D: (m - 2) x m, rank m - 2):
  plus        H_qq = I + D'D, C_qq = D'D (two exact zero eigenvalues in C);
  zero        H_qq = D'D (H = Q'Q with Q rank deficient: exact zero eigenvalues), C as
              without --weights (diagonally dominant);
  indefinite  as plus, but H on the free chain's first two velocities is
              [1 1+e; 1+e 1], e = 1e-6: H has exactly one negative eigenvalue, -e.
The rest of H and C is unchanged, so the optimum still decouples as above.
--time-varying makes the free chain's springs vary in time: A = mm(OUT_A.mtx) -
0.1*sin(t)*mm(OUT_At.mtx), where OUT_At.mtx puts 1 on the velocity rows of the free
masses at their own positions (the actuated chain stays constant, so u = 0 is still the
exact optimum).  --jump instead couples the first actuated velocity to the first free
position in H from t = 2.3 on: H = mm(OUT_H.mtx) + 0.05*(1 + (t-2.3)/abs(t-2.3))*
mm(OUT_Hj.mtx), 0.1 at those two symmetric entries (H stays diagonally dominant).  The
hidden constraint B'(H x + A' lambda) = 0 then jumps at 2.3 (x of the free chain is not
zero there): the optimum needs an impulse, and lth-lqr refuses it naming t.
"""
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


def mtx(path, n_rows, n_cols, entries):
    """A Matrix Market coordinate file of (i, j, value) entries, 1-based."""
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n"
                % (n_rows, n_cols, len(entries)))
        for i, j, v in entries:
            f.write("%d %d %s\n" % (i, j, v))


def tri_entries(n):
    """The tridiagonal (2, -1) of a chain between two walls."""
    e = []
    for i in range(1, n + 1):
        if i > 1:
            e.append((i, i - 1, "-1"))
        e.append((i, i, "2"))
        if i < n:
            e.append((i, i + 1, "-1"))
    return e


def anchors(n, m):
    """Constraint j ties mass a_j to mass a_j + 1 (0-based a_j), as constraints()."""
    return [(j * (n - 1)) // max(m, 1) for j in range(m)]


def write_mm(w, n, m, out_path):
    import os
    if not out_path:
        sys.exit("--mm needs OUT (the Matrix Market files go beside it)")
    stem = os.path.splitext(out_path)[0]
    base = os.path.basename(stem)
    mtx(stem + "_K.mtx", n, n, tri_entries(n))
    c = []
    for j, a in enumerate(anchors(n, m)):
        c += [(j + 1, a + 1, "2.385"), (j + 1, a + 2, "-1")]
    mtx(stem + "_C.mtx", m, n, sorted(c, key=lambda e: (e[1], e[0])))
    w("A(1,1) = -c(t)*mm(\"%s_K.mtx\")\n" % base)
    w("A(1,2) = -k(t)*mm(\"%s_K.mtx\")\n" % base)
    w("A(1,3) = mm(\"%s_C.mtx\")'\n" % base)
    w("A(2,1) = eye\n")
    w("A(3,2) = mm(\"%s_C.mtx\")\n" % base)
    if MASSES or COUPLED:
        e = []
        for i in range(1, n + 1):
            e += [(i, i - 1, COUPLING)] if COUPLED and i > 1 else []
            e.append((i, i, "%g" % mass(i)))
            e += [(i, i + 1, COUPLING)] if COUPLED and i < n else []
        mtx(stem + "_M.mtx", n, n, e)
        w("M(1) = mm(\"%s_M.mtx\")\n" % base)
    w("f(1) = [" + " ".join("sin(3*t)" if i == n // 2 else "0" for i in range(n)) + "]\n")
    if not BVP:
        w("z0 = [zeros(%d, 1); zeros(%d, 1); zeros(%d, 1)]\n" % (n, n, m))


MASSES = "--masses" in sys.argv
COUPLED = "--coupled-masses" in sys.argv
FORCES = "--forces" in sys.argv
COUPLING = "0.1"  # beside the diagonal of M with --coupled-masses
BVP = "--bvp" in sys.argv


def free_masses(n, m):
    """The masses (0-based) whose position and velocity are free: all but the a_j + 1
    that constraint j fixes as 2.385 x_{a_j}."""
    tied = {a + 1 for a in anchors(n, m)}
    return [i for i in range(n) if i not in tied]


def bc_rows(n, m):
    """The boundary conditions as (column at t0 or -1, column at t1 or -1, value), columns
    of z = (v, x, lambda) 0-based: x_i(t0) = 0.01 (i+1) / n, then v_i(t1) = 0."""
    free = free_masses(n, m)
    rows = [(n + i, -1, "%.6g" % (0.01 * (i + 1) / n)) for i in free]
    rows += [(-1, i, "0") for i in free]
    return rows


def write_bc(w, n, m, form, out_path):
    rows = bc_rows(n, m)
    p, s = len(rows), 2 * n + m
    if form == "equations":
        for c0, c1, val in rows:
            c = c0 if c0 >= 0 else c1
            name = ("x%d" % (c - n + 1)) if c >= n else ("v%d" % (c + 1))
            w("bc %s(%s) = %s\n" % (name, "t0" if c0 >= 0 else "t1", val))
    elif form == "mm":
        import os
        stem = os.path.splitext(out_path)[0]
        base = os.path.basename(stem)
        mtx(stem + "_B0.mtx", p, s, [(k + 1, c0 + 1, "1") for k, (c0, _, _) in enumerate(rows)
                                     if c0 >= 0])
        mtx(stem + "_B1.mtx", p, s, [(k + 1, c1 + 1, "1") for k, (_, c1, _) in enumerate(rows)
                                     if c1 >= 0])
        mtx(stem + "_beta.mtx", p, 1, [(k + 1, 1, v) for k, (_, _, v) in enumerate(rows)
                                       if float(v) != 0])
        for part in ("B0", "B1", "beta"):
            w("bc %s = mm(\"%s_%s.mtx\")\n" % (part, base, part))
    else:
        for part, which in (("B0", 0), ("B1", 1)):
            lines = []
            for r in rows:
                row = ["0"] * s
                if r[which] >= 0:
                    row[r[which]] = "1"
                lines.append(" ".join(row))
            w("bc %s = [%s]\n" % (part, ";\n ".join(lines)))
        w("bc beta = [%s]\n" % "; ".join(r[2] for r in rows))


def mass(i):
    """Mass i (1-based) with --masses."""
    return 1 + ((i - 1) % 3) / 2


def write_equations(w, n, m):
    w("problem equations\n")
    w("variables " + " ".join("x%d" % i for i in range(1, n + 1)) + "\n")
    w("variables " + " ".join("v%d" % i for i in range(1, n + 1)) + "\n")
    if FORCES:
        w("variables " + " ".join("g%d" % i for i in range(1, n + 2)) + "\n")
    w("variables " + " ".join("lam%d" % j for j in range(1, m + 1)) + "\n")
    w("interval 0 2\ngrid 5\n")
    w("k(t) = 2 + 0.3*sin(t)\nc(t) = 0.05 + 0.01*cos(2*t)\n")
    for i in range(1, n + 2) if FORCES else []:
        xa = "x%d" % (i - 1) if i > 1 else "0"
        xb = "x%d" % i if i <= n else "0"
        w("0 = g%d - k(t)*(%s - %s)\n" % (i, xa, xb))
    force = {}
    for j, a in enumerate(anchors(n, m)):
        force.setdefault(a, []).append("2.385*lam%d" % (j + 1))
        force.setdefault(a + 1, []).append("-lam%d" % (j + 1))
    for i in range(1, n + 1):
        w("x%d' = v%d\n" % (i, i))
    for i in range(1, n + 1):
        def tri(u):
            t = "2*%s%d" % (u, i)
            t += " - %s%d" % (u, i - 1) if i > 1 else ""
            t += " - %s%d" % (u, i + 1) if i < n else ""
            return t
        rhs = "-c(t)*(%s) - k(t)*(%s)" % (tri("v"), tri("x"))
        if FORCES:
            rhs = "-c(t)*(%s) + g%d - g%d" % (tri("v"), i, i + 1)
        for fj in force.get(i - 1, []):
            rhs += " + " + fj if not fj.startswith("-") else " - " + fj[1:]
        if i - 1 == n // 2:
            rhs += " + sin(3*t)"
        lhs = "%sv%d'" % ("%g*" % mass(i) if MASSES else "", i)
        if COUPLED:
            lhs = "%g*v%d'" % (mass(i), i)
            lhs += " + %s*v%d'" % (COUPLING, i - 1) if i > 1 else ""
            lhs += " + %s*v%d'" % (COUPLING, i + 1) if i < n else ""
        w("%s = %s\n" % (lhs, rhs))
    for j, a in enumerate(anchors(n, m)):
        w("0 = 2.385*x%d - x%d\n" % (a + 1, a + 2))
    if not BVP:
        w("z0 = zeros(%d, 1)\n" % (2 * n + m + (n + 1 if FORCES else 0)))


def second_difference_gram(lo, m):
    """D'D of the second differences of m unknowns from index lo (0-based) as
    {(i, j): value}, D'D = sum over rows r of d_r d_r', d_r = (1, -2, 1) at r."""
    g = {}
    for r in range(m - 2):
        for p, dp in enumerate((1, -2, 1)):
            for q, dq in enumerate((1, -2, 1)):
                key = (lo + r + p, lo + r + q)
                g[key] = g.get(key, 0) + dp * dq
    return g


def lqr_weights(n, a, kind, H, C):
    """The --weights variants of H and C (the module's docstring)."""
    if kind not in ("plus", "zero", "indefinite"):
        sys.exit("--weights: plus, zero or indefinite")
    m = n - a
    gram = second_difference_gram(a, m)
    free_q = set(range(a, n))
    H = [e for e in H if e[0] - 1 not in free_q]
    if kind != "zero":
        C = [e for e in C if e[0] - 1 not in free_q]
        C += [(i + 1, j + 1, "%d" % v) for (i, j), v in sorted(gram.items()) if v != 0]
    hq = dict(gram)
    if kind != "zero":
        for i in free_q:
            hq[(i, i)] = hq.get((i, i), 0) + 1
    H += [(i + 1, j + 1, "%d" % v) for (i, j), v in sorted(hq.items()) if v != 0]
    if kind == "indefinite":
        v1, v2 = n + a, n + a + 1  # the free chain's first two velocities, 0-based
        H += [(v1 + 1, v2 + 1, "1.000001"), (v2 + 1, v1 + 1, "1.000001")]
    H.sort(key=lambda e: (e[1], e[0]))
    C.sort(key=lambda e: (e[1], e[0]))
    return H, C


def write_lqr(n, nu, out_path, inconsistent, vary=None, jump=False, weights=None):
    """The `problem lqr` chain of --lqr (the module's docstring)."""
    import math
    if not (nu >= 1 and n >= 2 * nu + 2) or not out_path:
        sys.exit("--lqr: need NU >= 1, N >= 2 NU + 2 and OUT")
    base = out_path[:-4] if out_path.endswith(".lth") else out_path
    name = base.rsplit("/", 1)[-1]
    nx, a = 2 * n, 2 * nu
    A = []
    for lo, hi in ((0, a), (a, n)):  # two chains between walls
        for i in range(lo, hi):
            A.append((i + 1, n + i + 1, "1"))  # q' = v
            A.append((n + i + 1, i + 1, "-2"))  # v' = -K q - D v
            A.append((n + i + 1, n + i + 1, "-0.2"))
            for j in (i - 1, i + 1):
                if lo <= j < hi:
                    A.append((n + i + 1, j + 1, "1"))
                    A.append((n + i + 1, n + j + 1, "0.1"))
    mtx(base + "_A.mtx", nx, nx, A)
    if vary:
        mtx(base + "_At.mtx", nx, nx, [(n + i + 1, i + 1, "1") for i in range(a, n)])
    if jump:
        mtx(base + "_Hj.mtx", nx, nx, [(n + 1, a + 1, "1"), (a + 1, n + 1, "1")])
    mtx(base + "_B.mtx", nx, nu, [(n + j + 1, j + 1, "1") for j in range(nu)])
    H = [(i + 1, i + 1, "1") for i in range(nx)]
    C = [(i + 1, i + 1, "0.5") for i in range(n)]
    if weights:
        H, C = lqr_weights(n, a, weights, H, C)
    mtx(base + "_H.mtx", nx, nx, H)
    mtx(base + "_C.mtx", nx, nx, C)
    x0 = ["0"] * nx
    m = n - a
    for i in range(m):
        x0[a + i] = "%.17g" % (0.01 * math.sin(math.pi * (i + 1) / (m + 1)))
    if inconsistent:
        x0[0] = "0.5"
    with open(out_path, "w") as f:
        f.write("# A damped spring chain as a singular LQR problem, nx = %d, nu = %d\n"
                "# (written by scripts/gen-chain.py --lqr)\n" % (nx, nu))
        f.write("lth 1\nproblem lqr\nsizes %d %d\ninterval 0 4\n" % (nx, nu))
        for k in "ABHC":
            f.write('%s = mm("%s_%s.mtx")' % (k, name, k))
            if k == "A" and vary:
                f.write(' - %s*mm("%s_At.mtx")' % (vary, name))
            if k == "H" and jump:
                f.write(' + 0.05*(1 + (t-2.3)/abs(t-2.3))*mm("%s_Hj.mtx")' % name)
            f.write("\n")
        # ten entries a line: a line of a data file holds at most 1 MiB
        f.write("x0 = [" + ";\n ".join("; ".join(x0[k:k + 10]) for k in range(0, nx, 10))
                + "]\n")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--lqr" in sys.argv:
        if len(args) < 3:
            sys.exit(__doc__)
        weights = None
        if "--weights" in sys.argv:
            k = sys.argv.index("--weights")
            weights = sys.argv[k + 1] if k + 1 < len(sys.argv) else ""
            args = [x for x in args if x != weights]
        vary = "0.1*sin(t)" if "--time-varying" in sys.argv else None
        write_lqr(int(args[0]), int(args[1]), args[2], "--inconsistent" in sys.argv, vary,
                  "--jump" in sys.argv, weights)
        return
    form = "mm" if "--mm" in sys.argv else "equations" if "--equations" in sys.argv else ""
    if len(args) < 2:
        sys.exit(__doc__)
    n, m = int(args[0]), int(args[1])
    if not (n >= 2 and 1 <= m <= n // 2):
        sys.exit("need N >= 2 and 1 <= M <= N/2")
    out_path = args[2] if len(args) > 2 else None
    out = open(out_path, "w") if out_path else sys.stdout
    w = out.write
    w("# The index-3 mechanical chain, n = %d masses, m = %d constraints, s = %d\n"
      % (n, m, 2 * n + m))
    w("# (written by scripts/gen-chain.py)\n")
    if form == "equations":
        write_equations(w, n, m)
    else:
        w("blocks %d %d %d\ninterval 0 2\ngrid 5\n" % (n, n, m))
        w("k(t) = 2 + 0.3*sin(t)\nc(t) = 0.05 + 0.01*cos(2*t)\n")
    if form == "mm":
        write_mm(w, n, m, out_path)
    elif not form:
        write_dense(w, n, m)
    if BVP:
        write_bc(w, n, m, form, out_path)
    if out is not sys.stdout:
        out.close()


def write_dense(w, n, m):
    C = constraints(n, m)
    # stiffness: spring i joins masses i and i+1 (and the ends to the walls)
    w("A(1,1) = -" + tridiag(n, lambda i: "2*c(t)", lambda i: "-c(t)") + "\n")
    w("A(1,2) = -" + tridiag(n, lambda i: "2*k(t)", lambda i: "-k(t)") + "\n")
    w("A(1,3) = [" + ";\n ".join(
        ", ".join(C[j].split(", ")[i] for j in range(m)) for i in range(n)) + "]\n")
    w("A(2,1) = eye\n")
    w("A(3,2) = [" + ";\n ".join(C) + "]\n")
    if MASSES or COUPLED:
        w("M(1) = " + tridiag(n, lambda i: "%g" % mass(i + 1),
                              lambda i: COUPLING if COUPLED else "0") + "\n")
    f = ["0"] * n
    f[n // 2] = "sin(3*t)"
    w("f(1) = [" + "; ".join(f) + "]\n")
    # at rest, unforced at t = 0 (sin 0 = 0): consistent, lambda = 0 included
    if not BVP:
        w("z0 = [" + "; ".join(["0"] * (2 * n + m)) + "]\n")


if __name__ == "__main__":
    main()
