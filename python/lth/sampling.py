# SPDX-License-Identifier: GPL-3.0-or-later
"""Error estimates of sampled blocks (``samples(...)`` data).

Derivatives of sampled data come from local polynomial fits; the library
estimates their error (``lth_samples_error_estimate``).  Per sampled block
and derivative order d = 0..order (capped by the fit degree) this keeps the
largest estimate over the times and where, and the error relative to the
data: estimate / max(largest |d-th derivative|, largest |value|) -- the
report the tools print under "sampling".  ``solution_error`` is what the
fits cost a solution, the tools' ``sampling_error``.
"""

import ctypes
import math
from dataclasses import dataclass

import numpy as np

from . import _lib
from ._layout import NOUT, OUT_GMAT, OUT_Q
from ._lib import LIB, S

# Output times that get the map term, at most (apps/common/app_samplerr.c).
_MAP_TIMES = 200


@dataclass
class SamplingReport:
    """Estimated error of one sampled block's derivatives (index d = order)."""

    block: str            #: label, e.g. "A(2,1)"
    degree: int           #: degree of the local fits (0: chosen automatically)
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
        degree = LIB.lth_samples_degree(src)  # 0: automatic, up to the samples' highest order
        n_ord = min(order, degree if degree > 0 else LIB.lth_samples_max_order(src))
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
        degree = LIB.lth_samples_degree(src)
        n_ord = min(order, degree if degree > 0 else LIB.lth_samples_max_order(src))
        arr = np.zeros((len(times), n_ord + 1))
        est = np.zeros(n_ord + 1)
        for k, t in enumerate(times):
            st = LIB.lth_samples_error_estimate(src, float(t), n_ord, est.ctypes.data,
                                                ctypes.byref(err))
            _lib.check(st, err)
            arr[k] = est
        out[label] = arr
    return out


def output_errors(problem, times, cond_max):
    """The decomposition's error bars at `times`, as ``lth-decompose`` writes
    them under ``error_estimate``: {"P": ..., "Ahat": ..., "g": ..., "Bhat":
    ..., "q": ..., "G": ...} (the largest estimated absolute error of each
    output's entries, one number per time) and "overall" (the largest
    relative one); None without sampled data."""
    system = problem._system()
    if not problem._sampled or LIB.lth_system_sampled_blocks(system) == 0:
        return None
    names = [LIB.lth_decomp_output_name(k).decode() for k in range(NOUT)]
    out = {name: np.zeros(len(times)) for name in names + ["overall"]}
    err = _lib.new_error()
    de = _lib.check_ptr(LIB.lth_decomp_error_alloc(system, ctypes.byref(err)), err)
    try:
        LIB.lth_decomp_error_set_cond_max(de, cond_max)
        e = S["lth_decomp_errest"]()
        for k, t in enumerate(times):
            _lib.check(LIB.lth_decomp_error_at(de, float(t), ctypes.byref(e), ctypes.byref(err)),
                       err)
            for j, name in enumerate(names):
                out[name][k] = e.abs[j]
            out["overall"][k] = e.overall
    finally:
        LIB.lth_decomp_error_free(de)
    return out


def _variants(system, z, resolve):
    """Sum over the sampled data sets of max |z - z_k| (z_k = resolve(the
    system with data set k on its alternative fits))."""
    total = 0.0
    err = _lib.new_error()
    for w in range(LIB.lth_system_sampled_blocks(system)):
        variant = _lib.check_ptr(LIB.lth_system_sampling_variant(system, w, ctypes.byref(err)),
                                 err)
        try:
            zw = np.asarray(resolve(variant), dtype=float).reshape(z.shape)
        finally:
            LIB.lth_system_free(variant)
        total += float(np.fmax.reduce(np.abs(zw - z).ravel(), initial=0.0))
    return total


def _map_term(system, times, rows, m):
    """max over (up to _MAP_TIMES of) the times of |G error| |v|_1 + |q error|,
    the decomposition's error bars at t_k and v = rows[k][:m]."""
    n = len(times)
    local = 0.0
    if n == 0:
        return local
    err = _lib.new_error()
    de = _lib.check_ptr(LIB.lth_decomp_error_alloc(system, ctypes.byref(err)), err)
    try:
        e = S["lth_decomp_errest"]()
        step = (n + _MAP_TIMES - 1) // _MAP_TIMES if n > _MAP_TIMES else 1
        k = 0
        while True:
            _lib.check(LIB.lth_decomp_error_at(de, float(times[k]), ctypes.byref(e),
                                               ctypes.byref(err)), err)
            vn = 0.0
            for x in rows[k][:m]:  # summed in order, as the tools
                vn += abs(float(x))
            local = _fmax(local, e.abs[OUT_GMAT] * vn + e.abs[OUT_Q])
            if k == n - 1:
                break
            k = k + step if k + step < n else n - 1  # the last time always counts
    finally:
        LIB.lth_decomp_error_free(de)
    return local


def solution_error(system, times, z, v, resolve):
    """The sampled data's contribution to a solution's error, the tools'
    ``sampling_error`` (docs/sampled-data.md): the sum over the sampled data
    sets of the largest difference between the solution and the solution with
    that data set on its alternative fits (``resolve(variant_system)`` returns
    it in z's layout), plus the error of the map z = G v + q at the times.
    `z` (n, s) and `v` (n, m, or None: z's first m columns bound it) are in
    the library's (chain) order.  None without sampled data."""
    if LIB.lth_system_sampled_blocks(system) == 0:
        return None
    z = np.asarray(z, dtype=float)
    total = _variants(system, z, resolve)
    m = LIB.lth_system_state_dim(system)
    rows = np.asarray(v, dtype=float) if v is not None else z.reshape(len(times), -1)
    return total + _map_term(system, times, rows, m)


def _fmax(a, b):
    """C's fmax (NaN-ignoring)."""
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return max(a, b)
