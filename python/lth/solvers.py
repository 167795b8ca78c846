# SPDX-License-Identifier: GPL-3.0-or-later
"""Consistent initial values, initial- and boundary-value problems, singular
LQR: the computations of lth-ic, lth-solve, lth-bvp and lth-lqr, with the same
defaults and the same library calls, so the numbers equal the tools' JSON bit
for bit.
"""

import ctypes
import math

import numpy as np

from . import _lib, errors, sampling
from ._layout import DEFAULT_COND_MAX
from ._lib import LIB, S
from .problem import as_problem, number, select_times, vector
from .results import BVPSolution, InitialValue, LQRSolution, Solution

_ref = ctypes.byref


def _in_interval(pb, t, what):
    t = number(t, what)
    t0, t1 = pb.interval
    if not t0 <= t <= t1:
        raise errors.UsageError("%s: time %r lies outside the interval [%r, %r] of %s"
                                % (what, t, t0, t1, pb.name), t=t)
    return t


class _Owned:
    """A C pointer freed by `free` when the block ends."""

    def __init__(self, free):
        self.ptr = ctypes.c_void_p()
        self.free = free

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.ptr.value:
            self.free(self.ptr)
            self.ptr = ctypes.c_void_p()


# ---------------------------------------------------------------- ic

def ic(problem, at=None, guess=None, *, method="project", fix=None, cond_max=DEFAULT_COND_MAX):
    """A consistent initial value at time `at` (default t0), as ``lth-ic``.

    From `guess` (default: the problem's z0, else zeros) by Clark's
    Corollary 3 (``method="project"``, oblique projection), the nearest
    consistent value in the 2-norm (``"nearest"``), or with prescribed
    components ``fix={component: value}`` (components by 0-based index or name;
    the rest fitted to the guess).  Raises :class:`lth.InconsistentError`
    when the prescriptions conflict.  Returns an :class:`InitialValue`.
    """
    pb = as_problem(problem)
    s = pb.s
    t = pb.interval[0] if at is None else _in_interval(pb, at, "at")
    cond_max = number(cond_max, "cond_max", 1, 1e300)
    if method not in ("project", "nearest", "fix"):
        raise errors.UsageError("method must be 'project', 'nearest' or 'fix', not %r"
                                % (method,))
    if fix is not None and method == "nearest":
        raise errors.UsageError("method='nearest' and fix exclude each other")
    if fix is not None:
        method = "fix"
    if method == "fix" and not fix:
        raise errors.UsageError("method='fix' needs fix={component: value, ...}")
    if guess is not None:
        g, source = vector(guess, s, "guess"), "guess"
    elif pb.z0 is not None:
        g, source = pb.z0.copy(), "the file's z0"
    else:
        g, source = np.zeros(s), "zeros (no guess, no z0 in the file)"
    fixed = {}
    if method == "fix":
        items = fix.items() if hasattr(fix, "items") else fix
        for key, val in items:
            i = pb.component_index(key)
            if i in fixed:
                raise errors.UsageError("component %s is fixed twice" % pb.components[i])
            fixed[i] = number(val, "fixed value of %s" % pb.components[i])
    z0 = np.zeros(s)
    err = _lib.new_error()
    with _Owned(LIB.lth_ic_free) as h:
        h.ptr.value = _lib.check_ptr(LIB.lth_ic_alloc(pb._system(), _ref(err)), err)
        LIB.lth_ic_set_cond_max(h.ptr, cond_max)
        _lib.check(LIB.lth_ic_setup(h.ptr, t, _ref(err)), err)
        cond_chain = S["lth_point"].from_address(LIB.lth_ic_point(h.ptr)).cond_chain
        if method == "nearest":
            st = LIB.lth_ic_nearest(h.ptr, g.ctypes.data, z0.ctypes.data, _ref(err))
        elif method == "fix":
            idx = np.array(list(fixed), dtype=np.intc)
            val = np.array(list(fixed.values()), dtype=float)
            st = LIB.lth_ic_fix(h.ptr, g.ctypes.data, len(idx), idx.ctypes.data, val.ctypes.data,
                                z0.ctypes.data, _ref(err))
        else:
            st = LIB.lth_ic_project(h.ptr, g.ctypes.data, z0.ctypes.data, _ref(err))
        if st != 0 and not err.has_t:
            err.has_t, err.t = 1, t
        _lib.check(st, err)
        residual = LIB.lth_ic_residual(h.ptr, z0.ctypes.data)
        guess_residual = LIB.lth_ic_residual(h.ptr, g.ctypes.data)
        tolerance = LIB.lth_ic_tolerance(h.ptr, z0.ctypes.data)
        m0p, b0p = ctypes.c_void_p(), ctypes.c_void_p()
        nc = LIB.lth_ic_conditions(h.ptr, _ref(m0p), _ref(b0p))
        M0 = _lib.doubles(m0p.value, nc * s).reshape(nc, s, order="F")
        b0 = _lib.doubles(b0p.value, nc)
    for i in range(s):
        if not math.isfinite(z0[i]):
            raise errors.NotFiniteError("z0[%d] is not finite" % (i + 1), t=t)
    if not residual <= tolerance:
        raise errors.VerifyError(
            "the computed z0 misses the consistency conditions: ||M0 z0 - b0|| = %.3e exceeds "
            "%.3e (cond_chain %.3e)" % (residual, tolerance, cond_chain), t=t)
    d = z0 - g
    change = 0.0
    for x in d:  # the tool's summation order
        change += x * x
    changed = np.array([i for i in range(s) if abs(d[i]) > tolerance], dtype=int)
    return InitialValue(t=t, z0=z0, residual=residual, method=method, guess=g,
                        guess_source=source, guess_residual=guess_residual,
                        change=math.sqrt(change), changed=changed, tolerance=tolerance,
                        cond_chain=cond_chain, M0=M0, b0=b0, p=pb.p, s=s, index=pb.index,
                        components=list(pb.components),
                        fixed={pb.components[i]: v for i, v in fixed.items()} or None)


