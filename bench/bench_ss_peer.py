#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Realizations by hand, against lth's, in one run (docs/performance.md,
"Realizations").

    python3 bench/bench_ss_peer.py --lth build/bench/bench_ss [--points N] [--repeat N]
                                   [--masses N] [--quick]

Runs `bench_ss --peer` (lth_ss_at timed in that process, on the plants of
tests/fixtures/chainsys.h and testsys.h), reads the plants' parameters from
it, then does what a control engineer does by hand with NumPy/SciPy and
times it on the same times.  Both realizations have no input derivative in
their state equation, so they differ only by a change of state x -> T(t) x;
the feedthrough D_j is the same in both, the rest is compared through the
outputs.

The mass chain (bench_ss's chain50):

    M x'' = -K(t) x - Dm x' + G^T lam + e_N u1,   0 = G x - e_1 u2,
    y1 = x_N,  y2 = lam_1.

G is constant, so x = N q + a u2 with N = scipy.linalg.null_space(G) and the
particular solution a = M^-1 G^T S^-1 e_1 (S = G M^-1 G^T; N^T M a = 0, so u2''
does not enter the reduced equation); multiplying by N^T,

    Mr q'' = -N^T K(t) N q - Dr q' - N^T K(t) a u2 - N^T Dm a u2' + N^T e_N u1

(Mr = N^T M N, Dr = N^T Dm N).  The change of state w = q' + c u2,
c = Mr^-1 N^T Dm a, removes u2' from the state equation, so with xi = (q, w)

    A = [0, I; -Mr^-1 N^T K N, -Mr^-1 Dr],
    B = [0, -c; Mr^-1 N^T e_N, Mr^-1 (Dr c - N^T K a)],

and lam = S^-1 (e_1 u2'' + G M^-1 (K x + Dm x' - e_N u1)) gives C and the
feedthrough D_0, D_1, D_2.  Everything but K(t) is computed once ("setup",
timed apart); per time the peer forms the products that contain K(t), in two
variants: "dense" assembles K(t) as an N x N matrix (A's block is W K N,
W = Mr^-1 N^T), "factored" uses K = Delta^T diag(k) Delta (Delta the spring
incidence) with Delta N and W Delta^T precomputed.

The random index-2 plant (bench_ss's idx2, f = 0):

    x' = A11 x + A12 lam + B1 u,   0 = A21 x + B2 u,   y = Cx x + Cl lam,

every coefficient an oscillation c0 + c1 sin(w t + phi).  Here the constraint
Jacobian A21(t) turns, so a null-space basis from null_space at each time is
no use (its sign and rotation jump between calls, and the reduced equation
needs its derivative).  The engineer's way is coordinate partitioning: the
columns d of A21 that QR with pivoting picks at t = 0 (fixed for the
interval) are solved for, x_d = -A21_d^-1 (A21_i x_i + B2 u), with x_i as
the state; lam comes from the derivative of the constraint,
lam = -S^-1 ((A21 A11 + A21') x + (A21 B1 + B2') u + B2 u'), S = A21 A12, and
the u' this puts into x_i' leaves by w = x_i - B1h u, which needs B1h' and
so the closed-form derivatives of A12, A21, B2.

Exit status 77 without numpy or scipy.  Before any figure is printed the two
realizations are compared (exit status 1 if a check fails):
  - the feedthrough D_j at t = 0, 0.5, 1, each input-output pair against its
    own size: unique, because T(t) leaves every D_j unchanged;
  - the outputs y(t) on the grid, both realizations simulated from rest under
    the same inputs (lth's with GSL rk8pd in bench_ss, rtol 1e-11; the hand
    one with scipy's DOP853, rtol 1e-12): this holds for any T(t);
  - for the chain also the frozen-time transfer function C (sI - A)^-1 B +
    sum_j D_j s^j at t = 0, 0.5, 1, s = 0.3i, 3i, 30i, and eig(A) of the
    time-invariant chain (the same springs without their oscillation).
    These are invariants only under a constant T: lth's basis of
    range(I - P) is constant because P is (G and M are), which bench_ss
    reports as max_t ||Q(t) - Q(0)|| and the check requires below 1e-9.
"""
import argparse
import json
import os
import subprocess
import sys
import time

# one BLAS thread, as bench_ss (a front end: apps/common/app_blas.c); before numpy loads
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
try:
    import numpy as np
    import scipy.linalg
    from scipy.integrate import solve_ivp
except ImportError as exc:  # exit status 77: ctest counts the smoke run as skipped
    print(f"bench_ss_peer: needs numpy and scipy ({exc}); Debian: python3-scipy", file=sys.stderr)
    sys.exit(77)

TOL_D = 1e-10  # D_j, relative to each input-output pair's size: rounding of both
TOL_H = 1e-9  # transfer function, each entry relative to its largest |H| over the frequencies
TOL_EIG = 1e-9  # eigenvalues, relative to max |lambda|
TOL_Y = 1e-7  # simulated outputs, each relative to its max |y|: integrations at rtol 1e-11, 1e-12
Q_MOVE_MAX = 1e-9  # the basis must be constant for the frozen-time comparisons


class Chain:
    """The chain reduced by hand with a null-space basis; setup() is the once-only part."""

    variants = ("dense", "factored")

    def __init__(self, ch):
        self.n = ch["N"]
        self.mass = np.array(ch["mass"])
        self.damp = np.array(ch["damp"])
        self.k0 = np.array(ch["k0"])
        self.k1 = np.array(ch["k1"])
        self.w = np.array(ch["w"])
        self.phi = np.array(ch["phi"])
        self.links = [a - 1 for a in ch["links"]]

    def stiffness(self, t):
        return self.k0 + self.k1 * np.sin(self.w * t + self.phi)

    def setup(self):
        n = self.n
        delta = np.zeros((n - 1, n))  # spring i joins masses i, i+1
        idx = np.arange(n - 1)
        delta[idx, idx] = 1.0
        delta[idx, idx + 1] = -1.0
        G = np.zeros((3, n))
        G[0, 0] = 1.0
        for r, a in enumerate(self.links):
            G[1 + r, a], G[1 + r, a + 1] = 1.0, -1.0
        minv = 1.0 / self.mass
        Dm = delta.T @ (self.damp[:, None] * delta)
        N = scipy.linalg.null_space(G)
        S = (G * minv) @ G.T
        Sinv = np.linalg.inv(S)
        a = minv * (G.T @ Sinv[:, 0])  # G a = e_1, N^T M a = 0
        Mr = N.T @ (self.mass[:, None] * N)
        W = np.linalg.solve(Mr, N.T)  # Mr^-1 N^T
        Dr = N.T @ Dm @ N
        MrDr = np.linalg.solve(Mr, Dr)
        nq = N.shape[1]
        c = W @ (Dm @ a)
        R = Sinv[0] @ (G * minv)  # lam_1 = R (K x + Dm x' - e_N u1) + Sinv_11 u2''
        self.nq, self.N, self.W, self.a, self.R, self.idx = nq, N, W, a, R, idx
        # the constant parts of A, B, C, D
        self.A = np.zeros((2 * nq, 2 * nq))
        self.A[:nq, nq:] = np.eye(nq)
        self.A[nq:, nq:] = -MrDr
        self.B = np.zeros((2 * nq, 2))
        self.B[:nq, 1] = -c
        self.B[nq:, 0] = W[:, n - 1]
        self.MrDrc = MrDr @ c
        self.C = np.zeros((2, 2 * nq))
        self.C[0, :nq] = N[n - 1]
        self.C[1, nq:] = R @ Dm @ N
        self.D = np.zeros((3, 2, 2))
        self.D[0, 0, 1] = a[n - 1]
        self.D[0, 1, 0] = -R[n - 1]
        self.RDmNc = R @ Dm @ N @ c
        self.D[1, 1, 1] = R @ Dm @ a
        self.D[2, 1, 1] = Sinv[0, 0]
        # for "factored": K = Delta^T diag(k) Delta
        self.E = delta @ N  # (n-1) x nq
        self.F = W @ delta.T  # nq x (n-1)
        self.da = delta @ a
        self.Rd = R @ delta.T

    def _fill(self, KN_W, Ka_W, KN_R, Ka_R):
        nq = self.nq
        A, B, C, D = self.A.copy(), self.B.copy(), self.C.copy(), self.D.copy()
        A[nq:, :nq] = -KN_W
        B[nq:, 1] = self.MrDrc - Ka_W
        C[1, :nq] = KN_R
        D[0, 1, 1] = Ka_R - self.RDmNc
        return A, B, C, D

    def at_dense(self, t):
        """A, B, C, D at t, K(t) assembled as a matrix."""
        k, i, n = self.stiffness(t), self.idx, self.n
        K = np.zeros((n, n))
        K[i, i] += k
        K[i + 1, i + 1] += k
        K[i, i + 1] -= k
        K[i + 1, i] -= k
        KN, Ka = K @ self.N, K @ self.a
        return self._fill(self.W @ KN, self.W @ Ka, self.R @ KN, self.R @ Ka)

    def at_factored(self, t):
        """A, B, C, D at t with K = Delta^T diag(k) Delta."""
        k = self.stiffness(t)
        kE, kda = k[:, None] * self.E, k * self.da
        return self._fill(self.F @ kE, self.F @ kda, self.Rd @ kE, self.Rd @ kda)

    at = at_factored


class Partition:
    """The random index-2 plant reduced by hand by coordinate partitioning."""

    variants = ("partitioned",)

    def __init__(self, pl):
        self.n1, self.n2 = pl["n"]
        self.par = {k: tuple(np.array(pl[k][q]) for q in ("c0", "c1", "w", "phi"))
                    for k in ("A", "B", "C")}

    def coef(self, key, t):
        """The value and the derivative of an oscillation matrix at t."""
        c0, c1, w, phi = self.par[key]
        th = w * t + phi
        return c0 + c1 * np.sin(th), c1 * w * np.cos(th)

    def setup(self, t0=0.0):
        n1, n2 = self.n1, self.n2
        A, _ = self.coef("A", t0)
        _, _, piv = scipy.linalg.qr(A[n1:, :n1], pivoting=True)
        self.d, self.i = np.sort(piv[:n2]), np.sort(piv[n2:])
        self.p = n1 - n2

    def at_partitioned(self, t):
        n1, d, i, p = self.n1, self.d, self.i, self.p
        A, Ad = self.coef("A", t)
        Bm, Bmd = self.coef("B", t)
        Cm, _ = self.coef("C", t)
        A11, A12, A21 = A[:n1, :n1], A[:n1, n1:], A[n1:, :n1]
        A12d, A21d = Ad[:n1, n1:], Ad[n1:, :n1]
        B1, B2, B2d = Bm[:n1], Bm[n1:], Bmd[n1:]
        Cx, Cl = Cm[:, :n1], Cm[:, n1:]
        S = A21 @ A12
        Si = np.linalg.inv(S)
        # lam = Lx x + Lu0 u + Lu1 u' (the constraint's derivative)
        Lx = -Si @ (A21 @ A11 + A21d)
        Lu0 = -Si @ (A21 @ B1 + B2d)
        Lu1 = -Si @ B2
        # x = T x_i + Xu u
        Adi = np.linalg.inv(A21[:, d])
        T = np.zeros((n1, p))
        T[d] = -Adi @ A21[:, i]
        T[i] = np.eye(p)
        Xu = np.zeros((n1, 2))
        Xu[d] = -Adi @ B2
        # x_i' = Ah x_i + B0 u + B1h u'
        Ahx = A11 + A12 @ Lx
        Ah = Ahx[i] @ T
        B0 = Ahx[i] @ Xu + (B1 + A12 @ Lu0)[i]
        B1h = (A12 @ Lu1)[i]
        # B1h' from S' = A21' A12 + A21 A12', (S^-1)' = -S^-1 S' S^-1
        Sd = A21d @ A12 + A21 @ A12d
        Lu1d = Si @ (Sd @ (Si @ B2)) - Si @ B2d
        B1hd = (A12d @ Lu1 + A12 @ Lu1d)[i]
        # w = x_i - B1h u
        Bw = Ah @ B1h + B0 - B1hd
        Yx = Cx + Cl @ Lx
        C = Yx @ T
        D = np.array([Yx @ (T @ B1h + Xu) + Cl @ Lu0, Cl @ Lu1])
        return Ah, Bw, C, D

    at = at_partitioned


def time_peer(make, times, reps, variant):
    """Best CPU seconds of setup and of each point over reps runs."""
    best_setup = best_pt = np.inf
    for _ in range(reps):
        c0 = time.process_time()
        h = make()
        h.setup()
        c1 = time.process_time()
        at = getattr(h, "at_" + variant)
        for t in times:
            at(t)
        c2 = time.process_time()
        best_setup = min(best_setup, c1 - c0)
        best_pt = min(best_pt, (c2 - c1) / len(times))
    return best_setup, best_pt


def inputs(spec, t, j):
    """u^(j)(t) of bench_ss's simulation inputs: u1 = a sin(w t), u2 = a (1 - cos(w t))."""
    a1, w1 = spec["u1"]
    a2, w2 = spec["u2"]
    u1 = a1 * w1**j * np.sin(w1 * t + j * np.pi / 2)
    u2 = (a2 if j == 0 else 0.0) - a2 * w2**j * np.cos(w2 * t + j * np.pi / 2)
    return np.array([u1, u2])


def transfer(A, B, C, D, s):
    H = C @ np.linalg.solve(s * np.eye(A.shape[0]) - A, B)
    for j in range(D.shape[0]):
        H = H + D[j] * s**j
    return H


def channel_scale(X):
    """Per input-output pair (i, k), the largest |X[., i, k]| over the first axis (maps
    j or frequencies): each channel is compared at its own size (the constraint force's
    u2'' feedthrough is 10^3 times the force input's response); a channel that is zero
    for the hand realization is measured against the largest entry."""
    s = np.abs(X).max(axis=0)
    return np.where(s > 0, s, np.abs(X).max())


def lth_point(p):
    D = np.array([np.array(d["m"]) for d in p["D"]])
    return np.array(p["A"]), np.array(p["B"]), np.array(p["C"]), D


class Checks:
    def __init__(self):
        self.failed = 0

    def report(self, what, err, tol):
        ok = err <= tol
        self.failed += not ok
        print(f"  {what:<62} {err:9.2e}  (<= {tol:.0e}) {'ok' if ok else 'FAILED'}")


def check_feedthrough(chk, cases):
    """cases: (hand realization, lth's points) pairs."""
    err = 0.0
    for hand, pts in cases:
        for p in pts:
            _, _, _, D = lth_point(p)
            _, _, _, Dh = hand.at(p["t"])
            if D.shape != Dh.shape:
                chk.report(f"t = {p['t']}: {D.shape[0]} feedthrough maps, by hand "
                           f"{Dh.shape[0]}", np.inf, 0)
                return
            err = max(err, (np.abs(D - Dh) / channel_scale(Dh)).max())
    chk.report("feedthrough D_j at t = 0, 0.5, 1 (each pair, relative)", err, TOL_D)


def check_outputs(chk, hand, d, plant):
    """Both realizations from rest (u = 0 at t = 0, so w = 0) under the same inputs."""
    times, spec = np.array(d["times"]), d["inputs"]

    def rhs(t, xi):
        A, B, _, _ = hand.at(t)
        return A @ xi + B @ inputs(spec, t, 0)

    n = hand.at(times[0])[0].shape[0]
    sol = solve_ivp(rhs, (times[0], times[-1]), np.zeros(n), method="DOP853", t_eval=times,
                    rtol=1e-12, atol=1e-14)
    y = np.empty((len(times), 2))
    for k, t in enumerate(times):
        _, _, C, D = hand.at(t)
        y[k] = C @ sol.y[:, k] + sum(D[j] @ inputs(spec, t, j) for j in range(D.shape[0]))
    ylth = np.array(plant["y"])
    chk.report("outputs simulated from rest (each, relative to its max |y|)",
               (np.abs(y - ylth) / np.abs(y).max(axis=0)).max(), TOL_Y)


def check_chain(chk, d):
    c = d["chain"]
    ch = c["params"]
    tv, ti = Chain(ch), Chain(dict(ch, k1=[0.0] * len(ch["k1"])))
    tv.setup()
    ti.setup()
    chk.report("basis movement max ||Q(t) - Q(0)||_F (P is constant)",
               max(c["q_move"], c["q_move_ti"]), Q_MOVE_MAX)
    freqs, eH = [0.3j, 3j, 30j], 0.0
    for hand, pts in ((tv, c["points_tv"]), (ti, c["points_ti"])):
        for p in pts:
            A, B, C, D = lth_point(p)
            Ah, Bh, Ch, Dh = hand.at_factored(p["t"])
            dense = hand.at_dense(p["t"])
            vdiff = max(np.abs(x - y).max() / max(1.0, np.abs(y).max())
                        for x, y in zip(dense, (Ah, Bh, Ch, Dh)))
            if vdiff > 1e-12:
                chk.report("the dense and factored hand realizations differ", vdiff, 1e-12)
            H = np.array([transfer(A, B, C, D, s) for s in freqs])
            Hh = np.array([transfer(Ah, Bh, Ch, Dh, s) for s in freqs])
            eH = max(eH, (np.abs(H - Hh) / channel_scale(Hh)).max())
    check_feedthrough(chk, ((tv, c["points_tv"]), (ti, c["points_ti"])))
    chk.report("frozen transfer function, s = 0.3i, 3i, 30i (each, relative)", eH, TOL_H)
    A, _, _, _ = lth_point(c["points_ti"][0])
    Ah, _, _, _ = ti.at(c["points_ti"][0]["t"])
    lam, lamh = np.linalg.eigvals(A), np.linalg.eigvals(Ah)
    # each of lth's eigenvalues against the nearest unused one of the hand realization
    used, worst = np.zeros(len(lamh), bool), 0.0
    for z in lam:
        dist = np.where(used, np.inf, np.abs(lamh - z))
        k = int(np.argmin(dist))
        used[k] = True
        worst = max(worst, dist[k])
    chk.report("eig(A) of the time-invariant chain (relative to max |lambda|)",
               worst / np.abs(lamh).max(), TOL_EIG)
    check_outputs(chk, tv, d, c)


def check_idx2(chk, d):
    pl = d["idx2"]
    hand = Partition(pl)
    hand.setup()
    check_feedthrough(chk, ((hand, pl["points"]),))
    check_outputs(chk, hand, d, pl)


def figures(title, L, make, variants, times, reps):
    rows = [("lth_ss_at", L["first_s"], L["per_point_s"])]
    for v in variants:
        rows.append((f"by hand, {v}", *time_peer(make, times, reps, v)))
    n = len(times)
    print(f"\n{title}: s = {L['s']}, index {L['r']}, p = {L['p']}, {L['nu']} inputs, "
          f"{L['ny']} outputs")
    print(f"{'':<22} {'setup_ms':>9} {'us/pt':>10} {'total_ms':>9}")
    for name, su, pp in rows:
        # lth's "setup" is its first point (lth_ss_alloc and the basis's start) and
        # its us/pt the mean of the n - 1 others; the hand setup precedes its n points
        total = su + pp * (n - 1 if name == "lth_ss_at" else n)
        print(f"{name:<22} {1e3 * su:9.3f} {1e6 * pp:10.1f} {1e3 * total:9.2f}")
    best = min(rows[1:], key=lambda r: r[2])
    print(f"lth / by hand ({best[0][9:]}): {L['per_point_s'] / best[2]:.1f}x per point; lth: "
          f"{L['steps_per_point']:.1f} basis ODE steps, {L['decomps_per_point']:.1f} "
          "decompositions per point")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lth", required=True, help="the bench_ss program (build/bench/bench_ss)")
    ap.add_argument("--points", type=int, default=101, help="grid points on [0, 1] (101)")
    ap.add_argument("--repeat", type=int, default=5, help="timing runs, best kept (5)")
    ap.add_argument("--masses", type=int, default=50, help="masses of the chain (50)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 12 masses, 11 points, one run (figures mean little)")
    o = ap.parse_args()
    if o.quick:
        o.points, o.repeat, o.masses = 11, 1, 12
    cmd = [o.lth, "--peer", "--points", str(o.points), "--repeat", str(o.repeat),
           "--masses", str(o.masses)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        sys.exit(f"bench_ss_peer: {' '.join(cmd)} failed with status {run.returncode}")
    d = json.loads(run.stdout)
    times = d["times"]
    print(f"{len(times)} points on [{times[0]:g}, {times[-1]:g}]; CPU times, best of {o.repeat} "
          f"runs; load average {d['load']:.2f} (end of bench_ss)")
    chk = Checks()
    print(f"checks, the {d['chain']['params']['N']}-mass chain:")
    check_chain(chk, d)
    print("checks, the random index-2 plant:")
    check_idx2(chk, d)
    if chk.failed:
        sys.exit(f"bench_ss_peer: {chk.failed} check(s) failed: the timings would not compare "
                 "like with like")
    ch = d["chain"]["params"]
    figures(f"{ch['N']}-mass chain", d["chain"]["lth"], lambda: Chain(ch), Chain.variants,
            times, o.repeat)
    figures("random index-2 plant", d["idx2"]["lth"], lambda: Partition(d["idx2"]),
            Partition.variants, times, o.repeat)


if __name__ == "__main__":
    main()
