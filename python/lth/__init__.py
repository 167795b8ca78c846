# SPDX-License-Identifier: GPL-3.0-or-later
"""lth: linear time-varying Hessenberg DAEs of any index, from Python.

The whole workflow of the command-line tools, with NumPy arrays:

    >>> import lth
    >>> pb = lth.load("data/slope.lth")              # or lth.parse(text), lth.Model(...)
    >>> dec = lth.decompose(pb, [0.0, 1.0])          # P, Ahat, g, Bhat, q, G, cond_pi, ...
    >>> z0 = lth.ic(pb).z0                           # a consistent initial value
    >>> sol = lth.solve(pb, z0, times=[0, 1, 2])     # sol.z[k] = z(times[k])

and ``lth.bvp``, ``lth.lqr``, ``lth.check``; results are dataclasses of NumPy
arrays with the components' names; errors are :class:`lth.Error` subclasses
carrying lth's message, status, t, condition estimate and file:line:column;
``lth.plot`` draws the results with matplotlib.  docs/python.md is the guide.

Binding: ctypes, not cffi.  ctypes is part of Python itself, so the package
needs nothing beyond Debian's python3 and python3-numpy: no compiler and no
Python headers at install time, and no extension module tied to one Python
version.  cffi would need python3-cffi and either hand-copied declarations
(ABI mode: the same drift problem as hand-written ctypes) or a C compiler
plus python3-dev (API mode).  What makes ctypes risky -- struct layouts
mirrored by hand that silently go wrong when a header gains a field -- is
removed at the root: ``_layout.py`` is generated at build time by a small C
program (python/gen_layout.c) that prints sizeof/offsetof of every member
Python uses and checks every function signature against the headers at
compile time; a test recompiles it and fails when the layout is stale.

The library is found at ``$LTH_LIBRARY`` if set, else at the path recorded
when the package was built or installed (see ``lth.library_path()``).
"""

from . import errors
from ._lib import LIBRARY_PATH as _LIBRARY_PATH
from ._lib import library_path
from .decompose import CheckReport, Decomposition, check, decompose
from .errors import *  # noqa: F401,F403  (the exception classes)
from .errors import Error, InputError, NumericalError, UsageError
from .model import LQRModel, Model, Samples
from .problem import Problem, load, parse
from .results import BVPSolution, InitialValue, LQRSolution, Solution
from .sampling import SamplingReport
from .solvers import bvp, ic, lqr, solve

__version__ = "0.1.0"

__all__ = ["load", "parse", "Problem", "Model", "LQRModel", "Samples", "decompose", "check",
           "ic", "solve", "bvp", "lqr", "Decomposition", "CheckReport", "InitialValue",
           "Solution", "BVPSolution", "LQRSolution", "SamplingReport", "Error", "UsageError",
           "InputError", "NumericalError", "errors", "library_path"] + errors.__all__


def __getattr__(name):
    """lth.plot is imported on first use (it needs matplotlib)."""
    if name == "plot":
        import importlib
        return importlib.import_module(".plot", __name__)
    raise AttributeError("module 'lth' has no attribute %r" % name)
