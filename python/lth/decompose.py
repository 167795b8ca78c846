# SPDX-License-Identifier: GPL-3.0-or-later
"""Clark's decomposition at times or on a grid (``lth_grid_decompose``).

The grid runs in parallel in C; each point is streamed to Python in time
order and copied into preallocated arrays, so the results equal
``lth-decompose --format json`` bit for bit.
"""

import ctypes
import math
import warnings
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from . import _lib, errors, oppath, sampling
from ._layout import DEFAULT_COND_MAX
from ._lib import LIB, S
from .problem import FreeInputsAtZero, as_problem, number, select_times

_RESULTS = ("P", "Ahat", "g", "Bhat", "q", "G")
_CHECKS = ("theorem3_linear", "theorem3_affine", "idempotent", "commute", "structure", "worst")


@dataclass
class CheckReport:
    """Residuals of the built-in verification at every time (docs/user-guide.md
    section 3.3): relative residuals of Clark's Theorem 3 (``theorem3_linear``,
    ``theorem3_affine``), the projector identities (``idempotent``,
    ``commute``), Theorem 1's structure (``structure``), their maximum
    ``worst``; ``rank_P_ok``, ``rank_G`` (should be p) and ``sv_gap``."""

    t: np.ndarray
    theorem3_linear: np.ndarray
    theorem3_affine: np.ndarray
    idempotent: np.ndarray
    commute: np.ndarray
    structure: np.ndarray
    worst: np.ndarray
    rank_P_ok: np.ndarray
    rank_G: np.ndarray
    sv_gap: np.ndarray


@dataclass
class Decomposition:
    """Clark's decomposition at the times ``t`` (n of them).

    ``path`` says which path computed it (``path=`` of :func:`decompose`).
    On the operator path nothing s x s is formed: ``P``, ``Ahat``, ``Bhat``
    and ``G`` are None (as ``lth-decompose`` writes only t, cond_pi, g, q,
    cond_chain and their norms there).

    Arrays (first axis: time): ``P`` (n, m, m) = blockdiag(P_1..P_{r-1}),
    ``Ahat`` (n, m, m) and ``g`` (n, m) of the reduced ODE v' = Ahat v + g,
    ``Bhat`` (n, s, m) and ``q`` (n, s) of (w, u) = Bhat v + q, ``G`` (n, s, m) =
    [Nhat + Bhat](I - P); ``cond_pi`` and ``cond_chain`` (n,) condition
    estimates, ``pi_sign`` (n,) the sign of det Pi.  ``derivatives`` maps each
    result name to its derivatives of order 1..order (axis 1), when asked for
    (None for a result the path does not form).  ``norms`` maps each result
    name to its 1-norm at every time (n,), ``lth-decompose``'s norm_P, ...,
    norm_G (None for a result the path does not form).
    ``error_estimate`` (sampled data only, as ``lth-decompose``'s JSON) maps
    "P", "Ahat", "g", "Bhat", "q", "G" to the estimated largest absolute error
    of that output's entries that the samples' fits cause (n,), and
    "overall" to the largest relative one (n,).

    Orders: v lives in the chain (m entries, named by ``state_components``):
    P, Ahat, g and the columns of Bhat and G are in that order.  The rows of
    Bhat, q and G are z's components in the user's order (``components``,
    as ``Solution.z``), so z = G v + q holds with ``lth.solve``'s z and v.
    For a block-form file that is Clark's order (w_1, ..., w_{r-1}, u); for
    an equation-form file the rows are permuted (``lth-decompose`` JSON keeps
    the chain order; ``variable_index`` maps chain position i to its row).

    The decomposition is of z's system: an equation-form file's index-1
    unknowns (docs/equations.md section 10), named by ``index1``, have no
    rows (they follow from z, y = -K^{-1}(L z + f)); ``components`` is then
    ``Problem.z_components``, the solution's columns without them, as the
    tools' decomposition.

    ``inputs`` names the data file's inputs (docs/equations.md section 11)
    and ``free_inputs`` those without a signal, taken as 0 here as
    ``lth-decompose`` takes them: P, Ahat, Bhat and G do not depend on the
    forcing; g and q are those of f alone.
    """

    t: np.ndarray
    cond_pi: np.ndarray
    cond_chain: np.ndarray
    pi_sign: np.ndarray
    P: Optional[np.ndarray]
    Ahat: Optional[np.ndarray]
    g: np.ndarray
    Bhat: Optional[np.ndarray]
    q: np.ndarray
    G: Optional[np.ndarray]
    index: int
    blocks: tuple
    p: int
    s: int
    m: int
    kind: str
    components: list
    derivatives: Optional[dict] = None
    check: Optional[CheckReport] = None
    sampling: list = field(default_factory=list)
    state_components: list = field(default_factory=list)
    chain_components: list = field(default_factory=list)
    variable_index: Optional[np.ndarray] = None
    error_estimate: Optional[dict] = None
    index1: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    free_inputs: list = field(default_factory=list)
    path: str = "dense"
    norms: Optional[dict] = None

    @property
    def cond_pi_max(self):
        """Largest cond_pi and the first time it is reached."""
        k = int(np.argmax(self.cond_pi))
        return float(self.cond_pi[k]), float(self.t[k])

    @property
    def cond_chain_max(self):
        """Largest cond_chain and the first time it is reached."""
        k = int(np.argmax(self.cond_chain))
        return float(self.cond_chain[k]), float(self.t[k])

    def __len__(self):
        return len(self.t)


