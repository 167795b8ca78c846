# SPDX-License-Identifier: GPL-3.0-or-later
"""Control design on DAE plants: LQR with a cost written in the data file
(docs/control.md section 10; include/lth/plqr.h) and the Kalman-Bucy filter
(section 11; include/lth/kalman.h)."""

import ctypes
from dataclasses import dataclass

import numpy as np

from . import _lib, errors
from ._lib import LIB, S
from .problem import Index1Values, as_problem, select_times


@dataclass
class KalmanResult:
    """The filter at ``times``: ``Sigma[k]`` the error covariance of the
    realization's state x (p x p, the basis of :func:`lth.ss`), ``L[k]`` the
    gain (p x ny: x^' = A x^ + B_u u + g + L (y_m - C x^ - D_u u - y_f)),
    ``Sigma_z[k]`` the error covariance of the estimate of every unknown
    (nvars x nvars, the user's order, index-1 unknowns included),
    ``variables``, ``outputs`` and ``noise`` the names."""
    times: np.ndarray
    Sigma: np.ndarray
    L: np.ndarray
    Sigma_z: np.ndarray
    variables: list
    outputs: list
    noise: list


def _name_inputs(e, pb):
    """The library names an input by its number ("the input 2 ...", "the
    noise input 2 ..."): give it its name in the error's texts."""
    import re

    def repl(m):
        k = int(m.group(2))
        name = pb.inputs[k - 1] if 1 <= k <= len(pb.inputs) else m.group(2)
        return m.group(1) + name + " "
    for attr in ("message", "formatted"):
        text = getattr(e, attr, None)
        if isinstance(text, str):
            setattr(e, attr, re.sub(r"(\binput )(\d+) ", repl, text))
    e.args = tuple(re.sub(r"(\binput )(\d+) ", repl, a) if isinstance(a, str) else a
                   for a in e.args)
    return e


def _matrix(value, n, what):
    a = np.array(value, dtype=float)
    if a.ndim == 0:
        a = a * np.eye(n)
    if a.shape != (n, n) or not np.isfinite(a).all():
        raise errors.UsageError("%s must be a number or a %d x %d matrix of finite numbers"
                                % (what, n, n))
    return np.asfortranarray(0.5 * (a + a.T))


_SOURCE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_double, ctypes.c_int,
                              ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_size_t)


class _Intensity:
    """W or V as a library source: a constant, or a function of t (values
    only: the filter reads no derivative of them)."""

    def __init__(self, value, n, what):
        self.n, self.what, self.error, self.cfn = n, what, None, None
        self.fn = value if callable(value) else None
        self.const = None if self.fn else _matrix(value, n, what)

    def _fill(self, _ctx, t, order, coef, ld, _stride):
        try:
            if order > 0:
                raise errors.UsageError("%s(t) given as a function has values only" % self.what)
            m = _matrix(self.fn(t), self.n, "%s(%g)" % (self.what, t))
        except Exception as e:  # reported by kalman() after the library returns
            self.error = self.error or e
            return 1
        for j in range(self.n):
            for i in range(self.n):
                coef[i + j * ld] = m[i, j]
        return 0

    def source(self, err):
        n = self.n
        if self.fn is None:
            return ctypes.c_void_p(_lib.check_ptr(LIB.lth_source_const(
                n, n, self.const.ctypes.data, n, ctypes.byref(err)), err))
        self.cfn = _SOURCE_FN(self._fill)
        return ctypes.c_void_p(_lib.check_ptr(LIB.lth_source_callback(
            n, n, ctypes.cast(self.cfn, ctypes.c_void_p), None, ctypes.byref(err)), err))