# ---------------------------------------------------------------- solve

def _ivp_opts(o, rtol, atol, cond_max):
    o.rtol = number(rtol, "rtol", 1e-15, 1)
    o.atol = number(atol, "atol", 0, 1e300)
    o.cond_max = number(cond_max, "cond_max", 1, 1e300)


def _hermite(o, pb, t_lo, t_hi):
    """Sampled data: Hermite interpolation on the problem's grid when it covers
    [t_lo, t_hi] (as the tools do); the array must outlive the call."""
    grid = np.ascontiguousarray(pb.grid)
    if len(grid) >= 2 and grid[0] <= t_lo and grid[-1] >= t_hi:
        o.hermite_grid = grid.ctypes.data
        o.hermite_n = len(grid)
    return grid


def _ivp_method(name):
    if not isinstance(name, str):
        raise errors.UsageError("method must be a string")
    k = LIB.lth_ivp_method_from_name(name.encode())
    if k < 0 or "\0" in name:
        raise errors.UsageError("unknown integrator %r: use rk8pd, rkf45, msadams, msbdf or "
                                "bsimp" % name)
    return k


def _error_estimate(r, rank, srt, components):
    """The global error estimate of an lth_ivp_result as Solution fields
    (z_error in the order of the times asked for)."""
    if not r.z_error:
        return {"error_estimate": None, "error_failed": r.error_failed.message.decode()}
    n, s = r.n, r.s
    worst = int(r.error_worst)
    return {
        "error_estimate": r.error_estimate, "error_tol": r.error_tol,
        "error_worst": components[worst] if worst >= 0 else None,
        "t_error_worst": float(srt[r.error_worst_k]) if worst >= 0 else None,
        "z_error": _lib.doubles(r.z_error, n * s).reshape(n, s)[rank],
        "error_method": LIB.lth_ivp_method_name(r.error_method).decode(),
        "error_rtol": r.error_rtol, "error_atol": r.error_atol,
        "stats": {"error_steps": r.error_steps, "error_rhs_evals": r.error_rhs_evals,
                  "error_decomps": r.error_decomps, "error_seconds": r.error_seconds}}


