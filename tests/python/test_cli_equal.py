# SPDX-License-Identifier: GPL-3.0-or-later
"""Every tool's results through Python equal the tool's JSON to the last bit.

The tools print numbers with %.17g, which reads back to the same double, so
the comparison is exact (==; JSON writes -0 as 0, and -0.0 == 0.0).  Timing
figures are the only numbers left out.  The JSON keeps z in the chain order,
Python gives the user's order (equation-form files): ``Problem.to_chain``
maps Python's vectors to the JSON's.  Index-1 unknowns (docs/equations.md
section 10) follow z's s entries in both, every row of z and z_error.
"""

import glob
import os

import numpy as np
import pytest

import lth
from conftest import DATA, data, run_tool

DAE_FILES = ["carts_io", "chain_bvp", "chain_sparse", "circuit_io", "circuit_mna", "index2", "index5", "mass_varying", "pendulum", "pendulum_10s_bvp", "pendulum_bvp",
             "pendulum_equations", "pendulum_forced_bvp", "pendulum_natural", "rlc",
             "rlc_periodic", "rotating_rod", "sampled", "slope", "slope_equations", "stiff",
             "two_carts"]
LQR_FILES = ["lqr_double_integrator", "lqr_timevarying"]
Z0_FILES = ["carts_io", "chain_sparse", "circuit_io", "circuit_mna", "index5", "pendulum", "rotating_rod", "sampled", "slope", "stiff"]


def same(py, js, what):
    a = np.asarray(py, dtype=float)
    b = np.asarray(js, dtype=float)
    assert a.shape == b.shape, "%s: shape %s in Python, %s in the JSON" % (what, a.shape, b.shape)
    bad = np.argwhere(~(a == b))
    assert bad.size == 0, "%s differs at %s: %r (Python) vs %r (tool)" % (
        what, bad[0].tolist(), a[tuple(bad[0])], b[tuple(bad[0])])


def same_optional(py, js, key, what):
    """A key the tool writes only when there is something to say (sampled data)."""
    assert (py is None) == (key not in js), "%s: %r in Python, %r in the tool's JSON" % (
        what, py, js.get(key))
    if py is not None:
        same(py, js[key], what)


def same_sampling(py, js):
    assert len(py) == len(js or [])
    for p, j in zip(py, js or []):
        assert p.block == j["block"] and p.degree == j["degree"]
        for key in ("error", "t_error", "relative"):
            same(getattr(p, key), j[key], "sampling %s %s" % (p.block, key))


def same_errest(dec, pts):
    """lth-decompose's per-point error_estimate (sampled data only)."""
    has = ["error_estimate" in p for p in pts]
    assert all(has) == (dec.error_estimate is not None) and (all(has) or not any(has))
    if dec.error_estimate is not None:
        for key, val in dec.error_estimate.items():
            same(val, [p["error_estimate"][key] for p in pts], "error_estimate " + key)


def test_every_example_is_covered():
    names = sorted(os.path.basename(f)[:-4] for f in glob.glob(os.path.join(DATA, "*.lth")))
    assert names == sorted(DAE_FILES + LQR_FILES), \
        "a new example: add it to the lists here"


@pytest.mark.parametrize("name", DAE_FILES + LQR_FILES)
def test_decompose(name):
    js = run_tool("lth-decompose", data(name + ".lth"), "--format", "json", "-q")
    pb = lth.load(data(name + ".lth"))
    dec = lth.decompose(pb)
    assert (dec.index, list(dec.blocks), dec.p, dec.s, dec.kind) == (
        js["index"], js["blocks"], js["p"], js["s"], js["kind"])
    # the decomposition is of z's system: the index-1 unknowns have no rows
    assert dec.chain_components == js["components"][:dec.s]
    assert dec.index1 == js.get("index1", [])
    assert (dec.inputs, dec.free_inputs) == (js.get("inputs", []), js.get("free_inputs", []))
    pts = js["points"]
    same(dec.t, [p["t"] for p in pts], "t")
    for key in ("cond_pi", "cond_chain", "P", "Ahat", "g", "Bhat", "q", "G"):
        same(chain(pb, key, getattr(dec, key), 1), [p[key] for p in pts], "%s %s" % (name, key))
    summ = js["summary"]
    assert summ["n_points"] == len(dec)
    same(dec.cond_pi_max, [summ["cond_pi_max"], summ["t_cond_pi_max"]], "cond_pi_max")
    same(dec.cond_chain_max, [summ["cond_chain_max"], summ["t_cond_chain_max"]], "cond_chain_max")
    same_sampling(dec.sampling, js.get("sampling"))
    same_errest(dec, pts)


