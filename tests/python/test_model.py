# SPDX-License-Identifier: GPL-3.0-or-later
"""Systems built from Python: the same numbers as the shipped data files, and
a round trip Model -> data file (+ CSV) -> lth.load with identical results."""

import math
import os

import numpy as np
import pytest

import lth
from conftest import data
from test_cli_equal import same


def slope_model():
    m = lth.Model([2, 2, 1], (0, 2), grid=201, params={"g": 9.81}, name="slope (Python)")
    m.A[1, 3] = np.array([[1.0], [2.0]])
    m.A[2, 1] = "eye"
    m.A[3, 2] = np.array([[1.0, 2.0]])
    m.f[1] = ["0", "-g"]
    m.f[3] = -4
    m.z0 = np.array([-0.6, 0.3, 2, 1, 2 * 9.81 / 5])
    return m


def same_decomposition(a, b):
    for key in ("t", "cond_pi", "cond_chain", "P", "Ahat", "g", "Bhat", "q", "G"):
        same(getattr(a, key), getattr(b, key), key)


def test_slope_from_numpy_equals_the_file(tmp_path):
    pb = slope_model().build()
    ref = lth.load(data("slope.lth"))
    same(pb.grid, ref.grid, "grid")
    same(pb.z0, ref.z0, "z0")
    same_decomposition(lth.decompose(pb), lth.decompose(ref))
    same(lth.solve(pb).z, lth.solve(ref).z, "z")


def test_round_trip_through_a_file(tmp_path):
    m = slope_model()
    path = m.to_file(os.path.join(str(tmp_path), "slope.lth"))
    text = open(path).read()
    assert "param g = 9.81" in text and "A(2,1) = eye" in text and "f(1) = [0; -g]" in text
    back = lth.load(path)
    built = m.build()
    assert back.blocks == built.blocks and back.interval == built.interval
    same(back.z0, built.z0, "z0")
    same_decomposition(lth.decompose(back), lth.decompose(built))
    same(lth.solve(back).z, lth.solve(built).z, "z")


def test_round_trip_time_varying_samples_and_bc(tmp_path):
    """Expressions in t, awkward constants, sampled data from arrays, bc."""
    t = np.linspace(-0.1, 3.1, 161)
    a11 = np.stack([np.stack([-1 + 0.5 * np.sin(t), np.ones_like(t)], -1),
                    np.stack([-0.5 * np.cos(t), 0.1 * t + 1 / 3], -1)], 1)  # (n, 2, 2)
    m = lth.Model([3, 1], (0, 3), grid=[0, 0.1, 1 / 3, 1.5, 3], params={"w": 0.5 + 1e-13},
                  name="tv")
    m.A[1, 1] = np.array([["0", "1 + w*sin(t)", 0], [-1, 0, 1 / 7], [0, 0, -0.5]],
                         dtype=object)
    m.A[1, 2] = [0, 0, 1]
    m.A[2, 1] = [[0.3, math.pi, 1]]
    m.f[1] = ["cos(t)", 0, "exp(-t)"]
    m.f[2] = "-0.2*sin(t)"
    m.set_bc([[1, 0, 0, 0], [0, 0, 0, 0]], [[0, 0, 0, 0], [0, 1, 0, 0]], [1, 0])
    pb = m.build()
    path = m.to_file(os.path.join(str(tmp_path), "tv.lth"))
    back = lth.load(path)
    same(back.grid, pb.grid, "grid")
    for a, b in zip(back.bc, pb.bc):
        same(a, b, "bc")
    same_decomposition(lth.decompose(back, order=1), lth.decompose(pb, order=1))
    same(lth.bvp(back).z, lth.bvp(pb).z, "bvp z")
    # sampled block: 2 x 2 samples written to a CSV next to the file
    ms = lth.Model([2, 1], (0, 3), grid=31, sampling_order=5, name="smp")
    ms.A[1, 1] = lth.Samples(t, a11)
    ms.A[1, 2] = [1, 1]
    ms.A[2, 1] = [[1, 0]]
    ms.f[2] = -1
    ms.z0 = [1, 0.5, 0.5]
    spb = ms.build()
    path = ms.to_file(os.path.join(str(tmp_path), "smp.lth"))
    assert os.path.exists(os.path.join(str(tmp_path), "smp_A11.csv"))
    sback = lth.load(path)
    d1, d2 = lth.decompose(sback), lth.decompose(spb)
    same_decomposition(d1, d2)
    assert [s.block for s in d1.sampling] == ["A(1,1)"] and d1.sampling[0].degree == 5
    same(d1.sampling[0].error, d2.sampling[0].error, "sampling error")
    with pytest.raises(lth.UsageError, match="to_file"):
        ms.to_string()


def test_sampled_from_csv_equals_the_file():
    """Samples.from_csv reads the shipped CSV as the data file does."""
    m = lth.Model([2, 1], (0, 4), grid=81, sampling_order=5)
    m.A[1, 1] = lth.Samples.from_csv(data("sampled_a11.csv"))
    m.A[1, 2] = [1, 1]
    m.A[2, 1] = [[1, 0]]
    m.f[1] = [0, "sin(t)"]
    m.f[2] = -1
    m.z0 = [1, 0.5, 0.5]
    same_decomposition(lth.decompose(m), lth.decompose(data("sampled.lth")))


def test_lqr_model_round_trip(tmp_path):
    m = lth.LQRModel((2, 1), (0, 2), A=[[0, 1], [0, 0]], B=[0, 1], H=np.eye(2),
                     x0=[math.cosh(2), -math.sinh(2)], grid=21)
    ref = lth.lqr(data("lqr_double_integrator.lth"), gain=True)
    res = lth.lqr(m, gain=True)
    for key in ("x", "lam", "u", "cost", "gain"):
        same(getattr(res, key), getattr(ref, key), key)
    tv = lth.LQRModel((2, 1), (0, 1.5), grid=16, A=[["0", "1"], ["-(1 + 0.5*sin(t))", -0.1]],
                      B=["0", "1 + 0.2*cos(t)"], H=[["1 + 0.3*sin(2*t)", 0.1], [0.1, 0.5]],
                      C=[[0.4, 0.1], [0.1, 0.3]], x0=[1, 0])
    path = tv.to_file(os.path.join(str(tmp_path), "tv.lth"))
    for other in (lth.load(path), lth.load(data("lqr_timevarying.lth"))):
        a, b = lth.lqr(other), lth.lqr(tv)
        same(a.x, b.x, "x")
        same(a.jump, b.jump, "jump")
        same_decomposition(lth.decompose(other), lth.decompose(tv))
    with pytest.raises(lth.DataError, match="symmetric"):
        lth.LQRModel((2, 1), (0, 1), A=np.zeros((2, 2)), B=[0, 1], H=[[1, 1], [0, 1]],
                     x0=[1, 0]).build()


def test_writer_numbers_read_back_exactly():
    rng = np.random.default_rng(7)
    vals = np.concatenate([rng.standard_normal(50) * 10.0 ** rng.integers(-300, 300, 50),
                           [0.1, 1 / 3, -2.5e-308, 5e-324, 1.7976931348623157e308, -0.0]])
    m = lth.Model([len(vals), 1], (0, 1))
    m.A[1, 2] = vals.reshape(-1, 1)
    m.A[2, 1] = np.ones((1, len(vals)))
    m.z0 = np.concatenate([vals, [0]])
    back = lth.parse(m.to_string())
    same(back.z0, m.z0, "z0 written and read")
