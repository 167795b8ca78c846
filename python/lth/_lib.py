# SPDX-License-Identifier: GPL-3.0-or-later
"""liblth through ctypes: loading, struct layouts, function prototypes, errors.

Nothing here is mirrored by hand from the C headers: the struct layouts
(sizeof, offsetof and a type code per member) and the function prototypes
come from ``_layout.py``, which ``python/gen_layout.c`` writes at build time
from the headers as the compiler sees them.  A struct gets a ctypes class
with explicit padding at exactly the compiler's offsets and exactly its
sizeof, so a member added to a header moves nothing Python reads.

The library is found, in this order, at ``$LTH_LIBRARY`` (a path), at the
path recorded when the package was built or installed (``_config.py``), or
by the system loader (``ctypes.util.find_library("lth")``).
"""

import ctypes
import ctypes.util
import os

from . import errors
from ._layout import FUNCTIONS, POINTER_SIZE, STRUCTS

try:
    from ._config import LIBRARY as _RECORDED
except ImportError:  # a copy of the package without its build configuration
    _RECORDED = None

_SCALARS = {
    ("int", 4): ctypes.c_int,
    ("uint", 4): ctypes.c_uint,
    ("long", 8): ctypes.c_long,
    ("long", 4): ctypes.c_long,
    ("ulong", 8): ctypes.c_ulong,
    ("ulong", 4): ctypes.c_ulong,
    ("double", 8): ctypes.c_double,
    ("ptr", POINTER_SIZE): ctypes.c_void_p,
}


def _member_type(code, size, classes):
    if code == "char[]":
        return ctypes.c_char * size
    if code == "double[]":
        return ctypes.c_double * (size // ctypes.sizeof(ctypes.c_double))
    if code in classes:
        return classes[code]
    key = (code, size)
    if key not in _SCALARS:
        raise ImportError("lth: member type %r of size %d is unknown to the Python package "
                          "(rebuild it; _layout.py and the package disagree)" % (code, size))
    return _SCALARS[key]


def _make_struct(name, size, members, classes):
    """A ctypes Structure with the members at the compiler's offsets."""
    fields, at, npad = [], 0, 0
    for mname, offset, msize, code in sorted(members, key=lambda m: m[1]):
        if offset < at:
            raise ImportError("lth: overlapping members in the layout of %s" % name)
        if offset > at:
            fields.append(("_pad%d" % npad, ctypes.c_char * (offset - at)))
            npad += 1
        mtype = _member_type(code, msize, classes)
        if ctypes.sizeof(mtype) != msize:
            raise ImportError("lth: member %s.%s has %d bytes in C, %d in ctypes"
                              % (name, mname, msize, ctypes.sizeof(mtype)))
        fields.append((mname, mtype))
        at = offset + msize
    if size > at:
        fields.append(("_pad%d" % npad, ctypes.c_char * (size - at)))
    cls = type(name, (ctypes.Structure,), {"_pack_": 1, "_fields_": fields})
    if ctypes.sizeof(cls) != size:
        raise ImportError("lth: struct %s has %d bytes in C, %d in ctypes"
                          % (name, size, ctypes.sizeof(cls)))
    for mname, offset, _, _ in members:
        if getattr(cls, mname).offset != offset:
            raise ImportError("lth: member %s.%s is not at offset %d" % (name, mname, offset))
    return cls


def _build_structs():
    classes = {}
    pending = dict(STRUCTS)
    while pending:  # embedded structs first (lth_jet in lth_point, ...)
        progress = False
        for name, (size, members) in list(pending.items()):
            needs = {code for _, _, _, code in members if code in STRUCTS}
            if needs <= set(classes):
                classes[name] = _make_struct(name, size, members, classes)
                del pending[name]
                progress = True
        if not progress:
            raise ImportError("lth: circular struct layout: %s" % sorted(pending))
    return classes


S = _build_structs()
Error_t = S["lth_error"]

_RET = {"int": ctypes.c_int, "double": ctypes.c_double, "ptr": ctypes.c_void_p,
        "size_t": ctypes.c_size_t, "char*": ctypes.c_char_p, "void": None}
_ARG = {"int": ctypes.c_int, "uint": ctypes.c_uint, "double": ctypes.c_double, "ptr": ctypes.c_void_p,
        "size_t": ctypes.c_size_t, "char*": ctypes.c_char_p}

# Callback types (their C types are checked in gen_layout.c).
LOOKUP_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                             ctypes.POINTER(ctypes.c_double))
CONSUMER_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                               ctypes.c_void_p)


