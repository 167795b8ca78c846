# SPDX-License-Identifier: GPL-3.0-or-later
"""The minimal state-space realization of a plant with inputs (``lth_ss``,
include/lth/ss.h; docs/control.md).

For E z' = A(t) z + B(t) u + f(t), y = C(t) z + D(t) u, the library returns
at each time asked

    x' = A x + sum_j B_j u^(j) + g,
    y  = C x + sum_j D_j u^(j) + y_f,
    z  = Z x + sum_j Dz_j u^(j) + z_f,

with x of dimension p (the dimension of the state space): the plant's state
in an orthonormal basis Q(t) of range(I - P(t)) that does not rotate within
the space (Q^T Q' = 0).  Here the maps become NumPy arrays with the data
file's names.
"""

import ctypes
from dataclasses import dataclass, field

import numpy as np

from . import _lib, errors
from ._layout import DEFAULT_COND_MAX, DEFAULT_SS_ATOL, DEFAULT_SS_RANGE_TOL, DEFAULT_SS_RTOL
from ._lib import LIB, S
from .problem import Index1Values, as_problem, floats, number, select_times

_ref = ctypes.byref


@dataclass
class Realization:
    """The realization of a plant at the times ``times`` (N of them), as
    :func:`lth.ss` returns it.  Time is the first axis of every array.

    State equation and outputs (x has ``p`` entries):

    - ``A`` (N, p, p); ``B`` (N, nb, p, nu): ``B[k, j]`` is B_j at
      ``times[k]``, the coefficient of the j-th derivative of u; after the
      change of state (the default) nb = 1, only B_0; ``raw=True`` keeps
      the B_j of Clark's coordinates, j < nb.
    - ``C`` (N, ny, p); ``D`` (N, nd, ny, nu): ``D[k, j]`` is D_j, the
      derivative feedthrough for j >= 1 (nd - 1 is the highest order an
      input reaches: r - 1 for an input in a constraint of an index-r plant).
    - ``g`` (N, p) and ``y_f`` (N, ny): the parts of x' and y that the
      plant's forcing f (not the inputs) gives.

    How x maps back to the plant:

    - ``Z`` (N, nvars, p), ``Dz`` (N, nd, nvars, nu), ``z_f`` (N, nvars):
      every unknown of the file, z = Z x + sum_j Dz_j u^(j) + z_f, in the
      user's order (``unknowns``; an equation-form file's index-1 unknowns
      too).
    - ``Q`` (N, m, p): the basis of the state space of Clark's reduced
      ODE v' = Ahat v + ..., rows named by ``state_components`` (the chain
      order of :class:`lth.Decomposition`); ``K`` (N, nk, m, nu): the change
      of state, v = Q x + sum_{k=1..nk} K_k u^(k-1) (``K[:, k-1]`` is K_k;
      nk = 0 with ``raw=True``).

    Names and sizes: ``inputs``, ``outputs``, ``unknowns``, ``p``, ``m``,
    ``s``, ``raw``, ``t0`` (where the basis starts).  Checks the library
    made at every time: ``orth_err`` = ||Q^T Q - I||_F and ``range_err`` =
    ||P Q||_F / max(1, ||P||_F) of the integrated basis before it was put
    back onto the space, ``amplification`` (the decomposition's error
    amplification); ``steps`` and ``decompositions`` spent on the basis.
    """

    times: np.ndarray
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    g: np.ndarray
    y_f: np.ndarray
    Q: np.ndarray
    K: np.ndarray
    Z: np.ndarray
    Dz: np.ndarray
    z_f: np.ndarray
    p: int
    m: int
    s: int
    raw: bool
    t0: float
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    unknowns: list = field(default_factory=list)
    state_components: list = field(default_factory=list)
    orth_err: np.ndarray = None
    range_err: np.ndarray = None
    amplification: np.ndarray = None
    steps: int = 0
    decompositions: int = 0

    def __len__(self):
        return len(self.times)

    def transfer(self, s, k=0, unknowns=False):
        """The transfer function of the realization frozen at ``times[k]``,
        G(s) = C (sI - A)^-1 sum_j B_j s^j + sum_j D_j s^j, at the complex
        frequency s (a number: an (ny, nu) array; an array of them: its
        shape followed by (ny, nu)).  ``unknowns=True``: the transfer
        function to every unknown instead, Z and Dz in place of C and D
        (nvars rows, named by ``unknowns``).

        For a time-invariant plant this is the plant's transfer function
        C_p (s E - A_p)^-1 B_p + D_p, its polynomial part (the derivative
        feedthrough) included; for a time-varying one it describes the
        plant frozen at that time only.  A frequency at an eigenvalue of A
        is :class:`lth.SingularError`."""
        if unknowns:
            C, D = self.Z, self.Dz
        elif not self.outputs:
            raise errors.UsageError("transfer: the plant has no outputs (an `outputs` "
                                    "statement, docs/equations.md section 11; or "
                                    "unknowns=True)")
        else:
            C, D = self.C, self.D
        k = number(k, "k", -len(self.times), len(self.times) - 1, integer=True)
        try:
            sv = np.asarray(s, dtype=complex)
        except (TypeError, ValueError):
            raise errors.UsageError("transfer: s must be a complex number or an array of "
                                    "them, not %r" % (s,)) from None
        if not np.all(np.isfinite(sv)):
            raise errors.UsageError("transfer: s holds a value that is not finite")
        return _frequency_response(sv, self.A[k], self.B[k], C[k], D[k], float(self.times[k]))


