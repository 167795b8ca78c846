# SPDX-License-Identifier: GPL-3.0-or-later
"""lth.ss, the minimal state-space realization of a plant with inputs
(include/lth/ss.h, docs/control.md).

Time-invariant plants against an independent reference: the transfer
function G(s) = C (sE - A)^-1 B + D computed with scipy.linalg.solve (an LU
of the pencil sE - A) straight from the matrices the data file was written
from, never through lth, at several complex frequencies; the realization's
frozen-time transfer function C_r (sI - A_r)^-1 B_r + sum_j D_j s^j must
agree, its polynomial part (the derivative feedthrough of inputs in
constraints) included.  The poles: the eigenvalues of A_r are the finite
generalized eigenvalues of (A, E) (scipy.linalg.eigvals, QZ).

Tolerance (normwise, on the largest entry): the realization's maps carry
rounding errors of about eps times the decomposition's error amplification
``amp``, the reference's about eps times cond(sE - A), and the resolvent
(sI - A_r)^-1 multiplies a perturbation of A_r by up to cond(sI - A_r); so
|G_r - G| <= 1e3 eps (amp + cond(sE - A)) cond(sI - A_r) |G|.  On the plants
below the measured error stays below 0.4 of eps (amp + cond(sE - A))
cond(sI - A_r) |G|.  The tolerances come out between 5e-11 (s = 0.3j) and
2e-7 (s = 20j, where cond(sE - A) grows like |s|^(r-1)), the errors below
6e-14; every case asserts that its tolerance is below 1e-6, so none passes
by being loose; without the polynomial part the error is of order 1
(test_derivative_feedthrough_is_needed).

The basis Q(t) on a time-varying index-3 plant (a crane, docs/control.md):
Q^T Q = I to 1e-14, P Q = 0 with lth.decompose's P to 1e-12 relative,
Q^T Q' = 0 with Q' from a central difference (h = 1e-4: truncation about
h^2/6 |Q'''| ~ 1e-9, the basis ODE's error rtol/h ~ 1e-8) below 1e-6 |Q'|,
and Q' = (I - Q Q^T) Ahat Q, the minimal-rotation ODE, to the same bound.

The whole realization on the crane with smooth input signals: x' = A x +
sum_j B_j u^(j) + g integrated by SciPy (DOP853, rtol 1e-11) with A, B, g
from an lth.Realizer at the integrator's own times, mapped back by Z, Dz,
z_f and C, D, y_f, reproduces lth.solve's z and y on the DAE (rtol 1e-11)
to 1e-8 (measured: 3e-11), with and without the change of state.
"""

import numpy as np
import pytest
import scipy.integrate
import scipy.linalg as scipy_linalg  # python3-scipy: the reference (tests/cli/cli_python.sh)

import lth
from conftest import data

EPS = np.finfo(float).eps
FREQUENCIES = [0.3j, 1 + 2j, 5j, 20j]


def _mat(a):
    """A matrix literal of the data files, every double to the last bit."""
    a = np.atleast_2d(np.asarray(a, dtype=float))
    return "[" + "; ".join(", ".join(repr(float(x)) for x in row) for row in a) + "]"


class Plant:
    """A time-invariant plant E z' = A z + B u, y = C z + D u: the data
    file's text and the matrices, the unknowns in the order of `names`."""

    def __init__(self, text, E, A, B, C, D, names):
        self.text, self.E, self.A, self.B, self.C, self.D = text, E, A, B, C, D
        self.names = names

    def transfer(self, s):
        """The reference: C (sE - A)^-1 B + D by LU (scipy.linalg.solve)."""
        M = s * self.E - self.A
        return self.C @ scipy_linalg.solve(M, self.B) + self.D, np.linalg.cond(M)

    def to_unknowns(self, s):
        """(sE - A)^-1 B: the unknowns' response."""
        return scipy_linalg.solve(s * self.E - self.A, self.B)


