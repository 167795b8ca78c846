# SPDX-License-Identifier: GPL-3.0-or-later
"""The Kalman-Bucy filter of a DAE plant (lth.kalman, docs/control.md
section 11) on two masses held together by a rigid link (index 3), the
force a white noise w, the position x1 measured with white noise:

- the steady error covariance of the unknowns and the gain against
  scipy.linalg.solve_continuous_are of the dual problem on the ODE reduced
  by hand, x'' = -x + w/2 (an independent reference);
- a Monte Carlo estimate: the estimation error of the steady filter,
  simulated from its steady covariance by Euler-Maruyama on the hand model
  (10000 paths over 2 time units), keeps that covariance (within 5 %: the
  sampling error of a variance from 10000 draws is ~1.4 %);
- refusals: a noise that is not an input, V not positive definite (named t),
  a plant without outputs."""

import numpy as np
import pytest
import scipy.linalg

import lth

PLANT = """problem equations
variables x1 x2 v1 v2 lam
inputs w
outputs y = x1
interval 0 30
grid 4
x1' = v1
x2' = v2
v1' = -x1 + lam + w
v2' = -x2 - lam
0 = x1 - x2
"""

V, W = 0.1, 1.0
A = np.array([[0.0, 1.0], [-1.0, 0.0]])  # (x, v): 2 x'' = -2 x + w
B = np.array([[0.0], [0.5]])
C = np.array([[1.0, 0.0]])


def _steady():
    return scipy.linalg.solve_continuous_are(A.T, C.T, B @ B.T * W, np.array([[V]]))


def test_steady_state_against_scipy():
    pb = lth.parse(PLANT)
    res = lth.kalman(pb, "w", V=V, W=W, times=[0.0, 15.0, 30.0])
    S = _steady()
    i, j = pb.variables.index("x1"), pb.variables.index("v1")
    Sz = res.Sigma_z[-1]
    got = np.array([[Sz[i, i], Sz[i, j]], [Sz[j, i], Sz[j, j]]])
    np.testing.assert_allclose(got, S, rtol=1e-8, atol=1e-12)
    # x1 = x2: the covariance sees the constraint
    k = pb.variables.index("x2")
    assert abs(Sz[i, k] - Sz[i, i]) <= 1e-12 * Sz[i, i]
    # the gain on the unknowns: Z L = Sigma C' / V
    r = lth.ss(pb, [30.0])
    ZL = r.Z[0] @ res.L[-1]
    np.testing.assert_allclose([ZL[i, 0], ZL[j, 0]], (S @ C.T / V)[:, 0], rtol=1e-7)
    assert res.Sigma_z[0].max() == 0.0  # Sigma0 = 0: z(t0) known
    assert res.noise == ["w"] and res.outputs == ["y"]


def test_monte_carlo_keeps_the_steady_covariance():
    pb = lth.parse(PLANT)
    res = lth.kalman(pb, ["w"], V=V, W=W, times=[30.0])
    i, j = pb.variables.index("x1"), pb.variables.index("v1")
    Sz = res.Sigma_z[0]
    S = np.array([[Sz[i, i], Sz[i, j]], [Sz[j, i], Sz[j, j]]])
    L = S @ C.T / V
    rng = np.random.default_rng(20261127)
    n, dt, steps = 10000, 2e-3, 1000
    e = rng.multivariate_normal(np.zeros(2), S, size=n).T  # the error starts at its covariance
    F = A - L @ C
    for _ in range(steps):  # de = (A - L C) e dt + B dw - L dv
        dw = rng.normal(0.0, np.sqrt(W * dt), size=n)
        dv = rng.normal(0.0, np.sqrt(V * dt), size=n)
        e = e + F @ e * dt + B * dw - L * dv
    emp = np.cov(e)
    np.testing.assert_allclose(emp, S, rtol=0.05, atol=0.05 * S.max())


def test_refusals():
    pb = lth.parse(PLANT)
    with pytest.raises(lth.UsageError, match="not an input"):
        lth.kalman(pb, "v", V=V)
    with pytest.raises(lth.Error) as ei:
        lth.kalman(pb, "w", V=0.0)
    assert ei.value.t is not None and "not positive definite" in str(ei.value)
    noout = lth.parse(PLANT.replace("outputs y = x1\n", ""))
    with pytest.raises(lth.Error, match="outputs"):
        lth.kalman(noout, "w", V=V)