def solve(problem, z0=None, times=None, *, grid=None, rtol=1e-10, atol=1e-12, method="rk8pd",
          project=False, reproject=False, stabilize=None, cond_max=DEFAULT_COND_MAX,
          error_estimate=True):
    """The initial-value problem from `z0` (default: the problem's z0), reported
    at `times` (any order; default: the grid), as ``lth-solve``.

    The state part is integrated through Clark's reduced ODE with GSL
    (``method``: rk8pd, rkf45, msadams, msbdf, bsimp; ``rtol``/``atol``).  An
    inconsistent z0 is :class:`lth.InconsistentError` unless ``project=True``
    (Corollary 3's projection is used instead and reported).  ``stabilize``:
    drift damping rate (None: automatic, 0: off); ``reproject``: project the
    state at output times.  ``error_estimate``: estimate the global error of z
    by a second, more accurate solve (``lth-solve --error-estimate``;
    docs/user-guide.md section 6.6).  Returns a :class:`Solution`.
    """
    pb = as_problem(problem)
    if z0 is not None:
        z0v = vector(z0, pb.s, "z0")
    elif pb.z0 is not None:
        z0v = pb.z0.copy()
    else:
        raise errors.UsageError("%s has no z0 statement and no z0 was given: compute a consistent "
                                "initial value with lth.ic() and pass its z0" % pb.name)
    ts = select_times(pb, times, grid, "times")
    o = S["lth_ivp_opts"]()
    LIB.lth_ivp_opts_init(_ref(o))
    o.method = _ivp_method(method)
    _ivp_opts(o, rtol, atol, cond_max)
    o.reproject = 1 if reproject else 0
    o.project = 1 if project else 0
    o.stabilize = -1.0 if stabilize is None else number(stabilize, "stabilize", 0, 1e300)
    o.error_estimate = 1 if error_estimate else 0
    order = np.argsort(ts, kind="stable")
    srt = np.ascontiguousarray(ts[order])
    rank = np.empty(len(ts), dtype=int)
    rank[order] = np.arange(len(ts))
    t0 = pb.interval[0]
    keep = _hermite(o, pb, t0, srt[-1] if len(srt) else t0)
    err = _lib.new_error()
    with _Owned(LIB.lth_ivp_result_free) as h:
        _lib.check(LIB.lth_ivp_solve(pb._system(), t0, z0v.ctypes.data, srt.ctypes.data, len(srt),
                                     _ref(o), _ref(h.ptr), _ref(err)), err)
        del keep
        r = S["lth_ivp_result"].from_address(h.ptr.value)
        n, s, m = r.n, r.s, r.m
        z = _lib.doubles(r.z, n * s).reshape(n, s)[rank]
        v = _lib.doubles(r.v, n * m).reshape(n, m)[rank]
        for k in range(n):
            for i in range(s):
                if not math.isfinite(z[k, i]):
                    raise errors.NotFiniteError("%s is not finite" % pb.components[i],
                                                t=float(ts[k]))
        if not (math.isfinite(r.drift) and math.isfinite(r.drift_rel)):
            raise errors.NotFiniteError("the drift is not finite")
        est = _error_estimate(r, rank, srt, pb.components) if error_estimate else {}
        sol = Solution(
            times=ts, z=z, v=v, drift=r.drift, drift_rel=r.drift_rel, output_gain=r.output_gain,
            projected=bool(r.projected), z0_used=_lib.doubles(r.z0_used, s), z0_given=z0v,
            z0_residual=r.z0_residual, z0_change=r.z0_change,
            z0_worst=int(r.z0_worst) if r.z0_worst >= 0 else None, t0=t0,
            components=list(pb.components), method=method, rtol=o.rtol, atol=o.atol,
            reprojected=bool(reproject), gamma=r.gamma,
            stats={"steps": r.steps, "rhs_evals": r.rhs_evals, "decomps": r.decomps,
                   "seconds": r.seconds_total, "seconds_decomp": r.seconds_decomp,
                   "gamma": r.gamma, **est.pop("stats", {})},
            **est)
    if pb._sampled:
        sol.sampling = sampling.report(pb, pb.grid, pb.index)
    return sol


