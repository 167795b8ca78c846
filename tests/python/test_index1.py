# SPDX-License-Identifier: GPL-3.0-or-later
"""Index-1 unknowns (docs/equations.md section 10) in Python's results.

An equation-form file's unknowns y that equations without derivatives fix,
0 = K(t) y + L(t) x + f(t), are eliminated; every result still returns them,
in the order of ``variables``, with the tools' numbers to the last bit
(their JSON and CSV), and the values satisfy the equations that fix them:
||K y + L x + f|| within a bound from K's conditioning, checked against K,
L and f written out here from the circuit's netlist and from random files.
"""

import subprocess

import numpy as np
import pytest

import lth
from conftest import APPS, data, run_tool
from test_cli_equal import compare_ic, compare_solve, same

EPS = np.finfo(float).eps
CIRCUIT = data("circuit_mna.lth")
R2, R3 = 2.0, 0.5  # the circuit's params


def circuit_klf(t):
    """K (4 x 4; y = e1, iV, e3, e4), L (4 x 5; x = e2, e5, iL1, iL2, iL3)
    and f of the circuit's four equations without derivatives that fix y,
    written from data/circuit_mna.lth (the source, nodes 1, 3 and 4)."""
    c = 1.0 / (2.0 + np.sin(t))
    K = np.array([[1.0, 0, 0, 0],
                  [-c, 1.0, 0, 0],
                  [0, 0, -1 / R2 - 1 / R3, 1 / R3],
                  [0, 0, 1 / R3, -1 / R3]])
    L = np.zeros((4, 5))
    L[1, 0] = c            # node 1: + e2/(2 + sin t)
    L[2, 0] = 1 / R2       # node 3: + e2/R2 - iL1
    L[2, 2] = -1.0
    L[3, 3] = -1.0         # node 4: - iL2
    f = np.array([-np.sin(t), 0.0, 0.0, 0.0])
    return K, L, f


def residual_ok(K, L, f, y, x, what):
    """||K y + L x + f||_inf within 64 eps cond(K) times the size of its
    terms: y = -K^{-1}(L x + f) is computed through K^{-1} L and K^{-1} f,
    whose relative errors are up to eps cond(K)."""
    r = K @ y + L @ x + f
    size = np.abs(K) @ np.abs(y) + np.abs(L) @ np.abs(x) + np.abs(f)
    tol = 64 * EPS * np.linalg.cond(K, np.inf) * max(size.max(), 1e-300)
    assert np.abs(r).max() <= tol, "%s: ||K y + L x + f|| = %.3e exceeds %.3e" % (
        what, np.abs(r).max(), tol)


def columns(pb, names):
    return [pb.variables.index(n) for n in names]


def test_problem_names():
    pb = lth.load(CIRCUIT)
    assert pb.variables == ["e1", "iV", "e2", "e3", "e4", "e5", "iL1", "iL2", "iL3"]
    assert (pb.s, pb.nvars, pb.index1) == (5, 9, ["e1", "iV", "e3", "e4"])
    assert pb.z_components == ["e2", "e5", "iL1", "iL2", "iL3"]
    js = run_tool("lth-decompose", CIRCUIT, "--format", "json", "-q", "--at", "0")
    assert pb.chain_components == js["components"] and pb.index1 == js["index1"]
    assert (pb.variable_index + 1).tolist() == js["variable_index"]
    # the file's z0 gives every unknown, in the order of `variables`
    same(pb.z0, [0, -0.15, 0.3, 0.5, 0.6, 0.4, 0.1, -0.2, 0], "z0")
    assert pb.component_index("e3") == 3 and pb.full_components[3] == "z[8] (e3)"