@pytest.mark.parametrize("name", ["index5", "pendulum", "sampled", "lqr_timevarying"])
def test_decompose_order_and_check(name):
    args = ["--format", "json", "-q", "--order", "2", "--check", "--at", "0.5,0.25,1"]
    js = run_tool("lth-decompose", data(name + ".lth"), *args)
    pb = lth.load(data(name + ".lth"))
    dec = lth.decompose(pb, [0.5, 0.25, 1], order=2, check=True)
    pts = js["points"]
    for key in ("P", "Ahat", "g", "Bhat", "q", "G"):
        same(chain(pb, key, getattr(dec, key), 1), [p[key] for p in pts], key)
        same(chain(pb, key, dec.derivatives[key], 2), [p["derivatives"][key] for p in pts],
             "d/dt " + key)
    for key in ("theorem3_linear", "theorem3_affine", "idempotent", "commute", "structure",
                "worst", "rank_G", "sv_gap"):
        same(getattr(dec.check, key), [p["check"][key] for p in pts], "check " + key)
    assert [bool(x) for x in dec.check.rank_P_ok] == [p["check"]["rank_P_ok"] for p in pts]
    same_sampling(dec.sampling, js.get("sampling"))


def chain(pb, key, x, axis):
    """Python's array in the JSON's order: the rows of Bhat, q and G (the
    components of z along `axis`) in the chain order."""
    return pb.to_chain(x, axis=axis) if key in ("Bhat", "q", "G") else x


def compare_ic(res, js, pb):
    for key in ("t", "residual", "guess_residual", "change", "tolerance", "cond_chain"):
        same(getattr(res, key), js[key], "ic " + key)
    for key in ("z0", "guess"):  # every unknown: z, then the index-1 ones
        same(pb.to_chain(getattr(res, key)), js[key], "ic " + key)
    assert res.method == js["method"] and res.p == js["p"] and res.s == js["s"]
    assert res.components == js.get("variables", js["components"])
    # changed: every unknown's position (z's, then the index-1 ones)
    same(sorted(pb.chain_position[res.changed] + 1), js["changed"], "changed")
    # M0's columns: z's in the JSON, every unknown in Python (0 for y)
    M0 = pb.to_chain(res.M0)
    same(M0[:, :pb.s], js["conditions"]["M0"], "M0")
    assert not np.any(M0[:, pb.s:]), "M0 has entries in the index-1 unknowns' columns"
    same(res.b0, js["conditions"]["b0"], "b0")
    same_optional(res.sampling_error, js, "sampling_error", "ic sampling_error")
    same_outputs(res, js, "ic")


def same_outputs(res, js, what):
    """The file's outputs (docs/equations.md section 11): names and y, as the
    tools write them (neither key without outputs)."""
    assert res.outputs == js.get("outputs", []), what + " outputs"
    same_optional(res.y, js, "y", what + " y")


@pytest.mark.parametrize("name", DAE_FILES)
def test_ic(name):
    js = run_tool("lth-ic", data(name + ".lth"), "--format", "json", "--conditions")
    pb = lth.load(data(name + ".lth"))
    compare_ic(lth.ic(pb), js, pb)


def test_ic_nearest_fix_and_time():
    pb = lth.load(data("slope.lth"))
    guess = [0.1, 0.2, 0.3, 0.4, 0.5]
    js = run_tool("lth-ic", pb.name, "--format", "json", "--conditions", "--nearest",
                  "--at", "0.75", "--guess", ",".join(map(str, guess)))
    compare_ic(lth.ic(pb, 0.75, guess, method="nearest"), js, pb)
    js = run_tool("lth-ic", pb.name, "--format", "json", "--conditions", "--fix", "3=1,1=0.5")
    res = lth.ic(pb, fix={"z_2[1]": 1, 0: 0.5})
    compare_ic(res, js, pb)
    assert [f["index"] for f in js["fixed"]] == [3, 1]


