# SPDX-License-Identifier: GPL-3.0-or-later
"""Pictures of lth results with matplotlib (Debian: python3-matplotlib).

Each helper returns a ``matplotlib.figure.Figure`` of panels stacked over t
(no pyplot, no window: save it with ``fig.savefig("name.png")``; the format
follows the extension).  ``size=(width, height)`` in pixels at ``dpi``
gives a PNG of exactly that size.

- :func:`solution` -- z(t) of ``lth.solve`` / ``lth.bvp`` by component, one panel
  per block (z_1, ..., u); with ``problem=`` also the drift ||P(t) v(t)||
  on a log scale (lth.solve results).
- :func:`decomposition` -- cond_pi(t) and cond_chain(t) on a log scale, q(t)
  and g(t) by entry (or chosen ``entries``), the ``check`` residual if any,
  and with ``problem=`` the error estimates of sampled data over t.
- :func:`lqr` -- x(t), lambda(t) and u(t) of ``lth.lqr``.
"""

import numpy as np

from .errors import UsageError


def _figure(npanels, size, dpi, title):
    from matplotlib.figure import Figure
    if size is None:
        size = (900, 60 + 240 * npanels)
    try:
        w, h = (float(x) for x in size)
    except (TypeError, ValueError):
        raise UsageError("size must be (width, height) in pixels") from None
    if not (100 <= w <= 20000 and 100 <= h <= 20000):
        raise UsageError("size (%r, %r) must be 100..20000 pixels each way" % (w, h))
    fig = Figure(figsize=(w / dpi, h / dpi), dpi=dpi, layout="constrained")
    axes = fig.subplots(npanels, 1, sharex=True, squeeze=False)[:, 0]
    if title:
        fig.suptitle(title)
    return fig, axes


def _finish(axes, xlabel="t"):
    for ax in axes:
        ax.grid(True, alpha=0.4)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
                      frameon=False)
    axes[-1].set_xlabel(xlabel)


def _groups(names):
    """Component indices grouped by the name before '[' (z_1, z_2, u)."""
    groups = {}
    for i, name in enumerate(names):
        groups.setdefault(name.split("[", 1)[0], []).append(i)
    return list(groups.items())


def _log_panel(ax, t, series):
    """Lines on a log scale; values <= 0 (exact zeros) are left out."""
    drawn = False
    for label, y in series:
        y = np.asarray(y, dtype=float)
        yy = np.where(y > 0, y, np.nan)
        if np.any(np.isfinite(yy)):
            drawn = True
        ax.plot(t, yy, label=label)
    if drawn:
        ax.set_yscale("log")


def solution(res, problem=None, size=None, dpi=100, title=None):
    """z(t) by component of an :class:`lth.Solution` or :class:`lth.BVPSolution`,
    one panel per block.  With ``problem`` (the Problem that was solved) an
    ``lth.solve`` result also gets the drift ||P(t) v(t)||_2, the distance of
    the state part from the state space (0 in exact arithmetic), on a log
    scale."""
    if not hasattr(res, "z") or not hasattr(res, "components"):
        raise UsageError("solution() draws the result of lth.solve or lth.bvp")
    groups = _groups(res.components)
    drift = None
    if problem is not None and getattr(res, "v", None) is not None:
        from .decompose import decompose
        P = decompose(problem, res.times).P
        drift = np.linalg.norm(np.einsum("kij,kj->ki", P, res.v), axis=1)
    fig, axes = _figure(len(groups) + (drift is not None), size, dpi, title)
    for ax, (name, idx) in zip(axes, groups):
        for i in idx:
            ax.plot(res.times, res.z[:, i], label=res.components[i])
        ax.set_title(name, fontsize="medium")
    if drift is not None:
        _log_panel(axes[-1], res.times, [("||P v||", drift)])
        axes[-1].set_title("drift off the state space", fontsize="medium")
    notes = []
    for label, key in (("cond_shooting", "cond_shooting"), ("cond_bvp", "cond_bvp"),
                       ("error estimate", "error_estimate"), ("fd error", "fd_error"),
                       ("max drift", "drift")):
        val = getattr(res, key, None)
        if val is not None:
            notes.append("%s %.3g" % (label, val))
    if notes:
        fig.text(0.01, 0.995, ", ".join(notes), fontsize="small", va="top")
    _finish(axes)
    return fig


