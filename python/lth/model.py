# SPDX-License-Identifier: GPL-3.0-or-later
"""Building problems from Python, and writing them as data files.

A :class:`Model` holds a DAE as the data file would: block sizes, interval,
grid, named parameters and the blocks ``A[i, j]`` and ``f[i]`` (1-based, as in
Clark's paper), each one of

- a number or a NumPy array / nested list of numbers (a constant block),
- the string ``"eye"`` (identity),
- expression strings in t: a nested list (or array) of strings and numbers,
  or one string for a 1 x 1 block (``"sin(t)"``, ``"-g"``, ``"2 + t"``),
- :class:`Samples` (sampled data, from arrays or a CSV file).

``build()`` makes a :class:`lth.Problem` (the C system is built directly, no
file involved); ``to_string()`` / ``to_file()`` write the data file, which
reads back to the same numbers (every number is written so that it reads
back exactly).  :class:`LQRModel` does the same for ``problem lqr``.
"""

import ctypes
import math
import os
import weakref

import numpy as np

from . import _lib, errors
from ._lib import LIB, S
from .problem import Problem, floats, number, parse, uniform, vector
from .writer import format_model

_ref = ctypes.byref
_MAX_BLOCKS, _MAX_SIZE, _MAX_ENTRIES, _MAX_GRID = 64, 100000, 50_000_000, 10_000_000


class Samples:
    """A sampled matrix function: ``t`` (n strictly increasing times) and
    ``values`` of shape (n, rows, cols), (n, rows*cols) in row-major order, or
    (n,) for a 1 x 1 block.  ``Samples.from_csv(path)`` refers to a CSV file
    (column t, then the entries row by row) instead."""

    def __init__(self, t, values):
        self.path = None
        self.t = np.ascontiguousarray(floats(t, "Samples: t", ndim=1).reshape(-1))
        self.values = floats(values, "Samples: values", ndim=3)
        if self.values.shape[:1] != self.t.shape:
            raise errors.UsageError("Samples: %d times but %d rows of values"
                                    % (self.t.size, self.values.shape[0] if self.values.ndim
                                       else 0))
        if not (np.all(np.isfinite(self.t)) and np.all(np.isfinite(self.values))):
            raise errors.UsageError("Samples: a time or value is not finite")
        if self.t.size >= 2 and not np.all(np.diff(self.t) > 0):
            raise errors.UsageError("Samples: the times must be strictly increasing")

    @classmethod
    def from_csv(cls, path):
        """Samples read by lth from a CSV file when the model is built."""
        obj = cls.__new__(cls)
        obj.path = os.fspath(path)
        if not isinstance(obj.path, str) or "\0" in obj.path:
            raise errors.UsageError("Samples.from_csv: a bad path")
        obj.t = obj.values = None
        return obj

    def flat(self, rows, cols, label):
        """Values as (n, rows*cols) row-major, checked against the block size."""
        v = self.values
        n = self.t.size
        if v.shape in ((n, rows, cols), (n, rows * cols)) or (rows * cols == 1 and v.shape == (n,)):
            return np.ascontiguousarray(v.reshape(n, rows * cols))
        raise errors.UsageError("%s: samples of shape %s do not fit a %d x %d block"
                                % (label, v.shape, rows, cols))


class _Blocks:
    """model.A[i, j] = ... / model.f[i] = ... (1-based)."""

    def __init__(self, model, kind):
        self._model, self._kind = model, kind

    def __setitem__(self, key, value):
        if self._kind == "A":
            if not (isinstance(key, tuple) and len(key) == 2):
                raise errors.UsageError("A blocks are set as model.A[i, j] = ... (1-based)")
            self._model.set_A(key[0], key[1], value)
        else:
            self._model.set_f(key, value)

    def __getitem__(self, key):
        key = tuple(key) if isinstance(key, tuple) else (key,)
        return self._model._blocks[(self._kind,) + key][1]

    def __contains__(self, key):
        key = tuple(key) if isinstance(key, tuple) else (key,)
        return (self._kind,) + key in self._model._blocks