def block_plant(blocks, input_rows, seed, nu=2, ny=2):
    """A random Hessenberg plant in the block form (Clark (2.2) pattern),
    inputs in the block rows `input_rows` (r: the constraint)."""
    rng = np.random.default_rng(seed)
    r, s = len(blocks), sum(blocks)
    off = np.concatenate([[0], np.cumsum(blocks)])
    A = np.zeros((s, s))
    B = np.zeros((s, nu))
    lines = ["problem dae", "blocks " + " ".join(map(str, blocks)), "interval 0 1", "grid 2",
             "inputs " + " ".join("u%d" % (k + 1) for k in range(nu)),
             "outputs " + " ".join("y%d" % (k + 1) for k in range(ny))]
    for i in range(1, r + 1):
        cols = range(1, r + 1) if i == 1 else [r - 1] if i == r else range(i - 1, r)
        for j in cols:
            a = rng.standard_normal((blocks[i - 1], blocks[j - 1]))
            A[off[i - 1]:off[i], off[j - 1]:off[j]] = a
            lines.append("A(%d,%d) = %s" % (i, j, _mat(a)))
    for i in input_rows:
        b = rng.standard_normal((blocks[i - 1], nu))
        B[off[i - 1]:off[i]] = b
        lines.append("B(%d) = %s" % (i, _mat(b)))
    C = rng.standard_normal((ny, s))
    D = rng.standard_normal((ny, nu))
    lines += ["C = " + _mat(C), "D = " + _mat(D)]
    E = np.diag([1.0] * (s - blocks[-1]) + [0.0] * blocks[-1])
    return Plant("\n".join(lines) + "\n", E, A, B, C, D, None)


def mechanical_plant(seed):
    """Three masses with a full mass matrix, one holonomic constraint
    G q = b u2 (a prescribed motion: index 3) and a force u1, written in the
    equation form; an index-1 unknown fc = q1 + 2 q3' (docs/equations.md
    section 10) and outputs that mix positions, velocities, the multiplier
    and the inputs."""
    rng = np.random.default_rng(seed)
    R = rng.standard_normal((3, 3))
    M = R @ R.T + 3 * np.eye(3)
    K = rng.standard_normal((3, 3))
    K = K @ K.T + np.eye(3)
    Dd = 0.1 * np.eye(3) + 0.05 * rng.standard_normal((3, 3))
    G = rng.standard_normal((1, 3))
    Bu = rng.standard_normal((3, 1))
    b = rng.standard_normal()
    cy = rng.standard_normal(6)
    text = "\n".join([
        "problem equations",
        "variables q1 q2 q3 lam fc",
        "inputs u1 u2",
        "interval 0 1",
        "grid 2",
        "outputs y1 = %r*q1 + %r*q2' + %r*lam + %r*u2, y2 = %r*q3 + %r*fc - u1"
        % tuple(cy),
        "%s*[q1''; q2''; q3''] = %s*[q1; q2; q3] + %s*[q1'; q2'; q3'] + %s*lam + %s*u1"
        % (_mat(M), _mat(-K), _mat(-Dd), _mat(G.T), _mat(Bu)),
        "0 = %r*q1 + %r*q2 + %r*q3 + %r*u2" % (G[0, 0], G[0, 1], G[0, 2], b),
        "0 = fc - q1 - 2*q3'",
    ]) + "\n"
    # the reference in the unknowns (q1, q1', q2, q2', q3, q3', lam, fc)
    names = ["q1", "q1'", "q2", "q2'", "q3", "q3'", "lam", "fc"]
    iq, iv = [0, 2, 4], [1, 3, 5]
    n = len(names)
    E, A, B = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, 2))
    for qi, vi in zip(iq, iv):  # q' = v
        E[qi, qi] = 1.0
        A[qi, vi] = 1.0
    for row in range(3):  # M v' = -K q - Dd v + G^T lam + Bu u1
        r = iv[row]
        E[r, iv] = M[row]
        A[r, iq] = -K[row]
        A[r, iv] = -Dd[row]
        A[r, 6] = G[0, row]
        B[r, 0] = Bu[row, 0]
    A[6, iq] = G[0]  # 0 = G q + b u2
    B[6, 1] = b
    A[7, [7, 0, 5]] = [1.0, -1.0, -2.0]  # 0 = fc - q1 - 2 q3'
    C = np.zeros((2, n))
    C[0, [0, 3, 6]] = cy[0:3]
    C[1, [4, 7]] = cy[4:6]
    D = np.array([[0.0, cy[3]], [-1.0, 0.0]])
    return Plant(text, E, A, B, C, D, names)