def decomposition(dec, entries=None, problem=None, size=None, dpi=100, title=None):
    """cond_pi(t) and cond_chain(t) (log scale) of an :class:`lth.Decomposition`,
    then q(t) and g(t) by entry -- or the ``entries`` given as names such as
    ``"P[1,1]"``, ``"q[3]"`` (1-based) -- and the ``check`` residual.  With the
    ``problem`` of a decomposition of sampled data, also the estimated error of
    the data's derivatives over t (orders 0..r-1, the ones the decomposition
    uses), on a log scale."""
    t = dec.t
    panels = [("condition of Pi", "log",
               [("cond_pi", dec.cond_pi), ("cond_chain", dec.cond_chain)])]
    if entries:
        panels.append(("selected entries", "lin", [(e, _entry(dec, e)) for e in entries]))
    else:
        names = dec.components
        panels.append(("q(t): the algebraic part at v = 0", "lin",
                       [("q: " + names[i], dec.q[:, i]) for i in range(dec.s)]))
        state = dec.state_components or names[:dec.m]  # g lives with v, in the chain order
        panels.append(("g(t): the reduced ODE's inhomogeneity", "lin",
                       [("g: " + state[i], dec.g[:, i]) for i in range(dec.m)]))
    if dec.check is not None:
        panels.append(("check: worst relative residual", "log", [("worst", dec.check.worst)]))
    if problem is not None and problem._sampled:
        from .sampling import estimates
        est = estimates(problem, t, dec.index - 1)
        panels.append(("sampled data: estimated error of the derivatives", "log",
                       [("%s d%d" % (label, d), arr[:, d]) for label, arr in est.items()
                        for d in range(arr.shape[1])]))
    fig, axes = _figure(len(panels), size, dpi, title)
    for ax, (name, scale, series) in zip(axes, panels):
        if scale == "log":
            _log_panel(ax, t, series)
        else:
            for label, y in series:
                ax.plot(t, y, label=label)
        ax.set_title(name, fontsize="medium")
    _finish(axes)
    return fig


def _entry(dec, text):
    """The series of an entry 'NAME[i]' or 'NAME[i,j]' (1-based)."""
    try:
        name, rest = text.split("[", 1)
        idx = [int(k) - 1 for k in rest.rstrip("]").split(",")]
        arr = getattr(dec, name) if name in ("P", "Ahat", "g", "Bhat", "q", "G") else None
        if arr is None or len(idx) != arr.ndim - 1 or min(idx) < 0:
            raise ValueError
        return arr[(slice(None),) + tuple(idx)]
    except (ValueError, IndexError):
        raise UsageError("%r is not an entry of the decomposition (P, Ahat, g, Bhat, q, G; "
                         "1-based)" % (text,)) from None


def lqr(res, size=None, dpi=100, title=None):
    """x(t), lambda(t) and u(t) of an :class:`lth.LQRSolution`."""
    if not hasattr(res, "lam"):
        raise UsageError("lqr() draws the result of lth.lqr")
    if not res.have_trajectory:
        raise UsageError("the LQR result has no trajectory to draw (have_trajectory is False)")
    fig, axes = _figure(3, size, dpi, title)
    for ax, name, arr in zip(axes, ("x", "lambda", "u"), (res.x, res.lam, res.u)):
        for i in range(arr.shape[1]):
            ax.plot(res.times, arr[:, i], label="%s[%d]" % (name, i + 1))
        ax.set_title(name, fontsize="medium")
    if res.cost is not None:
        fig.text(0.01, 0.995, "cost J = %.6g%s" % (res.cost, "" if res.exists else
                                                  " (infimum; no smooth optimum)"),
                 fontsize="small", va="top")
    _finish(axes)
    return fig