def _entry_text(x, label):
    if isinstance(x, str):
        if "\n" in x or "#" in x or "\0" in x:
            raise errors.UsageError("%s: an expression cannot contain a newline, '#' or NUL"
                                    % label)
        return x.strip()
    if isinstance(x, bool):
        raise errors.UsageError("%s: a bool is not a number" % label)
    try:
        v = float(x)
    except OverflowError:
        raise errors.UsageError("%s: entry %.40s... is too large for a double (above 1.8e308)"
                                % (label, str(x))) from None
    except (TypeError, ValueError):
        raise errors.UsageError("%s: entry %r is neither a number nor an expression string"
                                % (label, x)) from None
    if not math.isfinite(v):
        raise errors.UsageError("%s: entry %r is not finite" % (label, x))
    return v


def normalize_block(value, rows, cols, label):
    """(kind, data): ("eye", None), ("const", float array rows x cols),
    ("expr", rows x cols list of str/float), ("samples", Samples)."""
    if isinstance(value, Samples):
        if value.path is None:
            value.flat(rows, cols, label)
        return ("samples", value)
    if isinstance(value, str):
        if value.strip() == "eye":
            if rows != cols:
                raise errors.UsageError("%s: eye needs a square block, this one is %d x %d"
                                        % (label, rows, cols))
            return ("eye", None)
        if rows * cols != 1:
            raise errors.UsageError("%s: one expression string fits a 1 x 1 block only; give a "
                                    "%d x %d nested list of expressions" % (label, rows, cols))
        return ("expr", [[_entry_text(value, label)]])
    try:
        arr = np.array(value, dtype=object)
    except (TypeError, ValueError):
        raise errors.UsageError("%s: not a matrix" % label) from None
    if arr.ndim == 0:
        arr = arr.reshape(1, 1)
    elif arr.ndim == 1 and cols == 1 and arr.size == rows:
        arr = arr.reshape(rows, 1)
    elif arr.ndim == 1 and rows == 1 and arr.size == cols:
        arr = arr.reshape(1, cols)
    if arr.shape != (rows, cols):
        raise errors.UsageError("%s must be %d x %d, not %s" % (
            label, rows, cols, " x ".join(map(str, arr.shape)) or "a scalar"))
    ent = [[_entry_text(arr[i, j], label) for j in range(cols)] for i in range(rows)]
    if all(isinstance(e, float) for row in ent for e in row):
        return ("const", np.array(ent, dtype=float))
    return ("expr", ent)


class _Builder:
    """Makes lth sources from normalized blocks (expressions see the params)."""

    def __init__(self, params, name, degree):
        self.params, self.name, self.degree = params, name, degree
        self.lookup = _lib.LOOKUP_FN(self._lookup)

    def _lookup(self, ctx, name, length, value):
        try:
            key = ctypes.string_at(name, length).decode("utf-8", "replace")
            if key in self.params:
                value[0] = self.params[key]
                return 1
            return 0
        except BaseException:
            return 0

    def source(self, kind, data, rows, cols, label):
        err = _lib.new_error()
        if kind == "eye":
            src = LIB.lth_source_identity(rows, cols, _ref(err))
        elif kind == "const":
            a = np.asfortranarray(data)
            src = LIB.lth_source_const(rows, cols, a.ctypes.data, rows, _ref(err))
        elif kind == "samples":
            src = self._samples(data, rows, cols, label, err)
        else:
            src = self._expr(data, rows, cols, label, err)
        if not src:
            raise self._located(err, label)
        return src

    def _samples(self, smp, rows, cols, label, err):
        if smp.path is not None:
            return LIB.lth_samples_read_csv(smp.path.encode(), rows, cols, self.degree, _ref(err))
        vals = smp.flat(rows, cols, label)
        return LIB.lth_source_samples(rows, cols, smp.t.size, smp.t.ctypes.data, vals.ctypes.data,
                                      self.degree, _ref(err))

    def _expr(self, ent, rows, cols, label, err):
        ptrs = (ctypes.c_void_p * (rows * cols))()
        made = 0
        try:
            for j in range(cols):
                for i in range(rows):
                    e = ent[i][j]
                    text = (repr(e) if isinstance(e, float) else e).encode()
                    st = LIB.lth_expr_parse(text, len(text), self.lookup, None,
                                            _ref(ptrs, (i + j * rows) * ctypes.sizeof(
                                                ctypes.c_void_p)), _ref(err))
                    if st != 0:
                        err.status = st
                        raise self._located(err, "%s entry (%d,%d) %r" % (label, i + 1, j + 1,
                                                                          e))
                    made += 1
        except BaseException:
            for k in range(rows * cols):
                if ptrs[k]:
                    LIB.lth_expr_free(ptrs[k])
            raise
        return LIB.lth_source_expr(rows, cols, ptrs, _ref(err))  # owns the expressions

    def _located(self, err, label):
        e = _lib.exception(err)
        e.message = "%s: %s" % (label, e.message)
        if not e.file:
            e.file = self.name
        e.formatted = errors._format(e)
        e.args = (e.formatted,)
        return e