@pytest.mark.parametrize("name", Z0_FILES)
def test_solve(name):
    js = run_tool("lth-solve", data(name + ".lth"), "--format", "json", "-q")
    pb = lth.load(data(name + ".lth"))
    compare_solve(lth.solve(pb), js, pb)


def compare_solve(sol, js, pb):
    same(sol.times, js["times"], "times")
    same(pb.to_chain(sol.z), js["z"], "z")
    same(sol.v, js.get("v", sol.v), "v")
    for key in ("drift", "drift_rel", "output_gain", "z0_residual", "t0", "rtol", "atol"):
        same(getattr(sol, key), js[key], "solve " + key)
    # z0_used and z0_given: every unknown (z, then the index-1 ones)
    same(pb.to_chain(sol.z0_used), js["z0_used"], "z0_used")
    assert sol.projected == js["projected"] and sol.reprojected == js["reprojected"]
    assert sol.components == js.get("variables", js["components"])
    assert pb.chain_components == js["components"] and sol.method == js["method"]
    for key in ("steps", "rhs_evals", "decomps", "gamma"):
        same(sol.stats[key], js["stats"][key], "stats " + key)
    assert sol.stats["propagator"] == js["stats"]["propagator"]
    # the global error estimate
    for key in ("error_estimate", "error_tol", "error_rtol", "error_atol"):
        same(getattr(sol, key), js[key], "solve " + key)
    same(pb.to_chain(sol.z_error), js["z_error"], "solve z_error")
    assert sol.error_method == js["error_method"]
    # no worst place when the estimate is exactly 0
    assert sol.error_worst == js.get("error_worst")
    assert sol.t_error_worst == js.get("t_error_worst")
    for key in ("error_steps", "error_rhs_evals", "error_decomps"):
        same(sol.stats[key], js["stats"][key], "stats " + key)
    if sol.projected:
        same(pb.to_chain(sol.z0_given), js["z0_given"], "z0_given")
        same(sol.z0_change, js["z0_change"], "z0_change")
        assert pb.chain_position[sol.z0_worst] + 1 == js["z0_worst"]
    same_sampling(sol.sampling, js.get("sampling"))
    same_optional(sol.sampling_error, js, "sampling_error", "solve sampling_error")
    same_outputs(sol, js, "solve")


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
    compare_solve(sol, js, pb)


def test_solve_constant_data_exact():
    """Constant data: the matrix exponential, exact to rounding (the pendulum's
    swing dx = 0.05 cos(w t) + (0.1/w) sin(w t), w = sqrt(9.81)); an explicit
    method integrates, as lth-solve --method."""
    pb = lth.load(data("pendulum.lth"))
    ts = [0.0, 0.7, 2.5, 10.0]
    sol = lth.solve(pb, times=ts)
    assert sol.stats["propagator"] == "exponential" and sol.stats["rhs_evals"] == 0
    assert sol.error_method == "cheb" and sol.error_tol < 1  # (the default's second solve)
    w = np.sqrt(9.81)
    exact = [0.05 * np.cos(w * t) + 0.1 / w * np.sin(w * t) for t in ts]
    dx = pb.to_chain(sol.z)[:, 2]
    assert np.max(np.abs(dx - exact)) < 1e-14, dx - exact
    integ = lth.solve(pb, times=ts, method="rk8pd")
    assert integ.stats["propagator"] == "integrator" and integ.stats["rhs_evals"] > 0
    # the two agree within the integrator's own estimate
    assert np.max(np.abs(integ.z - sol.z)) <= 10 * integ.error_estimate + 1e-15


def test_solve_cheb_stiff():
    """method="cheb" (Chebyshev collocation) is lth-solve --method cheb: on the
    stiff index-2 DAE of data/stiff.lth (u = sin t) the same numbers as the
    tool, u(10) within 1e-9, its own method as the error estimate's
    reference, and the operator path refuses it by name."""
    pb = lth.load(data("stiff.lth"))
    sol = lth.solve(pb, times=[1, 10], method="cheb")
    js = run_tool("lth-solve", data("stiff.lth"), "--format", "json", "-q", "--times", "1,10",
                  "--method", "cheb")
    assert js["method"] == "cheb" and sol.error_method == "cheb"
    assert np.max(np.abs(np.array(js["z"]) - sol.z)) == 0.0
    assert abs(sol.z[-1][-1] - np.sin(10.0)) < 1e-9
    with pytest.raises(lth.UsageError, match="method='cheb'"):
        lth.solve(pb, times=[1], method="cheb", path="operator")


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
    same_optional(sol.sampling_error, js, "sampling_error", "bvp sampling_error")
    same_outputs(sol, js, "bvp")


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
    for key in ("sampling_error", "sampling_error_cost"):
        same_optional(getattr(res, key), js, key, "lqr " + key)