def library_path():
    """The path of the liblth the package loads (see the module docstring)."""
    env = os.environ.get("LTH_LIBRARY")
    if env:
        return env
    if _RECORDED and os.path.exists(_RECORDED):
        return _RECORDED
    return ctypes.util.find_library("lth")


def _load():
    path = library_path()
    if not path:
        raise ImportError("lth: liblth not found: set LTH_LIBRARY to the path of liblth.so "
                          "(the package records the installed library's path at build time)")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("lth: cannot load liblth from %s: %s" % (path, e)) from None
    for name, (ret, args) in FUNCTIONS.items():
        fn = getattr(lib, name)
        fn.restype = _RET[ret]
        fn.argtypes = [_ARG[a] for a in args.split(",")] if args else []
    # GSL's default error handler aborts the process; lth reports through
    # status codes, so switch it off (as the command-line tools do).
    try:
        lib.gsl_set_error_handler_off.restype = ctypes.c_void_p
        lib.gsl_set_error_handler_off()
    except AttributeError:
        pass
    return lib, path


LIB, LIBRARY_PATH = _load()


# ---- errors ----

def new_error():
    """A cleared lth_error record."""
    return Error_t()


def _text(buf):
    return bytes(buf).split(b"\0", 1)[0].decode("utf-8", "replace")


# The library's messages name its C options (opts.cond_max) and functions;
# a Python user has keyword arguments and lth.ic.  Longest spellings first.
_OPTION_NAMES = (
    ("opts.method = LTH_BVP_COLLOCATION", 'method="collocation"'),
    ("opts.method = LTH_LQR_COLLOCATION", 'method="collocation"'),
    ("(lth_ic_project, lth_ic_nearest)", "(lth.ic)"),
    ("opts.cond_max", "cond_max"),
    ("opts.stabilize = ", "stabilize="),
    ("opts.stabilize", "stabilize"),
    ("set opts.project", "pass project=True"),
    ("opts.fd.points", "points"),
    ("opts.params ", "param "),
)


def python_message(text):
    """A library message in the words of the Python API."""
    for lib, py in _OPTION_NAMES:
        text = text.replace(lib, py)
    return text


def exception(err, status=None):
    """The Python exception for an lth_error record."""
    st = int(status if status is not None else err.status)
    if st == 0:
        st = int(err.status) or errors.STATUS_VALUE["LTH_EINVAL"]
    buf = ctypes.create_string_buffer(2048)
    LIB.lth_error_format(ctypes.byref(err), buf, len(buf))
    return errors.from_status(
        st, python_message(_text(err.message)) or LIB.lth_strerror(st).decode(),
        t=float(err.t) if err.has_t else None,
        cond=float(err.cond) if err.has_cond else None,
        file=_text(err.file) or None,
        line=int(err.line) or None,
        column=int(err.column) or None,
        formatted=python_message(buf.value.decode("utf-8", "replace")))


def check(status, err):
    """Raise the exception of err if status is not LTH_OK."""
    if status != 0:
        raise exception(err, status)


def check_ptr(ptr, err):
    """Raise the exception of err if an allocating call returned NULL."""
    if not ptr:
        raise exception(err)
    return ptr


def error_record(status, message, t=None, file=None, line=0, column=0, cond=None):
    """An lth_error filled from Python (for messages composed here)."""
    err = Error_t()
    err.status = status
    err.message = message.encode()[:511]
    if t is not None:
        err.has_t, err.t = 1, t
    if cond is not None:
        err.has_cond, err.cond = 1, cond
    if file:
        err.file = file.encode()[:255]
    err.line, err.column = line, column
    return err


def status_value(name):
    return errors.STATUS_VALUE[name]


# ---- memory views ----

def doubles(ptr, count):
    """A NumPy copy of count doubles at the C address ptr."""
    import numpy as np
    if count == 0 or not ptr:
        return np.zeros(count)
    arr = (ctypes.c_double * count).from_address(ptr)
    return np.array(arr, dtype=float, copy=True)


def jet_coef(jet, k=0):
    """Taylor coefficient k of an lth_jet as a rows x cols NumPy array (a copy)."""
    import numpy as np
    rows, cols, ld = jet.rows, jet.cols, jet.ld
    if rows == 0 or cols == 0:
        return np.zeros((rows, cols))
    base = jet.c + 8 * k * jet.stride
    flat = doubles(base, ld * (cols - 1) + rows)
    return np.lib.stride_tricks.as_strided(
        flat, shape=(rows, cols), strides=(8, 8 * ld)).copy()
