# SPDX-License-Identifier: GPL-3.0-or-later
"""Problems: a DAE (or LQR) system with its interval, grid and the optional
statements of a data file (z0, bc, sampling order).

A :class:`Problem` comes from a data file (:func:`load`), from the text of
one (:func:`parse`), or from Python (:class:`lth.Model`, :class:`lth.LQRModel`).
Every workflow function (``lth.decompose``, ``lth.ic``, ``lth.solve``,
``lth.bvp``, ``lth.lqr``, ``lth.check``) takes a Problem.
"""

import ctypes
import math
import os
import weakref

import numpy as np

from . import _lib
from ._lib import LIB, S
from .errors import NotFiniteError, UsageError

_PROBLEM_LQR = 1


class Problem:
    """A parsed or built problem (do not construct directly: use :func:`load`,
    :func:`parse` or ``Model.build()``).

    **Orders.**  lth computes with z = (z_1, ..., z_{r-1}, u), Clark's chain
    (the *chain order*).  A ``problem equations`` file names its unknowns in
    its own order instead (``variables``, each velocity x' right after its x),
    and lth finds the chain itself, so the two orders differ.  Python speaks
    the user's order, as the data file and the tools' --z0, --guess, --fix
    and tables do: every vector of the unknowns it takes or returns (``z0``,
    ``guess``, the columns of ``bc`` and ``M0``, ``Solution.z``) is in the
    order of ``variables``.  Only vectors of the reduced ODE's state v (m
    numbers: ``Solution.v``, ``P``, ``Ahat``, ``g``, the columns of ``Bhat``
    and ``G``) are in the chain order; ``state_components`` names them.  For
    block-form (``problem dae``) and LQR problems both orders agree.

    **Index-1 unknowns** (docs/equations.md section 10).  An equation-form
    file may have unknowns y that equations without derivatives fix,
    0 = K(t) y + L(t) z + f(t); lth eliminates them, y = -K^{-1}(L z + f),
    and the system holds z alone (``s`` numbers).  Every result still has
    every unknown, y computed from z as the tools do (``nvars`` numbers: s
    plus one per index-1 unknown, in the order of ``variables``), and a z0
    or guess gives them too.  ``index1`` names them (the tools' JSON
    ``index1``); ``z_components`` names z's unknowns in the user's order,
    the rows of ``Bhat``, ``q`` and ``G`` of a decomposition (Clark's
    decomposition is of z's system).

    Attributes: ``kind`` ("dae" or "lqr"), ``form`` ("blocks" or
    "equations"), ``name`` (file name or label), ``blocks`` (n_1..n_r),
    ``index`` (r), ``s``, ``m`` (= s - n_r), ``p``, ``interval`` (t0, t1),
    ``grid`` (NumPy array), ``z0`` (array or None), ``bc`` ((B0, B1, beta) or
    None), ``sampling_order``;

    ``variables``: the names of the unknowns in the user's order: the
    file's unknowns for an equation-form file ("x1", "x1'", ..., "lambda"),
    else the block names "z_1[1]", ..., "u[1]" (for LQR problems those of the
    optimality DAE); ``components`` is the same list (the columns of every
    result); ``full_components``: with the chain position, "z[6] (x1)", as
    the tools' reports; ``nvars`` their number (s, plus the index-1
    unknowns); ``index1`` and ``z_components`` as above;

    ``chain_components``: the names in the chain order, z's s then the
    index-1 unknowns (the tools' JSON "components"); ``state_components``:
    its first m (the entries of v); ``variable_index[i]``: the index in
    ``variables`` of chain position i (0-based; the JSON's "variable_index"
    minus 1); ``chain_position[k]``: the chain position of
    ``variables[k]``; ``to_chain(x)`` and ``to_user(x)`` reorder vectors
    (or an axis) between the two orders: nvars numbers (every unknown), or
    s numbers (z's unknowns: ``z_components`` and the chain's first s);

    ``inputs`` and ``outputs``: the names of the file's ``inputs`` and
    ``outputs`` (docs/equations.md section 11), in the order written (empty
    lists without them); ``free_inputs``: the inputs without a signal
    (``u1(t) = ...``), which :func:`lth.ic`, :func:`lth.solve` and
    :func:`lth.bvp` refuse until :meth:`set_input` gives them one;

    and for LQR problems ``nx``, ``nu``, ``x0``, ``C``.
    """

    def __init__(self, system, kind, name, interval, grid, z0=None, bc=None, sampling_order=0,
                 lqr_spec=None, sampled=(), finalizer=None, keep=(), source_text=None,
                 names=None, model=None):
        self._sys = system
        self._model = model  # the lth_model of an equation-form file (index-1 values)
        self.kind = kind
        self.name = name
        self.interval = (float(interval[0]), float(interval[1]))
        self.grid = np.array(grid, dtype=float)
        self.sampling_order = sampling_order
        self._lqr = lqr_spec
        self._sampled = list(sampled)  # (label, source pointer)
        self._keep = keep
        self.source_text = source_text
        self._finalizer = finalizer
        self.index = LIB.lth_system_index(system)
        self.blocks = tuple(LIB.lth_system_block_size(system, i)
                            for i in range(1, self.index + 1))
        self.s = LIB.lth_system_size(system)
        self.m = LIB.lth_system_state_dim(system)
        self.p = LIB.lth_system_manifold_dim(system)
        self._set_names(system, names)
        self.inputs, self.outputs = [], []  # a data file's (_from_handle)
        # open lth.Realizers (weak references): closed before the problem
        self._realizers = weakref.WeakSet()
        # z0 and bc are given in the user's order
        self.z0 = None if z0 is None else np.array(z0, dtype=float)
        self._bc, self._bc_loader = bc, None
        if lqr_spec is not None:
            spec = lqr_spec.contents if hasattr(lqr_spec, "contents") else lqr_spec
            self.nx, self.nu = int(spec.nx), int(spec.nu)
            self.x0 = _lib.doubles(spec.x0, self.nx)
            if spec.C or not spec.C_src:  # a literal C, or none (zero)
                self.C = _lib.doubles(spec.C, self.nx * self.nx).reshape(self.nx, self.nx,
                                                                          order="F")
            else:  # C = mm(...): constant, its value at t0
                self.C = _source_value(spec.C_src, self.nx, float(spec.t0))

    @property
    def bc(self):
        """(B0, B1, beta) of the bc statements in the user's order, or None; a
        file's are read from the library on first use (p x nvars each)."""
        if self._bc_loader is not None:
            self._bc, self._bc_loader = self._bc_loader(), None
        return self._bc

    @bc.setter
    def bc(self, value):
        self._bc, self._bc_loader = value, None

    def _bc_sparse(self):
        """The file's bc as the library holds them (lth_problem_bc_csc:
        compressed columns, the chain order, index-1 columns folded in), or
        None; nothing p x s is formed."""
        handle = getattr(self, "_handle", None)
        if handle is None or (self._bc_loader is None and self._bc is None):
            return None
        bc = S["lth_bvp_sparse_bc"]()
        rows = LIB.lth_problem_bc_csc(handle, ctypes.byref(bc))
        if rows < 0:
            raise MemoryError("out of memory for the boundary conditions")
        return bc if rows > 0 else None

    def _set_names(self, system, names):
        """names: None (block form), or (names in the chain order, variable_index),
        every unknown: z's s, then the index-1 unknowns."""
        if names is None:
            full = [_component_name(system, i) for i in range(self.s)]
            self.form = "blocks"
            self.chain_components = [_short_name(n) for n in full]
            self.variable_index = np.arange(self.s)
        else:
            self.form = "equations"
            self.chain_components = list(names[0])
            self.variable_index = np.array(names[1], dtype=int)
            full = ["z[%d] (%s)" % (i + 1, n) for i, n in enumerate(self.chain_components)]
        self.chain_position = np.argsort(self.variable_index)
        self.nvars = len(self.chain_components)
        self.variables = [self.chain_components[i] for i in self.chain_position]
        self.components = list(self.variables)
        self.full_components = [full[i] for i in self.chain_position]
        self.state_components = self.chain_components[:self.m]
        self.index1 = self.chain_components[self.s:]
        # z alone (s numbers): the user's order restricted to z's unknowns
        zuser = np.sort(self.variable_index[:self.s])
        self._z_variable_index = np.searchsorted(zuser, self.variable_index[:self.s])
        self._z_chain_position = np.argsort(self._z_variable_index)
        self.z_components = [self.variables[k] for k in zuser]

    def _order(self, x, axis, to_chain):
        x = np.asarray(x, dtype=float)
        n = x.shape[axis] if x.ndim else 0
        if n == self.nvars:
            idx = self.variable_index if to_chain else self.chain_position
        elif n == self.s:
            idx = self._z_variable_index if to_chain else self._z_chain_position
        else:
            raise UsageError("a vector of %s has %d numbers along axis %d, not nvars = %d "
                             "(every unknown) or s = %d (z's)"
                             % (self.name, n, axis, self.nvars, self.s))
        return np.take(x, idx, axis=axis)

    def to_chain(self, x, axis=-1):
        """x (nvars or s numbers along `axis`) from the user's order to the chain order."""
        return self._order(x, axis, True)

    def to_user(self, x, axis=-1):
        """x (nvars or s numbers along `axis`) from the chain order to the user's order."""
        return self._order(x, axis, False)

    def close(self):
        """Release the C objects now (also done when the object is collected);
        an open :class:`lth.Realizer` on the problem is closed first."""
        for rz in list(self._realizers):
            rz.close()
        if self._finalizer is not None:
            self._finalizer()
        self._sys = None

    def _system(self):
        if not self._sys:
            raise UsageError("the problem %s has been closed" % self.name)
        return self._sys

    def __repr__(self):
        return "<lth.Problem %s: %s, blocks %s, interval [%g, %g], %d grid points>" % (
            self.name, self.kind, list(self.blocks), self.interval[0], self.interval[1],
            len(self.grid))

    @property
    def free_inputs(self):
        """The inputs without a signal, in the order of ``inputs``."""
        sys_ = self._system()
        return [name for k, name in enumerate(self.inputs) if not LIB.lth_system_input(sys_, k)]

    def set_input(self, name, signal):
        """Give the input `name` (or its 0-based index in ``inputs``) the
        signal `signal`: the text of an expression in t (``"sin(3*t)"``, the
        data file's functions; the file's params and named functions are not
        known here) or a number; None makes the input free again.  It
        replaces the file's ``name(t) = ...`` for every later computation on
        this problem (lth_problem_set_input).  While workspaces live on
        the problem (an open :class:`lth.Realizer`), a signal that needs
        more scratch than they were given is refused (the old one kept)."""
        self._system()  # not closed
        k = self._input_index(name)
        err = _lib.new_error()
        src = None
        if signal is not None:
            if isinstance(signal, str):
                text = signal.encode("utf-8")
                if b"\0" in text or not signal.strip():
                    raise UsageError("the signal of %s is empty or holds a NUL character"
                                     % self.inputs[k])
            else:
                text = repr(number(signal, "the signal of %s" % self.inputs[k])).encode()
            expr = ctypes.c_void_p()
            st = LIB.lth_expr_parse(text, len(text), None, None, ctypes.byref(expr),
                                    ctypes.byref(err))
            if st != 0:
                e = _lib.exception(err, st)
                e.message = "the signal %s(t) = %s: %s" % (self.inputs[k], text.decode(),
                                                          e.message)
                e.formatted = e.message
                e.args = (e.message,)
                raise e
            ptrs = (ctypes.c_void_p * 1)(expr.value)
            src = _lib.check_ptr(LIB.lth_source_expr(1, 1, ptrs, ctypes.byref(err)), err)
        _lib.check(LIB.lth_problem_set_input(self._handle, k, src, ctypes.byref(err)), err)

    def _input_index(self, name):
        if not self.inputs:
            raise UsageError("%s has no inputs (docs/equations.md section 11)" % self.name)
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            if 0 <= name < len(self.inputs):
                return int(name)
        elif isinstance(name, str) and name in self.inputs:
            return self.inputs.index(name)
        raise UsageError("no input %r; the inputs of %s are %s"
                         % (name, self.name, ", ".join(self.inputs)))

    def component_index(self, key):
        """0-based index in the user's order (``variables``) of a component
        given as that index or a name ("x1", "x1'" also spelled "d.x1" or
        "x1_dot", "z_2[1]", "u[1]"; "z[4]" is
        position 4 of the chain, as in the tools' reports)."""
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not 0 <= key < self.s:
                raise UsageError("component index %d is not in 0..%d (s = %d)"
                                 % (key, self.s - 1, self.s))
            return int(key)
        if isinstance(key, str):
            k = find_name(self.variables, key)
            if k >= 0:
                return k
            if key.startswith("z[") and key.endswith("]") and key[2:-1].isdigit():
                k = int(key[2:-1]) - 1
                if 0 <= k < self.s:
                    return int(self.variable_index[k])
            raise UsageError("no component named %r; the components are %s"
                             % (key, ", ".join(self.variables)))
        raise UsageError("a component is an index or a name, not %r" % (key,))