class _Collector:
    """Receives the points of lth_grid_decompose (Python side of the consumer)."""

    def __init__(self, pb, n, order, verify):
        s, m = pb.s, pb.m
        self.shapes = {"P": (m, m), "Ahat": (m, m), "g": (m,), "Bhat": (s, m), "q": (s,),
                       "G": (s, m)}
        self.val = {k: np.zeros((n,) + sh) for k, sh in self.shapes.items()}
        self.der = {k: np.zeros((n, order) + sh) for k, sh in self.shapes.items()}
        self.order = order
        self.t = np.zeros(n)
        self.cond_pi = np.zeros(n)
        self.cond_chain = np.zeros(n)
        self.pi_sign = np.zeros(n, dtype=int)
        self.verify = verify
        self.chk = {k: np.zeros(n) for k in _CHECKS + ("sv_gap",)}
        self.rank_P_ok = np.zeros(n, dtype=bool)
        self.rank_G = np.zeros(n, dtype=int)
        self.failure = None
        self.done = 0
        self.callback = _lib.CONSUMER_FN(self._consume)

    def _consume(self, ctx, k, pt_ptr, rep_ptr):
        try:
            pt = S["lth_point"].from_address(pt_ptr)
            self.t[k] = pt.t
            self.cond_pi[k] = pt.cond_pi
            self.cond_chain[k] = pt.cond_chain
            self.pi_sign[k] = pt.pi_sign
            for name in _RESULTS:
                jet = getattr(pt, name)
                shape = self.shapes[name]
                self.val[name][k] = _lib.jet_coef(jet, 0).reshape(shape)
                fact = 1.0
                for d in range(1, self.order + 1):
                    fact *= d if d > 1 else 1.0
                    self.der[name][k, d - 1] = (fact * _lib.jet_coef(jet, d)).reshape(shape)
            if self.verify and rep_ptr:
                rep = S["lth_verify_report"].from_address(rep_ptr)
                for name in _CHECKS + ("sv_gap",):
                    self.chk[name][k] = getattr(rep, name)
                self.rank_P_ok[k] = bool(rep.rank_P_ok)
                self.rank_G[k] = rep.rank_G
            self.done = k + 1
            return 0
        except BaseException as e:  # never let an exception cross the C frame
            self.failure = e
            return 1


def _finite_or_raise(col, n_checked):
    """The tools refuse non-finite output naming t: so does Python."""
    for k in range(n_checked):
        for name in _RESULTS:
            if not np.all(np.isfinite(col.val[name][k])) or (
                    col.order and not np.all(np.isfinite(col.der[name][k]))):
                raise errors.NotFiniteError("%s is not finite" % name, t=float(col.t[k]))
        if not (math.isfinite(col.cond_pi[k]) and math.isfinite(col.cond_chain[k])):
            raise errors.NotFiniteError("the condition estimate is not finite", t=float(col.t[k]))
        if col.verify:
            for name in _CHECKS:
                if not math.isfinite(col.chk[name][k]):
                    raise errors.NotFiniteError("check residual %s is not finite" % name,
                                                t=float(col.t[k]))
            if not math.isfinite(col.chk["sv_gap"][k]):
                raise errors.NotFiniteError("check sv_gap is not finite", t=float(col.t[k]))