def _check_transfer(plant, raw=False):
    """The realization's transfer functions (to the outputs and to every
    unknown) against the reference at FREQUENCIES; returns the realization."""
    pb = lth.parse(plant.text)
    r = lth.ss(pb, [0.0, 0.7], raw=raw)
    # a time-invariant plant has a fixed state space: the basis does not move
    np.testing.assert_allclose(r.A[1], r.A[0], rtol=0, atol=1e-10 * max(1, np.abs(r.A).max()))
    names = plant.names or r.unknowns
    rows = [names.index(u) for u in r.unknowns]
    for s in FREQUENCIES:
        want, cond = plant.transfer(s)
        kr = np.linalg.cond(s * np.eye(r.p) - r.A[1])
        tol = 1e3 * EPS * (r.amplification[1] + cond) * kr
        assert tol < 1e-6, "the case is too ill-conditioned to test anything (tol %.1e)" % tol
        got = r.transfer(s, k=1)
        err = np.abs(got - want).max() / np.abs(want).max()
        assert err <= tol, "s = %s: |G_r - G| / |G| = %.2e > %.2e" % (s, err, tol)
        wz = plant.to_unknowns(s)[rows]
        gz = r.transfer(s, k=1, unknowns=True)
        errz = np.abs(gz - wz).max() / np.abs(wz).max()
        assert errz <= tol, "s = %s: unknowns |G_r - G| / |G| = %.2e > %.2e" % (s, errz, tol)
    return r


BLOCK_CASES = [
    ((3, 2), (1,), 0),        # index 2, inputs in a dynamic row only
    ((3, 2), (1, 2), 1),      # index 2, an input in the constraint too
    ((3, 2), (2,), 2),        # index 2, the constraint only
    ((2, 2, 1), (1, 2, 3), 0),  # index 3, every row
    ((2, 2, 1), (2,), 1),     # index 3, the middle row: u' enters
    ((3, 2, 2), (1, 3), 2),   # index 3, the constraint: u'' enters
    ((2, 2, 2, 1), (1, 4), 0),  # index 4
]


@pytest.mark.parametrize("blocks,rows,seed", BLOCK_CASES)
@pytest.mark.parametrize("raw", [False, True])
def test_block_plants_transfer(blocks, rows, seed, raw):
    plant = block_plant(blocks, rows, seed)
    r = _check_transfer(plant, raw=raw)
    r_idx = len(blocks)
    # the orders of input derivatives the structure allows (include/lth/ss.h)
    jmax = max(i - 1 if i < r_idx else r_idx - 1 for i in rows)
    assert r.D.shape == (2, jmax + 1, 2, 2)
    assert r.B.shape == (2, jmax + 1 if raw else 1, r.p, 2)
    assert r.p == sum(blocks) - blocks[-1] - (r_idx - 1) * blocks[-1]