class Index1Values:
    """The index-1 unknowns y = -K^{-1}(L z + f) of an equation-form problem
    (lth_model_values_at / _map, docs/equations.md section 10), as the tools
    compute them for their outputs.  A handle (its own workspace) per
    computation: ``with Index1Values(pb) as w: ...``.  Without index-1
    unknowns it only reorders."""

    def __init__(self, pb):
        self.pb = pb
        self.ptr = ctypes.c_void_p()
        self.ny = pb.nvars - pb.s
        if self.ny > 0:
            sys_ = pb._system()  # not closed: the model lives in the problem's handle
            err = _lib.new_error()
            self.ptr.value = _lib.check_ptr(LIB.lth_model_values_alloc(pb._model,
                                                                      ctypes.byref(err)), err)
            if pb.inputs:  # the signals of inputs in the constraints that fix index-1 unknowns
                try:
                    _lib.check(LIB.lth_model_values_set_inputs(self.ptr, sys_, ctypes.byref(err)),
                               err)
                except Exception:
                    self.__exit__()
                    raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.ptr.value:
            LIB.lth_model_values_free(self.ptr)
            self.ptr = ctypes.c_void_p()

    def rows(self, times, zc, ezc=None):
        """Rows of z (s numbers each, the chain order) at `times` -> rows of
        every unknown (nvars, the user's order), and of their errors when z's
        errors `ezc` are given (y's: -K^{-1} L ez); None for no ezc."""
        pb = self.pb
        zc = np.asarray(zc, dtype=float).reshape(len(times), pb.s)
        if ezc is not None:
            ezc = np.asarray(ezc, dtype=float).reshape(len(times), pb.s)
        if self.ny == 0:
            return pb.to_user(zc), None if ezc is None else pb.to_user(ezc)
        out = np.zeros((len(times), pb.nvars))
        eout = None if ezc is None else np.zeros((len(times), pb.nvars))
        err = _lib.new_error()
        for k, t in enumerate(times):
            z = np.ascontiguousarray(zc[k])
            ez = None if ezc is None else np.ascontiguousarray(ezc[k])
            user = np.zeros(pb.nvars)
            euser = None if ezc is None else np.zeros(pb.nvars)
            _lib.check(LIB.lth_model_values_at(
                self.ptr, float(t), z.ctypes.data, None if ez is None else ez.ctypes.data,
                user.ctypes.data, None if euser is None else euser.ctypes.data,
                ctypes.byref(err)), err)
            out[k] = user
            if eout is not None:
                eout[k] = euser
        return out, eout

    def maps(self, t):
        """(Y, Yu, y0) at t: y = Y z + Yu u + y0 with the inputs apart (an
        input in a constraint that fixes y: Yu), no signal read."""
        Y = np.zeros((self.ny, self.pb.s), order="F")
        Yu = np.zeros((self.ny, max(1, len(self.pb.inputs))), order="F")
        y0 = np.zeros(self.ny)
        if self.ny > 0:
            err = _lib.new_error()
            _lib.check(LIB.lth_model_values_maps(self.ptr, float(t), Y.ctypes.data, self.ny,
                                                 Yu.ctypes.data, self.ny, y0.ctypes.data,
                                                 ctypes.byref(err)), err)
        return Y, Yu[:, :len(self.pb.inputs)], y0

    def map(self, t):
        """(Y, y0) at t: y = Y z + y0, Y (ny x s; z in the chain order), y
        in the chain order (``pb.index1``)."""
        Y = np.zeros((self.ny, self.pb.s), order="F")
        y0 = np.zeros(self.ny)
        if self.ny > 0:
            err = _lib.new_error()
            _lib.check(LIB.lth_model_values_map(self.ptr, float(t), Y.ctypes.data, self.ny,
                                                y0.ctypes.data, ctypes.byref(err)), err)
        return Y, y0