def _norms(val):
    """The 1-norm (largest column sum) of every result at every time, as
    lth-decompose's norm_P, ..., norm_G (lth_jet_norm1); None for a result
    not formed."""
    out = {}
    for name in _RESULTS:
        a = val.get(name)
        if a is None:
            out[name] = None
            continue
        a = np.abs(a if a.ndim == 3 else a[:, :, None])
        out[name] = a.sum(axis=1).max(axis=1, initial=0.0)
    return out


_MATRICES = ("P", "Ahat", "Bhat", "G")
_FIELDS = ("cond_pi", "P", "Ahat", "g", "Bhat", "q", "G", "cond_chain", "check") + tuple(
    "norm_" + r for r in _RESULTS)


def _op_fields(pb, fields):
    """On the operator path: a field of size s x m or m x m asked for is a
    UsageError naming it and its size (lth-decompose's refusal); without
    `fields` a PathWarning says they are not formed."""
    if fields is None:
        warnings.warn("s = %d: the operator path gives t, cond_pi, g, q and cond_chain (P, Ahat, "
                      "Bhat and G are %d x %d and larger, never formed); path='dense' forms "
                      "them" % (pb.s, pb.m, pb.m), errors.PathWarning, stacklevel=3)
        return
    for f in fields:
        base = f[5:] if f.startswith("norm_") else f
        if base in _MATRICES:
            rows = pb.s if base in ("Bhat", "G") else pb.m
            raise errors.UsageError(
                "fields %s: at s = %d the operator path forms nothing of size s x s, and %s%s is "
                "%d x %d (%.3g MB per point); it gives cond_pi, g, q, cond_chain, norm_g and "
                "norm_q.  path='dense' forms the matrices anyway"
                % (f, pb.s, "the norm of " if base != f else "", base, rows, pb.m,
                   8e-6 * rows * pb.m))


def _fields_arg(fields):
    if fields is None:
        return None
    if isinstance(fields, str):
        fields = [fields]
    out = []
    for f in fields:
        if f == "norms":
            out.extend("norm_" + r for r in _RESULTS)
        elif f in _FIELDS:
            out.append(f)
        else:
            raise errors.UsageError("fields: unknown field %r (the fields are %s, and norms for "
                                    "all six norms)" % (f, ", ".join(_FIELDS)))
    return out


