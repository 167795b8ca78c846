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