def test_derivative_feedthrough_is_needed():
    """The test above can fail: without sum_{j>=1} D_j s^j the realization
    of a plant with an input in an index-3 constraint misses G(s)."""
    plant = block_plant((3, 2, 2), (1, 3), 2)
    r = lth.ss(lth.parse(plant.text), [0.0])
    assert np.abs(r.D[0, 2]).max() > 1e-3  # u'' reaches the outputs
    s = 5j
    want, _ = plant.transfer(s)
    r.D[:, 1:] = 0.0
    err = np.abs(r.transfer(s) - want).max() / np.abs(want).max()
    assert err > 1e-2


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("raw", [False, True])
def test_mechanical_index3_transfer(seed, raw):
    plant = mechanical_plant(seed)
    r = _check_transfer(plant, raw=raw)
    assert r.p == 4 and r.inputs == ["u1", "u2"] and r.outputs == ["y1", "y2"]
    assert r.unknowns == ["q1", "q1'", "q2", "q2'", "q3", "q3'", "lam", "fc"]
    assert r.D.shape[1] == 3  # u2 in the position constraint: D_0, D_1, D_2


@pytest.mark.parametrize("plant", [block_plant((2, 2, 1), (1, 2, 3), 0), mechanical_plant(1)],
                         ids=["blocks", "mechanical"])
def test_poles_are_the_finite_eigenvalues(plant):
    """eig(A_r) = the p finite generalized eigenvalues of (A, E) (QZ).  The
    infinite ones come out of QZ as |lambda| >> 1e6 (rounding of beta = 0),
    the finite ones below 1e3 here: the p smallest in modulus are the finite
    ones.  Simple eigenvalues of moderate condition: 1e-8 relative."""
    r = lth.ss(lth.parse(plant.text), [0.0])
    w = scipy_linalg.eigvals(plant.A, plant.E, homogeneous_eigvals=False)
    w = w[np.isfinite(w)]
    finite = w[np.argsort(np.abs(w))][:r.p]
    assert np.abs(finite).max() < 1e3
    rest = np.abs(w[np.argsort(np.abs(w))][r.p:])
    assert rest.size == 0 or rest.min() > 1e6
    got = np.linalg.eigvals(r.A[0])
    scale = np.abs(finite).max()
    dist = np.abs(got[:, None] - finite[None, :])
    # every eigenvalue of A_r next to one of the pencil's and back (simple eigenvalues)
    assert dist.min(axis=1).max() <= 1e-8 * scale and dist.min(axis=0).max() <= 1e-8 * scale


# ---------------------------------------------------------------- the basis

CRANE = """problem equations
variables X x y mu
inputs F dL
interval 0 4
grid 5
param M = 2, m = 0.5, g = 9.81
L(t) = 1.5 - 0.25*t
th(t) = 0.3*sin(2*t)
dth(t) = 0.6*cos(2*t)
ddth(t) = -1.2*sin(2*t)
w(t) = L(t)*sin(th(t))
h(t) = L(t)*cos(th(t))
ddh(t) = 0.5*sin(th(t))*dth(t) - L(t)*(cos(th(t))*dth(t)^2 + sin(th(t))*ddth(t))
lam0(t) = m*(ddh(t) - g)/h(t)
outputs sway = x - X, tension = -L(t)*mu - lam0(t)*dL
M*X'' = F - lam0(t)*(x - X) - w(t)*mu
m*x'' = lam0(t)*(x - X) + w(t)*mu
m*y'' = lam0(t)*y - h(t)*mu
0 = w(t)*(x - X) - h(t)*y - L(t)*dL
"""


@pytest.fixture(scope="module")
def crane():
    return lth.parse(CRANE, name="crane")


