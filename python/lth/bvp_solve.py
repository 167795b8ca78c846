# SPDX-License-Identifier: GPL-3.0-or-later
"""Boundary-value problems: the computation of lth-bvp (shooting, multiple
shooting, finite differences, collocation), with its defaults and library
calls, so the numbers equal the tool's JSON bit for bit.
"""

import ctypes
import math

import numpy as np

from . import _lib, errors, oppath, sampling
from ._layout import DEFAULT_ATOL, DEFAULT_COLLOC_TOL, DEFAULT_COND_MAX, DEFAULT_RTOL
from ._lib import LIB, S
from .problem import (Index1Values, as_problem, floats, number, outputs, require_signals,
                      select_times)
from .results import BVPSolution
from .solvers import _finite_rows, _ivp_opts, _Owned

_ref = ctypes.byref


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
    beta = floats(beta, "bc beta", ndim=1).reshape(-1)
    rows = beta.size
    out = []
    for name, B in (("B0", B0), ("B1", B1)):
        B = floats(B, "bc " + name)
        if B.shape != (rows, pb.nvars):
            raise errors.UsageError("bc %s must be %d x %d (rows of beta x %s), not %s"
                                    % (name, rows, pb.nvars,
                                       "s" if pb.nvars == pb.s else "unknowns, with the index-1 "
                                       "ones", "x".join(map(str, B.shape))))
        out.append(B)
    for a in out + [beta]:
        if not np.all(np.isfinite(a)):
            raise errors.UsageError("bc holds a non-finite value")
    return out[0], out[1], beta


def _fold_index1(pb, B0, B1, beta):
    """B0, B1 (columns: every unknown, the chain order) on z alone: the
    columns of the index-1 unknowns y = Y(t) z + y0(t) at t0 and t1 join z's
    and y0 moves to beta, in the order of operations of the data-file reader
    (lth_pp_fold_index1), so a bc given here equals the same bc in a file."""
    s, ny = pb.s, pb.nvars - pb.s
    B = [np.array(B0[:, :s]), np.array(B1[:, :s])]
    beta = np.array(beta)
    if ny == 0:
        return B[0], B[1], beta
    with Index1Values(pb) as w:
        for e, (t, Bfull) in enumerate(zip(pb.interval, (B0, B1))):
            if not np.any(Bfull[:, s:]):
                continue
            Y, y0 = w.map(t)
            for i in range(len(beta)):
                for j in range(ny):
                    b = float(Bfull[i, s + j])
                    if b != 0.0:
                        for k in range(s):
                            B[e][i, k] += b * Y[j, k]
                    beta[i] -= b * y0[j]
    return B[0], B[1], beta


def _csc(B, keep):
    """The rows x s matrix B as an lth_bvp_csc (the arrays kept alive in
    `keep`): its nonzeros column by column, rows ascending."""
    rows, s = B.shape
    cols, rws = np.nonzero(B.T)  # B.T's C order: B's columns, then rows
    colptr = np.zeros(s + 1, dtype=np.intc)
    np.cumsum(np.bincount(cols, minlength=s), out=colptr[1:])
    rowind = np.ascontiguousarray(rws, dtype=np.intc)
    val = np.ascontiguousarray(B[rws, cols], dtype=float)
    keep += [colptr, rowind, val]
    c = S["lth_bvp_csc"]()
    c.colptr, c.rowind, c.val = colptr.ctypes.data, rowind.ctypes.data, val.ctypes.data
    return c


def _sparse_bc(rows, cB0, cB1, cbeta, keep):
    """Dense bc (chain order) as an lth_bvp_sparse_bc; its arrays kept in `keep`."""
    keep.append(cbeta)
    bc = S["lth_bvp_sparse_bc"]()
    bc.rows = rows
    bc.B0, bc.B1 = _csc(cB0, keep), _csc(cB1, keep)
    bc.beta = cbeta.ctypes.data if len(cbeta) else None
    return bc