def require_signals(pb, who):
    """A free input is a UsageError with the tools' message (they refuse it
    before any computation, exit status 1), `who` in the tool's place."""
    free = pb.free_inputs
    if free:
        raise UsageError("the input %s has no signal: %s needs its values; give it in the file "
                         "(%s(t) = ... or samples(\"...\"), docs/equations.md section 11) or "
                         "by Problem.set_input" % (free[0], who, free[0]))


class FreeInputsAtZero:
    """``with FreeInputsAtZero(pb): ...``: the free inputs take the signal 0
    inside the block, as lth-decompose takes them (P, Ahat, Bhat and G do
    not depend on the forcing; g and q are those of f alone), and are free
    again after it.  ``names``: the inputs so taken."""

    def __init__(self, pb):
        self.pb = pb
        self.names = pb.free_inputs if pb.inputs else []
        self._set = list(self.names)

    def __enter__(self):
        for name in self._set:
            self.pb.set_input(name, 0.0)
        return self

    def __exit__(self, *exc):
        for name in self._set:
            self.pb.set_input(name, None)


def outputs(pb, times, zc, what="y"):
    """The file's outputs y = C z + D u + y0 at `times` for the rows of z
    `zc` (s numbers each, the chain order), by lth_system_outputs as the
    tools compute them: (n x n_y), or None without outputs."""
    sys_ = pb._system()
    ny = LIB.lth_system_noutputs(sys_)
    if ny == 0:
        return None
    zc = np.asarray(zc, dtype=float)
    y = np.zeros((len(times), ny))
    err = _lib.new_error()
    for k, t in enumerate(times):
        z = np.ascontiguousarray(zc[k, :pb.s])
        _lib.check(LIB.lth_system_outputs(sys_, float(t), z.ctypes.data, y[k].ctypes.data,
                                          ctypes.byref(err)), err)
    bad = np.argwhere(~np.isfinite(y))
    if bad.size:
        k, j = bad[0]
        raise NotFiniteError("%s: the output %s is not finite (%g)" % (what, pb.outputs[j],
                                                                      y[k, j]),
                             t=float(times[k]))
    return y


