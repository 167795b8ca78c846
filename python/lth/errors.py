# SPDX-License-Identifier: GPL-3.0-or-later
"""Exceptions: every failure of lth becomes an :class:`Error`.

The hierarchy follows the exit statuses of the command-line tools:

- :class:`UsageError` (exit status 1): a bad argument (wrong shape, a time
  outside the interval, an unknown method name).  Also a ``ValueError``.
- :class:`InputError` (exit status 2): the data are wrong (syntax error,
  missing file, block outside the Hessenberg pattern, bad boundary
  conditions, bad sampled data).  ``lth.FileError`` (a file that cannot be
  read or written) is also an ``OSError``.
- :class:`NumericalError` (exit status 3): the computation refused (singular
  or ill-conditioned Pi, inconsistent initial value, a BVP that is not
  uniquely solvable, a non-finite result).

Each library status code has its own subclass (``lth.SingularError`` for
``LTH_ESING``, ``lth.ParseError`` for ``LTH_EPARSE``, ...); the mapping is
``lth.errors.BY_STATUS``.  An error carries what lth's error record holds:
``message``, ``status`` (the code), ``status_name``, ``t`` and ``cond``
(``None`` where they do not apply), ``file``, ``line`` and ``column``
(``None`` when unknown), and ``exit_code`` (the tools' exit status).
``str(err)`` is the one-line message the tools print.
"""

from ._layout import STATUS


class Error(Exception):
    """Base class of every lth error (see the module docstring)."""

    exit_code = 3

    def __init__(self, message, status=None, t=None, cond=None, file=None, line=None,
                 column=None, formatted=None):
        self.message = message
        self.status = status if status is not None else _DEFAULT_STATUS.get(type(self), 1)
        self.status_name = STATUS_NAME.get(self.status, "LTH_E%d" % self.status)
        self.t = t
        self.cond = cond
        self.file = file
        self.line = line
        self.column = column
        self.formatted = formatted if formatted is not None else _format(self)
        super().__init__(self.formatted)
        if isinstance(self, OSError):  # FileError: what `except OSError` code reads
            self.filename = file

    def __str__(self):
        return self.formatted  # also for FileError, where OSError's own would show errno

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self.status, self.t, self.cond, self.file,
                           self.line, self.column, self.formatted))


def _rebuild(cls, *args):
    return cls(*args)


def _format(e):
    """file:line:col: message (t = ..., cond = ...), as lth_error_format."""
    out = ""
    if e.file:
        out = e.file
        if e.line:
            out += ":%d" % e.line
            if e.column:
                out += ":%d" % e.column
        out += ": "
    out += e.message
    extra = []
    if e.t is not None:
        extra.append("t = %.17g" % e.t)
    if e.cond is not None:
        extra.append("condition estimate %.3e" % e.cond)
    if extra:
        out += " (" + ", ".join(extra) + ")"
    return out


class UsageError(Error, ValueError):
    """A bad argument (the tools' exit status 1)."""

    exit_code = 1


class InputError(Error):
    """Bad input data (the tools' exit status 2)."""

    exit_code = 2


class NumericalError(Error):
    """A numerical failure or refusal (the tools' exit status 3)."""

    exit_code = 3


