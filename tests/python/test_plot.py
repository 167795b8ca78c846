# SPDX-License-Identifier: GPL-3.0-or-later
"""lth.plot: each kind of picture saved as a PNG of the requested size with
curves drawn (pngcheck: valid PNG, exact size, coloured pixels), and the
checker itself rejects a blank canvas and a figure of empty axes."""

import os
import struct
import zlib

import numpy as np
import pytest

import lth
import lth.plot
from conftest import data
from pngcheck import check


def save(fig, tmp_path, name):
    path = os.path.join(str(tmp_path), name)
    fig.savefig(path)
    return path


def test_solution_with_drift(tmp_path):
    pb = lth.load(data("slope.lth"))
    sol = lth.solve(pb, grid=41)
    fig = lth.plot.solution(sol, problem=pb, size=(640, 480), title="sliding mass")
    assert [ax.get_title() for ax in fig.axes] == ["z_1", "z_2", "u", "drift off the state space"]
    assert check(save(fig, tmp_path, "sol.png"), 640, 480) is None


def test_bvp_decomposition_lqr(tmp_path):
    bvp = lth.bvp(data("index2.lth"), method="fd")
    assert check(save(lth.plot.solution(bvp, size=(500, 400)), tmp_path, "bvp.png"),
                 500, 400) is None
    dec = lth.decompose(data("lqr_timevarying.lth"), check=True)
    fig = lth.plot.decomposition(dec, size=(700, 600))
    assert fig.axes[0].get_yscale() == "log" and len(fig.axes) == 4
    assert check(save(fig, tmp_path, "dec.png"), 700, 600) is None
    fig = lth.plot.decomposition(dec, entries=["P[1,1]", "q[5]"], size=(600, 300))
    assert [line.get_label() for line in fig.axes[1].lines] == ["P[1,1]", "q[5]"]
    assert check(save(fig, tmp_path, "sel.png"), 600, 300) is None
    res = lth.lqr(data("lqr_double_integrator.lth"))
    path = save(lth.plot.lqr(res, size=(640, 480)), tmp_path, "lqr.png")
    assert check(path, 640, 480) is None
    path = save(lth.plot.lqr(res), tmp_path, "lqr.svg")
    assert b"<svg" in open(path, "rb").read(2000)


def test_sampled_error_estimates(tmp_path):
    smp = lth.load(data("sampled.lth"))
    dec = lth.decompose(smp, grid=41)
    fig = lth.plot.decomposition(dec, problem=smp, size=(640, 640))
    last = fig.axes[-1]
    assert last.get_yscale() == "log" and [l.get_label() for l in last.lines] == [
        "A(1,1) d0", "A(1,1) d1"]
    est = lth.sampling.estimates(smp, dec.t, 1)["A(1,1)"]
    assert est.shape == (41, 2) and np.all(est >= 0) and est.max() < 1e-9
    # the report is the maximum of the same estimates over the times
    rep = lth.decompose(smp, dec.t).sampling[0]
    assert np.array_equal(rep.error[:2], est.max(axis=0))
    assert check(save(fig, tmp_path, "smp.png"), 640, 640) is None


def test_realization(tmp_path):
    """lth.plot.realization: one panel per map, entries named by position and
    by the file's inputs and outputs, exact zeros (up to rounding) left out."""
    pb = lth.parse("""problem equations
variables x1 x2 v1 v2 lam
inputs u1 u2
interval 0 3
outputs y1 = x1 - 0.5*x2, tension = (1 + 0.5*sin(t))*lam + 2*u1
x1' = v1
x2' = v2
2*v1' = -3*x1 + cos(t)*lam + u1
2*v2' = -3*x2 + sin(t)*lam
0 = cos(t)*x1 + sin(t)*x2 - 1 + u2
""")
    r = lth.ss(pb, grid=31)
    fig = lth.plot.realization(r, size=(700, 800), title="cart pair")
    assert [ax.get_title() for ax in fig.axes] == ["A(t)", "B_j(t)", "C(t)", "D_j(t)"]
    labels = [[line.get_label() for line in ax.lines] for ax in fig.axes]
    assert labels[1] == ["B_0[1,u1]", "B_0[2,u2]"] and "D_2[tension,u2]" in labels[3]
    assert "D_0[tension,u1]" in labels[3] and "D_1[y1,u1]" not in labels[3]
    for name, arr, lab in (("A", r.A, labels[0]), ("C", r.C, labels[2])):
        assert len(lab) == np.count_nonzero(np.abs(arr).max(axis=0) > 1e-10 * np.abs(arr).max())
    assert check(save(fig, tmp_path, "ss.png"), 700, 800) is None
    raw = lth.plot.realization(lth.ss(pb, grid=11, raw=True), size=(600, 700))
    assert any(l.get_label().startswith("B_1[") for l in raw.axes[1].lines)
    with pytest.raises(lth.UsageError, match="lth.ss"):
        lth.plot.realization(lth.solve(data("slope.lth"), grid=5))


def test_bad_arguments():
    dec = lth.decompose(data("slope.lth"), [0, 1])
    with pytest.raises(lth.UsageError, match="not an entry"):
        lth.plot.decomposition(dec, entries=["P[9,9]"])
    with pytest.raises(lth.UsageError):
        lth.plot.solution(dec)
    with pytest.raises(lth.UsageError, match="size"):
        lth.plot.lqr(lth.lqr(data("lqr_double_integrator.lth")), size=(5, 5))


