# SPDX-License-Identifier: GPL-3.0-or-later
"""Consistent initial values, initial-value problems, singular LQR: the
computations of lth-ic, lth-solve and lth-lqr (lth-bvp's: bvp_solve.py), with the same
defaults and the same library calls, so the numbers equal the tools' JSON bit
for bit.
"""

import ctypes
import math
import sys

import numpy as np

from . import _lib, errors, oppath, sampling
from ._layout import DEFAULT_ATOL, DEFAULT_COND_MAX, DEFAULT_RTOL
from ._lib import LIB, S
from .problem import (Index1Values, as_problem, number, outputs, require_signals, select_times,
                      vector)
from .results import InitialValue, LQRSolution, Solution

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

def ic(problem, at=None, guess=None, *, method="project", fix=None, cond_max=DEFAULT_COND_MAX,
       path="auto"):
    """A consistent initial value at time `at` (default t0), as ``lth-ic``.

    From `guess` (a value for every unknown, in the order of
    ``problem.variables``, as the data file's z0 and ``lth-ic --guess``;
    default: the problem's z0, else zeros) by Clark's Corollary 3
    (``method="project"``, oblique projection), the nearest consistent value
    in the 2-norm (``"nearest"``), or with prescribed components
    ``fix={component: value}`` (a component by name, e.g. "x1", or by
    0-based index in that order; the rest fitted to the guess).  The
    index-1 unknowns of an equation-form file (docs/equations.md section
    10) follow from the others, y = -K^{-1}(L z + f): the guess's values for
    them are not used, and fixing one is a :class:`lth.UsageError`.  Raises
    :class:`lth.InconsistentError` when the prescriptions conflict, and
    :class:`lth.NotFiniteError` (as the tool) when a reported number would
    not be finite.  ``path``: "auto" (default), "dense" or "operator", as
    ``lth-ic --path`` (:mod:`lth.oppath`): on the operator path z0 is
    Corollary 3's projection computed without forming anything s x s, the
    residual is ||z0 - (G z0 + q)||, and ``M0``, ``b0`` are None;
    ``method="nearest"`` and ``fix`` need the dense path.  Returns an
    :class:`InitialValue`, its vectors (z0, guess, the columns of M0) in
    the user's order too; ``path`` says which path was taken.
    """
    pb = as_problem(problem)
    require_signals(pb, "lth.ic")
    s, nvars = pb.s, pb.nvars
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
        g, source = vector(guess, nvars, "guess"), "guess"
    elif pb.z0 is not None:
        g, source = pb.z0.copy(), "the file's z0"
    else:
        g, source = np.zeros(nvars), "zeros (no guess, no z0 in the file)"
    fixed = {}  # user index -> value
    if method == "fix":
        items = fix.items() if hasattr(fix, "items") else fix
        for key, val in items:
            i = pb.component_index(key)
            if i in fixed:
                raise errors.UsageError("component %s is fixed twice" % pb.components[i])
            if pb.chain_position[i] >= s:
                raise errors.UsageError("fix: %s is an index-1 unknown, which the others fix "
                                        "(y = -K^-1 (L z + f)); fix differential unknowns "
                                        "instead" % pb.components[i])
            fixed[i] = number(val, "fixed value of %s" % pb.components[i])
    gc = np.ascontiguousarray(pb.to_chain(g)[:s])  # the library's order, z alone
    dense_only = ("method='nearest' (an orthogonal projection onto the s x s consistency "
                  "conditions)" if method == "nearest" else
                  "fix (a least-squares fit on the s x s consistency conditions)"
                  if method == "fix" else None)
    with oppath.Path(pb, path, dense_only=dense_only) as chosen:
        if chosen.op:
            return _ic_operator(pb, chosen, t, g, gc, source, cond_max)
    zc = np.zeros(s)
    err = _lib.new_error()
    idx = np.array([pb.chain_position[i] for i in fixed], dtype=np.intc)
    val = np.array(list(fixed.values()), dtype=float)

    def apply(h, out):
        if method == "nearest":
            return LIB.lth_ic_nearest(h.ptr, gc.ctypes.data, out.ctypes.data, _ref(err))
        if method == "fix":
            return LIB.lth_ic_fix(h.ptr, gc.ctypes.data, len(idx), idx.ctypes.data,
                                  val.ctypes.data, out.ctypes.data, _ref(err))
        return LIB.lth_ic_project(h.ptr, gc.ctypes.data, out.ctypes.data, _ref(err))

    def resolve(variant):  # the same method on a variant system (lth-ic's resolve_ic)
        out = np.zeros(s)
        with _Owned(LIB.lth_ic_free) as hv:
            hv.ptr.value = _lib.check_ptr(LIB.lth_ic_alloc(variant, _ref(err)), err)
            LIB.lth_ic_set_cond_max(hv.ptr, cond_max)
            _lib.check(LIB.lth_ic_setup(hv.ptr, t, _ref(err)), err)
            _lib.check(apply(hv, out), err)
        return out

    with _Owned(LIB.lth_ic_free) as h:
        h.ptr.value = _lib.check_ptr(LIB.lth_ic_alloc(pb._system(), _ref(err)), err)
        LIB.lth_ic_set_cond_max(h.ptr, cond_max)
        _lib.check(LIB.lth_ic_setup(h.ptr, t, _ref(err)), err)
        cond_chain = S["lth_point"].from_address(LIB.lth_ic_point(h.ptr)).cond_chain
        st = apply(h, zc)
        if st != 0 and not err.has_t:
            err.has_t, err.t = 1, t
        _lib.check(st, err)
        for i in range(s):
            if not math.isfinite(zc[i]):
                raise errors.NotFiniteError("the consistent value z0 is not finite: %s = %g"
                                            % (pb.full_components[pb.variable_index[i]],
                                               zc[i]), t=t)
        with Index1Values(pb) as w:  # the index-1 unknowns of z0 follow from z
            z0 = w.rows([t], zc)[0][0]
        y = outputs(pb, [t], zc.reshape(1, s), "an output y at z0")
        residual = LIB.lth_ic_residual(h.ptr, zc.ctypes.data)
        guess_residual = LIB.lth_ic_residual(h.ptr, gc.ctypes.data)
        tolerance = LIB.lth_ic_tolerance(h.ptr, zc.ctypes.data)
        guess_tolerance = LIB.lth_ic_tolerance(h.ptr, gc.ctypes.data)
        m0p, b0p = ctypes.c_void_p(), ctypes.c_void_p()
        nc = LIB.lth_ic_conditions(h.ptr, _ref(m0p), _ref(b0p))
        M0 = _lib.doubles(m0p.value, nc * s).reshape(nc, s, order="F")
        b0 = _lib.doubles(b0p.value, nc)
    if not residual <= tolerance:
        raise errors.VerifyError(
            "the computed z0 misses the consistency conditions: ||M0 z0 - b0|| = %.3e exceeds "
            "%.3e (cond_chain %.3e)" % (residual, tolerance, cond_chain), t=t)
    change = _dist2(zc, gc)  # in the chain order, as the tool sums
    # every number reported is finite, or the call fails as lth-ic does
    for what, x in (("the residual ||M0 z0 - b0||", residual),
                    ("the consistency tolerance", tolerance),
                    ("the residual of the guess ||M0 guess - b0||", guess_residual),
                    ("the tolerance of the guess", guess_tolerance),
                    ("the change ||z0 - guess||", change),
                    ("the chain condition cond_chain", cond_chain)):
        if not math.isfinite(x):
            raise errors.NotFiniteError("%s is not finite" % what, t=t)
    # the index-1 unknowns count as changed when the guess's value was not theirs
    changed = np.array([k for k in range(nvars) if abs(z0[k] - g[k]) > tolerance], dtype=int)
    M0u = np.zeros((nc, nvars))  # the conditions are on z: y follows from it
    M0u[:, pb.variable_index[:s]] = M0
    serr = sampling.solution_error(pb._system(), [t], zc.reshape(1, s), None, resolve)
    return InitialValue(t=t, z0=z0, residual=residual, method=method, guess=g,
                        guess_source=source, guess_residual=guess_residual,
                        change=change, changed=changed, tolerance=tolerance,
                        cond_chain=cond_chain, M0=M0u, b0=b0, p=pb.p, s=s,
                        index=pb.index, components=list(pb.components),
                        fixed={pb.components[i]: v for i, v in fixed.items()} or None,
                        sampling_error=serr, outputs=list(pb.outputs),
                        y=None if y is None else y[0], path="dense")


