# SPDX-License-Identifier: GPL-3.0-or-later
"""Error estimates of sampled blocks (``samples(...)`` data).

Derivatives of sampled data come from local polynomial fits; the library
estimates their error (``lth_samples_error_estimate``).  Per sampled block
and derivative order d = 0..order (capped by the fit degree) this keeps the
largest estimate over the times and where, and the error relative to the
data: estimate / max(largest |d-th derivative|, largest |value|) -- the
report the tools print under "sampling".
"""

import ctypes
import math
from dataclasses import dataclass

import numpy as np

from . import _lib
from ._lib import LIB, S


@dataclass
class SamplingReport:
    """Estimated error of one sampled block's derivatives (index d = order)."""

    block: str            #: label, e.g. "A(2,1)"
    degree: int           #: degree of the local fits
    error: np.ndarray     #: largest estimated error per derivative order
    t_error: np.ndarray   #: where it was reached
    relative: np.ndarray  #: relative to the data's scale


def _derivative_size(jet, d):
    fact = 1.0
    for k in range(2, d + 1):
        fact *= k
    values = np.abs(_lib.jet_coef(jet, d)).ravel()
    return fact * float(np.fmax.reduce(values, initial=0.0))


def report(problem, times, order):
    """The sampling report over `times` for derivative orders 0..order (an
    empty list without sampled blocks)."""
    out = []
    for label, src in problem._sampled:
        degree = LIB.lth_samples_degree(src)
        n_ord = min(order, degree)
        err_max = np.zeros(n_ord + 1)
        t_err = np.zeros(n_ord + 1)
        deriv = np.zeros(n_ord + 1)
        jet = S["lth_jet"]()
        err = _lib.new_error()
        _lib.check(LIB.lth_jet_init(ctypes.byref(jet), LIB.lth_source_rows(src),
                                    LIB.lth_source_cols(src), n_ord, ctypes.byref(err)), err)
        try:
            work = np.zeros(LIB.lth_source_work_size(src, n_ord) + 1)
            est = np.zeros(n_ord + 1)
            for t in times:
                st = LIB.lth_samples_error_estimate(src, float(t), n_ord, est.ctypes.data,
                                                    ctypes.byref(err))
                if st == 0:
                    st = LIB.lth_source_fill(src, float(t), n_ord, ctypes.byref(jet),
                                             work.ctypes.data, ctypes.byref(err))
                if st != 0:
                    e = _lib.exception(err, st)
                    e.message = "%s: %s" % (label, e.message)
                    e.formatted = "%s: %s" % (label, e.formatted)
                    e.args = (e.formatted,)
                    raise e
                for d in range(n_ord + 1):
                    deriv[d] = _fmax(deriv[d], _derivative_size(jet, d))
                    if not est[d] <= err_max[d]:
                        err_max[d] = est[d]
                        t_err[d] = t
        finally:
            LIB.lth_jet_release(ctypes.byref(jet))
        rel = np.zeros(n_ord + 1)
        for d in range(n_ord + 1):
            scale = _fmax(deriv[d], deriv[0])
            tiny = 2.2250738585072014e-308  # DBL_MIN
            rel[d] = 0.0 if err_max[d] == 0.0 else err_max[d] / _fmax(scale, tiny)
        out.append(SamplingReport(label, degree, err_max, t_err, rel))
    return out


def estimates(problem, times, order):
    """Estimated error of the derivatives of order 0..order of every sampled
    block at each time: {label: array (len(times), order' + 1)}, order' capped
    by the block's fit degree (for pictures of the error over t)."""
    out = {}
    err = _lib.new_error()
    for label, src in problem._sampled:
        n_ord = min(order, LIB.lth_samples_degree(src))
        arr = np.zeros((len(times), n_ord + 1))
        est = np.zeros(n_ord + 1)
        for k, t in enumerate(times):
            st = LIB.lth_samples_error_estimate(src, float(t), n_ord, est.ctypes.data,
                                                ctypes.byref(err))
            _lib.check(st, err)
            arr[k] = est
        out[label] = arr
    return out


def _fmax(a, b):
    """C's fmax (NaN-ignoring)."""
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return max(a, b)