# ---------------------------------------------------------------- bvp

def _bvp_method(name):
    if not isinstance(name, str) or "\0" in name:
        raise errors.UsageError("method must be a string")
    k = LIB.lth_bvp_method_from_name(name.encode())
    if k < 0:
        raise errors.UsageError("unknown BVP method %r: use shooting, multiple, fd or collocation"
                                % name)
    return k


def _bc_arrays(pb, bc):
    if bc is None:
        if pb.bc is None:
            return None
        return pb.bc
    try:
        B0, B1, beta = bc
    except (TypeError, ValueError):
        raise errors.UsageError("bc must be (B0, B1, beta)") from None
    beta = np.array(beta, dtype=float).reshape(-1)
    rows = beta.size
    out = []
    for name, B in (("B0", B0), ("B1", B1)):
        try:
            B = np.array(B, dtype=float)
        except (TypeError, ValueError):
            raise errors.UsageError("bc %s must be a matrix of numbers" % name) from None
        if B.shape != (rows, pb.s):
            raise errors.UsageError("bc %s must be %d x %d (rows of beta x s), not %s"
                                    % (name, rows, pb.s, "x".join(map(str, B.shape))))
        out.append(B)
    for a in out + [beta]:
        if not np.all(np.isfinite(a)):
            raise errors.UsageError("bc holds a non-finite value")
    return out[0], out[1], beta