def _ic_operator(pb, chosen, t, g, gc, source, cond_max):
    """lth.ic on the operator path (lth-ic's): z0 = G guess(1:m) + q at t by
    lth_opic (include/lth/opic.h), its residual ||z0 - (G z0 + q)||."""
    s = pb.s
    zc = np.zeros(s)
    err = _lib.new_error()
    res, gres = ctypes.c_double(), ctypes.c_double()
    with _Owned(LIB.lth_opic_free) as h:
        h.ptr.value = _lib.check_ptr(LIB.lth_opic_alloc(chosen.sys, _ref(err)), err)
        LIB.lth_opic_set_cond_max(h.ptr, cond_max)
        _lib.check(LIB.lth_opic_setup(h.ptr, t, _ref(err)), err)
        cond_chain = S["lth_opinfo"].from_address(LIB.lth_opic_info(h.ptr)).cond_chain
        _lib.check(LIB.lth_opic_project(h.ptr, gc.ctypes.data, zc.ctypes.data, _ref(err)), err)
        _lib.check(LIB.lth_opic_residual(h.ptr, zc.ctypes.data, _ref(res), _ref(err)), err)
        _lib.check(LIB.lth_opic_residual(h.ptr, gc.ctypes.data, _ref(gres), _ref(err)), err)
        tolerance = LIB.lth_opic_tolerance(h.ptr, zc.ctypes.data)
        guess_tolerance = LIB.lth_opic_tolerance(h.ptr, gc.ctypes.data)
    residual, guess_residual = res.value, gres.value
    bad = np.argwhere(~np.isfinite(zc))
    if bad.size:
        i = int(bad[0][0])
        raise errors.NotFiniteError("the consistent value z0 is not finite: %s = %g"
                                    % (pb.full_components[pb.variable_index[i]], zc[i]), t=t)
    with Index1Values(pb) as w:  # the index-1 unknowns of z0 follow from z
        z0 = w.rows([t], zc)[0][0]
    y = outputs(pb, [t], zc.reshape(1, s), "an output y at z0")
    if not residual <= tolerance:
        raise errors.VerifyError(
            "the computed z0 misses the consistency conditions: ||z0 - (G z0 + q)|| = %.3e "
            "exceeds %.3e (cond_chain %.3e)" % (residual, tolerance, cond_chain), t=t)
    change = _dist2(zc, gc)
    for what, x in (("the residual ||z0 - (G z0 + q)||", residual),
                    ("the consistency tolerance", tolerance),
                    ("the residual of the guess ||guess - (G guess + q)||", guess_residual),
                    ("the tolerance of the guess", guess_tolerance),
                    ("the change ||z0 - guess||", change),
                    ("the chain condition cond_chain", cond_chain)):
        if not math.isfinite(x):
            raise errors.NotFiniteError("%s is not finite" % what, t=t)
    changed = np.array([k for k in range(pb.nvars) if abs(z0[k] - g[k]) > tolerance], dtype=int)
    return InitialValue(t=t, z0=z0, residual=residual, method="project", guess=g,
                        guess_source=source, guess_residual=guess_residual, change=change,
                        changed=changed, tolerance=tolerance, cond_chain=cond_chain, M0=None,
                        b0=None, p=pb.p, s=s, index=pb.index, components=list(pb.components),
                        fixed=None, sampling_error=None, outputs=list(pb.outputs),
                        y=None if y is None else y[0], path="operator")