def find_name(names, key):
    """The index of ``key`` in the list ``names``, -1 if none; a derivative
    x' may be spelled "d.x" or "x_dot" (lth_name_find: the names themselves
    come first)."""
    arr = (ctypes.c_char_p * max(len(names), 1))(*[n.encode() for n in names])
    return LIB.lth_name_find(ctypes.cast(arr, ctypes.c_void_p), len(names), key.encode())


def _component_name(system, i):
    buf = ctypes.create_string_buffer(128)
    LIB.lth_system_component_name(system, i, buf, len(buf))
    return buf.value.decode()


def _short_name(full):
    """'z[4] (z_2[1])' -> 'z_2[1]', as the tools' JSON "components"."""
    if "(" in full and ")" in full:
        return full[full.index("(") + 1:full.index(")")]
    return full


_FORM_EQUATIONS = 1  # lth_problem_form (include/lth/problem.h)


def _free_problem(handle):
    LIB.lth_problem_free(handle)


def _user_names(handle, s):
    """(names in the chain order, variable_index) of an equation-form file, else None:
    every unknown, z's s positions then the index-1 unknowns (positions s.. of
    perm, docs/equations.md section 10), as the tools' JSON components."""
    if LIB.lth_problem_get_form(handle) != _FORM_EQUATIONS:
        return None
    perm = ctypes.cast(LIB.lth_problem_perm(handle), ctypes.POINTER(ctypes.c_int))
    nvars = LIB.lth_problem_nvars(handle)
    if not perm or nvars < s:
        return None
    users = [int(perm[i]) for i in range(nvars)]  # the user's unknown at chain position i
    return ([LIB.lth_problem_var_name(handle, k).decode() for k in users], users)