@pytest.mark.parametrize("t", [0.7, 1.9, 3.3])
def test_basis_minimal_rotation(crane, t):
    h = 1e-4
    r = lth.ss(crane, [t - h, t, t + h])
    dec = lth.decompose(crane, [t])
    Q, P, Ahat = r.Q[1], dec.P[0], dec.Ahat[0]
    assert r.state_components == dec.state_components
    assert np.linalg.norm(Q.T @ Q - np.eye(r.p)) <= 1e-14
    assert np.linalg.norm(P @ Q) / max(1.0, np.linalg.norm(P)) <= 1e-12
    dQ = (r.Q[2] - r.Q[0]) / (2 * h)
    assert np.linalg.norm(dQ) > 0.1  # the state space moves: the test is not vacuous
    assert np.linalg.norm(Q.T @ dQ) <= 1e-6 * np.linalg.norm(dQ)
    rhs = Ahat @ Q - Q @ (Q.T @ Ahat @ Q)
    assert np.linalg.norm(dQ - rhs) <= 1e-6 * np.linalg.norm(dQ)
    # x' = Q^T Ahat Q x: the state equation carries no Q' term
    amp = r.amplification[1]
    np.testing.assert_allclose(r.A[1], Q.T @ Ahat @ Q, rtol=0,
                               atol=1e2 * EPS * amp * np.linalg.norm(Ahat))
    # the library's own checks, before it reprojected
    assert r.orth_err.max() <= 1e-10 and r.range_err.max() <= 1e-10


def test_crane_shapes_and_names(crane):
    r = lth.ss(crane, [1.0])
    assert (r.p, r.m, r.s) == (4, 6, 7)
    assert r.inputs == ["F", "dL"] and r.outputs == ["sway", "tension"]
    assert r.unknowns == ["X", "X'", "x", "x'", "y", "y'", "mu"]
    assert r.B.shape == (1, 1, 4, 2) and r.K.shape == (1, 2, 6, 2)
    assert r.C.shape == (1, 2, 4) and r.D.shape == (1, 3, 2, 2)
    assert r.Z.shape == (1, 7, 4) and r.Dz.shape == (1, 3, 7, 2) and r.z_f.shape == (1, 7)
    raw = lth.ss(crane, [1.0], raw=True)
    assert raw.B.shape == (1, 3, 4, 2) and raw.K.shape == (1, 0, 6, 2)
    # the change of state leaves A and C, and D_j of the highest order
    # (D_j gains C G K_{j+1}, and there is no K_{nd})
    np.testing.assert_allclose(raw.A, r.A, atol=1e-13)
    np.testing.assert_allclose(raw.C, r.C, atol=1e-13)
    np.testing.assert_allclose(raw.D[:, -1], r.D[:, -1], atol=1e-13)
    assert np.abs(raw.D[:, 0] - r.D[:, 0]).max() > 1e-3


SIGNALS = "F(t) = sin(2.3*t)\ndL(t) = 0.1*sin(1.7*t)\nz0 = [0.1, 0, 0.2, 0.3, 0, 0, 0]\n"


def crane_signals(t):
    """u^(j)(t) of SIGNALS, j = 0, 1, 2 (rows) for F, dL (columns)."""
    return np.array([[np.sin(2.3 * t), 0.1 * np.sin(1.7 * t)],
                     [2.3 * np.cos(2.3 * t), 0.17 * np.cos(1.7 * t)],
                     [-2.3 ** 2 * np.sin(2.3 * t), -0.1 * 1.7 ** 2 * np.sin(1.7 * t)]])


def _with_inputs(maps, u):
    """sum_j maps[j] u^(j)."""
    return sum(maps[j] @ u[j] for j in range(maps.shape[0]))