_DBL_MIN = 2.2250738585072014e-308


def _dist2(x, y):
    """||x - y||_2 as the tools compute it (apps/common/app_check.c): the plain
    sum of squares in index order when it neither overflows nor underflows,
    else scaled by the largest entry, so that entries near the largest double
    give the finite distance instead of inf."""
    total = 0.0
    for a, b in zip(x, y):
        d = float(a) - float(b)
        total += d * d
    if math.isfinite(total) and (total >= _DBL_MIN or total == 0.0):
        r = math.sqrt(total)
        if total > 0.0 or _scaled_dist2(x, y) == 0.0:
            return r
    return _scaled_dist2(x, y)


def _scaled_dist2(x, y):
    scale = 0.0
    for a, b in zip(x, y):
        scale = max(scale, abs(float(a)), abs(float(b)))
    if not (scale > 0.0) or not math.isfinite(scale):
        return 0.0 if scale == 0.0 else (math.nan if math.isnan(scale) else math.inf)
    total = 0.0
    for a, b in zip(x, y):
        d = float(a) / scale - float(b) / scale  # divide first: a - b may overflow
        total += d * d
    return scale * math.sqrt(total)


# ---------------------------------------------------------------- solve

def _finite_rows(pb, z, times, what):
    """The tools refuse a non-finite result naming t and the component."""
    bad = np.argwhere(~np.isfinite(z))
    if bad.size:
        k, i = bad[0]
        raise errors.NotFiniteError("%s is not finite: %s = %g" % (what, pb.full_components[i],
                                                                     z[k, i]),
                                    t=float(times[k]))


