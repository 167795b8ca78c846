# SPDX-License-Identifier: GPL-3.0-or-later
"""Time-varying LQG on a DAE plant (docs/control.md section 12): the LQR
feedback of lth.lqr on the realization's state (PlantLQRSolution.Kx, kx, x)
acting on the estimate of the Kalman-Bucy filter of lth.kalman.

The plant: two masses held together by a rigid link (index 3) on a
time-varying spring, tracking r(t) with a time-varying control weight and a
final cost (tests/data/lqr_spring_tv.lth), here with a forcing in a dynamic
row and in the constraint, so that the realization's g, y_f and z_f are not
zero.  The force u is the control, and in the filter also the channel of a
white process noise; y = x1 is measured with white noise.

- The feedback on the state is the feedback on the unknowns: Kx = K Z, and
  the closed loop's u, x and z agree (to rounding).
- Without noise the loop's cost is the LQR's, exactly where the estimate
  starts at the state, and J* + int (u - u*)' R (u - u*) dt where it does
  not (u* = -Kx x + kx, the optimal feedback on the true state: completing
  the square with the value function): RK4 on the realization's maps,
  fourth order (error 8e-10 at h = 0.01, 5e-11 at h = 0.005), to 1e-8.
- With noise (Euler-Maruyama, 4000 paths), the estimation error of the
  closed loop keeps the filter's covariance Sigma(t) (within 10 %: the
  sampling error of a variance from 4000 draws is ~2.2 %, and the steps'
  bias measured 3 %), and it is the same error as without feedback (the
  separation principle).  Sigma is stationary in L (the optimal gain
  minimises it), so this catches a loop that uses the gain wrongly (a gain
  off by a factor 2 moves the covariance by 10 to 45 %, a wrong sign or time
  far more), not a small error in L: test_control.py checks L against
  SciPy."""

import numpy as np
import pytest

import lth

PLANT = """problem equations
variables x1 x2 v1 v2 lam
inputs u
outputs y = x1
interval 0 4
grid 5
r(t) = 0.5*cos(t)
x1' = v1
x2' = v2
v1' = -(1 + 0.5*sin(2*t))*x1 + lam + u
v2' = -x2 - 0.2*v2 - lam + 0.3*sin(t)
0 = x1 - x2 - 0.1*t^2
z0 = [1, 1, 0.3, 0.3, 0]
cost integral (y - r(t))^2 + (0.1 + 0.05*t)*u^2
cost final 3*y^2 + 0.5*v1^2
"""


def R(t):
    return 0.1 + 0.05 * t


@pytest.fixture(scope="module")
def design():
    """The realization, the LQR and the filter on a grid of step h/2 = 0.005
    (the RK4 stages of step h = 0.01)."""
    pb = lth.parse(PLANT, name="lqg.lth")
    t = np.linspace(0.0, 4.0, 801)
    r = lth.ss(pb, t)
    lq = lth.lqr(pb, t)
    kf = lth.kalman(pb, "u", V=0.01, W=1.0, Sigma0=0.1 * np.eye(5), times=t)
    return pb, t, r, lq, kf


def test_feedback_on_the_state(design):
    pb, t, r, lq, kf = design
    assert lq.Kx.shape == (len(t), 1, r.p) and lq.kx.shape == (len(t), 1)
    assert lq.x.shape == (len(t), r.p)
    scale = np.abs(lq.Kx).max()
    assert np.abs(lq.Kx - lq.K @ r.Z).max() <= 1e-9 * scale
    u_x = -np.einsum("kup,kp->ku", lq.Kx, lq.x) + lq.kx
    u_z = -np.einsum("kuz,kz->ku", lq.K, lq.z) + lq.k
    z_x = (np.einsum("kzp,kp->kz", r.Z, lq.x) + np.einsum("kzu,ku->kz", r.Dz[:, 0], lq.u)
           + r.z_f)
    tol = 1e-10 * max(1.0, np.abs(lq.u).max())
    assert np.abs(u_x - lq.u).max() <= tol and np.abs(u_z - lq.u).max() <= tol
    assert np.abs(z_x - lq.z).max() <= 1e-10 * max(1.0, np.abs(lq.z).max())
    # z0 is consistent: the loop starts at it
    np.testing.assert_allclose(lq.z[0, :4], pb.z0[:4], rtol=0, atol=1e-12)
    assert np.abs(r.g).max() > 0.1 and np.abs(r.z_f).max() > 0.1  # the forcing is there
    assert np.abs(lq.kx).max() > 0.1  # and the tracking term


