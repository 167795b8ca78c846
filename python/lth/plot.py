# SPDX-License-Identifier: GPL-3.0-or-later
"""Pictures of lth results with matplotlib (Debian: python3-matplotlib).

Each helper returns a ``matplotlib.figure.Figure`` of panels stacked over t
(no pyplot, no window: save it with ``fig.savefig("name.png")``; the format
follows the extension).  ``size=(width, height)`` in pixels at ``dpi``
gives a PNG of exactly that size.  Names and titles are drawn as they are:
never as mathtext (a ``$`` is a dollar sign) nor through LaTeX, whatever
the matplotlib settings.

- :func:`solution` -- z(t) of ``lth.solve`` / ``lth.bvp`` by component, one panel
  per block (z_1, ..., u); with ``problem=`` also the drift ||P(t) v(t)||
  on a log scale (lth.solve results).
- :func:`decomposition` -- cond_pi(t) and cond_chain(t) on a log scale, q(t)
  and g(t) by entry (or chosen ``entries``), the ``check`` residual if any,
  and with ``problem=`` the error estimates of sampled data over t.
- :func:`lqr` -- x(t), lambda(t) and u(t) of ``lth.lqr``.
- :func:`realization` -- the entries of A(t), B_j(t), C(t), D_j(t) of
  ``lth.ss``.
"""

import numpy as np

from .errors import UsageError


def _figure(npanels, size, dpi):
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
    return fig, axes


def _literal(text):
    """A Text drawn character for character: no mathtext, no LaTeX."""
    text.set_parse_math(False)
    text.set_usetex(False)
    return text


def _finish(fig, axes, title=None, notes=(), xlabel="t"):
    """Grid, legends, the t label, and the heading: the title and a line of
    notes (the estimates a result reports) as one suptitle, for which the
    constrained layout makes room above the first panel's title."""
    for ax in axes:
        ax.grid(True, alpha=0.4)
        _literal(ax.title)
        if ax.get_legend_handles_labels()[0]:
            leg = ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
                            frameon=False)
            for text in leg.get_texts():
                _literal(text)
    _literal(axes[-1].set_xlabel(xlabel))
    lines = ([title] if title else []) + ([", ".join(notes)] if notes else [])
    if lines:
        _literal(fig.suptitle("\n".join(lines), fontsize="medium" if notes else "large"))


def _groups(names):
    """Component indices grouped by the name before '[' (z_1, z_2, u)."""
    groups = {}
    for i, name in enumerate(names):
        groups.setdefault(name.split("[", 1)[0], []).append(i)
    return list(groups.items())


def _log_panel(ax, t, series):
    """Lines on a log scale.  Values <= 0 (exact zeros, mostly), which a log
    scale cannot show, are drawn as open markers on a floor (the largest
    power of ten at least a decade below the smallest positive value) that
    the legend states; a series with such gaps also gets its points, since a
    value between two gaps is no line."""
    ys = [np.asarray(y, dtype=float) for _, y in series]
    pos = np.concatenate([y[np.isfinite(y) & (y > 0)] for y in ys] + [np.empty(0)])
    if pos.size == 0:  # nothing a log scale can show: a linear panel
        for (label, _), y in zip(series, ys):
            ax.plot(t, y, label=label)
        return
    floor = 10.0 ** (np.floor(np.log10(pos.min())) - 1)
    for (label, _), y in zip(series, ys):
        low = np.isfinite(y) & (y <= 0)
        line, = ax.plot(t, np.where(y > 0, y, np.nan), label=label,
                        marker="o" if low.any() else None, markersize=3)
        if low.any() and floor > 0:  # (0 if the smallest is subnormal: left out)
            ax.plot(np.asarray(t)[low], np.full(low.sum(), floor), linestyle="none",
                    marker="o", markersize=4, markerfacecolor="none", color=line.get_color(),
                    label="%s %s 0\n(drawn at %.0e)" % (label, "=" if np.all(y[low] == 0)
                                                         else "<=", floor))
    ax.set_yscale("log")
    if floor > 0 and any(((y <= 0) & np.isfinite(y)).any() for y in ys):
        ax.set_ylim(bottom=floor / np.sqrt(10.0))