def _grid(grid, t0, t1):
    if grid is None:
        return None, uniform(t0, t1, 101)
    if np.ndim(grid) == 0:
        n = number(grid, "grid", 2, _MAX_GRID, integer=True)
        return n, uniform(t0, t1, n)
    g = vector(grid, np.size(grid), "grid")
    if g.size < 2 or not np.all(np.diff(g) > 0) or g[0] < t0 or g[-1] > t1:
        raise errors.UsageError("grid points must be 2 or more, strictly increasing, in [%r, %r]"
                                % (t0, t1))
    return g, g


def _check_param_name(name):
    """Refuse a name the data-file parser refuses (t, pi, eye, the function
    names, ...), so that a model always writes a file that reads back: the
    parser itself judges, on a one-line file."""
    text = "blocks 1 1\ninterval 0 1\nparam %s = 0\nA(1,2) = 1\nA(2,1) = 1\n" % name
    try:
        parse(text, name="<param name>")
    except errors.Error as e:
        raise errors.UsageError("param name %r: %s" % (name, e.message)) from None


class _ModelBase:
    def __init__(self, interval, grid, params, name, sampling_order):
        try:
            t0, t1 = interval
        except (TypeError, ValueError):
            raise errors.UsageError("interval must be (t0, t1)") from None
        t0, t1 = number(t0, "interval t0"), number(t1, "interval t1")
        if not t0 < t1:
            raise errors.UsageError("interval: t0 = %r must be below t1 = %r" % (t0, t1))
        self.interval = (t0, t1)
        self.grid_spec, self.grid = _grid(grid, t0, t1)
        self.params = {}
        for key, val in (params or {}).items():
            if not (isinstance(key, str) and key.isidentifier() and key.isascii()):
                raise errors.UsageError("param name %r is not an identifier" % (key,))
            _check_param_name(key)
            self.params[key] = number(val, "param %s" % key)
        self.name = name
        self.sampling_order = (None if sampling_order is None
                               else number(sampling_order, "sampling_order", 1, 20, True))
        self._blocks = {}

    def _degree(self, r):
        return self.sampling_order if self.sampling_order is not None else r + 2

    def to_string(self, csv_dir=None, csv_prefix=""):
        """The data file text.  Sampled blocks from arrays are written to CSV
        files in `csv_dir` (named csv_prefix + block, e.g. "A21.csv")."""
        return format_model(self, csv_dir, csv_prefix)

    def to_file(self, path):
        """Write the data file (and CSV files of sampled blocks next to it,
        named after it: slope_A21.csv)."""
        path = os.fspath(path)
        d = os.path.dirname(os.path.abspath(path))
        stem = os.path.splitext(os.path.basename(path))[0]
        text = format_model(self, d, stem + "_", relative_to=d)
        with open(path, "w", encoding="utf-8") as fp:
            fp.write(text)
        return path