def test_lqr_times():
    js = run_tool("lth-lqr", data("lqr_double_integrator.lth"), "--format", "json",
                  "--times", "1.5,0.25", "--rtol", "1e-9")
    res = lth.lqr(data("lqr_double_integrator.lth"), [1.5, 0.25], rtol=1e-9)
    same(res.x, js["x"], "x")
    same(res.cost, js["cost"], "cost")


def _sampled_files(tmp):
    """An RLC circuit in the equation form driven by 401 samples of a smooth
    source, and an LQR problem with a sampled weight H."""
    t = np.linspace(0.0, 2.0, 401)
    np.savetxt(os.path.join(tmp, "vs.csv"), np.c_[t, np.sin(3 * t) + 0.2 * np.cos(5 * t)],
               delimiter=",", fmt="%.17g")
    np.savetxt(os.path.join(tmp, "h.csv"),
               np.c_[t, 1 + 0.5 * np.sin(t), 0 * t, 0 * t, 1 + 0 * t], delimiter=",",
               fmt="%.17g")
    eqn = os.path.join(tmp, "rlc.lth")
    with open(eqn, "w") as f:
        f.write("problem equations\nvariables v iL iV\ninterval 0 2\ngrid 5\n"
                "param R = 10, L = 0.5, C = 1e-3\n"
                "C*v' = iV - iL - v/R\nL*iL' = v\n0 = v - samples(\"vs.csv\")\n"
                "z0 = [0.2 0 0]\nbc B0 = [0 1 0]\nbc B1 = [0 0 0]\nbc beta = [0]\n")
    lqr = os.path.join(tmp, "lqr.lth")
    with open(lqr, "w") as f:
        f.write("lth 1\nproblem lqr\nsizes 2 1\ninterval 0 2\ngrid 5\n"
                "A = [0, 1; 0, 0]\nB = [0; 1]\nC = [0, 0; 0, 0]\nx0 = [1; -0.5]\n"
                "H = samples(\"h.csv\")\n")
    return eqn, lqr


def test_sampling_error_equation_form(tmp_path):
    """An equation-form file's sampling_error, as the tools compute it."""
    eqn, lqr = _sampled_files(str(tmp_path))
    pb = lth.load(eqn)
    js = run_tool("lth-decompose", eqn, "--format", "json", "-q")
    dec = lth.decompose(pb)
    assert dec.error_estimate is not None
    same_errest(dec, js["points"])
    js = run_tool("lth-ic", eqn, "--format", "json", "--conditions")
    res = lth.ic(pb)
    assert res.sampling_error is not None
    compare_ic(res, js, pb)
    js = run_tool("lth-solve", eqn, "--format", "json", "-q", "--project")
    sol = lth.solve(pb, project=True)
    assert sol.sampling_error is not None
    compare_solve(sol, js, pb)
    js = run_tool("lth-bvp", eqn, "--format", "json")
    sol = lth.bvp(pb)
    same(sol.z, js["z"], "z")
    assert sol.sampling_error is not None
    same_optional(sol.sampling_error, js, "sampling_error", "bvp sampling_error")
    js = run_tool("lth-lqr", lqr, "--format", "json")
    res = lth.lqr(lth.load(lqr))
    assert res.sampling_error is not None and res.sampling_error_cost is not None
    for key in ("sampling_error", "sampling_error_cost"):
        same_optional(getattr(res, key), js, key, "lqr " + key)