def test_solve_csv_and_property():
    """lth-solve's CSV (the user's order) equals Python's z, and y fixes K y + L x + f = 0."""
    pb = lth.load(CIRCUIT)
    times = [0, 0.75, 2.5, 4, 10]
    sol = lth.solve(pb, times=times)
    assert sol.z.shape == (5, 9) and sol.z_error.shape == (5, 9)
    proc = subprocess.run([APPS + "/lth-solve", CIRCUIT, "--times", "0,0.75,2.5,4,10",
                           "--format", "csv", "-q"], capture_output=True, text=True, check=True)
    rows = proc.stdout.strip().splitlines()
    assert rows[0] == "t," + ",".join('"%s"' % n for n in pb.variables)
    same(sol.z, [[float(x) for x in r.split(",")[1:]] for r in rows[1:]], "csv z")
    y, x = columns(pb, pb.index1), columns(pb, ["e2", "e5", "iL1", "iL2", "iL3"])
    for k, t in enumerate(times):
        K, L, f = circuit_klf(t)
        residual_ok(K, L, f, sol.z[k, y], sol.z[k, x], "t = %g" % t)
        # y's error estimate is the image of x's: -K^{-1} L ez
        ey = -np.linalg.solve(K, L @ sol.z_error[k, x])
        scale = np.abs(np.linalg.solve(K, np.abs(L) @ np.abs(sol.z_error[k, x]))).max()
        assert np.abs(sol.z_error[k, y] - ey).max() <= 64 * EPS * np.linalg.cond(K) * scale
    assert sol.component("e3")[0] == sol.z[0, 3] and sol.components == pb.variables


def test_solve_z0_index1_values():
    """A z0 (every unknown) whose index-1 value is not the one the others fix
    is refused as lth-solve refuses it (exit 3), unless project=True."""
    pb = lth.load(CIRCUIT)
    bad = [0, -0.15, 0.3, 0.7, 0.6, 0.4, 0.1, -0.2, 0]
    with pytest.raises(lth.InconsistentError) as e:
        lth.solve(pb, bad)
    tool = run_tool("lth-solve", CIRCUIT, "--z0", ",".join(map(str, bad)), expect=3)
    assert str(e.value).replace("project=True", "--project") in tool.stderr
    assert e.value.t == 0 and "e3 is 0.69999999999999996" in str(e.value)
    js = run_tool("lth-solve", CIRCUIT, "--format", "json", "-q", "--project", "--times",
                  "3,0,1", "--z0", ",".join(map(str, bad)))
    sol = lth.solve(pb, bad, [3, 0, 1], project=True)
    compare_solve(sol, js, pb)
    # the value used at t0 has the index-1 unknowns the others fix, as the
    # output at t0 does: the two are computed along different paths (z(t0)
    # from v0, y from other copies of z, which a BLAS kernel may round
    # differently by their alignment): equal to a few roundings of their size
    zc, yc = pb.to_chain(sol.z0_used), pb.to_chain(sol.z[1])
    assert np.all(np.abs(zc - yc) <= 64 * np.finfo(float).eps * max(1.0, np.abs(zc).max()))
    # a consistent z0 given in full (the file's, y to 1e-16) is taken
    good = pb.z0.copy()
    js = run_tool("lth-solve", CIRCUIT, "--format", "json", "-q", "--times", "0,5",
                  "--z0", ",".join(repr(float(v)) for v in good))
    compare_solve(lth.solve(pb, good, [0, 5]), js, pb)
    with pytest.raises(lth.UsageError, match="9 are needed"):
        lth.solve(pb, good[:5])