def _index1_consistent(pb, w, t, zx):
    """The index-1 unknowns of a value given for every unknown (`zx`, the
    chain order: z, then y) are those the others fix, y = Y z + y0, to a
    relative 1e-10 of the size of what makes them, as lth-solve checks
    (app_index1_consistent); else :class:`lth.InconsistentError` naming the
    first that is not."""
    if w.ny == 0:
        return
    Y, y0 = w.map(t)
    s = pb.s
    for j in range(w.ny):
        y, size = y0[j], abs(y0[j])
        for k in range(s):
            y += Y[j, k] * zx[k]
            size += abs(Y[j, k] * zx[k])
        if not abs(zx[s + j] - y) <= 1e-10 * max(1.0, size):
            raise errors.InconsistentError(
                "z0 is not consistent: the index-1 unknown %s is %.17g, but the other unknowns "
                "fix it to %.17g (y = -K^{-1}(L z + f), docs/equations.md section 10); give "
                "that value, or project=True" % (pb.index1[j], zx[s + j], y), t=t)


def _ivp_opts(o, rtol, atol, cond_max):
    o.rtol = number(rtol, "rtol", 1e-15, 1)
    o.atol = number(atol, "atol", 1e-300, 1e300)
    o.cond_max = number(cond_max, "cond_max", 1, 1e300)


def _ivp_method(name):
    if not isinstance(name, str):
        raise errors.UsageError("method must be a string")
    k = LIB.lth_ivp_method_from_name(name.encode())
    if k < 0 or "\0" in name:
        raise errors.UsageError("unknown integrator %r: use rk8pd, rkf45, msadams, msbdf, "
                                "bsimp or cheb" % name)
    return k


def _index1_error(pb, ts, z, ezx, rtol, atol, est, tol, worst, t_worst):
    """The estimate's figures over the index-1 unknowns too, weighed as the
    library weighs z's (atol + rtol max_k |y_ik|), in the order lth-solve
    takes them (chain positions, then times as asked): the same numbers."""
    for j in range(pb.s, len(pb.variable_index)):
        col = int(pb.variable_index[j])
        w = max(atol + rtol * float(np.max(np.abs(z[:, col]))), sys.float_info.min)
        for k in range(len(ts)):
            e = abs(float(ezx[k, col]))
            est = max(est, e)
            if e / w > tol:
                tol, worst, t_worst = e / w, j, float(ts[k])
    return est, tol, worst, t_worst


def _error_estimate(r, rank, srt, pb, ezx, ts, z, rtol, atol):
    """The global error estimate of an lth_ivp_result as Solution fields
    (z_error: `ezx`, in the order of the times asked for, columns in the
    user's order like z)."""
    if not r.z_error:
        return {"error_estimate": None,
                "error_failed": _lib.python_message(r.error_failed.message.decode())}
    worst = int(r.error_worst)
    t_worst = float(srt[r.error_worst_k]) if worst >= 0 else None
    est, tol, worst, t_worst = _index1_error(pb, ts, z, ezx, rtol, atol, r.error_estimate,
                                             r.error_tol, worst, t_worst)
    return {
        "error_estimate": est, "error_tol": tol,
        "error_worst": pb.components[int(pb.variable_index[worst])] if worst >= 0 else None,
        "t_error_worst": t_worst,
        "z_error": ezx,
        "error_method": LIB.lth_ivp_method_name(r.error_method).decode(),
        "error_rtol": r.error_rtol, "error_atol": r.error_atol,
        "stats": {"error_steps": r.error_steps, "error_rhs_evals": r.error_rhs_evals,
                  "error_decomps": r.error_decomps, "error_seconds": r.error_seconds}}


