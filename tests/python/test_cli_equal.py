# SPDX-License-Identifier: GPL-3.0-or-later
"""Every tool's results through Python equal the tool's JSON to the last bit.

The tools print numbers with %.17g, which reads back to the same double, so
the comparison is exact (==; JSON writes -0 as 0, and -0.0 == 0.0).  Timing
figures are the only numbers left out.
"""

import glob
import os

import numpy as np
import pytest

import lth
from conftest import DATA, data, run_tool

DAE_FILES = ["index2", "index5", "mass_varying", "pendulum", "pendulum_10s_bvp", "pendulum_bvp",
             "pendulum_equations", "pendulum_forced_bvp", "pendulum_natural", "rlc",
             "rlc_periodic", "rotating_rod", "sampled", "slope", "slope_equations", "stiff",
             "two_carts"]
LQR_FILES = ["lqr_double_integrator", "lqr_timevarying"]
Z0_FILES = ["index5", "pendulum", "rotating_rod", "sampled", "slope", "stiff"]


def same(py, js, what):
    a = np.asarray(py, dtype=float)
    b = np.asarray(js, dtype=float)
    assert a.shape == b.shape, "%s: shape %s in Python, %s in the JSON" % (what, a.shape, b.shape)
    bad = np.argwhere(~(a == b))
    assert bad.size == 0, "%s differs at %s: %r (Python) vs %r (tool)" % (
        what, bad[0].tolist(), a[tuple(bad[0])], b[tuple(bad[0])])


def same_sampling(py, js):
    assert len(py) == len(js or [])
    for p, j in zip(py, js or []):
        assert p.block == j["block"] and p.degree == j["degree"]
        for key in ("error", "t_error", "relative"):
            same(getattr(p, key), j[key], "sampling %s %s" % (p.block, key))


def test_every_example_is_covered():
    names = sorted(os.path.basename(f)[:-4] for f in glob.glob(os.path.join(DATA, "*.lth")))
    assert names == sorted(DAE_FILES + LQR_FILES), "a new example: add it to the lists here"


@pytest.mark.parametrize("name", DAE_FILES + LQR_FILES)
def test_decompose(name):
    js = run_tool("lth-decompose", data(name + ".lth"), "--format", "json", "-q")
    dec = lth.decompose(lth.load(data(name + ".lth")))
    assert (dec.index, list(dec.blocks), dec.p, dec.s, dec.kind) == (
        js["index"], js["blocks"], js["p"], js["s"], js["kind"])
    pts = js["points"]
    same(dec.t, [p["t"] for p in pts], "t")
    for key in ("cond_pi", "cond_chain", "P", "Ahat", "g", "Bhat", "q", "G"):
        same(getattr(dec, key), [p[key] for p in pts], "%s %s" % (name, key))
    summ = js["summary"]
    assert summ["n_points"] == len(dec)
    same(dec.cond_pi_max, [summ["cond_pi_max"], summ["t_cond_pi_max"]], "cond_pi_max")
    same(dec.cond_chain_max, [summ["cond_chain_max"], summ["t_cond_chain_max"]], "cond_chain_max")
    same_sampling(dec.sampling, js.get("sampling"))


@pytest.mark.parametrize("name", ["index5", "pendulum", "sampled", "lqr_timevarying"])
def test_decompose_order_and_check(name):
    args = ["--format", "json", "-q", "--order", "2", "--check", "--at", "0.5,0.25,1"]
    js = run_tool("lth-decompose", data(name + ".lth"), *args)
    dec = lth.decompose(lth.load(data(name + ".lth")), [0.5, 0.25, 1], order=2, check=True)
    pts = js["points"]
    for key in ("P", "Ahat", "g", "Bhat", "q", "G"):
        same(getattr(dec, key), [p[key] for p in pts], key)
        same(dec.derivatives[key], [p["derivatives"][key] for p in pts], "d/dt " + key)
    for key in ("theorem3_linear", "theorem3_affine", "idempotent", "commute", "structure",
                "worst", "rank_G", "sv_gap"):
        same(getattr(dec.check, key), [p["check"][key] for p in pts], "check " + key)
    assert [bool(x) for x in dec.check.rank_P_ok] == [p["check"]["rank_P_ok"] for p in pts]
    same_sampling(dec.sampling, js.get("sampling"))


def compare_ic(res, js):
    for key in ("t", "z0", "residual", "guess", "guess_residual", "change", "tolerance",
                "cond_chain"):
        same(getattr(res, key), js[key], "ic " + key)
    assert res.method == js["method"] and res.p == js["p"] and res.s == js["s"]
    same(res.changed + 1, js["changed"], "changed")
    same(res.M0, js["conditions"]["M0"], "M0")
    same(res.b0, js["conditions"]["b0"], "b0")


@pytest.mark.parametrize("name", DAE_FILES)
def test_ic(name):
    js = run_tool("lth-ic", data(name + ".lth"), "--format", "json", "--conditions")
    compare_ic(lth.ic(lth.load(data(name + ".lth"))), js)


def test_ic_nearest_fix_and_time():
    pb = lth.load(data("slope.lth"))
    guess = [0.1, 0.2, 0.3, 0.4, 0.5]
    js = run_tool("lth-ic", pb.name, "--format", "json", "--conditions", "--nearest",
                  "--at", "0.75", "--guess", ",".join(map(str, guess)))
    compare_ic(lth.ic(pb, 0.75, guess, method="nearest"), js)
    js = run_tool("lth-ic", pb.name, "--format", "json", "--conditions", "--fix", "3=1,1=0.5")
    res = lth.ic(pb, fix={"z_2[1]": 1, 0: 0.5})
    compare_ic(res, js)
    assert [f["index"] for f in js["fixed"]] == [3, 1]


