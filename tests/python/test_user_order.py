# SPDX-License-Identifier: GPL-3.0-or-later
"""Python speaks the user's order: for a `problem equations` file every
vector of s numbers that Python takes or returns (z0, guess, bc columns, z,
M0's columns, the rows of Bhat, q and G) is in the order of `variables`, as
the file's own z0 and bc lines and the tools' --z0, --guess and tables.

tests/data/three_masses.lth is built so that its z0 is consistent read in
either order: a mix-up gives a wrong trajectory and no error, so only a
comparison with the tools catches it.
"""

import io
import os
import subprocess

import numpy as np
import pytest

import lth
from conftest import APPS, ROOT, run_tool

THREE = os.path.join(ROOT, "tests", "data", "three_masses.lth")
VARIABLES = ["x1", "x1'", "x2", "x2'", "x3", "x3'", "u"]
Z0 = [1, 1, 1, -0.5, 0.25, 1, 1]  # the file's z0 line
B0 = [[0, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0], [0] * 7, [0] * 7]
B1 = [[0] * 7, [0] * 7, [0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 1, 0]]
BETA = [1, 0.25, 0.5, -0.3]


def csv_table(tool, *args):
    """(column names after t, rows of numbers) of `tool --format csv`."""
    exe = os.path.join(APPS, tool)
    proc = subprocess.run([exe] + [str(a) for a in args] + ["--format", "csv", "-q"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    head, _, body = proc.stdout.partition("\n")
    names = [n.strip('"') for n in head.split(",")]
    assert names[0] == "t"
    return names[1:], np.loadtxt(io.StringIO(body), delimiter=",", ndmin=2)


def close(a, b, rtol, what):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (what, a.shape, b.shape)
    err = np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b)))
    assert err <= rtol, "%s: relative difference %.3g > %.3g" % (what, err, rtol)


def test_problem_names_and_map():
    pb = lth.load(THREE)
    js = run_tool("lth-solve", THREE, "--times", "0", "--format", "json", "-q")
    assert pb.form == "equations"
    assert pb.variables == VARIABLES == js["variables"]
    assert pb.components == VARIABLES
    assert pb.chain_components == js["components"] != VARIABLES
    assert (pb.variable_index + 1).tolist() == js["variable_index"]
    assert pb.state_components == pb.chain_components[:pb.m]
    assert [pb.chain_components[i] for i in pb.chain_position] == VARIABLES
    x = np.arange(7.0) * 1.5
    assert pb.to_chain(x).tolist() == [x[k] for k in pb.variable_index]
    assert np.array_equal(pb.to_user(pb.to_chain(x)), x)
    assert pb.z0.tolist() == Z0
    B0f, B1f, betaf = pb.bc
    assert B0f.tolist() == B0 and B1f.tolist() == B1 and betaf.tolist() == BETA
    assert pb.component_index("x2'") == 3 and pb.component_index(3) == 3
    # "z[i]" is position i of the chain, as in the tools' reports ("z[6] (x1)")
    assert pb.component_index("z[6]") == 0 and pb.full_components[0] == "z[6] (x1)"


def test_block_form_orders_agree():
    pb = lth.load(os.path.join(ROOT, "data", "slope.lth"))
    assert pb.form == "blocks"
    assert pb.variables == pb.components == pb.chain_components
    assert pb.variable_index.tolist() == pb.chain_position.tolist() == list(range(5))


def test_solve_from_the_files_z0_equals_the_tool():
    names, rows = csv_table("lth-solve", THREE, "--times", "0,1,2")
    sol = lth.solve(lth.load(THREE), z0=Z0, times=[0, 1, 2])
    assert sol.components == names == VARIABLES
    close(sol.z, rows[:, 1:], 1e-12, "z from the file's z0 literal")
    assert sol.z0_used.tolist() == Z0 and sol.z0_given.tolist() == Z0
    default = lth.solve(THREE, times=[0, 1, 2])  # the file's z0
    assert np.array_equal(default.z, sol.z)
    close(sol.component("x2'"), rows[:, 4], 1e-12, "x2' by name")
    # x2' spelled without the apostrophe (lth_name_find), as lth-ic --fix takes it
    for spelling in ("d.x2", "x2_dot"):
        assert np.array_equal(sol.component(spelling), sol.component("x2'"))
        assert lth.load(THREE).component_index(spelling) == 3
    with pytest.raises(ValueError, match="no component named 'd.u'"):
        sol.component("d.u")


def test_solve_projection_reports_in_the_users_order():
    z0 = list(Z0)
    z0[6] = 5.0  # a wrong force u: projected
    js = run_tool("lth-solve", THREE, "--times", "1", "--format", "json", "-q", "--project",
                  "--z0", ",".join(map(str, z0)))
    sol = lth.solve(THREE, z0, [1], project=True)
    assert sol.projected and sol.z0_given.tolist() == z0
    pb = lth.load(THREE)
    assert sol.components[sol.z0_worst] == "u"
    assert pb.full_components[sol.z0_worst] == js["z0_worst_name"] == "z[7] (u)"
    assert np.array_equal(pb.to_chain(sol.z0_used), js["z0_used"])
    assert np.array_equal(pb.to_chain(sol.z[0]), js["z"][0])