def test_ic_guess_and_fix():
    pb = lth.load(CIRCUIT)
    guess = [0.2, 0.1, 0.3, 0.9, -0.4, 0.4, 0.1, -0.2, 0.05]  # y's entries not consistent
    js = run_tool("lth-ic", CIRCUIT, "--format", "json", "--conditions", "--guess",
                  ",".join(map(str, guess)))
    res = lth.ic(pb, guess=guess)
    compare_ic(res, js, pb)
    # the index-1 unknowns follow from z: moved from the guess, and marked so
    assert set(columns(pb, pb.index1)) <= set(res.changed.tolist())
    K, L, f = circuit_klf(0.0)
    residual_ok(K, L, f, res.z0[columns(pb, pb.index1)],
                res.z0[columns(pb, ["e2", "e5", "iL1", "iL2", "iL3"])], "ic z0")
    assert abs(res.M0 @ res.z0 - res.b0).max() <= res.tolerance
    js = run_tool("lth-ic", CIRCUIT, "--format", "json", "--conditions", "--fix", "e2=0.25",
                  "--at", "1.5")
    compare_ic(lth.ic(pb, 1.5, fix={"e2": 0.25}), js, pb)
    with pytest.raises(lth.UsageError, match="e3 is an index-1 unknown"):
        lth.ic(pb, fix={"e3": 0.5})
    run_tool("lth-ic", CIRCUIT, "--fix", "e3=0.5", expect=1)


BC = "bc e3(0) = 0.5\nbc iL1(0) = 0.1\nbc e1(t1) + iL3(t1) = 0.3\n"
BC_MATRICES = ("bc B0 = [0,0,0,1,0,0,0,0,0; 0,0,0,0,0,0,1,0,0; 0,0,0,0,0,0,0,0,0]\n"
               "bc B1 = [0,0,0,0,0,0,0,0,0; 0,0,0,0,0,0,0,0,0; 1,0,0,0,0,0,0,0,1]\n"
               "bc beta = [0.5; 0.1; 0.3]\n")


@pytest.mark.parametrize("bc", ["bc e2(0) + e3(0) = 0.8\nbc iL1(0) = 0.1\nbc iL3(t1) = 0.3\n",
                                BC, BC_MATRICES])
def test_bc_statements_on_index1_unknowns_hold(tmp_path, bc):
    """bc statements naming index-1 unknowns, as equations or as matrices,
    hold for the unknowns lth-bvp returns (the reader folds y = Y z + y0 into
    z's columns for both spellings)."""
    path = tmp_path / "circuit_bvp.lth"
    path.write_text(open(CIRCUIT).read() + bc)
    js = run_tool("lth-bvp", path, "--format", "json", "--times", "0,10")
    pb = lth.load(CIRCUIT)
    z = np.array(js["z"])[:, pb.chain_position]  # every unknown, in the order of `variables`
    e2, e3, iL1, iL3, e1 = (z[:, pb.variables.index(n)] for n in ("e2", "e3", "iL1", "iL3", "e1"))
    first = e2[0] + e3[0] - 0.8 if "e2(0)" in bc else e3[0] - 0.5
    last = iL3[1] - 0.3 if "e2(0)" in bc else e1[1] + iL3[1] - 0.3
    assert max(abs(first), abs(iL1[0] - 0.1), abs(last)) <= 1e-9, (first, last)


def test_bvp_bc_on_index1_unknowns(tmp_path):
    """bc on index-1 unknowns: from the file (folded by the reader) and from
    Python (folded here) give lth-bvp's numbers, and the conditions hold for
    the returned unknowns."""
    path = tmp_path / "circuit_bvp.lth"
    path.write_text(open(CIRCUIT).read() + BC)
    times = [0, 2.5, 10]
    js = run_tool("lth-bvp", path, "--format", "json", "--times", "0,2.5,10")
    pb = lth.load(CIRCUIT)
    B0, B1 = np.zeros((3, 9)), np.zeros((3, 9))
    B0[0, pb.variables.index("e3")] = B0[1, pb.variables.index("iL1")] = 1
    B1[2, pb.variables.index("e1")] = B1[2, pb.variables.index("iL3")] = 1
    beta = [0.5, 0.1, 0.3]
    for sol in (lth.bvp(lth.load(str(path)), times), lth.bvp(pb, times, bc=(B0, B1, beta))):
        assert sol.z.shape == (3, 9)
        same(pb.to_chain(sol.z), js["z"], "bvp z")
        same(sol.bc_residual, js["bc_residual"], "bc_residual")
        r = B0 @ sol.z[0] + B1 @ sol.z[-1] - beta
        # the residual of the folded conditions plus the rounding of y
        assert np.abs(r).max() <= sol.bc_residual + 1e-13 * np.abs(sol.z).max()
    # the file's bc, held with the index-1 columns folded into z's
    fb = lth.load(str(path)).bc
    assert not np.any(fb[0][:, columns(pb, pb.index1)]) and fb[0].shape == (3, 9)
    with pytest.raises(lth.UsageError, match="3 x 9"):
        lth.bvp(pb, times, bc=(B0[:, :5], B1[:, :5], beta))