def _decompose_operator(pb, chosen, ts, order, cond_max):
    """The operator path: lth_opdecomp_at at every time, in order, g and q
    and their derivatives of order 1..order (lth-decompose's compute_op)."""
    s, m, n = pb.s, pb.m, len(ts)
    err = _lib.new_error()
    val = {"g": np.zeros((n, m)), "q": np.zeros((n, s))}
    der = {"g": np.zeros((n, order, m)), "q": np.zeros((n, order, s))}
    cond_pi, cond_chain = np.zeros(n), np.zeros(n)
    pi_sign = np.zeros(n, dtype=int)
    jets = {"g": S["lth_jet"](), "q": S["lth_jet"]()}
    ws = pt = None
    try:
        for name, rows in (("g", m), ("q", s)):
            _lib.check(LIB.lth_jet_init(ctypes.byref(jets[name]), rows, 1, order,
                                        ctypes.byref(err)), err)
        ws = _lib.check_ptr(LIB.lth_opdecomp_ws_alloc(chosen.sys, order, ctypes.byref(err)), err)
        pt = _lib.check_ptr(LIB.lth_oppoint_alloc(chosen.sys, order, 1, ctypes.byref(err)), err)
        LIB.lth_opdecomp_ws_set_cond_max(ws, cond_max)
        for k, t in enumerate(ts):
            _lib.check(LIB.lth_opdecomp_at(ws, float(t), pt, ctypes.byref(err)), err)
            info = S["lth_opinfo"].from_address(LIB.lth_oppoint_info(pt))
            cond_pi[k], cond_chain[k], pi_sign[k] = info.cond_pi, info.cond_chain, info.pi_sign
            for name, fn in (("g", LIB.lth_oppoint_g), ("q", LIB.lth_oppoint_q)):
                _lib.check(fn(pt, ctypes.byref(jets[name]), ctypes.byref(err)), err)
                val[name][k] = _lib.jet_coef(jets[name], 0)[:, 0]
                fact = 1.0
                for d in range(1, order + 1):
                    fact *= d
                    der[name][k, d - 1] = fact * _lib.jet_coef(jets[name], d)[:, 0]
            bad = [x for x in ("g", "q") if not (np.all(np.isfinite(val[x][k])) and
                                                np.all(np.isfinite(der[x][k])))]
            if bad:
                raise errors.NotFiniteError("%s is not finite" % bad[0], t=float(t))
            if not (math.isfinite(cond_pi[k]) and math.isfinite(cond_chain[k])):
                raise errors.NotFiniteError("the condition estimate is not finite", t=float(t))
    finally:
        LIB.lth_oppoint_free(pt)
        LIB.lth_opdecomp_ws_free(ws)
        for J in jets.values():
            LIB.lth_jet_release(ctypes.byref(J))
    for name in _MATRICES:
        val[name] = der[name] = None
    return cond_pi, cond_chain, pi_sign, val, der