def _solve_dense_only(method, stabilize):
    """What a solve asks that only the dense path does (lth-solve's), or None."""
    if method in ("rk8pd", "rkf45"):
        return "an explicit method (its methods are msbdf and msadams)"
    if method in ("bsimp", "cheb"):
        return "method=%r (its methods are msbdf and msadams)" % method
    if stabilize is not None:
        return "stabilize (it projects onto the state space instead)"
    return None


def solve(problem, z0=None, times=None, *, grid=None, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL,
          method=None, project=False, reproject=False, stabilize=None, cond_max=DEFAULT_COND_MAX,
          error_estimate=True, path="auto"):
    """The initial-value problem from `z0` (a value for every unknown, in the
    order of ``problem.variables``, as the data file's z0 and ``lth-solve
    --z0``; default: the problem's z0), reported at `times` (a list, any
    order; default: the grid), as ``lth-solve``.

    The state part is integrated through Clark's reduced ODE (``method``:
    rk8pd, rkf45, msadams, msbdf, bsimp with GSL, or cheb (Chebyshev
    collocation), on the dense path; msbdf or
    msadams with SUNDIALS CVODE on the operator path; None: "auto" on the
    dense path (cheb for a state dimension m <= 8, else rk8pd; the
    Solution's ``method`` names the one taken), msbdf on the operator path;
    ``rtol``/``atol``).  ``path``:
    "auto" (default), "dense" or "operator", as ``lth-solve --path``
    (:mod:`lth.oppath`: the operator path from s = 500 on for a sparse A;
    an explicit method or ``stabilize`` keep it dense).  An
    inconsistent z0 is :class:`lth.InconsistentError` unless ``project=True``
    (Corollary 3's projection is used instead and reported); so is a value of
    an index-1 unknown (docs/equations.md section 10) that is not the one
    the others fix, y = -K^{-1}(L z + f) (``project=True``: replaced).  ``stabilize``:
    drift damping rate (None: automatic, 0: off); ``reproject``: project the
    state at output times.  ``error_estimate``: estimate the global error of z
    by a second, more accurate solve (``lth-solve --error-estimate``;
    docs/user-guide.md section 6.6).  Constant data (every block proven
    constant by its enclosure) are not integrated when ``method`` is None: the
    exact propagator, the matrix exponential of the reduced ODE, carries the
    state from output to output (``stats["propagator"]`` is "exponential";
    where the error estimate says it missed the tolerance, and with an
    explicit ``method``, the integrator solves instead).  Returns a :class:`Solution`: ``z`` and
    ``z_error`` with columns in the user's order (named by ``components``,
    every unknown), ``v`` in the chain order (named by ``state_components``);
    ``path`` the path taken (on the operator path ``output_gain`` and
    ``gamma`` are None and ``z0_residual`` is ||z0 - (G z0 + q)||, as in
    lth-solve's JSON).
    """
    pb = as_problem(problem)
    require_signals(pb, "lth.solve")
    if z0 is not None:
        z0v = vector(z0, pb.nvars, "z0")
    elif pb.z0 is not None:
        z0v = pb.z0.copy()
    else:
        raise errors.UsageError("%s has no z0 statement and no z0 was given: compute a consistent "
                                "initial value with lth.ic() and pass its z0" % pb.name)
    ts = select_times(pb, times, grid, "times")
    if method is not None:
        _ivp_method(method)
    with oppath.Path(pb, path, integrates=True,
                     dense_only=_solve_dense_only(method, stabilize)) as chosen:
        given = method is not None  # constant data: an explicit method integrates
        method = method if method is not None else "msbdf" if chosen.op else "auto"
        return _solve(pb, z0v, ts, rtol, atol, method, project, reproject, stabilize, cond_max,
                      error_estimate, chosen, given)