# Inputs and outputs (docs/equations.md section 11 and 11.1): a cart pair on
# a rail tied by a time-varying rod, pushed by u1, the rod's length changed
# by u2 (a prescribed motion), in the equation form and in the block form
# (tests/cli/cli_io.sh, cli_ioblock.sh); "free" leaves u2 without a signal.
IO_SIGNALS = "u1(t) = sin(3*t)\nu2(t) = 0.1*t^2\n"
IO_FILES = {
    "equations": """problem equations
variables x1 x2 v1 v2 lam
inputs u1, u2
interval 0 3
grid 7
param m = 2, k = 3
c(t) = 1 + 0.5*sin(t)
outputs y1 = x1 - 0.5*x2, y2 = c(t)*lam + 2*u1
x1' = v1
x2' = v2
m*v1' = -k*x1 + cos(t)*lam + c(t)*u1
m*v2' = -k*x2 + sin(t)*lam
0 = cos(t)*x1 + sin(t)*x2 - 1 + u2
z0 = [1, 0, 0, 0, 5]
bc v2(0) = 0
bc x2(3) = 0.5
""",
    "blocks": """problem dae
blocks 2 2 1
interval 0 3
grid 7
param m = 2, k = 3
c(t) = 1 + 0.5*sin(t)
A(1,2) = -k/m*eye
A(1,3) = [cos(t); sin(t)]/m
A(2,1) = eye
A(3,2) = [cos(t), sin(t)]
z0 = [0, 0, 1, 0, 5]
bc B0 = [0, 1, 0, 0, 0; 0, 0, 0, 0, 0]
bc B1 = [0, 0, 0, 0, 0; 0, 0, 0, 1, 0]
bc beta = [0; 0.5]
inputs u1 u2
B(1) = [c(t)/m, 0; 0, 0]
B(3) = [0, 1]
f(3) = -1
outputs y1 y2
C = [0, 0, 1, -0.5, 0; 0, 0, 0, 0, c(t)]
D = [0, 0; 2, 0]
""",
}


def io_file(tmp_path, form, signals=IO_SIGNALS):
    path = os.path.join(str(tmp_path), form + ".lth")
    with open(path, "w") as f:
        f.write(IO_FILES[form] + signals)
    return path


@pytest.mark.parametrize("form", ["equations", "blocks"])
def test_inputs_outputs(tmp_path, form):
    """ic, solve (projected z0: the file's is not consistent), bvp and
    decompose of a file with inputs and outputs: y and the names as the
    tools' JSON, to the last bit."""
    path = io_file(tmp_path, form)
    pb = lth.load(path)
    assert (pb.inputs, pb.outputs, pb.free_inputs) == (["u1", "u2"], ["y1", "y2"], [])
    js = run_tool("lth-ic", path, "--format", "json", "--conditions")
    res = lth.ic(pb)
    assert res.y.shape == (2,)
    compare_ic(res, js, pb)
    js = run_tool("lth-solve", path, "--format", "json", "-q", "--project")
    sol = lth.solve(pb, project=True)
    assert sol.y.shape == (7, 2)
    compare_solve(sol, js, pb)
    js = run_tool("lth-solve", path, "--format", "json", "-q", "--project", "--times",
                  "2.5,0.5,1", "--method", "msbdf")
    compare_solve(lth.solve(pb, times=[2.5, 0.5, 1], project=True, method="msbdf"), js, pb)
    for method in ("collocation", "shooting", "fd"):
        js = run_tool("lth-bvp", path, "--format", "json", "--method", method)
        sol = lth.bvp(pb, method=method)
        same(pb.to_chain(sol.z), js["z"], "bvp z")
        same_outputs(sol, js, "bvp " + method)
    js = run_tool("lth-decompose", path, "--format", "json", "-q")
    dec = lth.decompose(pb)
    assert (dec.inputs, dec.free_inputs) == (js["inputs"], js.get("free_inputs", []))
    same(dec.g, [p["g"] for p in js["points"]], "g")


@pytest.mark.parametrize("form", ["equations", "blocks"])
def test_free_input_decompose(tmp_path, form):
    """lth-decompose takes a free input as 0, and says which: so does Python,
    and the input is free again afterwards."""
    path = io_file(tmp_path, form, "u1(t) = sin(3*t)\n")
    pb = lth.load(path)
    js = run_tool("lth-decompose", path, "--format", "json", "-q")
    dec = lth.decompose(pb)
    assert dec.free_inputs == js["free_inputs"] == ["u2"] and pb.free_inputs == ["u2"]
    for key in ("P", "Ahat", "g"):
        same(getattr(dec, key), [p[key] for p in js["points"]], key)
    same(pb.to_chain(dec.q, axis=1), [p["q"] for p in js["points"]], "q")