def _solve_op(pb, chosen, bc, ts, o, h, err):
    """lth-bvp's operator path: the data's jumps that need an impulse first
    (the operator form has no enclosures), then lth_bvp_solve_op with the
    bc as sparse columns."""
    t0, t1 = pb.interval
    _lib.check(LIB.lth_bvp_check_data(pb._system(), t0, t1, _ref(err)), err)
    return LIB.lth_bvp_solve_op(chosen.sys, t0, t1, _ref(bc), ts.ctypes.data, len(ts), _ref(o),
                                _ref(h.ptr), _ref(err))


def bvp(problem, times=None, *, grid=None, method="collocation", bc=None, intervals=None,
        points=None, order_check=True, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL, cond_max=DEFAULT_COND_MAX,
        tol=None, stages=None, max_intervals=None, path="auto"):
    """The boundary-value problem B0 z(t0) + B1 z(t1) = beta (the problem's bc
    statements, or ``bc=(B0, B1, beta)`` with the columns of B0 and B1 in the
    order of ``problem.variables``, as the data file's bc lines), reported at
    `times`, as ``lth-bvp``; ``z``'s columns are in that order too.  Columns
    of index-1 unknowns (docs/equations.md section 10) are folded into z's
    with y = -K^{-1}(L z + f) at t0 and t1, as the data-file reader does.

    ``method``: "collocation" (the default, as the tool: ``tol``, ``stages``,
    ``max_intervals``), "shooting" (single), "multiple" (``intervals``: 0 =
    automatic) or "fd" (finite differences: ``points``, ``order_check``).
    With p = 0 (no free constants) no conditions are needed.  A shooting matrix that is
    singular or too ill-conditioned is :class:`lth.NotUniqueError`; bad bc rows
    are :class:`lth.BoundaryConditionError`.

    ``path``: "auto" (default), "dense" or "operator", as ``lth-bvp --path``
    (:mod:`lth.oppath`).  The operator path collocates the reduced ODE with
    sparse systems (nothing s x s formed) and proves Pi nonsingular between
    its points (``pi_proven``, ``pi_proofs``, ``pi_inv_bound``,
    ``pi_proof_off``); it takes ``method="collocation"`` only, has no
    ``cond_bvp``, and its ``cond_shooting`` is the condition estimate of the
    sparse collocation matrix.  Returns a :class:`BVPSolution` (``path`` says
    which path was taken).
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
    require_signals(pb, "lth.bvp")
    from_file = bc is None
    # a file's bc as the library holds them (sparse: nothing p x s formed
    # unless the dense path needs it)
    sbc = pb._bc_sparse() if from_file else None
    arrays = None if sbc is not None else _bc_arrays(pb, bc)
    rows = sbc.rows if sbc is not None else (0 if arrays is None else len(arrays[2]))
    if pb.p == 0 and rows > 0:
        raise errors.DataError("%s: the solution manifold has dimension p = 0: the DAE alone "
                               "fixes its only solution, there is nothing for boundary "
                               "conditions to choose" % pb.name)
    if pb.p == 0:
        arrays, sbc = (np.zeros((0, pb.nvars)), np.zeros((0, pb.nvars)), np.zeros(0)), None
    if arrays is None and sbc is None:
        raise errors.DataError("%s: no boundary conditions: give bc statements (or bc=(B0, B1, "
                               "beta)) with B0, B1 of size p x s = %d x %d and beta of %d"
                               % (pb.name, pb.p, pb.s, pb.p))
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
    o.multiple.intervals = 0 if intervals is None else number(intervals, "intervals", 1, 1e6,
                                                              True)
    o.fd.points = 0 if points is None else number(points, "points", 3, 1e8, True)
    o.fd.order_check = 1 if order_check else 0
    if tol is not None:
        o.colloc.tol = number(tol, "tol", 1e-15, 1)
    if stages is not None:
        o.colloc.stages = number(stages, "stages", 1, 100, True)
    if max_intervals is not None:
        o.colloc.max_intervals = number(max_intervals, "max_intervals", 1, 1e9, True)
    t0, t1 = pb.interval
    err = _lib.new_error()
    dense_only = None if method == "collocation" else "method=%r" % method
    # the collocation reads A's blocks as sparse matrices (lth-bvp's flag): a
    # block row kept as a mass matrix's solve stays dense
    with oppath.Path(pb, path, sparse_a=True, dense_only=dense_only) as chosen, \
            _Owned(LIB.lth_bvp_result_free) as h:
        if not (chosen.op and sbc is not None):
            if arrays is None:
                arrays = pb.bc
            B0, B1, beta = arrays
            # the library's order, the index-1 unknowns' columns folded into z's
            cB0, cB1, cbeta = _fold_index1(pb, pb.to_chain(B0), pb.to_chain(B1), beta)
            cB0, cB1 = np.asfortranarray(cB0), np.asfortranarray(cB1)
            cbeta = np.ascontiguousarray(cbeta)
        keep = []  # the arrays a sparse bc made here points into
        if chosen.op:
            if sbc is None:
                sbc = _sparse_bc(rows, cB0, cB1, cbeta, keep)
            st = _solve_op(pb, chosen, sbc, ts, o, h, err)
        else:
            st = LIB.lth_bvp_solve(pb._system(), t0, t1, rows, cB0.ctypes.data, cB1.ctypes.data,
                                   cbeta.ctypes.data, ts.ctypes.data, len(ts), _ref(o),
                                   _ref(h.ptr), _ref(err))
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
        zraw = _lib.doubles(r.z, n * s).reshape(n, s).copy()  # chain order
        rtimes = _lib.doubles(r.times, n)
        with Index1Values(pb) as w:  # every unknown, in the user's order
            z = w.rows(rtimes, zraw)[0]
        _finite_rows(pb, z, rtimes, "z")
        y = outputs(pb, rtimes, zraw)
        if not (math.isfinite(r.cond_shooting) and math.isfinite(r.bc_residual)):
            raise errors.NotFiniteError("the condition estimate or the boundary residual is not "
                                        "finite")
        name = LIB.lth_bvp_method_name(r.method).decode()
        fd, col = name == "fd", name == "collocation"
        opt = (lambda x: float(x) if math.isfinite(x) else None)
        ctol = o.colloc.tol if o.colloc.tol > 0 else DEFAULT_COLLOC_TOL
        sol = BVPSolution(
            times=rtimes, z=z, cond_shooting=r.cond_shooting, method=name, p=pb.p, s=s,
            bc_residual=r.bc_residual, components=list(pb.components),
            outputs=list(pb.outputs), y=y,
            drift=None if fd else opt(r.drift), rtol=None if fd or col else o.ivp.rtol,
            atol=None if fd or col else o.ivp.atol,
            intervals=int(r.intervals) if name in ("multiple", "collocation") else None,
            tol=ctol if col else None,
            stages=(int(o.colloc.stages) if o.colloc.stages > 0 else LIB.lth_bvp_collocation_stages(ctol))
            if col else None,
            fd_points=int(r.fd_points) if fd else None,
            fd_order=opt(r.fd_order) if fd else None, fd_error=opt(r.fd_error) if fd else None,
            fd_error_layer=opt(r.fd_error_layer) if fd else None,
            cond_bvp=opt(r.cond_bvp), error_estimate=opt(r.error_estimate), path=chosen.name)
        if chosen.op:  # Pi between the points (include/lth/bvp.h)
            sol.pi_proven, sol.pi_proofs = float(r.pi_proven), int(r.pi_proofs)
            sol.pi_inv_bound = float(r.pi_inv_bound) if r.pi_proven > 0 else None
            sol.pi_proof_off = (ctypes.string_at(r.pi_proof_off).decode()
                                if r.pi_proof_off else None)
    if pb._sampled:
        sol.sampling = sampling.report(pb, ts, pb.index)

    def resolve(variant):  # lth-bvp's resolve_bvp
        with _Owned(LIB.lth_bvp_result_free) as hv:
            _lib.check(LIB.lth_bvp_solve(variant, t0, t1, rows, cB0.ctypes.data, cB1.ctypes.data,
                                         cbeta.ctypes.data, ts.ctypes.data, len(ts), _ref(o),
                                         _ref(hv.ptr), _ref(err)), err)
            rv = S["lth_bvp_result"].from_address(hv.ptr.value)
            return _lib.doubles(rv.z, rv.n * rv.s).copy()

    sol.sampling_error = sampling.solution_error(pb._system(), ts, zraw, None, resolve)
    return sol


# ---------------------------------------------------------------- lqr