class Model(_ModelBase):
    """A DAE problem built from Python (see the module docstring).

    >>> m = Model([2, 2, 1], (0, 2), grid=201, params={"g": 9.81})
    >>> m.A[1, 3] = [[1], [2]]; m.A[2, 1] = "eye"; m.A[3, 2] = [[1, 2]]
    >>> m.f[1] = ["0", "-g"]; m.f[3] = -4
    """

    def __init__(self, blocks, interval, grid=None, params=None, z0=None, bc=None,
                 name="<model>", sampling_order=None):
        try:
            self.blocks = tuple(number(n, "block size", 1, _MAX_SIZE, True) for n in blocks)
        except TypeError:
            raise errors.UsageError("blocks must be a list of sizes n_1 ... n_r") from None
        if not 2 <= len(self.blocks) <= _MAX_BLOCKS:
            raise errors.UsageError("blocks: the index r = %d must be in 2..%d"
                                    % (len(self.blocks), _MAX_BLOCKS))
        if any(n < self.blocks[-1] for n in self.blocks):
            raise errors.UsageError("blocks: n_r = %d must not exceed any other n_i"
                                    % self.blocks[-1])
        super().__init__(interval, grid, params, name, sampling_order)
        self.s = sum(self.blocks)
        self.A = _Blocks(self, "A")
        self.f = _Blocks(self, "f")
        self.z0 = z0
        self._bc = None
        if bc is not None:
            self.set_bc(*bc)

    @property
    def z0(self):
        """The initial value (s numbers, or None), checked when set."""
        return self._z0

    @z0.setter
    def z0(self, value):
        self._z0 = None if value is None else vector(value, self.s, "z0")

    @property
    def bc(self):
        """(B0, B1, beta) or None; ``model.bc = (B0, B1, beta)`` is ``set_bc``."""
        return self._bc

    @bc.setter
    def bc(self, value):
        if value is None:
            self._bc = None
            return
        try:
            B0, B1, beta = value
        except (TypeError, ValueError):
            raise errors.UsageError("bc must be (B0, B1, beta)") from None
        self.set_bc(B0, B1, beta)

    def _index(self, i, what):
        r = len(self.blocks)
        i = number(i, what, 1, r, integer=True)
        return i

    def set_A(self, i, j, value):
        """Block A(i, j) (1-based)."""
        i, j = self._index(i, "block row i"), self._index(j, "block column j")
        label = "A(%d,%d)" % (i, j)
        self._blocks[("A", i, j)] = (label, normalize_block(value, self.blocks[i - 1],
                                                            self.blocks[j - 1], label))
        total = sum(self.blocks[k[1] - 1] * (self.blocks[k[2] - 1] if k[0] == "A" else 1)
                    for k in self._blocks)
        if total > _MAX_ENTRIES:
            del self._blocks[("A", i, j)]
            raise errors.UsageError("more than %d block entries" % _MAX_ENTRIES)

    def set_f(self, i, value):
        """Block f(i) (1-based)."""
        i = self._index(i, "block i")
        label = "f(%d)" % i
        self._blocks[("f", i)] = (label, normalize_block(value, self.blocks[i - 1], 1, label))

    def set_bc(self, B0, B1, beta):
        """Boundary conditions B0 z(t0) + B1 z(t1) = beta."""
        beta = floats(beta, "bc beta", ndim=1).reshape(-1)
        mats = []
        for nm, B in (("B0", B0), ("B1", B1)):
            B = floats(B, "bc " + nm)
            if B.shape != (beta.size, self.s) or not np.all(np.isfinite(B)):
                raise errors.UsageError("bc %s must be %d x %d finite numbers"
                                        % (nm, beta.size, self.s))
            mats.append(B)
        if not np.all(np.isfinite(beta)) or beta.size == 0:
            raise errors.UsageError("bc beta must be finite numbers")
        self._bc = (mats[0], mats[1], beta)

    def build(self):
        """The :class:`lth.Problem` (a C system built from the blocks)."""
        r = len(self.blocks)
        err = _lib.new_error()
        n = (ctypes.c_int * r)(*self.blocks)
        sysp = _lib.check_ptr(LIB.lth_system_alloc(r, n, _ref(err)), err)
        try:
            bld = _Builder(self.params, self.name, self._degree(r))
            sampled = []
            for key, (label, (kind, data)) in sorted(self._blocks.items()):
                rows = self.blocks[key[1] - 1]
                cols = self.blocks[key[2] - 1] if key[0] == "A" else 1
                src = bld.source(kind, data, rows, cols, label)
                if key[0] == "A":
                    st = LIB.lth_system_set_A(sysp, key[1], key[2], src, _ref(err))
                else:
                    st = LIB.lth_system_set_f(sysp, key[1], src, _ref(err))
                if st != 0:
                    raise bld._located(err, label)
                if kind == "samples":
                    sampled.append((label, src))
            if LIB.lth_system_validate(sysp, _ref(err)) != 0:
                raise bld._located(err, "blocks")
        except BaseException:
            LIB.lth_system_free(sysp)
            raise
        sys_ptr = ctypes.c_void_p(sysp)
        pb = Problem(sys_ptr, "dae", self.name, self.interval, self.grid, self.z0, self.bc,
                     self._degree(r), None, sampled)
        pb._finalizer = weakref.finalize(pb, LIB.lth_system_free, sys_ptr)
        return pb