def _frequency_response(sv, A, B, C, D, t):
    """C (sI - A)^-1 sum_j B_j s^j + sum_j D_j s^j at every s of sv."""
    p, nu, ny = A.shape[0], B.shape[2], C.shape[0]
    flat = sv.reshape(-1)
    out = np.zeros((flat.size, ny, nu), dtype=complex)
    for i, si in enumerate(flat):
        Bs = sum(B[j] * si ** j for j in range(B.shape[0]))
        out[i] = sum(D[j] * si ** j for j in range(D.shape[0]))
        if p > 0:
            try:
                out[i] += C @ np.linalg.solve(si * np.eye(p) - A, Bs)
            except np.linalg.LinAlgError:
                raise errors.SingularError("transfer: s = %s is an eigenvalue of A (a pole)"
                                           % si, t=t) from None
    return out.reshape(sv.shape + (ny, nu))


class Realizer:
    """The realization of a plant evaluable at any time, for a code that
    needs it where it chooses (an integrator's stages):
    ``with lth.Realizer(pb) as rz: r = rz.at(t)``.  ``at(times)`` returns
    a :class:`Realization` at those times (a number: one time), integrating
    the basis on from the last time evaluated, so that every call speaks
    of the same basis Q(t) (the one that starts at `t0`).  The options are
    those of :func:`lth.ss`, which is ``Realizer(...).at(times)``.  The C
    objects are released by ``close()``, at the end of a ``with`` block,
    or when the problem is closed.

    The realization reads no signal: free inputs are fine."""

    def __init__(self, problem, *, raw=False, rtol=DEFAULT_SS_RTOL, atol=DEFAULT_SS_ATOL,
                 range_tol=DEFAULT_SS_RANGE_TOL, cond_max=DEFAULT_COND_MAX, t0=None):
        self.ss = self.pt = None
        pb = self.problem = as_problem(problem)
        opts = S["lth_ss_opts"]()
        LIB.lth_ss_opts_init(_ref(opts))
        opts.rtol = number(rtol, "rtol", 1e-15, 1e-2)
        opts.atol = number(atol, "atol", 1e-300, 1.0)
        opts.range_tol = number(range_tol, "range_tol", 1e-300, 1.0)
        opts.cond_max = number(cond_max, "cond_max", 1, 1e300)
        opts.raw = 1 if raw else 0
        lo, hi = pb.interval
        self.t0 = opts.t0 = lo if t0 is None else number(t0, "t0", lo, hi)
        self.raw = bool(raw)
        if pb.kind == "lqr" or not pb.inputs:
            raise errors.InvalidArgumentError(
                "%s has no inputs: a realization needs a plant with inputs (an `inputs` "
                "statement, docs/equations.md section 11)" % pb.name)
        err = _lib.new_error()
        pb._realizers.add(self)
        self.ss = ctypes.c_void_p(LIB.lth_ss_alloc(pb._system(), _ref(opts), _ref(err)))
        self.pt = ctypes.c_void_p(LIB.lth_ss_point_alloc(self.ss, _ref(err))
                                  if self.ss.value else None)
        if not self.pt.value:
            self.close()
            raise _lib.exception(err)
        self.idx1 = Index1Values(pb)
        self.shape = S["lth_ss_point"].from_address(LIB.lth_ss_shape(self.ss))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def close(self):
        """Release the C objects now."""
        if getattr(self, "pt", None):
            LIB.lth_ss_point_free(self.pt)
        self.pt = None
        if getattr(self, "ss", None):
            LIB.lth_ss_free(self.ss)
        self.ss = None
        if getattr(self, "problem", None) is not None:
            self.problem._realizers.discard(self)
        if getattr(self, "idx1", None) is not None:
            self.idx1.__exit__()
            self.idx1 = None

    def at(self, times):
        """The realization at `times` (a number or a list, each in the
        interval; any order): a :class:`Realization`."""
        if not self.ss:
            raise errors.UsageError("the Realizer of %s has been closed" % self.problem.name)
        pb = self.problem
        pb._system()  # not closed: the realization reads the problem's system
        ts = select_times(pb, np.atleast_1d(floats(times, "times", ndim=1)), None, "times")
        sh = self.shape
        p, m, s, nu, ny = sh.p, sh.m, sh.s, sh.nu, sh.ny
        nb, nd, nk = sh.nb, sh.nd, sh.nk
        n, nv = len(ts), pb.nvars
        out = {"A": np.zeros((n, p, p)), "B": np.zeros((n, nb, p, nu)),
               "C": np.zeros((n, ny, p)), "D": np.zeros((n, nd, ny, nu)),
               "g": np.zeros((n, p)), "y_f": np.zeros((n, ny)), "Q": np.zeros((n, m, p)),
               "K": np.zeros((n, nk, m, nu)), "Z": np.zeros((n, nv, p)),
               "Dz": np.zeros((n, nd, nv, nu)), "z_f": np.zeros((n, nv))}
        diag = {k: np.zeros(n) for k in ("orth_err", "range_err", "amplification")}
        err = _lib.new_error()
        for k, t in enumerate(ts):
            _lib.check(LIB.lth_ss_at(self.ss, float(t), self.pt, _ref(err)), err)
            pt = S["lth_ss_point"].from_address(self.pt.value)
            out["A"][k] = _maps(pt.A, 1, p, p)[0]
            out["B"][k] = _maps(pt.B, nb, p, nu)
            out["g"][k] = _lib.doubles(pt.g, p)
            out["Q"][k] = _maps(pt.Q, 1, m, p)[0]
            out["K"][k] = _maps(pt.K, nk, m, nu)
            if ny > 0:
                out["C"][k] = _maps(pt.C, 1, ny, p)[0]
                out["D"][k] = _maps(pt.D, nd, ny, nu)
                out["y_f"][k] = _lib.doubles(pt.yf, ny)
            Z, Dz, zf = _every_unknown(pb, self.idx1, t, _maps(pt.Z, 1, s, p)[0],
                                       _maps(pt.Dz, nd, s, nu), _lib.doubles(pt.zf, s))
            out["Z"][k], out["Dz"][k], out["z_f"][k] = Z, Dz, zf
            for name in diag:
                diag[name][k] = getattr(pt, name)
        _finite_or_raise(out, ts)
        steps, decomps = ctypes.c_long(), ctypes.c_long()
        LIB.lth_ss_counts(self.ss, _ref(steps), _ref(decomps))
        return Realization(
            times=ts, p=p, m=m, s=s, raw=self.raw, t0=self.t0, inputs=list(pb.inputs),
            outputs=list(pb.outputs), unknowns=list(pb.variables),
            state_components=list(pb.state_components), steps=int(steps.value),
            decompositions=int(decomps.value), **out, **diag)


