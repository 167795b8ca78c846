#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""LQR on DAE plants by hand, against lth_plqr_solve, in one run
(docs/performance.md, "LQR on DAE plants").

    python3 bench/bench_plqr_peer.py --lth build/bench/bench_plqr [--T T] [--repeat N]
                                     [--masses N] [--quick]

Runs `bench_plqr --peer` (lth_plqr_solve timed in that process), reads the
plants' parameters and lth's results from it, then does what a control
engineer does by hand with NumPy/SciPy -- reduce the plant to an ODE
x' = A(t) x + B(t) u, y = C(t) x + D(t) u, then solve the LQR problem
    J = y(T)' Fy y(T) + int_0^T y' Wy y + u' Wu u dt
on it -- and times that on the same problems.  With Q = C'Wy C, S = C'Wy D,
R = Wu + D'Wy D (the outputs' feedthrough puts a cross weight in the cost):

  riccati   the Riccati ODE  -P' = Q + P A + A'P - (P B + S) R^-1 (B'P + S'),
            P(T) = C'Fy C, integrated backwards with scipy.integrate.solve_ivp
            (DOP853, rtol 1e-10, dense output), then the closed loop
            x' = (A - B K(t)) x, K = R^-1 (B'P + S'), with its cost, forwards
            (DOP853, rtol 1e-10);
  are       time-invariant plants: scipy.linalg.solve_continuous_are for the
            long-horizon P_inf, K_inf; the finite horizon from it in closed
            form: with Acl = A - B K_inf, L solving Acl L + L Acl' = B R^-1 B'
            (scipy.linalg.solve_continuous_lyapunov), W0 = P(T) - P_inf and
            E = exp(Acl (T - t)),
                P(t) = P_inf + E' (I + W0 (E L E' - L))^-1 W0 E
            (X = P - P_inf solves -X' = Acl'X + X Acl - X B R^-1 B' X, whose
            inverse solves a Lyapunov ODE), evaluated through the eigenvectors
            of Acl; the closed loop as above with this gain.