def kalman(problem, noise, V, W=1.0, Sigma0=None, times=None, *, grid=None):
    """The Kalman-Bucy filter of a plant with inputs and outputs: the inputs
    named in `noise` are white process noise of intensity `W` (a number: W
    times the identity), the outputs are measured with white noise of
    intensity `V` (W and V may also be functions of t returning a number or
    a matrix), and `Sigma0` (nvars x nvars, the user's order; default 0)
    is the covariance of the unknowns at t0 (its state part counts).  At
    `times` (default: the problem's grid) or `grid` uniform points; returns a
    :class:`KalmanResult`.  Refusals as the library's: V not positive
    definite (naming t), an input the plant differentiates."""
    pb = as_problem(problem)
    if not pb.inputs or not pb.outputs:
        raise errors.InvalidArgumentError("%s: a Kalman filter needs inputs (the noise) and "
                                          "outputs (the measurements)" % pb.name)
    names = [noise] if isinstance(noise, str) else list(noise)
    idx = []
    for name in names:
        if name not in pb.inputs:
            raise errors.UsageError("%s is not an input of %s (inputs: %s)"
                                    % (name, pb.name, ", ".join(pb.inputs)))
        idx.append(pb.inputs.index(name))
    ny, nw, s = len(pb.outputs), len(idx), pb.s
    Vm = _Intensity(V, ny, "V")
    Wm = _Intensity(W, nw, "W")
    if Sigma0 is None:
        S0 = np.zeros((s, s))
    else:
        S0 = np.array(Sigma0, dtype=float)
        if S0.shape != (pb.nvars, pb.nvars):
            raise errors.UsageError("Sigma0 must be %d x %d (every unknown, the user's order)"
                                    % (pb.nvars, pb.nvars))
        S0 = pb.to_chain(pb.to_chain(S0, 0), 1)[:s, :s]
    S0 = np.asfortranarray(S0)
    ts = np.ascontiguousarray(select_times(pb, times, grid, "times"), dtype=float)
    lo, hi = pb.interval
    err = _lib.new_error()
    noise_arr = (ctypes.c_int * nw)(*idx)
    srcW = srcV = None
    res = ctypes.c_void_p()
    try:
        srcW = Wm.source(err)
        srcV = Vm.source(err)
        spec = S["lth_kalman_spec"]()
        spec.nw = nw
        spec.noise = ctypes.cast(noise_arr, ctypes.c_void_p).value
        spec.W = srcW.value
        spec.V = srcV.value
        spec.Sigma0_z = S0.ctypes.data
        try:
            _lib.check(LIB.lth_kalman_solve(pb._system(), ctypes.byref(spec), float(lo),
                                            float(hi), ts.ctypes.data, len(ts), None,
                                            ctypes.byref(res), ctypes.byref(err)), err)
        except errors.Error as e:
            inner = Wm.error or Vm.error
            if inner is not None:
                raise inner from e
            raise _name_inputs(e, pb)
        r = S["lth_kalman_result"].from_address(res.value)
        n, p = len(ts), r.p
        Sig = _lib.doubles(r.Sigma, n * p * p).reshape(n, p, p).transpose(0, 2, 1).copy()
        L = _lib.doubles(r.L, n * p * ny).reshape(n, ny, p).transpose(0, 2, 1).copy()
        Sz = _lib.doubles(r.Sigma_z, n * s * s).reshape(n, s, s).transpose(0, 2, 1).copy()
    finally:
        if res.value:
            LIB.lth_kalman_result_free(res)
        for src in (srcW, srcV):
            if src is not None and src.value:
                LIB.lth_source_free(src)
    full = np.zeros((len(ts), pb.nvars, pb.nvars))
    with Index1Values(pb) as idx1:
        for k, t in enumerate(ts):
            blk = Sz[k]
            if idx1.ny > 0:  # y = Y z + ...: the index-1 unknowns' covariance follows
                Y = idx1.maps(t)[0]
                blk = np.block([[Sz[k], Sz[k] @ Y.T], [Y @ Sz[k], Y @ Sz[k] @ Y.T]])
            full[k] = pb.to_user(pb.to_user(blk, 0), 1)
    return KalmanResult(times=ts, Sigma=Sig, L=L, Sigma_z=full, variables=list(pb.variables),
                        outputs=list(pb.outputs), noise=names)


@dataclass
class PlantLQRSolution:
    """LQR on a DAE plant (``lth-lqr`` on a file with a cost): the feedback
    u = -K z + k on every unknown (``K[k]`` nu x nvars in the order of
    ``variables``, zero on the multipliers and index-1 unknowns; ``k[k]``
    nu), the closed loop ``z`` (n, nvars), ``u`` (n, nu), ``y`` (n, ny) from
    the file's z0, the optimal ``cost`` and ``cost_closed``, the closed loop's
    cost integrated along it (equal to the tolerances), ``riccati_panels``.

    The same feedback on the realization's state (the basis of :func:`lth.ss`
    from the interval's start, as :func:`lth.kalman` uses): u = -Kx x + kx
    (``Kx[k]`` nu x p, ``kx[k]`` nu), and the closed loop's state ``x`` (n, p),
    x(t0) = Q^T (I - P) z0.  With the estimate x^ of a Kalman filter,
    u = -Kx x^ + kx is the LQG controller (docs/control.md section 12).

    A singular problem (``singular`` > 0 inputs without cost: R has a kernel,
    docs/control.md section 13) is solved open loop: ``z``, ``u``, ``y``,
    ``x`` are the optimum, ``cost_closed`` is J by quadrature along it, and
    ``K``, ``k``, ``Kx``, ``kx`` are None; ``impulse`` (nu) is the impulse of
    the inputs at t0 that jumps the state onto the singular arc (zero when
    none; z[0] is after it), ``impulse_t1`` the one at t1 that lowers the
    final cost (z[-1] at t1 is before it)."""
    times: np.ndarray
    z: np.ndarray
    u: np.ndarray
    y: np.ndarray
    K: np.ndarray
    k: np.ndarray
    x: np.ndarray
    Kx: np.ndarray
    kx: np.ndarray
    cost: float
    cost_closed: float
    variables: list
    inputs: list
    outputs: list
    riccati_panels: int
    singular: int = 0
    impulse: np.ndarray = None
    impulse_t1: np.ndarray = None