def _dense_bc(sbc, rows, s, nvars, where):
    """B0, B1 (rows x nvars, the user's order) and beta from the library's
    compressed columns (chain order)."""
    out = []
    for c in (sbc.B0, sbc.B1):
        colptr = np.ctypeslib.as_array(ctypes.cast(c.colptr, ctypes.POINTER(ctypes.c_int)),
                                       (s + 1,))
        nnz = int(colptr[s])
        B = np.zeros((rows, nvars))
        if nnz:
            ri = np.ctypeslib.as_array(ctypes.cast(c.rowind, ctypes.POINTER(ctypes.c_int)),
                                       (nnz,))
            v = _lib.doubles(c.val, nnz)
            cols = np.repeat(np.arange(s), np.diff(colptr))
            B[ri, where[cols]] = v
        out.append(B)
    return out[0], out[1], _lib.doubles(sbc.beta, rows).copy()


def _from_handle(handle, name, source_text=None):
    """A Problem owning an lth_problem*."""
    handle = ctypes.c_void_p(handle)
    system = LIB.lth_problem_system(handle)
    t0, t1 = ctypes.c_double(), ctypes.c_double()
    LIB.lth_problem_interval(handle, ctypes.byref(t0), ctypes.byref(t1))
    gp = ctypes.c_void_p()
    n = LIB.lth_problem_grid(handle, ctypes.byref(gp))
    grid = _lib.doubles(gp.value, n)
    s = LIB.lth_system_size(system)
    names = _user_names(handle, s)
    # the library holds z0 (every unknown: z, then the index-1 ones) and bc (z's
    # columns: those of the index-1 unknowns are folded in) in the chain order;
    # Python gives them in the user's
    where = np.array(names[1] if names else range(s), dtype=int)  # chain -> user
    nvars = len(where)
    zp = ctypes.c_void_p()
    z0 = None
    if LIB.lth_problem_z0(handle, ctypes.byref(zp)):
        z0 = np.empty(nvars)
        z0[where] = _lib.doubles(zp.value, nvars)
    sbc = S["lth_bvp_sparse_bc"]()
    rows = LIB.lth_problem_bc_csc(handle, ctypes.byref(sbc))
    if rows < 0:
        raise MemoryError("out of memory for the boundary conditions")
    bc_loader = (lambda: _dense_bc(sbc, rows, s, nvars, where)) if rows > 0 else None
    sampled = []
    for k in range(LIB.lth_problem_sampled_count(handle)):
        label = ctypes.c_char_p()
        src = LIB.lth_problem_sampled(handle, k, ctypes.byref(label))
        sampled.append((label.value.decode(), src))
    kind = "lqr" if LIB.lth_problem_get_kind(handle) == _PROBLEM_LQR else "dae"
    spec = None
    if kind == "lqr":
        spec = ctypes.cast(LIB.lth_problem_lqr(handle), ctypes.POINTER(S["lth_lqr_spec"]))
    pb = Problem(system, kind, name, (t0.value, t1.value), grid, z0, None,
                 LIB.lth_problem_sampling_order(handle), spec, sampled, None,
                 source_text=source_text, names=names,
                 model=LIB.lth_problem_model(handle) if names else None)
    pb._handle = handle
    pb._bc_loader = bc_loader  # pb.bc made dense on first use
    pb.inputs = [LIB.lth_problem_input_name(handle, k).decode()
                 for k in range(LIB.lth_problem_ninputs(handle))]
    pb.outputs = [LIB.lth_problem_output_name(handle, k).decode()
                  for k in range(LIB.lth_problem_noutputs(handle))]
    pb._finalizer = weakref.finalize(pb, _free_problem, handle)
    return pb