def _loop_cost(t, r, lq, kf, xh0):
    """The noise-free LQG loop from the true x0 and the estimate xh0 by RK4
    (step h = 2 (t[1] - t[0]), the maps at the grid's points): its cost J
    and int (u - u*)' R (u - u*) dt."""
    p = r.p
    iv = lq.variables.index("v1")

    def rhs(k, s):
        x, xh = s[:p], s[p:2 * p]
        A, B, C, D, L = r.A[k], r.B[k, 0], r.C[k], r.D[k, 0], kf.L[k]
        u = -lq.Kx[k] @ xh + lq.kx[k]
        du = u - (-lq.Kx[k] @ x + lq.kx[k])
        y = C @ x + D @ u + r.y_f[k]
        ym = y  # no measurement noise
        dx = A @ x + B @ u + r.g[k]
        dxh = A @ xh + B @ u + r.g[k] + L @ (ym - (C @ xh + D @ u + r.y_f[k]))
        run = (y[0] - 0.5 * np.cos(t[k])) ** 2 + R(t[k]) * u[0] ** 2
        return np.concatenate([dx, dxh, [run, R(t[k]) * du[0] ** 2]])

    h = 2.0 * (t[1] - t[0])
    s = np.concatenate([lq.x[0], xh0, [0.0, 0.0]])
    for k in range(0, len(t) - 1, 2):
        k1 = rhs(k, s)
        k2 = rhs(k + 1, s + 0.5 * h * k1)
        k3 = rhs(k + 1, s + 0.5 * h * k2)
        k4 = rhs(k + 2, s + h * k3)
        s = s + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    x, xh = s[:p], s[p:2 * p]
    u = -lq.Kx[-1] @ xh + lq.kx[-1]
    y = r.C[-1] @ x + r.D[-1, 0] @ u + r.y_f[-1]
    v1 = r.Z[-1, iv] @ x + r.Dz[-1, 0, iv] @ u + r.z_f[-1, iv]
    return s[2 * p] + 3.0 * y[0] ** 2 + 0.5 * v1 ** 2, s[2 * p + 1]


def test_noise_free_loop_cost(design):
    pb, t, r, lq, kf = design
    tol = 1e-8 * max(1.0, lq.cost)
    J, extra = _loop_cost(t, r, lq, kf, lq.x[0])  # the estimate starts at the state
    assert extra == 0.0
    assert abs(J - lq.cost) <= tol, (J, lq.cost)
    J, extra = _loop_cost(t, r, lq, kf, lq.x[0] + np.array([0.3, -0.2]))
    assert extra > 1e-3  # the estimate's error costs something
    assert abs(J - (lq.cost + extra)) <= tol, (J, lq.cost, extra)


def test_estimation_error_keeps_sigma_in_closed_loop(design):
    pb, t, r, lq, kf = design
    n, p, V, W = 4000, r.p, 0.01, 1.0
    rng = np.random.default_rng(20261127)
    e0 = rng.multivariate_normal(np.zeros(p), kf.Sigma[0], size=n).T
    noise = [(np.sqrt(W * (t[k + 1] - t[k])) * rng.standard_normal((1, n)),
              np.sqrt(V * (t[k + 1] - t[k])) * rng.standard_normal((1, n)))
             for k in range(len(t) - 1)]

    def errors(feedback):
        """Euler-Maruyama on the grid: the plant x driven by u + w, the
        measurement y dt + D dw + dv over each step, the filter xh."""
        xh = np.repeat(lq.x[:1].T, n, axis=1)
        x = xh + e0
        out = {}
        for k in range(len(t) - 1):
            dt = t[k + 1] - t[k]
            A, B, C, D, L = r.A[k], r.B[k, 0], r.C[k], r.D[k, 0], kf.L[k]
            g, yf = r.g[k][:, None], r.y_f[k][:, None]
            u = -lq.Kx[k] @ xh + lq.kx[k][:, None] if feedback else np.zeros((1, n))
            dw, dv = noise[k]
            dy = (C @ x + D @ u + yf) * dt + D @ dw + dv
            x = x + (A @ x + B @ u + g) * dt + B @ dw
            xh = xh + (A @ xh + B @ u + g) * dt + L @ (dy - (C @ xh + D @ u + yf) * dt)
            if k + 1 in (400, 800):
                out[k + 1] = x - xh
        return out

    closed, open_ = errors(True), errors(False)
    for k in (400, 800):  # t = 2, 4
        S = kf.Sigma[k]
        emp = np.cov(closed[k])
        scale = np.sqrt(np.outer(np.diag(S), np.diag(S)))
        assert np.all(np.abs(emp - S) <= 0.1 * scale), (t[k], emp, S)
        # the separation principle: the error does not see the control
        assert np.abs(closed[k] - open_[k]).max() <= 1e-9 * np.abs(closed[k]).max()