def plant_lqr(pb, ts):
    """lth.lqr on an equation-form plant with `cost` statements."""
    cost = LIB.lth_problem_cost(pb._handle)
    if pb.z0 is None:
        raise errors.DataError("%s: an LQR problem starts from the file's z0 (its state part "
                               "counts): give z0" % pb.name)
    s, nu, ny = pb.s, len(pb.inputs), len(pb.outputs)
    z0 = np.ascontiguousarray(pb.to_chain(pb.z0)[:s])
    ts = np.ascontiguousarray(ts, dtype=float)
    lo, hi = pb.interval
    err = _lib.new_error()
    res = ctypes.c_void_p()
    try:
        try:
            _lib.check(LIB.lth_plqr_solve(pb._system(), cost, float(lo), float(hi),
                                          z0.ctypes.data, ts.ctypes.data, len(ts), None,
                                          ctypes.byref(res), ctypes.byref(err)), err)
        except errors.Error as e:
            raise _name_inputs(e, pb)
        r = S["lth_plqr_result"].from_address(res.value)
        n = len(ts)
        z = _lib.doubles(r.z, n * s).reshape(n, s).copy()
        u = _lib.doubles(r.u, n * nu).reshape(n, nu).copy()
        y = _lib.doubles(r.y, n * ny).reshape(n, ny).copy() if ny else np.zeros((n, 0))
        Kz = _lib.doubles(r.Kz, n * nu * s).reshape(n, s, nu).transpose(0, 2, 1).copy()
        kz = _lib.doubles(r.kz, n * nu).reshape(n, nu).copy()
        p = r.p
        x = _lib.doubles(r.x, n * p).reshape(n, p).copy()
        Kx = _lib.doubles(r.K, n * nu * p).reshape(n, p, nu).transpose(0, 2, 1).copy()
        kx = _lib.doubles(r.k, n * nu).reshape(n, nu).copy()
        cost_v, closed, panels = float(r.cost), float(r.cost_closed), int(r.riccati_panels)
        singular, have_gain = int(r.singular), int(r.have_gain)
        impulse = _lib.doubles(r.impulse, nu).copy()
        impulse_t1 = _lib.doubles(r.impulse_t1, nu).copy()
    finally:
        if res.value:
            LIB.lth_plqr_result_free(res)
    zall = np.zeros((n, pb.nvars))
    Kall = np.zeros((n, nu, pb.nvars))
    with Index1Values(pb) as idx1:
        for q, t in enumerate(ts):
            zq = z[q]
            if idx1.ny > 0:  # y = Y z + Yu u + y0 with the closed loop's u
                Y, Yu, y0 = idx1.maps(t)
                zq = np.concatenate([zq, Y @ zq + Yu @ u[q] + y0])
            zall[q] = pb.to_user(zq)
            Kq = np.concatenate([Kz[q], np.zeros((nu, pb.nvars - s))], axis=1)
            Kall[q] = pb.to_user(Kq, axis=1)
    gains = (Kall, -kz, Kx, -kx) if have_gain else (None, None, None, None)
    return PlantLQRSolution(times=ts, z=zall, u=u, y=y, K=gains[0], k=gains[1], x=x, Kx=gains[2],
                            kx=gains[3], cost=cost_v, cost_closed=closed,
                            variables=list(pb.variables), inputs=list(pb.inputs),
                            outputs=list(pb.outputs), riccati_panels=panels, singular=singular,
                            impulse=impulse, impulse_t1=impulse_t1)