def _source_value(src, n, t):
    """The n x n value of a source at t (lth_source_fill)."""
    jet, err = S["lth_jet"](), _lib.new_error()
    _lib.check(LIB.lth_jet_init(ctypes.byref(jet), n, n, 0, ctypes.byref(err)), err)
    try:
        work = np.zeros(LIB.lth_source_work_size(src, 0) + 1)
        _lib.check(LIB.lth_source_fill(src, t, 0, ctypes.byref(jet), work.ctypes.data,
                                       ctypes.byref(err)), err)
        return _lib.jet_coef(jet, 0)
    finally:
        LIB.lth_jet_release(ctypes.byref(jet))


def _read_opts(params):
    """An lth_problem_opts holding params {NAME: VALUE} as "NAME=VALUE" strings
    (the tools' --param NAME=VALUE), and what must stay alive while it is used.
    A VALUE is a number or the text of a constant expression ("2*g"), which may
    use the params the file defines before NAME."""
    if params is None:
        return None, None
    if not isinstance(params, dict):
        raise UsageError("params must be a dict {name: value}, not %s" % type(params).__name__)
    items = []
    for key, value in params.items():
        if not isinstance(key, str) or not key.isidentifier() or not key.isascii():
            raise UsageError("params: the name %r is not an identifier" % (key,))
        if isinstance(value, str):
            if "\0" in value or not value.strip():
                raise UsageError("params[%r]: the expression %r is empty or holds a NUL "
                                 "character" % (key, value))
            text = value
        else:
            text = repr(number(value, "params[%r]" % key))  # reads back to the same double
        items.append(("%s=%s" % (key, text)).encode("utf-8"))
    strings = (ctypes.c_char_p * max(len(items), 1))(*items)
    opts = S["lth_problem_opts"]()
    opts.params = ctypes.cast(strings, ctypes.c_void_p)
    opts.nparams = len(items)
    return opts, strings


