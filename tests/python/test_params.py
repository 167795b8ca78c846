# SPDX-License-Identifier: GPL-3.0-or-later
"""``lth.load(path, params={...})`` and ``lth.parse(text, params=...)`` against
the tools' ``--param NAME=VALUE``: the same numbers to the last bit (the tools
print %.17g, which reads back to the same double), the same refusals; and the
boundary conditions of an equation-form file (``bc x2(0) = 0``) as Python
sees them, in the order of ``variables``.
"""

import numpy as np
import pytest

import lth
from conftest import data, run_tool
from test_cli_equal import compare_solve, same

BVP_KEYS = ("cond_shooting", "bc_residual", "cond_bvp", "error_estimate")


def test_bvp_params_equal_tool():
    """An equation-form BVP with equation bcs, two params overridden (a number
    and an expression that uses another param)."""
    params = {"k23": 2.5, "m3": "2*m1"}
    js = run_tool("lth-bvp", data("chain_bvp.lth"), "--param", "k23=2.5", "--param", "m3=2*m1",
                  "--format", "json", "-q")
    pb = lth.load(data("chain_bvp.lth"), params=params)
    sol = lth.bvp(pb)
    same(sol.times, js["times"], "times")
    same(pb.to_chain(sol.z), js["z"], "z")
    for key in BVP_KEYS:
        same(getattr(sol, key), js[key], "bvp " + key)
    # the params changed the problem: the solution differs from the file's
    base = lth.bvp(lth.load(data("chain_bvp.lth")))
    assert np.max(np.abs(base.z - sol.z)) > 1e-3


def test_solve_params_equal_tool():
    """The block form (rlc_periodic: R, L, C1, C2, V0, w) through lth.solve,
    from a consistent initial value computed for the overridden params."""
    params = {"R": 0.25, "w": "0.5 + 0.25"}
    args = ["--param", "R=0.25", "--param", "w=0.5 + 0.25"]
    pb = lth.load(data("rlc_periodic.lth"), params=params)
    ic = run_tool("lth-ic", data("rlc_periodic.lth"), *args, "--format", "json")
    z0 = ",".join("%.17g" % v for v in ic["z0"])
    js = run_tool("lth-solve", data("rlc_periodic.lth"), *args, "--z0", z0, "--times",
                  "0,1,2.5", "--format", "json", "-q")
    sol = lth.solve(pb, ic["z0"], [0, 1, 2.5])
    compare_solve(sol, js, pb)


def test_decompose_params_equal_tool():
    js = run_tool("lth-decompose", data("pendulum_equations.lth"), "--param", "k=4.5",
                  "--param", "m=1.25", "--at", "0.5,2", "--format", "json")
    pb = lth.load(data("pendulum_equations.lth"), params={"k": 4.5, "m": 1.25})
    dec = lth.decompose(pb, [0.5, 2])
    for k, pt in enumerate(js["points"]):
        same(dec.P[k], pt["P"], "P")
        same(dec.Ahat[k], pt["Ahat"], "Ahat")
        same(dec.g[k], pt["g"], "g")


def test_parse_params():
    """parse() takes params too, and params=None or {} is the file as written."""
    with open(data("chain_bvp.lth")) as f:
        text = f.read()
    a = lth.bvp(lth.parse(text, params={"k23": 2.5}))
    b = lth.bvp(lth.load(data("chain_bvp.lth"), params={"k23": "2.5"}))
    same(a.z, b.z, "parse vs load")
    c = lth.bvp(lth.load(data("chain_bvp.lth"), params={}))
    d = lth.bvp(lth.load(data("chain_bvp.lth")))
    same(c.z, d.z, "params={} vs none")


def test_unknown_param_as_the_tools_say():
    """The tools' message after "--param zz=1: " is Python's after "param zz=1.0: "."""
    proc = run_tool("lth-bvp", data("chain_bvp.lth"), "--param", "zz=1", expect=1)
    tool = proc.stderr.strip().split("--param zz=1: ", 1)[1]
    with pytest.raises(lth.UsageError) as ei:
        lth.load(data("chain_bvp.lth"), params={"zz": 1})
    assert str(ei.value).split("param zz=1.0: ", 1)[1] == tool  # Python writes repr(1.0)
    assert "defines no param 'zz' (its params: m1, m2, m3, k23)" in tool


@pytest.mark.parametrize("params, message", [
    ({"k23": "t"}, "must be constant, but it uses t"),
    ({"k23": "nosuch"}, "unknown name 'nosuch'"),
    ({"k23": float("nan")}, "is not a finite number"),
    ({"k23": True}, "must be a number, not a bool"),
    ({"k 23": 1}, "is not an identifier"),
    ({3: 1}, "is not an identifier"),
    ({"k23": ""}, "is empty"),
    ([("k23", 1)], "params must be a dict"),
])
def test_bad_params(params, message):
    with pytest.raises(lth.UsageError) as ei:
        lth.load(data("chain_bvp.lth"), params=params)
    assert message in str(ei.value)


def test_equation_bc_in_python():
    """data/chain_bvp.lth's four equation bcs are Python's bc in the order of
    variables (x1 x1' x2 x2' x3 x3' u), the matrices of
    tests/data/chain_bvp_matrices.lth."""
    pb = lth.load(data("chain_bvp.lth"))
    assert pb.variables == ["x1", "x1'", "x2", "x2'", "x3", "x3'", "u"]
    B0, B1, beta = pb.bc
    want0 = np.zeros((4, 7))
    want1 = np.zeros((4, 7))
    want0[0, 2] = want0[1, 4] = 1
    want1[2, 2], want1[2, 4], want1[3, 5] = 1, -1, 1
    same(B0, want0, "B0")
    same(B1, want1, "B1")
    same(beta, np.zeros(4), "beta")