def bvp(problem, times=None, *, grid=None, method="collocation", bc=None, intervals=None,
        points=None, order_check=True, rtol=1e-10, atol=1e-12, cond_max=DEFAULT_COND_MAX,
        tol=None, stages=None, max_intervals=None):
    """The boundary-value problem B0 z(t0) + B1 z(t1) = beta (the problem's bc
    statements, or ``bc=(B0, B1, beta)``), reported at `times`, as ``lth-bvp``.

    ``method``: "collocation" (the default, as the tool: ``tol``, ``stages``,
    ``max_intervals``), "shooting" (single), "multiple" (``intervals``: 0 =
    automatic) or "fd" (finite differences: ``points``, ``order_check``).
    With p = 0 (no free constants) no conditions are needed.  A shooting matrix that is
    singular or too ill-conditioned is :class:`lth.NotUniqueError`; bad bc rows
    are :class:`lth.BoundaryConditionError`.  Returns a :class:`BVPSolution`.
    """
    pb = as_problem(problem)
    meth = _bvp_method(method)
    if intervals is not None and method != "multiple":
        raise errors.UsageError("intervals applies to method='multiple' only")
    if (points is not None or not order_check) and method != "fd":
        raise errors.UsageError("points and order_check apply to method='fd' only")
    if pb.kind == "lqr":
        raise errors.DataError("%s: a `problem lqr` file has no boundary-value problem; use "
                               "lth.lqr()" % pb.name)
    if (tol is not None or stages is not None or max_intervals is not None) and \
            method != "collocation":
        raise errors.UsageError("tol, stages and max_intervals apply to method='collocation' "
                                "only")
    from_file = bc is None
    arrays = _bc_arrays(pb, bc)
    if pb.p == 0 and arrays is not None and len(arrays[2]) > 0:
        raise errors.DataError("%s: the solution manifold has dimension p = 0: the DAE alone "
                               "fixes its only solution, there is nothing for boundary "
                               "conditions to choose" % pb.name)
    if pb.p == 0:
        arrays = (np.zeros((0, pb.s)), np.zeros((0, pb.s)), np.zeros(0))
    if arrays is None:
        raise errors.DataError("%s: no boundary conditions: give bc statements (or bc=(B0, B1, "
                               "beta)) with B0, B1 of size p x s = %d x %d and beta of %d"
                               % (pb.name, pb.p, pb.s, pb.p))
    B0, B1, beta = arrays
    rows = len(beta)
    if rows != pb.p:
        raise errors.DataError("%s: the boundary conditions have %d rows; the solution manifold "
                               "has dimension p = %d, so exactly p are needed"
                               % (pb.name, rows, pb.p))
    ts = select_times(pb, times, grid, "times")
    o = S["lth_bvp_opts"]()
    LIB.lth_bvp_opts_init(_ref(o))
    o.method = meth
    _ivp_opts(o.ivp, rtol, atol, cond_max)
    o.cond_max = o.ivp.cond_max
    o.intervals = 0 if intervals is None else number(intervals, "intervals", 1, 1e6, True)
    o.fd_points = 0 if points is None else number(points, "points", 3, 1e8, True)
    o.fd_order_check = 1 if order_check else 0
    if tol is not None:
        o.tol = number(tol, "tol", 1e-15, 1)
    if stages is not None:
        o.stages = number(stages, "stages", 1, 100, True)
    if max_intervals is not None:
        o.max_intervals = number(max_intervals, "max_intervals", 1, 1e9, True)
    t0, t1 = pb.interval
    keep = _hermite(o.ivp, pb, t0, t1)
    cB0, cB1 = (np.asfortranarray(B) for B in (B0, B1))
    cbeta = np.ascontiguousarray(beta)
    err = _lib.new_error()
    with _Owned(LIB.lth_bvp_result_free) as h:
        st = LIB.lth_bvp_solve(pb._system(), t0, t1, rows, cB0.ctypes.data, cB1.ctypes.data,
                               cbeta.ctypes.data, ts.ctypes.data, len(ts), _ref(o), _ref(h.ptr),
                               _ref(err))
        del keep
        if st == errors.STATUS_VALUE["LTH_EBC"]:
            e = _lib.exception(err, st)
            e.message = "bc statements: " + e.message if from_file else "bc: " + e.message
            if from_file:
                e.file = pb.name
            e.formatted = errors._format(e)
            e.args = (e.formatted,)
            raise e
        _lib.check(st, err)
        r = S["lth_bvp_result"].from_address(h.ptr.value)
        n, s = r.n, r.s
        z = _lib.doubles(r.z, n * s).reshape(n, s)
        rtimes = _lib.doubles(r.times, n)
        for k in range(n):
            for i in range(s):
                if not math.isfinite(z[k, i]):
                    raise errors.NotFiniteError("%s is not finite" % pb.full_components[i],
                                                t=float(rtimes[k]))
        if not (math.isfinite(r.cond_shooting) and math.isfinite(r.bc_residual)):
            raise errors.NotFiniteError("the condition estimate or the boundary residual is not "
                                        "finite")
        name = LIB.lth_bvp_method_name(r.method).decode()
        fd, col = name == "fd", name == "collocation"
        opt = (lambda x: float(x) if math.isfinite(x) else None)
        ctol = o.tol if o.tol > 0 else 1e-8
        sol = BVPSolution(
            times=rtimes, z=z, cond_shooting=r.cond_shooting, method=name, p=pb.p, s=s,
            bc_residual=r.bc_residual, components=list(pb.components),
            drift=None if fd else opt(r.drift), rtol=None if fd or col else o.ivp.rtol,
            atol=None if fd or col else o.ivp.atol,
            intervals=int(r.intervals) if name in ("multiple", "collocation") else None,
            tol=ctol if col else None,
            stages=(int(o.stages) if o.stages > 0 else LIB.lth_bvp_collocation_stages(ctol))
            if col else None,
            fd_points=int(r.fd_points) if fd else None,
            fd_order=opt(r.fd_order) if fd else None, fd_error=opt(r.fd_error) if fd else None,
            fd_error_layer=opt(r.fd_error_layer) if fd else None,
            cond_bvp=opt(r.cond_bvp), error_estimate=opt(r.error_estimate))
    if pb._sampled:
        sol.sampling = sampling.report(pb, ts, pb.index)
    return sol