def load(path, params=None):
    """Read a data file (.lth) into a :class:`Problem`.

    ``params``: a dict {name: value} that overrides the file's ``param``
    statements, like the tools' ``--param NAME=VALUE`` (a sweep without
    editing the file).  A value is a number or the text of a constant
    expression (``"2*g"``, using params defined before it in the file).  A
    name the file does not define, or a value that is no constant, is a
    :class:`lth.UsageError` (``InvalidArgumentError``) with the tools' message,
    as ``--param`` is a usage error of the tools.

    Errors: :class:`lth.FileError` (unreadable), :class:`lth.ParseError` and the
    other :class:`lth.InputError` classes, with ``file``, ``line`` and ``column``.
    """
    try:
        path = os.fsdecode(os.fspath(path))
    except TypeError:
        raise UsageError("load() takes a file path, not %s" % type(path).__name__) from None
    if "\0" in path:
        raise UsageError("a file name cannot contain a NUL character")
    opts, keep = _read_opts(params)
    out = ctypes.c_void_p()
    err = _lib.new_error()
    st = LIB.lth_problem_read_opts(path.encode(), ctypes.byref(opts) if opts else None,
                                   ctypes.byref(out), ctypes.byref(err))
    del keep
    _lib.check(st, err)
    return _from_handle(out.value, path)


def parse(text, name="<string>", basedir=None, params=None):
    """Parse the text of a data file into a :class:`Problem`.

    ``name`` is used in error messages; ``basedir`` resolves the paths of
    ``samples("...")`` (default: the current directory); ``params`` as for
    :func:`load`.
    """
    if isinstance(text, str):
        data = text.encode("utf-8")
    elif isinstance(text, (bytes, bytearray)):
        data = bytes(text)
    else:
        raise UsageError("parse() takes the text of a data file (str or bytes), not %s"
                         % type(text).__name__)
    for label, value in (("name", name), ("basedir", basedir)):
        if value is not None and (not isinstance(value, str) or "\0" in value):
            raise UsageError("%s must be a string without NUL characters" % label)
    opts, keep = _read_opts(params)
    buf = ctypes.create_string_buffer(data, len(data) + 1)
    out = ctypes.c_void_p()
    err = _lib.new_error()
    st = LIB.lth_problem_parse_opts(buf, len(data), name.encode(),
                                    basedir.encode() if basedir is not None else None,
                                    ctypes.byref(opts) if opts else None,
                                    ctypes.byref(out), ctypes.byref(err))
    del keep
    _lib.check(st, err)
    return _from_handle(out.value, name, source_text=text)