# One subclass per status code: (class name, base, docstring).
_CLASSES = {
    "LTH_EINVAL": ("InvalidArgumentError", UsageError, "An invalid argument (LTH_EINVAL)."),
    "LTH_EORDER": ("OrderError", UsageError, "Taylor order too low (LTH_EORDER)."),
    "LTH_EDIM": ("DimensionError", InputError, "A dimension mismatch (LTH_EDIM)."),
    "LTH_ESTRUCT": ("StructureError", InputError,
                    "A block outside the Hessenberg pattern or missing (LTH_ESTRUCT)."),
    "LTH_EPARSE": ("ParseError", InputError, "A syntax error in a data file or expression "
                   "(LTH_EPARSE); file, line and column say where."),
    "LTH_EIO": ("FileError", (InputError, OSError), "A file could not be read or written "
                "(LTH_EIO); also an ``OSError`` (``filename`` is ``file``)."),
    "LTH_ESAMPLE": ("SampleError", InputError, "Bad sampled data (LTH_ESAMPLE)."),
    "LTH_ERANGE": ("RangeError", InputError, "A time outside the interval (LTH_ERANGE)."),
    "LTH_EBC": ("BoundaryConditionError", InputError, "Bad boundary conditions (LTH_EBC)."),
    "LTH_EDATA": ("DataError", InputError, "Data violate a stated requirement (LTH_EDATA)."),
    "LTH_EMODEL": ("ModelError", InputError,
                   "Equations have no Hessenberg structure (LTH_EMODEL)."),
    "LTH_ENOMEM": ("OutOfMemoryError", NumericalError, "Out of memory (LTH_ENOMEM)."),
    "LTH_EDOMAIN": ("DomainError", NumericalError,
                    "A function evaluated outside its domain (LTH_EDOMAIN); t says where."),
    "LTH_ESING": ("SingularError", NumericalError,
                  "A singular matrix, e.g. Pi at time t (LTH_ESING)."),
    "LTH_ECOND": ("ConditionError", NumericalError,
                  "An ill-conditioned matrix (LTH_ECOND); t and cond say where and how bad."),
    "LTH_ECONSIST": ("InconsistentError", NumericalError,
                     "An inconsistent initial value (LTH_ECONSIST)."),
    "LTH_ENOTUNIQUE": ("NotUniqueError", NumericalError,
                       "A problem that is not uniquely solvable (LTH_ENOTUNIQUE)."),
    "LTH_ENOSOL": ("NoSolutionError", NumericalError, "No solution exists (LTH_ENOSOL)."),
    "LTH_EINTEG": ("IntegratorError", NumericalError, "The integrator failed (LTH_EINTEG)."),
    "LTH_ENOTFINITE": ("NotFiniteError", NumericalError,
                       "A result is not finite (LTH_ENOTFINITE)."),
    "LTH_ELAPACK": ("LapackError", NumericalError, "LAPACK reported an error (LTH_ELAPACK)."),
    "LTH_ECALLBACK": ("CallbackError", NumericalError,
                      "A user callback reported an error (LTH_ECALLBACK)."),
    "LTH_EVERIFY": ("VerifyError", NumericalError,
                    "A verification failed (LTH_EVERIFY), e.g. Theorem 3's residual."),
    "LTH_ETOL": ("ToleranceError", NumericalError,
                 "The requested tolerance cannot be reached (LTH_ETOL)."),
}

STATUS_NAME = {value: name for name, value, _, _ in STATUS}
BY_STATUS = {}
_DEFAULT_STATUS = {}
_KIND_BASE = {1: UsageError, 2: InputError, 3: NumericalError}

for _name, _value, _kind, _text in STATUS:
    if _value == 0:
        continue
    _cls_name, _base, _doc = _CLASSES.get(
        _name, ("Error%d" % _value, _KIND_BASE.get(_kind, NumericalError),
                "%s (%s)." % (_text.capitalize(), _name)))
    _cls = type(_cls_name, _base if isinstance(_base, tuple) else (_base,),
                {"__doc__": _doc, "exit_code": _kind, "__module__": __name__})
    globals()[_cls_name] = _cls
    BY_STATUS[_value] = _cls
    _DEFAULT_STATUS[_cls] = _value
STATUS_VALUE = {name: value for value, name in STATUS_NAME.items()}
_DEFAULT_STATUS[UsageError] = STATUS_VALUE["LTH_EINVAL"]

class PathWarning(UserWarning):
    """``path="auto"`` stayed on the dense path at a size that takes the
    operator path, because the call asks for what only the dense path does
    (the tools' warning on stderr; docs/python.md, "Large sparse systems")."""


__all__ = ["Error", "UsageError", "InputError", "NumericalError", "PathWarning", "BY_STATUS",
           "STATUS_NAME"] + [
    c[0] for c in _CLASSES.values()]


def usage(message, **kw):
    """A UsageError (status LTH_EINVAL) for a bad argument given from Python."""
    return UsageError(message, **kw)


def from_status(status, message, **kw):
    """The exception class of `status` instantiated with `message`."""
    cls = BY_STATUS.get(status, NumericalError)
    return cls(message, status=status, **kw)