@pytest.mark.parametrize("raw", [False, True])
def test_simulated_realization_reproduces_the_dae(raw):
    pb = lth.parse(CRANE + SIGNALS)
    sol = lth.solve(pb, grid=9, project=True, rtol=1e-11, atol=1e-12)
    with lth.Realizer(pb, raw=raw) as rz:
        r0 = rz.at(0.0)
        u0 = crane_signals(0.0)
        x0 = np.linalg.lstsq(r0.Z[0], sol.z[0] - r0.z_f[0] - _with_inputs(r0.Dz[0], u0),
                             rcond=None)[0]

        def rhs(t, x):
            r = rz.at(t)
            return r.A[0] @ x + _with_inputs(r.B[0], crane_signals(t)) + r.g[0]

        ode = scipy.integrate.solve_ivp(rhs, (0.0, 4.0), x0, method="DOP853", rtol=1e-11,
                                        atol=1e-12, t_eval=sol.times)
        assert ode.success
        r = rz.at(sol.times)
    for k, t in enumerate(sol.times):
        u, x = crane_signals(t), ode.y[:, k]
        z = r.Z[k] @ x + _with_inputs(r.Dz[k], u) + r.z_f[k]
        y = r.C[k] @ x + _with_inputs(r.D[k], u) + r.y_f[k]
        np.testing.assert_allclose(z, sol.z[k], rtol=0, atol=1e-8, err_msg="z at t = %g" % t)
        np.testing.assert_allclose(y, sol.y[k], rtol=0, atol=1e-8, err_msg="y at t = %g" % t)
    # the derivative feedthrough matters here: u'' moves the tension by more than 1e-3
    assert np.abs(r.D[:, 2]).max() * 0.1 * 1.7 ** 2 > 1e-3


def test_realizer_with_free_inputs():
    """A Realizer reads no signal: the problem's free inputs stay free (the
    tools' refusals unchanged), other computations go on beside it, a
    signal given meanwhile changes nothing of the realization, and the
    basis is carried on."""
    pb = lth.parse(IO)
    with lth.Realizer(pb) as rz:
        assert pb.free_inputs == ["u1", "u2"]
        with pytest.raises(lth.UsageError, match="has no signal"):
            lth.solve(pb, project=True)
        assert lth.decompose(pb, [1.0]).free_inputs == ["u1", "u2"]
        a = rz.at([1.0, 2.0])
        with lth.Realizer(pb, raw=True) as rz2:
            rz2.at(0.5)
        pb.set_input("u1", "sin(t)")
        assert pb.free_inputs == ["u2"]
        b = rz.at(2.0)  # the same basis, carried on; the maps do not read u1
        np.testing.assert_allclose(b.Q[0], a.Q[1], atol=1e-12)
        np.testing.assert_allclose(b.A[0], a.A[1], atol=1e-12)
        np.testing.assert_allclose(b.D[0], a.D[1], atol=1e-12)
    rz = lth.Realizer(pb)
    pb.close()  # closes the Realizer first
    with pytest.raises(lth.UsageError, match="closed"):
        rz.at(1.0)


# ---------------------------------------------------------------- inputs and refusals

IO = """problem equations
variables x1 x2 v1 v2 lam
inputs u1 u2
interval 0 3
grid 4
param m = 2, k = 3
c(t) = 1 + 0.5*sin(t)
outputs y1 = x1 - 0.5*x2, tension = c(t)*lam + 2*u1
x1' = v1
x2' = v2
m*v1' = -k*x1 + cos(t)*lam + c(t)*u1
m*v2' = -k*x2 + sin(t)*lam
0 = cos(t)*x1 + sin(t)*x2 - 1 + u2
"""


def test_basis_start_is_a_constant_rotation():
    """Q Rt is a minimal-rotation basis for every constant orthogonal Rt, so
    the bases that start at t0 = 0 and t0 = 2 differ by one rotation
    Rt = Q_a^T Q_b, the same at every time, and A_b = Rt^T A_a Rt."""
    pb = lth.parse(IO)
    ts = [0.5, 1.5, 2.5]
    a = lth.ss(pb, ts)
    b = lth.ss(pb, ts, t0=2.0)
    assert a.t0 == 0.0 and b.t0 == 2.0
    Rt = a.Q[0].T @ b.Q[0]
    np.testing.assert_allclose(Rt.T @ Rt, np.eye(a.p), atol=1e-9)
    assert np.abs(Rt - np.eye(a.p)).max() > 0.1  # two different bases
    for k in range(len(ts)):
        np.testing.assert_allclose(a.Q[k] @ Rt, b.Q[k], atol=1e-9)
        np.testing.assert_allclose(Rt.T @ a.A[k] @ Rt, b.A[k], atol=1e-8)
        np.testing.assert_allclose(b.C[k], a.C[k] @ Rt, atol=1e-8)