class LQRModel(_ModelBase):
    """A totally singular LQR problem built from Python (``problem lqr``):
    minimise 1/2 x(t1)' C x(t1) + 1/2 int x' H x dt subject to x' = A x + B u,
    x(t0) = x0.  A (nx x nx), B (nx x nu) and H (nx x nx, symmetric) may be
    any block value of :class:`Model`; C (constant, symmetric) and x0 are
    numbers."""

    def __init__(self, sizes, interval, A, B, H, x0, C=None, grid=None, params=None,
                 name="<lqr model>", sampling_order=None):
        try:
            nx, nu = sizes
        except (TypeError, ValueError):
            raise errors.UsageError("sizes must be (nx, nu)") from None
        nx, nu = (number(k, "sizes", 1, _MAX_SIZE, True) for k in (nx, nu))
        if not nx > nu:
            raise errors.UsageError("sizes: nx = %d must exceed nu = %d" % (nx, nu))
        super().__init__(interval, grid, params, name, sampling_order)
        self.nx, self.nu = nx, nu
        for key, val, shape in (("A", A, (nx, nx)), ("B", B, (nx, nu)), ("H", H, (nx, nx))):
            self._blocks[(key,)] = (key, normalize_block(val, shape[0], shape[1], key))
        self.x0 = vector(x0, nx, "x0")
        C = np.zeros((nx, nx)) if C is None else floats(C, "C")
        if C.shape != (nx, nx) or not np.all(np.isfinite(C)):
            raise errors.UsageError("C must be %d x %d finite numbers" % (nx, nx))
        if np.max(np.abs(C - C.T)) > 1e-12 * np.max(np.abs(C)):
            raise errors.DataError("C must be symmetric, but max |C - C'| = %.3g"
                                   % np.max(np.abs(C - C.T)))
        self.C = C

    def build(self):
        """The :class:`lth.Problem` of the LQR optimality DAE."""
        bld = _Builder(self.params, self.name, self._degree(3))
        srcs, sampled = {}, []
        try:
            for key in ("A", "B", "H"):
                label, (kind, data) = self._blocks[(key,)]
                rows, cols = (self.nx, self.nu) if key == "B" else (self.nx, self.nx)
                srcs[key] = bld.source(kind, data, rows, cols, label)
                if kind == "samples":
                    sampled.append((key, srcs[key]))
            _check_symmetric_H(srcs["H"], self.nx, self.interval[0], self.name)
            C = np.asfortranarray(self.C)
            x0 = self.x0.copy()
            spec = S["lth_lqr_spec"](nx=self.nx, nu=self.nu, t0=self.interval[0],
                                     t1=self.interval[1], A=srcs["A"], B=srcs["B"], H=srcs["H"],
                                     C=C.ctypes.data, x0=x0.ctypes.data)
            out, err = ctypes.c_void_p(), _lib.new_error()
            _lib.check(LIB.lth_lqr_build_system(_ref(spec), _ref(out), _ref(err)), err)
        except BaseException:
            for s in srcs.values():
                LIB.lth_source_free(s)
            raise
        pspec = ctypes.pointer(spec)
        pb = Problem(out, "lqr", self.name, self.interval, self.grid, None, None,
                     self._degree(3), pspec, sampled, keep=(spec, C, x0))
        pb._finalizer = weakref.finalize(pb, _free_lqr, out, list(srcs.values()))
        return pb


def _free_lqr(system, sources):
    LIB.lth_system_free(system)
    for s in sources:
        LIB.lth_source_free(s)


def _check_symmetric_H(src, nx, t0, name):
    """H must be symmetric (checked at t0, as the data-file parser does)."""
    jet, err = S["lth_jet"](), _lib.new_error()
    _lib.check(LIB.lth_jet_init(_ref(jet), nx, nx, 0, _ref(err)), err)
    try:
        work = np.zeros(LIB.lth_source_work_size(src, 0) + 1)
        st = LIB.lth_source_fill(src, t0, 0, _ref(jet), work.ctypes.data, _ref(err))
        _lib.check(st, err)
        H = _lib.jet_coef(jet, 0)
    finally:
        LIB.lth_jet_release(_ref(jet))
    asym = float(np.max(np.abs(H - H.T)))
    if not asym <= 1e-12 * float(np.max(np.abs(H))):
        raise errors.DataError("H must be symmetric, but max |H - H'| = %.3g at t0 = %r"
                               % (asym, t0), file=name)