def solution(res, problem=None, size=None, dpi=100, title=None):
    """z(t) by component of an :class:`lth.Solution` or :class:`lth.BVPSolution`,
    one panel per block.  With ``problem`` (the Problem that was solved) an
    ``lth.solve`` result also gets the drift ||P(t) v(t)||_2, the distance of
    the state part from the state space (0 in exact arithmetic), on a log
    scale (not for a solution of the operator path, whose P is never formed: its
    largest drift is in the notes)."""
    if not hasattr(res, "z") or not hasattr(res, "components"):
        raise UsageError("solution() draws the result of lth.solve or lth.bvp")
    groups = _groups(res.components)
    drift = None
    if problem is not None and getattr(res, "v", None) is not None and \
            getattr(res, "path", "dense") == "dense":
        from .decompose import decompose
        P = decompose(problem, res.times, path="dense").P
        drift = np.linalg.norm(np.einsum("kij,kj->ki", P, res.v), axis=1)
    fig, axes = _figure(len(groups) + (drift is not None), size, dpi)
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
    _finish(fig, axes, title, notes)
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
    fig, axes = _figure(len(panels), size, dpi)
    for ax, (name, scale, series) in zip(axes, panels):
        if scale == "log":
            _log_panel(ax, t, series)
        else:
            for label, y in series:
                ax.plot(t, y, label=label)
        ax.set_title(name, fontsize="medium")
    _finish(fig, axes, title)
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
    fig, axes = _figure(3, size, dpi)
    for ax, name, arr in zip(axes, ("x", "lambda", "u"), (res.x, res.lam, res.u)):
        for i in range(arr.shape[1]):
            ax.plot(res.times, arr[:, i], label="%s[%d]" % (name, i + 1))
        ax.set_title(name, fontsize="medium")
    notes = []
    if res.cost is not None:
        notes.append("cost J = %.6g%s" % (res.cost, "" if res.exists else
                                          " (infimum; no smooth optimum)"))
    _finish(fig, axes, title, notes)
    return fig


def realization(r, size=None, dpi=100, title=None):
    """The entries of A(t), B_j(t), C(t) and D_j(t) of an
    :class:`lth.Realization` over its times, one panel each (C and D with
    outputs only), named by position and by the file's names:
    ``A[1,2]``, ``B_0[3,F]`` (row 3, input F), ``C[sway,1]``,
    ``D_2[tension,dL]``.  Entries that stay below 1e-10 of their panel's
    largest at every time (zeros up to rounding) are left out."""
    if not hasattr(r, "transfer") or not hasattr(r, "A"):
        raise UsageError("realization() draws the result of lth.ss")
    rows = [str(i + 1) for i in range(r.p)]
    panels = [("A(t)", _named(r.A[:, None], ["A"], rows, rows)),
              ("B_j(t)", _named(r.B, ["B_%d" % j for j in range(r.B.shape[1])], rows,
                                r.inputs))]
    if r.outputs:
        panels.append(("C(t)", _named(r.C[:, None], ["C"], r.outputs, rows)))
        panels.append(("D_j(t)", _named(r.D, ["D_%d" % j for j in range(r.D.shape[1])],
                                        r.outputs, r.inputs)))
    fig, axes = _figure(len(panels), size, dpi)
    from matplotlib import rcParams
    from cycler import cycler
    colors = rcParams["axes.prop_cycle"].by_key().get("color", ["k"])
    styles = cycler(linestyle=["-", "--", ":"]) * cycler(color=colors)
    for ax, (name, series) in zip(axes, panels):
        ax.set_prop_cycle(styles)
        for label, y in series:
            ax.plot(r.times, y, label=label)
        ax.set_title(name, fontsize="medium")
    notes = ["p = %d" % r.p] + (["raw (Clark's coordinates)"] if r.raw else [])
    _finish(fig, axes, title, notes)
    return fig


def _named(M, maps, rows, cols):
    """(label, values) of the entries of M (time, map, row, column) that are
    not zero up to rounding (1e-10 of the largest) at every time."""
    big = float(np.abs(M).max()) if M.size else 0.0
    out = []
    for j, name in enumerate(maps):
        for i, row in enumerate(rows):
            for k, col in enumerate(cols):
                y = M[:, j, i, k]
                if np.abs(y).max() > 1e-10 * big:
                    out.append(("%s[%s,%s]" % (name, row, col), y))
    return out
