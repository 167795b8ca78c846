# SPDX-License-Identifier: GPL-3.0-or-later
"""The choice between the dense path and the operator path (``path=`` of
lth.solve, lth.ic and lth.decompose): the library's rule,
``lth_path_choose`` (include/lth/path.h), the one the tools' ``--path``
follows.

``"auto"`` takes the operator path (nothing s x s formed; include/lth/
opdecomp.h) from s = 500 on when A stores at most half of s^2 entries,
unless the call asks for what only the dense path does (sampled data, or
an option of the dense path, named by the caller): then it stays dense with
a :class:`lth.PathWarning`.  ``"operator"`` with such an option is a
:class:`lth.UsageError` naming it; ``"dense"`` always forms the matrices.
"""

import ctypes
import warnings

from . import _lib, errors
from ._lib import LIB, S

_MODES = {"auto": 0, "dense": 1, "operator": 2}
INTEGRATES = 1  # LTH_PATH_INTEGRATES
SPARSE_A = 2  # LTH_PATH_SPARSE_A: the request reads A's blocks as sparse matrices


class Path:
    """``with Path(pb, path, ...) as p:`` the library's choice for the
    problem's system: ``p.op`` (True on the operator path), ``p.sys`` (its
    operator form, an lth_opsys pointer, valid inside the block), ``p.name``
    ("dense" or "operator"), ``p.why`` (why, in words), ``p.nnz`` and
    ``p.density`` (A's stored entries, counted at size)."""

    def __init__(self, pb, path, *, integrates=False, sparse_a=False, dense_only=None,
                 stacklevel=3):
        if path not in _MODES:
            raise errors.UsageError("path must be 'auto', 'dense' or 'operator', not %r"
                                    % (path,))
        self.mode = path
        self._c = S["lth_path_choice"]()
        err = _lib.new_error()
        # kept: the choice's obstacle may point into it
        self._dense_only = ctypes.create_string_buffer(dense_only.encode()) if dense_only \
            else None
        flags = (INTEGRATES if integrates else 0) | (SPARSE_A if sparse_a else 0)
        st = LIB.lth_path_choose(pb._system(), _MODES[path], flags,
                                 ctypes.cast(self._dense_only, ctypes.c_char_p)
                                 if dense_only else None,
                                 ctypes.byref(self._c), ctypes.byref(err))
        obstacle = ctypes.string_at(self._c.obstacle).decode() if self._c.obstacle else None
        if st != 0:
            LIB.lth_path_choice_free(ctypes.byref(self._c))
            if obstacle and path == "operator":
                raise errors.UsageError("path='operator': the operator path does not take %s; "
                                        "use path='dense' (or 'auto')" % obstacle)
            _lib.check(st, err)
        if obstacle:
            warnings.warn("s = %d would take the operator path, but this call asks for %s: the "
                          "dense path (s x s matrices) is used" % (pb.s, obstacle),
                          errors.PathWarning, stacklevel=stacklevel)
        self.op = bool(self._c.op)
        self.sys = self._c.sys
        self.name = LIB.lth_path_name(ctypes.byref(self._c)).decode()
        self.nnz = int(self._c.nnz)
        self.density = float(self._c.density)
        why = _lib._text(self._c.why)
        self.why = {"dense": "path='dense'", "operator": "path='operator'; " + why}.get(path, why)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        LIB.lth_path_choice_free(ctypes.byref(self._c))
        self.sys = None