def _opsolve(chosen, o, t0, z0c, srt, error_estimate, h, err):
    """lth_opsolve (include/lth/opsolve.h) with the options of `o`: its
    Krylov and projection counts."""
    oo = S["lth_opivp_opts"]()
    LIB.lth_opivp_opts_init(_ref(oo))
    oo.method = 1 if o.method == LIB.lth_ivp_method_from_name(b"msadams") else 0
    oo.rtol, oo.atol, oo.cond_max = o.rtol, o.atol, o.cond_max
    oo.project = o.project
    st = S["lth_opsolve_stats"]()
    _lib.check(LIB.lth_opsolve(chosen.sys, t0, z0c.ctypes.data, srt.ctypes.data, len(srt),
                               _ref(oo), 1 if error_estimate else 0, _ref(h.ptr), _ref(st),
                               _ref(err)), err)
    return {"jv_evals": st.jv_evals, "lin_iters": st.lin_iters, "projections": st.projections,
            "pi_proven": st.pi_proven, "pi_proofs": st.pi_proofs,
            "pi_inv_bound": st.pi_inv_bound if st.pi_proven > 0 else None,
            "pi_proof_off": (ctypes.string_at(st.pi_proof_off).decode()
                             if st.pi_proof_off else None)}


def _solve(pb, z0v, ts, rtol, atol, method, project, reproject, stabilize, cond_max,
           error_estimate, chosen, method_given=True):
    o = S["lth_ivp_opts"]()
    LIB.lth_ivp_opts_init(_ref(o))
    o.method = _ivp_method(method)
    o.propagate = 0 if method_given else -1
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
    err = _lib.new_error()
    z0x = pb.to_chain(z0v)  # the library's order: z, then the index-1 unknowns
    z0c = np.ascontiguousarray(z0x[:pb.s])
    with Index1Values(pb) as w, _Owned(LIB.lth_ivp_result_free) as h:
        if not project:
            _index1_consistent(pb, w, t0, z0x)
        opstats = {}
        if chosen.op:
            opstats = _opsolve(chosen, o, t0, z0c, srt, error_estimate, h, err)
        else:
            _lib.check(LIB.lth_ivp_solve(pb._system(), t0, z0c.ctypes.data, srt.ctypes.data,
                                         len(srt), _ref(o), _ref(h.ptr), _ref(err)), err)
        r = S["lth_ivp_result"].from_address(h.ptr.value)
        n, s, m = r.n, r.s, r.m
        zraw = _lib.doubles(r.z, n * s).reshape(n, s).copy()  # sorted times, chain order
        vraw = _lib.doubles(r.v, n * m).reshape(n, m).copy()
        ezraw = _lib.doubles(r.z_error, n * s).reshape(n, s) if r.z_error else None
        # every unknown: z and the index-1 ones, in the user's order (the tools' app_outputs)
        z, ezx = w.rows(ts, zraw[rank], None if ezraw is None else ezraw[rank])
        v = vraw[rank]
        _finite_rows(pb, z, ts, "z")
        y = outputs(pb, ts, zraw[rank])
        if not (math.isfinite(r.drift) and math.isfinite(r.drift_rel)):
            raise errors.NotFiniteError("the drift is not finite")
        est = _error_estimate(r, rank, srt, pb, ezx, ts, z, o.rtol, o.atol) if error_estimate \
            else {}
        nan_none = (lambda x: None if math.isnan(x) else x)  # null in the tools' JSON
        sol = Solution(
            times=ts, z=z, v=v, drift=r.drift, drift_rel=r.drift_rel,
            output_gain=nan_none(r.output_gain),
            projected=bool(r.projected), z0_used=w.rows([t0], _lib.doubles(r.z0_used, s))[0][0],
            z0_given=z0v, z0_residual=r.z0_residual, z0_change=r.z0_change,
            z0_worst=int(pb.variable_index[r.z0_worst]) if r.z0_worst >= 0 else None, t0=t0,
            components=list(pb.components), state_components=list(pb.state_components),
            method=method if chosen.op else LIB.lth_ivp_method_name(r.method).decode(),
            rtol=o.rtol, atol=o.atol,
            outputs=list(pb.outputs), y=y,
            reprojected=bool(reproject), gamma=nan_none(r.gamma),
            stats={"steps": r.steps, "rhs_evals": r.rhs_evals, "decomps": r.decomps,
                   "seconds": r.seconds_total, "seconds_decomp": r.seconds_decomp,
                   "gamma": nan_none(r.gamma),
                   "propagator": "exponential" if r.propagated else "integrator",
                   **opstats, **est.pop("stats", {})},
            path=chosen.name, **est)
    if pb._sampled:
        sol.sampling = sampling.report(pb, pb.grid, pb.index)

    def resolve(variant):  # lth-solve's resolve_ivp: z0 projected onto the variant's manifold
        ov = S["lth_ivp_opts"].from_buffer_copy(o)
        ov.project = 1
        with _Owned(LIB.lth_ivp_result_free) as hv:
            _lib.check(LIB.lth_ivp_solve(variant, t0, z0c.ctypes.data, srt.ctypes.data, len(srt),
                                         _ref(ov), _ref(hv.ptr), _ref(err)), err)
            rv = S["lth_ivp_result"].from_address(hv.ptr.value)
            return _lib.doubles(rv.z, rv.n * rv.s).copy()

    sol.sampling_error = sampling.solution_error(pb._system(), srt, zraw, vraw, resolve)
    return sol