# ---- argument helpers shared by the workflow functions ----

def as_problem(problem):
    """Accept a Problem, a Model (built on the fly) or a path."""
    if isinstance(problem, Problem):
        return problem
    if hasattr(problem, "build") and callable(problem.build):
        return problem.build()
    if isinstance(problem, (str, os.PathLike)):
        return load(problem)
    raise UsageError("expected an lth.Problem, a Model or a data file path, not %s"
                     % type(problem).__name__)


def floats(values, what, ndim=None):
    """A float64 array of `values`, or a UsageError: an entry that is no number,
    an integer beyond the doubles (Python's 2**1024 would raise OverflowError),
    or (ndim given) an array of more dimensions, which would otherwise be
    flattened silently."""
    try:
        arr = np.array(values, dtype=float)
    except OverflowError:
        raise UsageError("%s holds a number too large for a double (above 1.8e308)"
                         % what) from None
    except (TypeError, ValueError):
        raise UsageError("%s must be numbers" % what) from None
    if ndim is not None and arr.ndim > ndim:
        raise UsageError("%s must be %s, not an array of shape %s"
                         % (what, "a number" if ndim == 0 else "one-dimensional (a list of "
                            "numbers)" if ndim == 1 else "a %d-dimensional array" % ndim,
                            "x".join(map(str, arr.shape))))
    return arr


def vector(values, n, what):
    """A float64 C-contiguous vector of n finite entries (a list or a 1-D
    array; a number when n = 1)."""
    arr = floats(values, what, ndim=1).reshape(-1)
    if arr.size != n:
        raise UsageError("%s has %d values; %d are needed" % (what, arr.size, n))
    if not np.all(np.isfinite(arr)):
        raise UsageError("%s holds a non-finite value" % what)
    return np.ascontiguousarray(arr)


def number(value, what, lo=-math.inf, hi=math.inf, integer=False):
    """A finite number in [lo, hi] (an int if integer)."""
    if isinstance(value, bool):
        raise UsageError("%s must be a number, not a bool" % what)
    try:
        x = float(value)
    except OverflowError:
        raise UsageError("%s = %.40s... is too large for a double (above 1.8e308)"
                         % (what, str(value))) from None
    except (TypeError, ValueError):
        raise UsageError("%s must be a number, not %r" % (what, value)) from None
    if integer and (not math.isfinite(x) or x != int(x)):
        raise UsageError("%s must be an integer, not %r" % (what, value))
    if not (math.isfinite(x) and lo <= x <= hi):
        raise UsageError("%s = %r is not a finite number in [%g, %g]" % (what, value, lo, hi))
    return int(x) if integer else x


def uniform(t0, t1, n):
    """n uniform points from t0 to t1, computed as the data files' `grid N`."""
    return np.array([t1 if k + 1 == n else t0 + (t1 - t0) * (k / (n - 1)) for k in range(n)])


def select_times(pb, times=None, grid=None, what="times"):
    """The report times: explicit `times` (kept in order; each in the interval),
    `grid` uniform points, or the problem's grid."""
    t0, t1 = pb.interval
    if times is not None and grid is not None:
        raise UsageError("give %s or grid, not both" % what)
    if times is not None:
        arr = floats(times, what, ndim=1).reshape(-1)
        if arr.size == 0:
            raise UsageError("%s is empty" % what)
        for t in arr:
            if not (t0 <= t <= t1):
                raise UsageError("%s: time %r lies outside the interval [%r, %r] of %s"
                                 % (what, float(t), t0, t1, pb.name),
                                 t=float(t) if math.isfinite(t) else None)
        return np.ascontiguousarray(arr)
    if grid is not None:
        n = number(grid, "grid", 2, 1e8, integer=True)
        return uniform(t0, t1, n)
    return pb.grid.copy()