def _maps(ptr, count, rows, cols):
    """`count` column-major rows x cols maps at ptr -> (count, rows, cols)."""
    flat = _lib.doubles(ptr, count * rows * cols)
    return flat.reshape(count, cols, rows).transpose(0, 2, 1)


def ss(problem, times=None, *, grid=None, raw=False, rtol=DEFAULT_SS_RTOL, atol=DEFAULT_SS_ATOL,
       range_tol=DEFAULT_SS_RANGE_TOL, cond_max=DEFAULT_COND_MAX, t0=None):
    """The minimal state-space realization of a plant with inputs
    (docs/control.md) at `times` (default: the problem's grid; or `grid`
    uniform points), as a :class:`Realization` of NumPy arrays.

    The state x (p entries) is the plant's state in the basis Q(t) of the
    state space that starts at `t0` (default: the interval's start) and
    does not rotate within the space (Q^T Q' = 0), so x' = A x + ...; the
    basis is integrated to `rtol`, `atol` and checked against Clark's P at
    every time (||P Q|| at most `range_tol`).  By default input
    derivatives leave the state equation by a change of state (B has only
    B_0) and the derivative feedthrough D_j, j >= 1, stays in the outputs;
    ``raw=True`` keeps Clark's coordinates (B_j for every order j).
    Free inputs are fine (the realization does not depend on the signals).
    :class:`lth.Realizer` evaluates it at times chosen one by one.

    Refusals are :class:`lth.Error`s naming t: a plant without inputs
    (:class:`lth.InvalidArgumentError`), a singular or ill-conditioned Pi
    (above `cond_max`: :class:`lth.SingularError`,
    :class:`lth.ConditionError`), a basis that cannot be integrated to the
    tolerance or leaves the space (:class:`lth.ToleranceError`), a result
    that is not finite.
    """
    pb = as_problem(problem)
    ts = select_times(pb, times, grid, "times")
    with Realizer(pb, raw=raw, rtol=rtol, atol=atol, range_tol=range_tol, cond_max=cond_max,
                  t0=t0) as rz:
        return rz.at(ts)


def _every_unknown(pb, idx1, t, Z, Dz, zf):
    """z's rows (chain order, s of them) -> every unknown's rows in the
    user's order: an index-1 unknown y = Y z + Yu u + y0 (docs/equations.md
    sections 10 and 11: Yu where an input stands in the constraint that
    fixes y)."""
    if idx1.ny > 0:
        Y, Yu, y0 = idx1.maps(t)
        Z = np.vstack([Z, Y @ Z])
        Dy = np.einsum("is,jsu->jiu", Y, Dz)
        if Yu.size:
            Dy[0] += Yu
        Dz = np.concatenate([Dz, Dy], axis=1)
        zf = np.concatenate([zf, Y @ zf + y0])
    return pb.to_user(Z, axis=0), pb.to_user(Dz, axis=1), pb.to_user(zf, axis=0)


def _finite_or_raise(out, ts):
    """Non-finite maps are refused naming t (the library checks A, B, D, Dz)."""
    for name, arr in out.items():
        bad = ~np.isfinite(arr.reshape(len(ts), -1)).all(axis=1)
        if bad.any():
            k = int(np.argmax(bad))
            raise errors.NotFiniteError("the realization's %s is not finite" % name,
                                        t=float(ts[k]))