def random_file(rng, ny):
    """An index-2 Hessenberg rest (x1, x2 differential, u algebraic) with ny
    index-1 unknowns fixed by 0 = K(t) y + L x + f(t), K = K0 + sin(t) K1
    diagonally dominant on every t (so invertible), y in the differential
    equations."""
    ys = ["y%d" % (j + 1) for j in range(ny)]
    K0 = rng.uniform(-1, 1, (ny, ny)) + np.diag(rng.uniform(ny + 1, ny + 3, ny))
    K1 = rng.uniform(-0.4, 0.4, (ny, ny))
    L = rng.uniform(-2, 2, (ny, 2))
    fa = rng.uniform(-1, 1, ny)
    c = rng.uniform(-1, 1, (2, ny))
    lines = ["problem equations", "variables x1 %s x2 u" % " ".join(ys), "interval 0 2", ""]
    lines.append("x1' = -x1 + x2 + u + %s" % " + ".join("(%r)*%s" % (c[0, j], ys[j])
                                                       for j in range(ny)))
    lines.append("x2' = x1 - 2*x2 + %s" % " + ".join("(%r)*%s" % (c[1, j], ys[j])
                                                    for j in range(ny)))
    lines.append("0 = x1 + x2 - sin(t)")
    for i in range(ny):
        terms = ["((%r) + (%r)*sin(t))*%s" % (K0[i, j], K1[i, j], ys[j]) for j in range(ny)]
        terms += ["(%r)*x1" % L[i, 0], "(%r)*x2" % L[i, 1], "(%r)*cos(3*t)" % fa[i]]
        lines.append("0 = " + " + ".join(terms))

    def klf(t):
        return (K0 + np.sin(t) * K1, L, fa * np.cos(3 * t))
    return "\n".join(lines) + "\n", klf


@pytest.mark.parametrize("seed", range(6))
def test_random_index1_property(seed):
    """Random files: every result (ic, solve, bvp) returns y with
    K y + L x + f = 0, and the y it returns are the tools'."""
    rng = np.random.default_rng(seed)
    ny = 1 + seed % 3
    text, klf = random_file(rng, ny)
    pb = lth.parse(text, name="random%d" % seed)
    assert pb.nvars == ny + 3 and pb.s == 3 and len(pb.index1) == ny
    y, x = columns(pb, ["y%d" % (j + 1) for j in range(ny)]), columns(pb, ["x1", "x2"])
    z0 = lth.ic(pb).z0
    times = np.linspace(0, 2, 9)
    sol = lth.solve(pb, z0, times)
    assert pb.p == 1  # x1 + x2 = sin(t) leaves one free value
    B1 = np.zeros((1, pb.nvars))
    B1[0, y[-1]] = 1  # a condition on an index-1 unknown at t1
    bsol = lth.bvp(pb, times, bc=(np.zeros_like(B1), B1, rng.uniform(-1, 1, 1)))
    for what, zz in (("ic", z0[None, :]), ("solve", sol.z), ("bvp", bsol.z)):
        for k in range(len(zz)):
            t = times[k] if len(zz) > 1 else 0.0
            K, L, f = klf(t)
            residual_ok(K, L, f, zz[k, y], zz[k, x], "%s seed %d t = %g" % (what, seed, t))