# ---------------------------------------------------------------- bvp

_LQR_OP_TAIL = "; path='dense' analyses it (impulses, non-uniqueness)"


def _lqr_solve(pb, chosen, ts, o, h, err):
    """lth_lqr_solve, or lth_lqr_solve_op on the operator path, whose
    refusals of a problem without a smooth unique optimum say where the
    analysis is (lth-lqr's compute_op)."""
    if not chosen.op:
        return LIB.lth_lqr_solve(pb._lqr, ts.ctypes.data, len(ts), _ref(o), _ref(h.ptr), _ref(err))
    st = LIB.lth_lqr_solve_op(pb._lqr, ts.ctypes.data, len(ts), _ref(o), _ref(h.ptr), _ref(err))
    if st in (errors.STATUS_VALUE["LTH_ENOSOL"], errors.STATUS_VALUE["LTH_ENOTUNIQUE"]):
        room = type(err).message.size - 1
        err.message = (bytes(err.message) + _LQR_OP_TAIL.encode())[:room]
    return st


def lqr(problem, times=None, *, grid=None, rtol=DEFAULT_RTOL, cond_max=DEFAULT_COND_MAX, gain=False,
        method="collocation", path="auto"):
    """The totally singular LQR problem of a ``problem lqr`` file or an
    :class:`lth.LQRModel` (Clark's section 4.2), reported at `times`, as
    ``lth-lqr``: the optimum (x, lambda, u), its cost, whether it exists and is
    unique, and with ``gain=True`` the closed-loop gain.  Returns an
    :class:`LQRSolution`.  On an equation-form plant with ``cost`` statements
    (docs/control.md section 10) it solves that LQR problem (R > 0) as
    ``lth-lqr`` does and returns a :class:`lth.control.PlantLQRSolution`;
    the other options are then not used.

    ``path``: "auto" (default), "dense" or "operator", as ``lth-lqr --path``
    (:mod:`lth.oppath`).  The operator path (a large sparse plant: A, B, H,
    C as mm() files) solves the optimality BVP by sparse collocation and
    returns the smooth unique optimum with ``error_estimate``, ``intervals``
    and the proof of Pi between the points (``pi_proven`` ...), or raises
    :class:`lth.NoSolutionError` / :class:`lth.NotUniqueError` where the
    dense path's analysis (impulses, non-uniqueness) is needed; it gives no
    ``gain``, ``cond_W`` or ``theorem4`` (None), so ``gain=True`` and
    ``method="shooting"`` keep auto on the dense path.
    """
    pb = as_problem(problem)
    if (pb.kind != "lqr" or pb._lqr is None) and getattr(pb, "_handle", None) and \
            LIB.lth_problem_cost(pb._handle):
        from .control import plant_lqr  # a plant with `cost` statements (docs/control.md)
        return plant_lqr(pb, select_times(pb, times, grid, "times"))
    if pb.kind != "lqr" or pb._lqr is None:
        raise errors.DataError("%s: not a `problem lqr` file, nor a plant with `cost` "
                               "statements: lqr() needs `problem lqr` with `sizes`, A, B, H, C "
                               "and x0, or an equation-form plant with inputs and `cost "
                               "integral ...` (docs/control.md section 10)" % pb.name)
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
    dense_only = "gain=True" if gain else ("method='shooting'" if method == "shooting" else None)
    with oppath.Path(pb, path, dense_only=dense_only) as chosen, \
            _Owned(LIB.lth_lqr_result_free) as h:
        _lib.check(_lqr_solve(pb, chosen, ts, o, h, err), err)
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
        vals = [r.residual, r.drift] + ([] if chosen.op else [r.theorem4])
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
        verdict = (bool(r.exists), bool(r.unique), have)
        sol = LQRSolution(
            times=ts, x=x, lam=lam, u=u, cost=float(r.cost) if have else None,
            exists=bool(r.exists), unique=bool(r.unique), have_trajectory=have,
            x0=pb.x0.copy(), x0_consistent=_lib.doubles(r.x0_consistent, nx), jump=jump,
            jump_in_range_B=bool(r.jump_in_range_B) or not initial_impulse,
            terminal_impulse=bool(r.terminal_impulse),
            terminal_jump=_lib.doubles(r.terminal_jump, nx), residual=r.residual,
            cond_W=float(r.cond_W) if math.isfinite(r.cond_W) else None,
            theorem4=None if chosen.op else r.theorem4,
            drift=r.drift, nx=nx, nu=nu, p=r.p, gain=G, path=chosen.name)
        if chosen.op:  # the collocation's estimate and Pi between the points
            sol.error_estimate, sol.intervals = float(r.error_estimate), int(r.intervals)
            sol.pi_proven, sol.pi_proofs = float(r.pi_proven), int(r.pi_proofs)
            sol.pi_inv_bound = float(r.pi_inv_bound) if r.pi_proven > 0 else None
            sol.pi_proof_off = (ctypes.string_at(r.pi_proof_off).decode()
                                if r.pi_proof_off else None)
    sol.sampling_error, sol.sampling_error_cost = _lqr_sampling_error(pb, ts, o, sol, verdict)
    return sol