def test_signals_do_not_matter():
    """Free inputs are fine, and signals change nothing: the realization is
    of the plant; g and y_f come from f alone.  The problem's inputs stay
    as they were."""
    free = lth.parse(IO)
    given = lth.parse(IO + "u1(t) = sin(3*t)\nu2(t) = 0.1*t^2\n")
    a = lth.ss(free, grid=7)
    b = lth.ss(given, grid=7)
    assert free.free_inputs == ["u1", "u2"] and given.free_inputs == []
    for name in ("A", "B", "C", "D", "g", "y_f", "Z", "Dz", "z_f", "Q", "K"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert np.abs(a.y_f).max() > 0.1  # f = -1 in the constraint reaches y


def test_refusals(crane):
    with pytest.raises(lth.InvalidArgumentError, match="no inputs"):
        lth.ss(data("slope.lth"))
    with pytest.raises(lth.UsageError, match="outside the interval"):
        lth.ss(crane, [5.0])
    with pytest.raises(lth.UsageError, match="t0"):
        lth.ss(crane, [1.0], t0=-1.0)
    with pytest.raises(lth.UsageError, match="rtol"):
        lth.ss(crane, [1.0], rtol=0.5)
    nout = lth.parse(CRANE.replace("outputs sway = x - X, tension = -L(t)*mu - lam0(t)*dL\n", ""))
    r = lth.ss(nout, [1.0])
    assert r.C.shape == (1, 0, 4) and r.outputs == []
    with pytest.raises(lth.UsageError, match="no outputs"):
        r.transfer(1j)
    assert r.transfer(1j, unknowns=True).shape == (7, 2)


def test_singular_pi_names_t():
    """Pi = cos(t)/m vanishes at t = pi/2: the realization there is refused,
    naming t."""
    text = IO.replace("0 = cos(t)*x1 + sin(t)*x2 - 1 + u2", "0 = cos(t)*x1 - 1 + u2")
    pb = lth.parse(text)
    assert lth.ss(pb, [1.0]).p == 2
    with pytest.raises(lth.NumericalError) as e:
        lth.ss(pb, [1.0, np.pi / 2])
    assert e.value.t is not None and abs(e.value.t - np.pi / 2) < 1e-6, str(e.value)


def test_index1_unknowns_with_inputs():
    """data/circuit_io.lth: the source current iV is an index-1 unknown that
    the input uV fixes (D_z,0 holds -K^{-1} B_K).  The solution of lth.solve
    at each time is Z x + sum_j D_z,j u^(j) + z_f for some x, every unknown
    included, to 1e-12."""
    pb = lth.load(data("circuit_io.lth"))
    ts = [0.7, 1.9, 3.1]
    sol = lth.solve(pb, times=ts, rtol=1e-12, atol=1e-14)
    r = lth.ss(pb, ts)
    for k, t in enumerate(ts):
        u = [[np.sin(t), 0.2 * np.cos(2 * t)], [np.cos(t), -0.4 * np.sin(2 * t)]]
        rhs = sol.z[k] - r.z_f[k] - sum(r.Dz[k, j] @ u[j] for j in range(r.Dz.shape[1]))
        x = np.linalg.lstsq(r.Z[k], rhs, rcond=None)[0]
        res = np.abs(r.Z[k] @ x - rhs).max()
        assert res <= 1e-12, "t = %g: residual %.3e (%s)" % (t, res, r.unknowns)
    assert r.Dz.shape[1] == 2  # uI in the index-2 constraint: D_z,1
    iv = r.unknowns.index("iV")
    np.testing.assert_allclose(r.Dz[:, 0, iv, 0], 1 / (2 + np.sin(ts)), rtol=1e-14)