def blank_png(path, w, h, rgb=(255, 255, 255)):
    raw = b"".join(b"\0" + bytes(rgb) * w for _ in range(h))
    def chunk(t, b):
        return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b))
    with open(path, "wb") as fp:
        fp.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                 + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_the_checker_can_fail(tmp_path):
    path = os.path.join(str(tmp_path), "blank.png")
    blank_png(path, 64, 48)
    assert check(path, 64, 48) and "blank canvas" in check(path, 64, 48)
    assert "expected 65 x 48" in check(path, 65, 48)
    with open(path, "r+b") as fp:  # a damaged chunk
        fp.seek(40)
        fp.write(b"\xff")
    assert "CRC" in check(path, 64, 48)
    # empty axes: grey only
    from matplotlib.figure import Figure
    fig = Figure(figsize=(3, 2), dpi=100)
    fig.subplots().plot([0, 1], [0, 1], color="0.5")
    path = save(fig, tmp_path, "grey.png")
    assert "no curves" in check(path, 300, 200)


def heading_overlaps(fig):
    """The figure-level texts (title, notes) that overlap a panel or its title,
    or leave the figure: drawn first, with the layout of savefig."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    FigureCanvasAgg(fig).draw()
    r = fig.canvas.get_renderer()
    heads = []
    for t in list(fig.texts) + [getattr(fig, "_suptitle", None)]:
        if t is not None and t.get_text() and all(t is not h for h in heads):
            heads.append(t)
    bad = []
    for k, h in enumerate(heads):
        box = h.get_window_extent(r)
        bad += [(h.get_text(), g.get_text()) for g in heads[k + 1:]
                if box.overlaps(g.get_window_extent(r))]
        if box.y1 > fig.bbox.y1 + 0.5 or box.x0 < -0.5 or box.x1 > fig.bbox.x1 + 0.5:
            bad.append((h.get_text(), "outside the figure"))
        for ax in fig.axes:
            for what, other in (("panel", ax.get_window_extent(r)),
                                ("title " + ax.get_title(), ax.title.get_window_extent(r))):
                if box.overlaps(other):
                    bad.append((h.get_text(), what))
    return heads, bad


def test_heading_clear_of_the_panels():
    """The notes of a BVP (condition and error estimates) and of an LQR result
    (the cost) and the title stand above the first panel's title, not on it."""
    fd = lth.bvp(data("index2.lth"), method="fd")
    shoot = lth.bvp(data("index2.lth"))  # four notes: as wide as half the figure
    res = lth.lqr(data("lqr_double_integrator.lth"))
    for fig in (lth.plot.solution(shoot, size=(800, 480)),
                lth.plot.solution(fd, size=(800, 480), title="lth.plot.solution: data/index2.lth"),
                lth.plot.lqr(res, size=(640, 480), title="lth.plot.lqr: the double integrator"),
                lth.plot.solution(fd, size=(500, 300), title="small")):
        heads, bad = heading_overlaps(fig)
        assert heads and not bad, bad
        text = "\n".join(h.get_text() for h in heads)
        assert "cond_bvp" in text or "cost J" in text


def test_names_drawn_literally(tmp_path):
    """Component names and titles are text, never mathtext ('$' is a dollar
    sign, a bad formula no error) nor LaTeX, even with text.usetex on when the
    figure is made (the tick labels, numbers, may go through TeX: no user
    string does), and the SVG holds every string as written."""
    import dataclasses
    import html
    import re
    import matplotlib
    from matplotlib.text import Text
    bvp = lth.bvp(data("index2.lth"), method="fd")
    names = ["$x_1$", r"$\foo{$", "a$b$c 50%", "`touch pwn` $(x)"]
    res = dataclasses.replace(bvp, components=names)
    title = r"$\frac{1}{2}$ and \input{/etc/passwd}"
    with matplotlib.rc_context({"text.usetex": True}):
        fig = lth.plot.solution(res, size=(600, 700), title=title)
    mine = [t for t in fig.findobj(Text) if t.get_text() in names or title in t.get_text()]
    assert len(mine) == 2 * len(names) + 1  # panel titles, legend entries, the heading
    assert not any(t.get_usetex() or t.get_parse_math() for t in mine)
    fig = lth.plot.solution(res, size=(600, 700), title=title)
    path = os.path.join(str(tmp_path), "names.svg")
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(path)
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>",
                                                  open(path, encoding="utf-8").read())]
    for s in names:
        assert texts.count(s) == 2, (s, texts)  # the panel's title and the legend
    assert any(t.startswith(title) for t in texts), texts


def test_log_panel_zeros_on_a_floor():
    """The check residual is mostly exact zeros: they are drawn as markers on a
    floor a decade below the smallest positive value, stated in the legend,
    and the positive values carry markers (alone between zeros, a value is no
    line): every time is drawn once."""
    dec = lth.decompose(data("index2.lth"), grid=151, check=True)
    worst = dec.check.worst
    assert 0 < np.count_nonzero(worst) < len(worst)
    ax = lth.plot.decomposition(dec).axes[-1]
    assert ax.get_yscale() == "log"
    line, zeros = ax.lines
    floor = 10.0 ** (np.floor(np.log10(worst[worst > 0].min())) - 1)
    assert line.get_marker() == "o"
    assert np.array_equal(np.isfinite(line.get_ydata()), worst > 0)
    assert np.array_equal(zeros.get_xdata(), dec.t[worst == 0])
    assert np.all(zeros.get_ydata() == floor) and floor <= worst[worst > 0].min() / 10
    assert zeros.get_label() == "worst = 0\n(drawn at %.0e)" % floor
    assert ax.get_ylim()[0] < floor