def _maxdiff(a, b):
    return float(np.fmax.reduce(np.abs(np.asarray(a) - np.asarray(b)).ravel(), initial=0.0))


def _lqr_sampling_error(pb, ts, o, sol, verdict):
    """lth-lqr's sampling error: solve again with each sampled A, B or H on
    its alternative fits and add the differences of (x, lambda, u) and of the
    cost; a verdict (exists, unique) that changes is an error, as in the
    tool.  (None, None) without sampled blocks."""
    spec = pb._lqr.contents
    serr = scost = None
    err = _lib.new_error()
    for name in ("A", "B", "H"):
        src = getattr(spec, name)
        if not src or not LIB.lth_source_is_samples(src):
            continue
        var = _lib.check_ptr(LIB.lth_source_sampling_variant(src, _ref(err)), err)
        try:
            vs = S["lth_lqr_spec"].from_buffer_copy(spec)
            setattr(vs, name, var)
            with _Owned(LIB.lth_lqr_result_free) as h:
                _lib.check(LIB.lth_lqr_solve(_ref(vs), ts.ctypes.data, len(ts), _ref(o),
                                             _ref(h.ptr), _ref(err)), err)
                r = S["lth_lqr_result"].from_address(h.ptr.value)
                if (bool(r.exists), bool(r.unique), bool(r.have_trajectory)) != verdict:
                    raise errors.from_status(errors.STATUS_VALUE["LTH_ECOND"],
                        "the samples' error decides the answer: with the sampled %s moved by "
                        "its error estimate the optimum %s, %s (here: %s, %s); refine the "
                        "samples" % (name, "exists" if r.exists else "does not exist",
                                     "unique" if r.unique else "not unique",
                                     "exists" if verdict[0] else "does not exist",
                                     "unique" if verdict[1] else "not unique"))
                n = r.n if verdict[2] else 0
                nx, nu = r.nx, r.nu
                d = max(_maxdiff(sol.x, _lib.doubles(r.x, n * nx).reshape(n, nx)),
                        max(_maxdiff(sol.lam, _lib.doubles(getattr(r, "lambda"), n * nx)
                                     .reshape(n, nx)),
                            _maxdiff(sol.u, _lib.doubles(r.u, n * nu).reshape(n, nu))))
                serr = (serr if serr is not None else 0.0) + d
                dc = (abs(sol.cost - r.cost) if sol.cost is not None and math.isfinite(sol.cost)
                      and math.isfinite(r.cost) else 0.0)
                scost = (scost if scost is not None else 0.0) + dc
        finally:
            LIB.lth_source_free(var)
    return serr, scost