@pytest.mark.parametrize("name", Z0_FILES)
def test_solve(name):
    js = run_tool("lth-solve", data(name + ".lth"), "--format", "json", "-q")
    compare_solve(lth.solve(lth.load(data(name + ".lth"))), js)


def compare_solve(sol, js):
    same(sol.times, js["times"], "times")
    same(sol.z, js["z"], "z")
    for key in ("drift", "drift_rel", "output_gain", "z0_used", "z0_residual", "t0", "rtol",
                "atol"):
        same(getattr(sol, key), js[key], "solve " + key)
    assert sol.projected == js["projected"] and sol.reprojected == js["reprojected"]
    assert sol.components == js["components"] and sol.method == js["method"]
    for key in ("steps", "rhs_evals", "decomps", "gamma"):
        same(sol.stats[key], js["stats"][key], "stats " + key)
    # the global error estimate
    for key in ("error_estimate", "error_tol", "z_error", "error_rtol", "error_atol"):
        same(getattr(sol, key), js[key], "solve " + key)
    assert sol.error_method == js["error_method"]
    # no worst place when the estimate is exactly 0
    assert sol.error_worst == js.get("error_worst")
    assert sol.t_error_worst == js.get("t_error_worst")
    for key in ("error_steps", "error_rhs_evals", "error_decomps"):
        same(sol.stats[key], js["stats"][key], "stats " + key)
    if sol.projected:
        same(sol.z0_given, js["z0_given"], "z0_given")
        same(sol.z0_change, js["z0_change"], "z0_change")
        assert sol.z0_worst + 1 == js["z0_worst"]
    same_sampling(sol.sampling, js.get("sampling"))


def test_solve_options():
    """Unsorted times, another integrator, projection of an inconsistent z0."""
    pb = lth.load(data("slope.lth"))
    z0 = [-0.5, 0.3, 2, 1, 3.9]
    js = run_tool("lth-solve", pb.name, "--format", "json", "-q", "--times", "2,0.5,0,1.25",
                  "--method", "msbdf", "--rtol", "1e-8", "--atol", "1e-10", "--project",
                  "--z0", ",".join(map(str, z0)), "--reproject", "--stabilize", "2")
    sol = lth.solve(pb, z0, [2, 0.5, 0, 1.25], method="msbdf", rtol=1e-8, atol=1e-10,
                    project=True, reproject=True, stabilize=2)
    assert sol.projected
    compare_solve(sol, js)


@pytest.mark.parametrize("method", ["shooting", "multiple", "fd", "collocation"])
def test_bvp(method):
    js = run_tool("lth-bvp", data("index2.lth"), "--format", "json", "--method", method)
    sol = lth.bvp(lth.load(data("index2.lth")), method=method)
    same(sol.times, js["times"], "times")
    same(sol.z, js["z"], "z")
    for key in ("cond_shooting", "bc_residual", "drift", "rtol", "atol", "intervals", "fd_points",
                "fd_order", "fd_error", "fd_error_layer", "cond_bvp", "error_estimate", "tol",
                "stages"):
        if key in js or getattr(sol, key) is not None:
            assert getattr(sol, key) is not None and key in js, key
            same(getattr(sol, key), js[key], "bvp " + key)
    assert (sol.method, sol.p, sol.s, sol.components) == (js["method"], js["p"], js["s"],
                                                          js["components"])


def test_bvp_options():
    js = run_tool("lth-bvp", data("index2.lth"), "--format", "json", "--method", "multiple",
                  "--intervals", "5", "--times", "3,0,1.5")
    sol = lth.bvp(data("index2.lth"), [3, 0, 1.5], method="multiple", intervals=5)
    same(sol.z, js["z"], "z")
    assert sol.intervals == js["intervals"] == 5
    js = run_tool("lth-bvp", data("index2.lth"), "--format", "json", "--method", "fd",
                  "--points", "301", "--no-order-check", "--grid", "7")
    sol = lth.bvp(data("index2.lth"), grid=7, method="fd", points=301, order_check=False)
    same(sol.z, js["z"], "z")
    assert sol.fd_order is None and "fd_order" not in js


@pytest.mark.parametrize("name", LQR_FILES)
def test_lqr(name):
    js = run_tool("lth-lqr", data(name + ".lth"), "--format", "json", "--gain")
    res = lth.lqr(lth.load(data(name + ".lth")), gain=True)
    same(res.times, js["times"], "times")
    same(res.x, js["x"], "x")
    same(res.lam, js["lambda"], "lambda")
    same(res.u, js["u"], "u")
    same(res.gain, js["gain"], "gain")
    for key in ("cost", "x0", "x0_consistent", "jump", "terminal_jump", "residual", "cond_W",
                "theorem4", "drift"):
        same(getattr(res, key), js[key], "lqr " + key)
    for key in ("exists", "unique", "have_trajectory", "jump_in_range_B", "terminal_impulse",
                "nx", "nu", "p"):
        assert getattr(res, key) == js[key], key


def test_lqr_times():
    js = run_tool("lth-lqr", data("lqr_double_integrator.lth"), "--format", "json",
                  "--times", "1.5,0.25", "--rtol", "1e-9")
    res = lth.lqr(data("lqr_double_integrator.lth"), [1.5, 0.25], rtol=1e-9)
    same(res.x, js["x"], "x")
    same(res.cost, js["cost"], "cost")