# ---------------------------------------------------------------- lqr

def lqr(problem, times=None, *, grid=None, rtol=1e-10, cond_max=DEFAULT_COND_MAX, gain=False,
        method="collocation"):
    """The totally singular LQR problem of a ``problem lqr`` file or an
    :class:`lth.LQRModel` (Clark's section 4.2), reported at `times`, as
    ``lth-lqr``: the optimum (x, lambda, u), its cost, whether it exists and is
    unique, and with ``gain=True`` the closed-loop gain.  Returns an
    :class:`LQRSolution`.
    """
    pb = as_problem(problem)
    if pb.kind != "lqr" or pb._lqr is None:
        raise errors.DataError("%s: not a `problem lqr` file (it is a DAE problem): lqr() needs "
                               "`problem lqr` with `sizes`, A, B, H, C and x0" % pb.name)
    ts = select_times(pb, times, grid, "times")
    o = S["lth_lqr_opts"]()
    LIB.lth_lqr_opts_init(_ref(o))
    if method not in ("collocation", "shooting"):
        raise errors.UsageError("method must be 'collocation' or 'shooting', not %r" % (method,))
    o.method = 1 if method == "collocation" else 0
    o.ivp.rtol = number(rtol, "rtol", 1e-15, 1e-2)
    o.ivp.cond_max = number(cond_max, "cond_max", 1, 1e300)
    o.cond_max = o.ivp.cond_max
    err = _lib.new_error()
    with _Owned(LIB.lth_lqr_result_free) as h:
        _lib.check(LIB.lth_lqr_solve(pb._lqr, ts.ctypes.data, len(ts), _ref(o), _ref(h.ptr),
                                     _ref(err)), err)
        r = S["lth_lqr_result"].from_address(h.ptr.value)
        n, nx, nu = r.n, r.nx, r.nu
        have = bool(r.have_trajectory)
        x = _lib.doubles(r.x, n * nx).reshape(n, nx) if have else np.zeros((0, nx))
        lam = (_lib.doubles(getattr(r, "lambda"), n * nx).reshape(n, nx) if have
               else np.zeros((0, nx)))
        u = _lib.doubles(r.u, n * nu).reshape(n, nu) if have else np.zeros((0, nu))
        jump = _lib.doubles(r.jump, nx)
        G = None
        if gain:
            G = _lib.doubles(r.gain, n * nu * 2 * nx).reshape(n, 2 * nx, nu).transpose(0, 2, 1)
        vals = [r.residual, r.theorem4, r.drift]
        ok = all(map(math.isfinite, vals))
        for a in (_lib.doubles(r.x0_consistent, nx), jump, _lib.doubles(r.terminal_jump, nx)):
            ok = ok and bool(np.all(np.isfinite(a)))
        if have:
            ok = ok and all(bool(np.all(np.isfinite(a))) for a in (x, lam, u)) and \
                math.isfinite(r.cost)
        if G is not None:
            ok = ok and bool(np.all(np.isfinite(G)))
        if not ok:
            raise errors.NotFiniteError("the LQR solution is not finite")
        initial_impulse = not r.exists and math.sqrt(float(np.sum(jump * jump))) > 0.0
        return LQRSolution(
            times=ts, x=x, lam=lam, u=u, cost=float(r.cost) if have else None,
            exists=bool(r.exists), unique=bool(r.unique), have_trajectory=have,
            x0=pb.x0.copy(), x0_consistent=_lib.doubles(r.x0_consistent, nx), jump=jump,
            jump_in_range_B=bool(r.jump_in_range_B) or not initial_impulse,
            terminal_impulse=bool(r.terminal_impulse),
            terminal_jump=_lib.doubles(r.terminal_jump, nx), residual=r.residual,
            cond_W=float(r.cond_W) if math.isfinite(r.cond_W) else None, theorem4=r.theorem4,
            drift=r.drift, nx=nx, nu=nu, p=r.p, gain=G)
