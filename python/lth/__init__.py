# SPDX-License-Identifier: GPL-3.0-or-later
"""lth: linear time-varying Hessenberg DAEs of any index, from Python.

The whole workflow of the command-line tools, with NumPy arrays:

    >>> import lth
    >>> pb = lth.load("data/slope.lth")              # or lth.parse(text), lth.Model(...)
    >>> dec = lth.decompose(pb, [0.0, 1.0])          # P, Ahat, g, Bhat, q, G, cond_pi, ...
    >>> z0 = lth.ic(pb).z0                           # a consistent initial value
    >>> sol = lth.solve(pb, z0, times=[0, 1, 2])     # sol.z[k] = z(times[k])

and ``lth.bvp``, ``lth.lqr``, ``lth.check``, ``lth.ss`` and ``lth.kalman`` (the state-space
realization of a plant with inputs); results are dataclasses of NumPy
arrays with the components' names; ``lth.solve``, ``lth.ic`` and ``lth.decompose``
take large sparse systems on the operator path (``path=``, :mod:`lth.oppath`), as the
tools do; errors are :class:`lth.Error` subclasses
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


def _requirements():
    """NumPy and the generated modules, or an ImportError that says what to do."""
    import importlib
    import os
    import sys
    try:
        import numpy  # noqa: F401
    except ImportError as e:
        raise ImportError(
            "lth needs NumPy, which %s cannot import (%s): on Debian install python3-numpy "
            "(apt-get install python3-numpy) and use /usr/bin/python3 or a venv made with "
            "`python3 -m venv --system-site-packages`; elsewhere `pip install numpy`"
            % (sys.executable, e)) from None
    try:
        importlib.import_module(__name__ + "._layout")
    except ModuleNotFoundError as e:
        if e.name != __name__ + "._layout":
            raise
        raise ImportError(
            "lth: %s is the package's source, without the _layout.py and _config.py that "
            "building liblth generates (the C structs' layout, the library's path); use a "
            "built copy instead: PYTHONPATH=build/python after `cmake --build build`, the "
            "installed package (`cmake --install build`), or `pip install ./python` against "
            "an installed liblth (docs/python.md, section 1)"
            % os.path.dirname(os.path.abspath(__file__))) from None


_requirements()

from . import errors  # noqa: E402
from ._lib import LIBRARY_PATH as _LIBRARY_PATH  # noqa: E402
from ._lib import library_path  # noqa: E402
from .decompose import CheckReport, Decomposition, check, decompose  # noqa: E402
from .errors import *  # noqa: F401,F403,E402  (the exception classes)
from .errors import Error, InputError, NumericalError, UsageError  # noqa: E402
from .model import LQRModel, Model, Samples  # noqa: E402
from .problem import Problem, load, parse  # noqa: E402
from .results import BVPSolution, InitialValue, LQRSolution, Solution  # noqa: E402
from .sampling import SamplingReport  # noqa: E402
from .solvers import ic, lqr, solve  # noqa: E402
from .bvp_solve import bvp  # noqa: E402
from .ss import Realization, Realizer, ss  # noqa: E402
from .control import KalmanResult, kalman  # noqa: E402

__version__ = "0.1.0"

__all__ = ["load", "parse", "Problem", "Model", "LQRModel", "Samples", "decompose", "check",
           "ic", "solve", "bvp", "lqr", "ss", "kalman", "Decomposition", "CheckReport", "InitialValue",
           "Solution", "BVPSolution", "LQRSolution", "Realization", "Realizer", "KalmanResult",
           "SamplingReport", "Error", "UsageError", "InputError", "NumericalError", "errors",
           "library_path"] + errors.__all__


def __getattr__(name):
    """lth.plot is imported on first use (it needs matplotlib)."""
    if name == "plot":
        import importlib
        return importlib.import_module(".plot", __name__)
    raise AttributeError("module 'lth' has no attribute %r" % name)