The plants:

  chain50, chain50-ti   M x'' = -K(t) x - Dm x' + G^T mu + e_1 u1 + e_N u2,
                        0 = G x (two rigid links), y = (x_1, x_N, mu_1).
    G is constant: x = N q, N = scipy.linalg.null_space(G), and
    mu = S^-1 G M^-1 (K x + Dm x' - e_1 u1 - e_N u2), S = G M^-1 G^T (from
    G x'' = 0), so with xi = (q, q'):
        A = [0, I; -Mr^-1 N'K(t)N, -Mr^-1 N'Dm N],  B = [0; Mr^-1 N'[e_1 e_N]],
    Mr = N'M N, and C, D read x_1, x_N, mu_1.  K(t) = Delta' diag(k(t)) Delta
    (Delta the spring incidence), so per time only products with diag(k)
    are formed.
  idx2   x' = A11 x + A12 lam + B1 u,  0 = A21 x,  y = Cx x + Cl lam, every
    coefficient c0 + c1 sin(w t + phi).  Coordinate partitioning (the
    columns d of A21 that QR with pivoting picks at t = 0 solved for):
    x = T(t) x_i, lam = Lx x + Lu u from the differentiated constraint
    (Lx = -S^-1 (A21 A11 + A21'), Lu = -S^-1 A21 B1, S = A21 A12), the
    state x_i.  The random plants of index 3..6 have no hand peer: the
    multipliers need the constraint differentiated r - 1 times, with the
    derivatives of every block on the way (docs/performance.md).

Exit status 77 without numpy or scipy.  Before any figure is printed every
method is checked against lth on the same problem (exit status 1 if a check
fails): the optimal cost V(0, x0) from the same initial state (lth's z(0),
the state part of its z0) and the cost of each closed loop, integrated along
it, to TOL_COST; the gain on the same physical coordinates at the 21 output
times (lth's feedback on the unknowns Kz, applied to the hand reduction's
basis of consistent states: [N 0; 0 N] for the chain, T(t) for idx2) to
TOL_K of its size; the closed loops' inputs u(t) to TOL_U of their largest.
"""
import argparse
import json
import os
import subprocess
import sys
import time

# one BLAS thread, as bench_plqr (a front end: apps/common/app_blas.c); before numpy loads
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
try:
    import numpy as np
    import scipy.linalg
    from scipy.integrate import solve_ivp
except ImportError as exc:  # exit status 77: ctest counts the smoke run as skipped
    print(f"bench_plqr_peer: needs numpy and scipy ({exc}); Debian: python3-scipy",
          file=sys.stderr)
    sys.exit(77)

RTOL, ATOL_P, ATOL_X = 1e-10, 1e-12, 1e-13  # the peer's integrations
TOL_COST = 1e-6  # costs, relative: both sides integrate at 1e-10 .. 1e-11
TOL_K = 1e-6  # the gain at each output time, relative to its largest entry
TOL_U = 1e-6  # the closed loop's inputs, relative to their largest


# ---------------------------------------------------------------- the plants, by hand

class Chain:
    """The chain driven by forces, reduced with a null-space basis of its links."""

    def __init__(self, ch):
        self.n = ch["N"]
        self.mass = np.array(ch["mass"])
        self.damp = np.array(ch["damp"])
        self.k0, self.k1 = np.array(ch["k0"]), np.array(ch["k1"])
        self.w, self.phi = np.array(ch["w"]), np.array(ch["phi"])
        self.links = [a - 1 for a in ch["links"]]
        self.time_invariant = not self.k1.any()

    def setup(self):
        n = self.n
        delta = np.zeros((n - 1, n))  # spring i joins masses i, i+1
        i = np.arange(n - 1)
        delta[i, i], delta[i, i + 1] = 1.0, -1.0
        G = np.zeros((2, n))
        for r, a in enumerate(self.links):
            G[r, a], G[r, a + 1] = 1.0, -1.0
        minv = 1.0 / self.mass
        Dm = delta.T @ (self.damp[:, None] * delta)
        N = scipy.linalg.null_space(G)
        nq = N.shape[1]
        Mr = N.T @ (self.mass[:, None] * N)
        W = np.linalg.solve(Mr, N.T)  # Mr^-1 N^T
        Rmu = np.linalg.solve((G * minv) @ G.T, G * minv)[0]  # mu_1 = Rmu (K x + Dm x' - Bf u)
        Bf = np.zeros((n, 2))
        Bf[0, 0], Bf[n - 1, 1] = 1.0, 1.0
        self.N, self.nq = N, nq
        self.A0 = np.zeros((2 * nq, 2 * nq))
        self.A0[:nq, nq:] = np.eye(nq)
        self.A0[nq:, nq:] = -W @ Dm @ N
        self.B = np.zeros((2 * nq, 2))
        self.B[nq:] = W @ Bf
        self.C0 = np.zeros((3, 2 * nq))
        self.C0[0, :nq], self.C0[1, :nq] = N[0], N[n - 1]
        self.C0[2, nq:] = Rmu @ Dm @ N
        self.D = np.zeros((3, 2))
        self.D[2] = -Rmu @ Bf
        self.E = delta @ N  # K N = Delta' diag(k) E
        self.F = W @ delta.T
        self.Rd = Rmu @ delta.T

    def stiffness(self, t):
        return self.k0 + self.k1 * np.sin(self.w * t + self.phi)

    def at(self, t):
        """A, B, C, D at t."""
        kE = self.stiffness(t)[:, None] * self.E
        A, C = self.A0.copy(), self.C0.copy()
        A[self.nq:, :self.nq] = -self.F @ kE
        C[2, :self.nq] = self.Rd @ kE
        return A, self.B, C, self.D

    def basis(self, t):
        """z (x', x, mu) of the consistent states xi = (q, q'), mu's rows zero (lth's
        feedback does not read the multipliers)."""
        n, nq = self.n, self.nq
        T = np.zeros((2 * n + 2, 2 * nq))
        T[:n, nq:] = self.N
        T[n:2 * n, :nq] = self.N
        return T

    def state(self, z):
        """xi of a consistent z."""
        n = self.n
        return np.concatenate([self.N.T @ z[n:2 * n], self.N.T @ z[:n]])


class Partition:
    """The random index-2 plant with forces in its dynamic rows, reduced by coordinate
    partitioning."""

    time_invariant = False

    def __init__(self, pl):
        self.n1, self.n2 = pl["n"]
        self.par = {k: tuple(np.array(pl[k][q]) for q in ("c0", "c1", "w", "phi"))
                    for k in ("A", "B1", "C")}

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

    def _maps(self, t):
        n1, d, i = self.n1, self.d, self.i
        A, Ad = self.coef("A", t)
        B1, _ = self.coef("B1", t)
        Cm, _ = self.coef("C", t)
        A11, A12, A21, A21d = A[:n1, :n1], A[:n1, n1:], A[n1:, :n1], Ad[n1:, :n1]
        Si = np.linalg.inv(A21 @ A12)
        Lx = -Si @ (A21 @ A11 + A21d)  # lam = Lx x + Lu u
        Lu = -Si @ (A21 @ B1)
        T = np.zeros((n1, n1 - self.n2))  # x = T x_i
        T[d] = -np.linalg.solve(A21[:, d], A21[:, i])
        T[i] = np.eye(n1 - self.n2)
        return A11, A12, B1, Cm[:, :n1], Cm[:, n1:], Lx, Lu, T

    def at(self, t):
        A11, A12, B1, Cx, Cl, Lx, Lu, T = self._maps(t)
        i = self.i
        return ((A11 + A12 @ Lx)[i] @ T, (B1 + A12 @ Lu)[i], (Cx + Cl @ Lx) @ T, Cl @ Lu)

    def basis(self, t):
        T = self._maps(t)[-1]
        return np.vstack([T, np.zeros((self.n2, T.shape[1]))])

    def state(self, z):
        return np.asarray(z)[self.i]


# ---------------------------------------------------------------- LQR by hand

class Weights:
    """Q, S, R of the cost on the reduced plant at t, and P(T)."""

    def __init__(self, plant, case):
        self.plant = plant
        self.Wy, self.Wu = np.diag(case["w_y"]), np.diag(case["w_u"])
        self.Fy = np.diag(case["f_y"])

    def at(self, t):
        A, B, C, D = self.plant.at(t)
        WC, WD = self.Wy @ C, self.Wy @ D
        return A, B, C.T @ WC, C.T @ WD, self.Wu + D.T @ WD

    def final(self, T):
        _, _, C, D = self.plant.at(T)
        if np.abs(self.Fy @ D).max() > 0:
            raise ValueError("the final cost weighs u")
        return C.T @ self.Fy @ C


def riccati(wt, T):
    """P(t) on [0, T] from the Riccati ODE, backwards (dense output)."""
    n = wt.plant.at(T)[0].shape[0]

    def rhs(t, y):
        A, B, Q, S, R = wt.at(t)
        P = y.reshape(n, n)
        P = 0.5 * (P + P.T)
        PA, PBS = P @ A, P @ B + S
        dP = -(Q + PA + PA.T - PBS @ np.linalg.solve(R, PBS.T))
        return dP.ravel()

    sol = solve_ivp(rhs, (T, 0.0), wt.final(T).ravel(), method="DOP853", rtol=RTOL, atol=ATOL_P,
                    dense_output=True)
    if not sol.success:
        raise RuntimeError(f"the Riccati ODE: {sol.message}")
    return lambda t: sol.sol(t).reshape(n, n), sol.nfev


class AreSolution:
    """The finite-horizon P(t) of a time-invariant plant from the ARE (see the top)."""

    def __init__(self, wt, T):
        A, B, Q, S, R = wt.at(0.0)
        Pinf = scipy.linalg.solve_continuous_are(A, B, Q, R, s=S)
        Kinf = np.linalg.solve(R, B.T @ Pinf + S.T)
        Acl = A - B @ Kinf
        L = scipy.linalg.solve_continuous_lyapunov(Acl, B @ np.linalg.solve(R, B.T))
        lam, V = scipy.linalg.eig(Acl)
        Vi = np.linalg.inv(V)
        W0 = wt.final(T) - Pinf
        # in Acl's eigenvectors: E = V e^{lam tau} V^-1, L = V Lt V^H, so
        # P - P_inf = V^-H conj(e) (I + Wt (e Lt conj(e)' - Lt))^-1 Wt e V^-1, Wt = V^H W0 V
        self.Lt = Vi @ L @ Vi.conj().T
        self.Wt = V.conj().T @ W0 @ V
        self.lam, self.Vi, self.T = lam, Vi, T
        self.Pinf, self.Kinf, self.B, self.R, self.S = Pinf, Kinf, B, R, S
        self.BVh = B.T @ Vi.conj().T  # B' V^-H

    def _inner(self, t):
        e = np.exp(self.lam * (self.T - t))
        Delta = (e[:, None] * self.Lt) * e.conj()[None, :] - self.Lt
        M = np.eye(len(e)) + self.Wt @ Delta
        return e, M

    def P(self, t):
        e, M = self._inner(t)
        X = (self.Vi.conj().T * e.conj()) @ np.linalg.solve(M, self.Wt * e[None, :]) @ self.Vi
        return self.Pinf + X.real

    def gain_apply(self, t, x, _w=None):
        """K(t) x."""
        e, M = self._inner(t)
        v = np.linalg.solve(M, self.Wt @ (e * (self.Vi @ x)))
        return self.Kinf @ x + np.linalg.solve(self.R, (self.BVh @ (e.conj() * v)).real)

    def gain(self, t):
        return np.linalg.solve(self.R, self.B.T @ self.P(t) + self.S.T)


def closed_loop(wt, T, x0, times, gain_apply):
    """x' = A x + B u, u = -K(t) x, with J' = x'Qx + 2x'Su + u'Ru; x, u at the times and
    J including the final cost."""
    n = len(x0)

    def rhs(t, y):
        w = wt.at(t)
        A, B, Q, S, R = w
        x = y[:n]
        u = -gain_apply(t, x, w)
        return np.concatenate([A @ x + B @ u, [x @ Q @ x + 2 * x @ S @ u + u @ R @ u]])

    sol = solve_ivp(rhs, (0.0, T), np.concatenate([x0, [0.0]]), method="DOP853", rtol=RTOL,
                    atol=ATOL_X, t_eval=times)
    if not sol.success:
        raise RuntimeError(f"the closed loop: {sol.message}")
    xT = sol.y[:n, -1]
    J = sol.y[n, -1] + xT @ wt.final(T) @ xT
    us = np.array([-gain_apply(t, sol.y[:n, k], wt.at(t)) for k, t in enumerate(times)])
    return sol.y[:n].T, us, J, sol.nfev


def solve_riccati(plant, case, x0):
    """The LQR problem by the Riccati ODE: V(0, x0), the gains and the closed loop;
    the CPU seconds of the Riccati solution (with the gains) and of the closed loop."""
    T, times = case["T"], np.array(case["times"])
    c0 = time.process_time()
    wt = Weights(plant, case)
    P, nfev = riccati(wt, T)

    def gain(t, w):
        A, B, Q, S, R = w
        return np.linalg.solve(R, B.T @ P(t) + S.T)

    K = [gain(t, wt.at(t)) for t in times]
    c1 = time.process_time()
    xs, us, J, nfev_cl = closed_loop(wt, T, x0, times, lambda t, x, w: gain(t, w) @ x)
    return {"V0": x0 @ P(0.0) @ x0, "K": K, "x": xs, "u": us, "J": J, "nfev": nfev,
            "nfev_loop": nfev_cl, "t_gain": c1 - c0, "t_loop": time.process_time() - c1}


def solve_are(plant, case, x0):
    """The time-invariant LQR problem through the ARE (as solve_riccati)."""
    T, times = case["T"], np.array(case["times"])
    c0 = time.process_time()
    wt = Weights(plant, case)
    sol = AreSolution(wt, T)
    K = [sol.gain(t) for t in times]
    c1 = time.process_time()
    xs, us, J, nfev_cl = closed_loop(wt, T, x0, times, sol.gain_apply)
    return {"V0": x0 @ sol.P(0.0) @ x0, "K": K, "x": xs, "u": us, "J": J, "nfev": 0,
            "nfev_loop": nfev_cl, "t_gain": c1 - c0, "t_loop": time.process_time() - c1,
            "Kinf": sol.Kinf, "Vinf": x0 @ sol.Pinf @ x0, "alpha": -sol.lam.real.max()}


METHODS = {"riccati": solve_riccati, "are": solve_are}


def make_plant(case):
    if case["name"].startswith("chain"):
        return Chain(case["params"])
    return Partition(case["params"]) if case["r"] == 2 else None


def run_method(case, method, x0_of):
    """The method from the parameters; its CPU seconds of the reduction's setup too."""
    c0 = time.process_time()
    plant = make_plant(case)
    plant.setup()
    t_setup = time.process_time() - c0
    res = METHODS[method](plant, case, x0_of(plant))
    res["t_setup"] = t_setup
    return res, plant


def time_method(case, method, x0_of, reps):
    """Best CPU seconds over reps runs, with the phases of that run."""
    best, phases = np.inf, None
    for _ in range(reps):
        c0 = time.process_time()
        res, _ = run_method(case, method, x0_of)
        t = time.process_time() - c0
        if t < best:
            best, phases = t, (res["t_setup"], res["t_gain"], res["t_loop"])
    return best, phases


# ---------------------------------------------------------------- checks

class Checks:
    def __init__(self):
        self.failed = 0

    def report(self, what, err, tol):
        ok = err <= tol
        self.failed += not ok
        print(f"  {what:<64} {err:9.2e}  (<= {tol:.0e}) {'ok' if ok else 'FAILED'}")


def check(chk, case, method, res, plant):
    L = case["lth"]
    J = L["cost"]
    chk.report(f"{method}: V(0, x0) against lth's J* = {J:.12g}", abs(res["V0"] - J) / abs(J),
               TOL_COST)
    chk.report(f"{method}: its closed loop's cost against lth's J*", abs(res["J"] - J) / abs(J),
               TOL_COST)
    Kl = np.array([np.array(Kz) @ plant.basis(t) for t, Kz in zip(case["times"], L["Kz"])])
    Kh = np.array(res["K"])
    chk.report(f"{method}: gain on the hand state at {len(Kh)} times (relative to max |K|)",
               np.abs(Kl - Kh).max() / np.abs(Kh).max(), TOL_K)
    ul = np.array(L["u"])[:, :, 0]
    chk.report(f"{method}: closed loop's u(t) (relative to max |u|)",
               np.abs(ul - res["u"]).max() / np.abs(ul).max(), TOL_U)


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lth", required=True, help="the bench_plqr program (build/bench/bench_plqr)")
    ap.add_argument("--T", type=float, default=2.0, help="the horizon [0, T] (2)")
    ap.add_argument("--T-ti", type=float, default=None,
                    help="the horizon of the time-invariant chain (default: T)")
    ap.add_argument("--repeat", type=int, default=3, help="timing runs, best kept (3)")
    ap.add_argument("--masses", type=int, default=50, help="masses of the chain (50)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 12 masses, T = 1, one run (figures mean little)")
    o = ap.parse_args()
    if o.quick:
        o.T, o.repeat, o.masses, o.T_ti = 1.0, 1, 12, None
    o.T_ti = o.T if o.T_ti is None else o.T_ti
    cmd = [o.lth, "--peer", "--T", str(o.T), "--T-ti", str(o.T_ti), "--repeat", str(o.repeat),
           "--masses", str(o.masses)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        sys.exit(f"bench_plqr_peer: {' '.join(cmd)} failed with status {run.returncode}")
    d = json.loads(run.stdout)
    print(f"lth_plqr_solve and by hand on [0, {o.T:g}] (time-invariant chain [0, {o.T_ti:g}]), "
          f"21 output times; CPU times, best of {o.repeat} runs; load average {d['load']:.2f} "
          "(end of bench_plqr)")
    chk = Checks()
    rows = []
    for case in d["cases"]:
        if make_plant(case) is None:
            rows.append((case, [], None))
            continue
        methods = ["riccati", "are"] if make_plant(case).time_invariant else ["riccati"]
        z0 = np.array(case["lth"]["z"])[0, :, 0]
        x0_of = lambda plant, z0=z0: plant.state(z0)  # lth's z(0): the state part of its z0
        print(f"checks, {case['name']}:")
        for m in methods:
            res, plant = run_method(case, m, x0_of)
            check(chk, case, m, res, plant)
            if m == "are":  # how far this horizon is from the long-horizon solution
                K0 = np.array(case["lth"]["Kz"][0]) @ plant.basis(0.0)
                eK = np.abs(K0 - res["Kinf"]).max() / np.abs(res["Kinf"]).max()
                print(f"  long horizon: lth's J* = {case['lth']['cost'] / res['Vinf']:.6f} "
                      f"x0'P_inf x0, |K(0) - K_inf| = {eK:.2e} max |K_inf|; slowest closed-loop "
                      f"decay alpha = {res['alpha']:.4f}/s, exp(-2 alpha T) = "
                      f"{np.exp(-2 * res['alpha'] * case['T']):.2e}")
        rows.append((case, methods, x0_of))
    if chk.failed:
        sys.exit(f"bench_plqr_peer: {chk.failed} check(s) failed: the timings would not compare "
                 "like with like")
    print(f"\n{'case':<11} {'r':>2} {'s':>3} {'p':>3} {'T':>3} {'method':<16} {'total_ms':>9} "
          f"{'setup':>8} {'gain':>8} {'loop':>8} {'nfev':>6} {'loop':>6} {'lth/this':>8}")
    for case, methods, x0_of in rows:
        L = case["lth"]
        lt = L["total_s"]
        head = f"{case['name']:<11} {case['r']:>2} {case['s']:>3} {case['p']:>3} {case['T']:>3g}"
        # lth: setup = its realization table (timed apart), gain = the rest of the solve (the
        # Riccati table and the closed loop); panels of the two tables
        pan = f"{L['table_panels']}+{L['riccati_panels']} panels"
        print(f"{head} {'lth_plqr_solve':<16} {1e3 * lt:9.2f} {1e3 * L['table_s']:8.2f} "
              f"{1e3 * (lt - L['table_s']):8.2f} {'-':>8} {pan:>13}")
        if not methods:
            print(f"{'':<21} (no hand reduction at index {case['r']})")
        for m in methods:
            t, (ts, tg, tl) = time_method(case, m, x0_of, o.repeat)
            res, _ = run_method(case, m, x0_of)
            print(f"{head} {'by hand, ' + m:<16} {1e3 * t:9.2f} {1e3 * ts:8.2f} {1e3 * tg:8.2f} "
                  f"{1e3 * tl:8.2f} {res['nfev']:6d} {res['nfev_loop']:6d} {lt / t:8.2f}")
    print(f"load average {os.getloadavg()[0]:.2f} (end)")


if __name__ == "__main__":
    main()