@pytest.mark.parametrize("name", ["lqr_lever", "lqr_spring_tv"])
def test_plant_lqr_equals_the_tool(name):
    """lth.lqr on an equation-form plant with `cost` statements gives what
    lth-lqr --format json gives: the same library solve (to rounding)."""
    import json
    import os
    import subprocess
    path = os.path.join(os.environ["LTH_TEST_DIR"], "data", name + ".lth")
    pb = lth.load(path)
    times = [pb.interval[0], 0.5 * sum(pb.interval), pb.interval[1]]
    sol = lth.lqr(pb, times)
    apps = os.path.join(os.path.dirname(os.environ["LTH_LIBRARY"]), "apps")
    out = subprocess.run([os.path.join(apps, "lth-lqr"), path, "--format", "json", "--times",
                          ",".join(repr(t) for t in times)], capture_output=True, text=True,
                         check=True)
    d = json.loads(out.stdout)
    assert d["variables"] == sol.variables and d["inputs"] == sol.inputs
    for key, ours in (("K", sol.K), ("k", sol.k), ("z", sol.z), ("u", sol.u), ("y", sol.y)):
        theirs = np.array(d[key], dtype=float).reshape(ours.shape)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13, err_msg=key)
    assert abs(sol.cost - d["cost"]) <= 1e-12 * max(1.0, abs(d["cost"]))
    assert abs(sol.cost_closed - sol.cost) <= 1e-8 * max(1.0, abs(sol.cost))


def test_fast_filter_start():
    """A wide prior and an accurate measurement make the covariance's first
    rate ~1e8: the integrator's first step follows it (a fixed first step of
    1e-3 of the span made the covariance overflow), and the steady state is
    still the ARE's."""
    pb = lth.parse(PLANT)
    v = 1e-8
    res = lth.kalman(pb, "w", V=v, W=W, Sigma0=np.eye(pb.nvars), times=[0.0, 1e-4, 30.0])
    assert np.isfinite(res.Sigma).all()
    S = scipy.linalg.solve_continuous_are(A.T, C.T, B @ B.T * W, np.array([[v]]))
    i, j = pb.variables.index("x1"), pb.variables.index("v1")
    Sz = res.Sigma_z[-1]
    np.testing.assert_allclose([[Sz[i, i], Sz[i, j]], [Sz[j, i], Sz[j, j]]], S, rtol=1e-6)


def test_singular_plant_lqr_closed_form():
    """R = 0 on an index-2 plant (tests/data/lqr_singular.lth): the optimum on
    the singular arc in closed form, J* = tanh(1); open loop (no gains)."""
    import math
    import os
    pb = lth.load(os.path.join(os.environ["LTH_TEST_DIR"], "data", "lqr_singular.lth"))
    ts = np.linspace(0.0, 1.0, 6)
    sol = lth.lqr(pb, ts)
    assert sol.singular == 1 and sol.K is None and sol.Kx is None
    assert abs(sol.cost - math.tanh(1.0)) <= 1e-9
    assert abs(sol.cost_closed - math.tanh(1.0)) <= 1e-9
    a = 1.0 / (1.0 + math.e ** 2)
    b = a * math.e ** 2
    x2 = a * np.exp(ts) + b * np.exp(-ts)
    i1, i2 = sol.variables.index("x1"), sol.variables.index("x2")
    np.testing.assert_allclose(sol.z[:, i1], a * np.exp(ts) - b * np.exp(-ts), atol=1e-9)
    np.testing.assert_allclose(sol.z[:, i2], x2, atol=1e-9)
    np.testing.assert_allclose(sol.u[:, 0], x2, atol=1e-9)


def test_time_varying_intensities_against_scipy():
    """W(t) and V(t) as functions: the covariance of the hand-reduced ODE
    from Sigma(0) = 0 by SciPy's integration of the filter's Riccati ODE
    Sigma' = A S + S A' + B W(t) B' - S C' V(t)^-1 C S (DOP853, rtol 1e-12);
    a constant function gives exactly the constant's result."""
    import scipy.integrate
    pb = lth.parse(PLANT.replace("interval 0 30", "interval 0 3"))
    Wf = lambda t: 1.0 + 0.5 * np.sin(t)
    Vf = lambda t: np.array([[0.1 * (1.0 + t)]])
    ts = [0.0, 1.0, 2.0, 3.0]
    res = lth.kalman(pb, "w", V=Vf, W=Wf, times=ts)

    def rhs(t, y):
        S = y.reshape(2, 2)
        d = A @ S + S @ A.T + B @ B.T * Wf(t) - S @ C.T @ C @ S / Vf(t)[0, 0]
        return d.ravel()
    ref = scipy.integrate.solve_ivp(rhs, (0.0, 3.0), np.zeros(4), method="DOP853", rtol=1e-12,
                                    atol=1e-14, t_eval=ts)
    i, j = pb.variables.index("x1"), pb.variables.index("v1")
    for k in range(len(ts)):
        Sz = res.Sigma_z[k]
        got = np.array([[Sz[i, i], Sz[i, j]], [Sz[j, i], Sz[j, j]]])
        np.testing.assert_allclose(got, ref.y[:, k].reshape(2, 2), rtol=1e-8, atol=1e-12)
    same = lth.kalman(pb, "w", V=lambda t: V, W=lambda t: W, times=ts)
    const = lth.kalman(pb, "w", V=V, W=W, times=ts)
    np.testing.assert_allclose(same.Sigma_z, const.Sigma_z, rtol=1e-14, atol=1e-16)
    with pytest.raises(lth.UsageError, match="V"):
        lth.kalman(pb, "w", V=lambda t: np.ones((2, 2)), times=ts)