def decompose(problem, times=None, *, grid=None, order=0, check=False, check_tol=1e-8,
              cond_max=DEFAULT_COND_MAX, threads=0, path="auto", fields=None):
    """Clark's decomposition at `times` (default: the problem's grid; or `grid`
    uniform points), as ``lth-decompose``.

    ``order`` K > 0 also returns the derivatives of order 1..K of every result;
    ``check=True`` verifies every point (Theorem 3 residual, projector
    identities, structure, rank G = p) and raises :class:`lth.VerifyError`
    when a relative residual exceeds ``check_tol`` (None: report only).
    A chain condition above ``cond_max`` is :class:`lth.ConditionError`
    naming t and the estimate; a singular Pi is :class:`lth.SingularError`.
    ``threads``: worker threads (0 = all cores; results do not depend on it).
    ``path``: "auto" (default), "dense" or "operator", as ``lth-decompose
    --path`` (:mod:`lth.oppath`); ``check`` needs the dense path.  On the
    operator path only cond_pi, g, q, cond_chain and the norms of g and q
    are computed, one point after the other; ``fields`` (names as
    ``lth-decompose --fields``: "P", "g", "norm_G", "norms", ...) says what
    the call needs, and a matrix among them is then a
    :class:`lth.UsageError` naming its size.
    Returns a :class:`Decomposition`.
    """
    pb = as_problem(problem)
    ts = select_times(pb, times, grid, "times")
    order = number(order, "order", 0, 20, integer=True)
    cond_max = number(cond_max, "cond_max", 1, 1e300)
    threads = number(threads, "threads", 0, 4096, integer=True)
    if check_tol is not None:
        check_tol = number(check_tol, "check_tol", 0, 1e300)
    check = bool(check)
    fields = _fields_arg(fields)
    if fields is not None and "check" in fields and not check:
        raise errors.UsageError("fields check needs check=True")
    out_order = order if order > 0 or not check else 1
    with FreeInputsAtZero(pb) as free, \
            oppath.Path(pb, path, dense_only="check (it verifies the s x s results)"
                        if check else None) as chosen:
        if chosen.op:
            _op_fields(pb, fields)
            cond_pi, cond_chain, pi_sign, val, der = _decompose_operator(pb, chosen, ts, order,
                                                                         cond_max)
            for name in ("q",):  # rows: z's unknowns, in the user's order
                val[name] = pb.to_user(val[name], axis=1)
                der[name] = pb.to_user(der[name], axis=2)
            return Decomposition(
                t=ts, cond_pi=cond_pi, cond_chain=cond_chain, pi_sign=pi_sign, P=None,
                Ahat=None, g=val["g"], Bhat=None, q=val["q"], G=None, index=pb.index,
                blocks=pb.blocks, p=pb.p, s=pb.s, m=pb.m, kind=pb.kind,
                components=list(pb.z_components), derivatives=der if order > 0 else None,
                check=None, sampling=[], state_components=list(pb.state_components),
                chain_components=list(pb.chain_components[:pb.s]),
                variable_index=pb._z_variable_index.copy(), index1=list(pb.index1),
                error_estimate=None, inputs=list(pb.inputs), free_inputs=free.names,
                path="operator", norms=_norms(val))
    opts = S["lth_grid_opts"]()
    LIB.lth_grid_opts_init(ctypes.byref(opts))
    opts.threads = threads
    opts.out_order = out_order
    opts.cond_max = cond_max
    opts.verify = 1 if check else 0
    col = _Collector(pb, len(ts), order, check)
    err = _lib.new_error()
    with FreeInputsAtZero(pb) as free:  # lth-decompose's free inputs: 0, and said so
        st = LIB.lth_grid_decompose(pb._system(), ts.ctypes.data, len(ts), ctypes.byref(opts),
                                    col.callback, None, ctypes.byref(err))
        if col.failure is not None:
            raise col.failure
        _finite_or_raise(col, col.done)
        _lib.check(st, err)
        errest = sampling.output_errors(pb, ts, cond_max)
    rep = None
    if check:
        rep = CheckReport(col.t, *(col.chk[k] for k in _CHECKS), col.rank_P_ok, col.rank_G,
                          col.chk["sv_gap"])
        if check_tol is not None:
            _judge(rep, pb.p, check_tol)
    smp = sampling.report(pb, ts, pb.index - 1 + out_order) if pb._sampled else []
    val, der = dict(col.val), dict(col.der)
    for name in ("Bhat", "q", "G"):  # rows: z's unknowns, in the user's order
        val[name] = pb.to_user(val[name], axis=1)
        der[name] = pb.to_user(der[name], axis=2)
    return Decomposition(
        t=ts, cond_pi=col.cond_pi, cond_chain=col.cond_chain, pi_sign=col.pi_sign,
        P=val["P"], Ahat=val["Ahat"], g=val["g"], Bhat=val["Bhat"], q=val["q"], G=val["G"],
        index=pb.index, blocks=pb.blocks, p=pb.p, s=pb.s, m=pb.m, kind=pb.kind,
        components=list(pb.z_components), derivatives=der if order > 0 else None, check=rep,
        sampling=smp, state_components=list(pb.state_components),
        chain_components=list(pb.chain_components[:pb.s]),
        variable_index=pb._z_variable_index.copy(), index1=list(pb.index1),
        error_estimate=errest, inputs=list(pb.inputs), free_inputs=free.names, path="dense",
        norms=_norms(val))


def _judge(rep, p, tol):
    """The judgement of ``lth-decompose --check --check-tol``."""
    if len(rep.t) == 0:
        return
    k = int(np.argmax(rep.worst))
    if rep.worst[k] > tol:
        raise errors.VerifyError("check failed: relative residual %.3e exceeds --check-tol %.3e"
                                 % (rep.worst[k], tol), t=float(rep.t[k]))
    bad = np.nonzero(rep.rank_G != p)[0]
    if bad.size:
        raise errors.VerifyError("check failed: rank G = %d, expected p = %d (%d points)"
                                 % (rep.rank_G[bad[0]], p, bad.size), t=float(rep.t[bad[0]]))
    bad = np.nonzero(~rep.rank_P_ok)[0]
    if bad.size:
        raise errors.VerifyError("check failed: a projector P_i does not have rank n_r "
                                 "(%d points)" % bad.size, t=float(rep.t[bad[0]]))


def check(problem, times=None, *, grid=None, tol=1e-8, cond_max=DEFAULT_COND_MAX, threads=0):
    """Verify the decomposition at every time (``lth-decompose --check``):
    returns the :class:`CheckReport`, raises :class:`lth.VerifyError` (with t)
    when a relative residual exceeds `tol` or rank G differs from p."""
    return decompose(problem, times, grid=grid, check=True, check_tol=tol, cond_max=cond_max,
                     threads=threads).check