def test_bvp_with_the_files_bc_matrices_equals_the_tool():
    names, rows = csv_table("lth-bvp", THREE, "--times", "0,0.5,2")
    pb = lth.load(THREE)
    given = lth.bvp(pb, [0, 0.5, 2], bc=(B0, B1, BETA))
    assert given.components == names == VARIABLES
    close(given.z, rows[:, 1:], 1e-12, "bvp z with bc=(B0, B1, beta) from the file")
    from_file = lth.bvp(pb, [0, 0.5, 2])
    assert np.array_equal(from_file.z, given.z)
    # the conditions hold in the user's order
    B0a, B1a, b = (np.array(x, dtype=float) for x in (B0, B1, BETA))
    close(B0a @ given.z[0] + B1a @ given.z[-1], b, 1e-10, "B0 z(t0) + B1 z(t1) = beta")


def test_ic_guess_and_fix_in_the_users_order():
    guess = [1, 1, 0.3, 0.2, 0.1, -0.4, 7.0]  # u inconsistent
    names, rows = csv_table("lth-ic", THREE, "--guess", ",".join(map(str, guess)))
    res = lth.ic(THREE, guess=guess)
    assert names[:-1] == res.components == VARIABLES and names[-1] == "residual"
    close(res.z0, rows[0, 1:-1], 1e-13, "ic z0")
    assert res.guess.tolist() == guess
    assert [res.components[i] for i in res.changed] == ["u"]
    close(res.M0 @ res.z0, res.b0, 1e-12, "M0 z0 = b0 with M0's columns in the user's order")
    js = run_tool("lth-ic", THREE, "--format", "json", "--fix", "x3=0.5,4=0.1")
    fixed = lth.ic(THREE, fix={"x3": 0.5, 3: 0.1})
    assert fixed.z0[4] == 0.5 and fixed.z0[3] == 0.1
    pb = lth.load(THREE)
    assert np.array_equal(pb.to_chain(fixed.z0), js["z0"])
    assert fixed.fixed == {"x3": 0.5, "x2'": 0.1}


def test_decomposition_rows_in_the_users_order():
    """z = G v + q holds with z from lth.solve: the rows of G and q are in the
    order of sol.z, the columns in the order of sol.v (the chain's state)."""
    pb = lth.load(THREE)
    times = [0.0, 0.7, 2.0]
    sol = lth.solve(pb, times=times)
    dec = lth.decompose(pb, times)
    assert dec.components == VARIABLES and dec.state_components == pb.state_components
    for k in range(len(times)):
        close(dec.G[k] @ sol.v[k] + dec.q[k], sol.z[k], 1e-9, "z = G v + q at %g" % times[k])
    js = run_tool("lth-decompose", THREE, "--at", "0.7", "--format", "json", "-q")
    pt = js["points"][0]
    assert np.array_equal(pb.to_chain(dec.q[1]), pt["q"])
    assert np.array_equal(pb.to_chain(dec.Bhat[1], axis=0), pt["Bhat"])
    assert np.array_equal(pb.to_chain(dec.G[1], axis=0), pt["G"])


@pytest.mark.parametrize("name", ["slope_equations", "pendulum_equations", "two_carts"])
def test_shipped_equation_files_start_from_their_z0(name):
    """The file's z0 in Python's hands is the vector of the file: solving from
    it explicitly equals lth-solve's table."""
    path = os.path.join(ROOT, "data", name + ".lth")
    pb = lth.load(path)
    names, rows = csv_table("lth-solve", path, "--times", "0,0.5")
    sol = lth.solve(pb, z0=list(pb.z0), times=[0, 0.5])
    assert sol.components == names == pb.variables
    close(sol.z, rows[:, 1:], 1e-12, name)
    close(rows[0, 1:], pb.z0, 1e-15, name + " z0")


def test_plot_labels_follow_the_orders():
    """q's lines are named by z's components, g's by v's (the chain's state)."""
    import lth.plot
    pb = lth.load(os.path.join(ROOT, "data", "slope_equations.lth"))
    dec = lth.decompose(pb, grid=5)
    fig = lth.plot.decomposition(dec)
    labels = [[line.get_label() for line in ax.get_lines()] for ax in fig.axes]
    assert ["q: " + n for n in pb.variables] in labels
    assert ["g: " + n for n in pb.state_components] in labels
    g_panel = labels.index(["g: " + n for n in pb.state_components])
    for line, k in zip(fig.axes[g_panel].get_lines(), range(pb.m)):
        assert np.array_equal(line.get_ydata(), dec.g[:, k])
