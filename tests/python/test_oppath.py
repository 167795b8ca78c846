# SPDX-License-Identifier: GPL-3.0-or-later
"""path= of lth.solve, lth.ic and lth.decompose (lth.oppath): the operator
path agrees with the dense path on the shipped examples within what the
solves' own global error estimates and the requested tolerances allow (as
tests/cli/cli_oppath.sh checks the tools); a generated chain at s = 2003
takes the operator path through "auto" and gives lth-solve's, lth-ic's and
lth-decompose's numbers to rounding (the same library calls); what the
operator path cannot do is a UsageError naming it, never a silent switch."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import lth
from conftest import ROOT, data, run_tool

EXAMPLES = ["chain_sparse", "pendulum", "two_carts", "slope", "index5", "mass_varying",
            "carts_io", "circuit_mna", "pendulum_equations"]
TIMES = [0.25, 0.5, 1.0]


def allowed(a, b, z):
    """What two solves may differ by: 3 x the sum of their global error
    estimates plus 10 x the tolerance's scale atol + rtol max |z| (the floor
    keeps a tiny estimate from making the comparison flaky)."""
    floor = max(a.atol + a.rtol * z, b.atol + b.rtol * z)
    return 3 * (a.error_estimate + b.error_estimate) + 10 * floor


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_operator_agrees_with_dense(name):
    pb = lth.load(data(name + ".lth"))
    op = lth.solve(pb, times=TIMES, rtol=1e-8, atol=1e-10, path="operator")
    dn = lth.solve(pb, times=TIMES, rtol=1e-8, atol=1e-10, path="dense")
    assert (op.path, dn.path) == ("operator", "dense")
    # each path's default; the dense one's, auto, names what it took: cheb up to m = 8
    auto = "cheb" if len(dn.state_components) <= 8 else "rk8pd"
    assert op.method == "msbdf" and dn.method == auto, (dn.method, len(dn.state_components))
    assert op.output_gain is None and op.gamma is None and dn.output_gain is not None
    assert op.error_estimate is not None and dn.error_estimate is not None
    d = np.abs(op.z - dn.z).max()
    assert d <= allowed(op, dn, np.abs(dn.z).max()), (name, d)
    assert op.z_error.shape == op.z.shape and op.drift_rel < 1e-8
    assert {"jv_evals", "lin_iters", "projections"} <= set(op.stats)

    ia, ib = lth.ic(pb, path="operator"), lth.ic(pb, path="dense")
    assert (ia.path, ib.path) == ("operator", "dense")
    assert ia.M0 is None and ia.b0 is None and ib.M0 is not None
    # both are Corollary 3's projection of the same guess: equal to rounding
    assert np.abs(ia.z0 - ib.z0).max() <= 1e-9 * max(1.0, np.abs(ib.z0).max())
    assert ia.residual <= ia.tolerance

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # fields given: no warning
        da = lth.decompose(pb, [0.3, 0.9], order=2, path="operator", fields=["g", "q"])
    db = lth.decompose(pb, [0.3, 0.9], order=2, path="dense")
    assert da.path == "operator" and db.path == "dense"
    assert da.P is None and da.G is None and da.norms["Ahat"] is None
    for key in ("g", "q"):
        va, vb = getattr(da, key), getattr(db, key)
        scale = max(1.0, np.abs(vb).max())
        assert np.abs(va - vb).max() <= 1e-9 * scale, key
        wa, wb = da.derivatives[key], db.derivatives[key]
        assert np.abs(wa - wb).max() <= 1e-9 * max(1.0, np.abs(wb).max()), key
        assert np.abs(da.norms[key] - db.norms[key]).max() <= 1e-9 * scale
    # condition estimates of the same matrices: within 10 %
    assert np.all(np.abs(da.cond_chain - db.cond_chain) <= 0.1 * db.cond_chain)
    assert np.all(np.abs(da.cond_pi - db.cond_pi) <= 0.1 * db.cond_pi)


def test_projected_z0_same_on_both_paths():
    pb = lth.load(data("pendulum.lth"))
    kw = dict(times=[1.0], rtol=1e-8, atol=1e-10, project=True)
    z0 = [0.1, 0, 0.05, 0.2, 3]
    op = lth.solve(pb, z0, path="operator", **kw)
    dn = lth.solve(pb, z0, path="dense", **kw)
    assert op.projected and dn.projected
    assert np.abs(op.z0_used - dn.z0_used).max() <= 1e-9
    assert op.z0_worst == dn.z0_worst
    assert np.abs(op.z - dn.z).max() <= allowed(op, dn, np.abs(dn.z).max())
    with pytest.raises(lth.InconsistentError, match="not consistent"):
        lth.solve(pb, z0, times=[1.0], path="operator")


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    """scripts/gen-chain.py --mm 1000 3: s = 2003, Matrix Market blocks."""
    d = tmp_path_factory.mktemp("chain")
    path = os.path.join(str(d), "chain.lth")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-chain.py"), "--mm",
                    "1000", "3", path], check=True, capture_output=True)
    return path


def same(a, b):
    """Equal to rounding: the same library calls give the same numbers; the
    comparison allows the last bits only."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.all(np.abs(a - b) <= 1e-13 * np.maximum(1.0, np.abs(b)))


def test_chain_auto_takes_operator_path_as_the_tool(chain):
    times = [0.5, 1.0, 1.5, 2.0]
    pb = lth.load(chain)
    assert pb.s == 2003
    sol = lth.solve(pb, times=times, rtol=1e-8, atol=1e-10)
    assert sol.path == "operator" and sol.method == "msbdf"
    ref = run_tool("lth-solve", chain, "--times", "0.5,1,1.5,2", "--rtol", "1e-8", "--atol",
                   "1e-10", "--format", "json")
    assert ref["path"] == "operator"
    assert same(np.array([pb.to_chain(r) for r in sol.z]), ref["z"])
    assert same(sol.error_estimate, ref["error_estimate"])
    assert same(sol.error_tol, ref["error_tol"])
    assert same(sol.drift, ref["drift"])
    assert sol.output_gain is None and ref["output_gain"] is None
    assert sol.stats["steps"] == ref["stats"]["steps"]  # the same run, step for step
    # the proof that Pi is nonsingular between the output times, as the tool's
    assert sol.stats["pi_proven"] == ref["stats"]["pi_proven"] == 1.0
    assert sol.stats["pi_proofs"] == ref["stats"]["pi_proofs"] >= 1
    assert same(sol.stats["pi_inv_bound"], ref["stats"]["pi_inv_bound"])
    assert sol.stats["pi_proof_off"] is None

    iv = lth.ic(pb, at=0.7)
    ri = run_tool("lth-ic", chain, "--at", "0.7", "--format", "json")
    assert iv.path == ri["path"] == "operator"
    assert same(pb.to_chain(iv.z0), ri["z0"]) and same(iv.residual, ri["residual"])
    assert same(iv.tolerance, ri["tolerance"]) and iv.M0 is None

    with pytest.warns(lth.PathWarning, match="never formed"):
        dec = lth.decompose(pb, [0.5], order=1)
    rd = run_tool("lth-decompose", chain, "--at", "0.5", "--order", "1", "--fields",
                  "cond_pi,g,q,cond_chain,norm_g,norm_q", "--format", "json")
    pt = rd["points"][0]
    assert dec.path == "operator" and dec.P is None and dec.Bhat is None
    assert same(dec.g[0], pt["g"]) and same(pb.to_chain(dec.q[0])[:pb.s], pt["q"])
    assert same(dec.cond_pi[0], pt["cond_pi"]) and same(dec.cond_chain[0], pt["cond_chain"])
    assert same(dec.norms["g"][0], pt["norm_g"]) and same(dec.norms["q"][0], pt["norm_q"])


def test_chain_refuses_matrices_on_operator_path(chain):
    pb = lth.load(chain)
    with pytest.raises(lth.UsageError, match=r"fields P: at s = 2003 .* 2000 x 2000"):
        lth.decompose(pb, [0.5], fields=["g", "P"])
    with pytest.raises(lth.UsageError, match=r"the norm of G is 2003 x 2000"):
        lth.decompose(pb, [0.5], fields="norm_G")


@pytest.mark.parametrize("call, words", [
    (lambda pb: lth.ic(pb, method="nearest", path="operator"), "method='nearest'"),
    (lambda pb: lth.ic(pb, fix={0: 0.1}, path="operator"), "fix"),
    (lambda pb: lth.solve(pb, times=[1], method="rk8pd", path="operator"), "explicit method"),
    (lambda pb: lth.solve(pb, times=[1], method="bsimp", path="operator"), "bsimp"),
    (lambda pb: lth.solve(pb, times=[1], stabilize=1.0, path="operator"), "stabilize"),
    (lambda pb: lth.decompose(pb, [0.5], check=True, path="operator"), "check"),
])
def test_operator_path_refuses_what_it_cannot_do(call, words):
    pb = lth.load(data("pendulum.lth"))
    with pytest.raises(lth.UsageError) as e:
        call(pb)
    msg = str(e.value)
    assert "path='operator': the operator path does not take" in msg and words in msg, msg
    assert "use path='dense'" in msg


def test_operator_path_refuses_sampled_data():
    pb = lth.load(data("sampled.lth"))
    with pytest.raises(lth.UsageError, match="does not take sampled data"):
        lth.solve(pb, times=[0.5], path="operator")


def test_bad_path_name():
    pb = lth.load(data("pendulum.lth"))
    with pytest.raises(lth.UsageError, match="path must be 'auto', 'dense' or 'operator'"):
        lth.ic(pb, path="sparse")


def test_small_auto_stays_dense():
    pb = lth.load(data("chain_sparse.lth"))
    assert lth.ic(pb).path == "dense"
    assert lth.decompose(pb, [0.5]).path == "dense"


def test_auto_at_size_with_a_dense_option_warns_and_stays_dense(tmp_path):
    """s = 503: auto takes the operator path, but method='nearest' needs the
    dense conditions: the dense path, with a PathWarning saying so."""
    path = str(tmp_path / "c503.lth")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-chain.py"), "--mm",
                    "250", "3", path], check=True, capture_output=True)
    pb = lth.load(path)
    assert lth.ic(pb).path == "operator"
    with pytest.warns(lth.PathWarning, match="the dense path .s x s matrices. is used"):
        iv = lth.ic(pb, method="nearest")
    assert iv.path == "dense" and iv.M0 is not None


def test_plot_of_an_operator_solution():
    """lth.plot.solution draws an operator-path solution without forming P
    (the drift panel is the dense path's)."""
    import matplotlib
    matplotlib.use("Agg")
    import lth.plot
    pb = lth.load(data("pendulum.lth"))
    op = lth.solve(pb, times=TIMES, path="operator")
    dn = lth.solve(pb, times=TIMES, path="dense")
    fig_op = lth.plot.solution(op, pb)
    fig_dn = lth.plot.solution(dn, pb)
    assert len(fig_dn.axes) == len(fig_op.axes) + 1  # the drift panel


# ---------------------------------------------------------------- lth.bvp


def test_bvp_examples_operator_agrees_with_dense():
    """The shipped BVP examples on both paths: the same BVP, each solution
    within its collocation tolerance (error estimates plus 10 tol max |z|)."""
    for name in ("chain_bvp", "pendulum_bvp", "pendulum_forced_bvp"):
        pb = lth.load(data(name + ".lth"))
        op = lth.bvp(pb, times=TIMES[:2], path="operator")
        dn = lth.bvp(pb, times=TIMES[:2], path="dense")
        assert (op.path, dn.path) == ("operator", "dense")
        assert op.method == dn.method == "collocation"
        assert op.cond_bvp is None and dn.cond_bvp is not None
        assert dn.pi_proven is None and op.pi_proven is not None and 0 <= op.pi_proven <= 1
        assert (op.pi_proof_off is None) == (op.pi_proven > 0), (name, op.pi_proof_off)
        zmax = max(1.0, np.abs(dn.z).max())
        d = np.abs(op.z - dn.z).max()
        assert d <= 3 * (op.error_estimate + dn.error_estimate) + 10 * op.tol * zmax, (name, d)
        assert op.bc_residual <= 1e-10 * zmax


@pytest.fixture(scope="module")
def chain_bvp603(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("cbvp") / "c.lth")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-chain.py"), "--mm",
                    "--bvp", "300", "3", path], check=True, capture_output=True)
    return path


def test_bvp_chain_auto_takes_operator_path_as_the_tool(chain_bvp603):
    """s = 603: "auto" collocates on the operator path, with lth-bvp's numbers
    to rounding (the same library calls) and the same proof of Pi."""
    pb = lth.load(chain_bvp603)
    assert pb.s == 603
    sol = lth.bvp(pb, times=[0.5, 1.0])
    ref = run_tool("lth-bvp", chain_bvp603, "--times", "0.5,1", "--format", "json")
    assert sol.path == ref["path"] == "operator"
    assert same(np.array([pb.to_chain(r) for r in sol.z]), ref["z"])
    for key in ("bc_residual", "error_estimate", "cond_shooting", "drift", "pi_inv_bound"):
        assert same(getattr(sol, key), ref[key]), key
    assert sol.intervals == ref["intervals"] and sol.pi_proofs == ref["pi_proofs"]
    assert sol.pi_proven == ref["pi_proven"] == 1.0 and sol.cond_bvp is None


def test_bvp_operator_path_refuses_a_dense_method(chain_bvp603):
    pb = lth.load(data("pendulum_bvp.lth"))
    with pytest.raises(lth.UsageError, match="does not take method='shooting'.*use path='dense'"):
        lth.bvp(pb, method="shooting", path="operator")
    # auto at s = 603 with a dense-only method: the dense path, with a warning
    # (three points cannot resolve the chain's forcing: refused, quickly)
    with pytest.warns(lth.PathWarning, match="method='fd'.*the dense path"):
        with pytest.raises(lth.ToleranceError, match="finite differences cannot resolve"):
            lth.bvp(lth.load(chain_bvp603), times=[1.0], method="fd", path="auto", points=3,
                    order_check=False)


def test_bvp_operator_path_refuses_a_factored_mass(tmp_path):
    """A non-diagonal mass matrix kept as a factorization has no sparse
    blocks for the collocation: path='operator' is a UsageError naming it,
    as lth-bvp --path operator refuses (the flag LTH_PATH_SPARSE_A)."""
    path = str(tmp_path / "cm.lth")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-chain.py"), "--mm",
                    "--coupled-masses", "--bvp", "100", "3", path], check=True,
                   capture_output=True)
    with pytest.raises(lth.UsageError, match="does not take a mass matrix that is not diagonal"):
        lth.bvp(lth.load(path), times=[1.0], path="operator")


# ---------------------------------------------------------------- lth.lqr


def test_lqr_example_operator_agrees_with_dense():
    """The shipped singular LQR example on both paths: the same optimum and
    cost within the tolerance (the collocation's rtol 1e-10)."""
    pb = lth.load(data("lqr_double_integrator.lth"))
    op = lth.lqr(pb, times=[0, 1, 2], path="operator")
    dn = lth.lqr(pb, times=[0, 1, 2], path="dense")
    assert (op.path, dn.path) == ("operator", "dense")
    assert op.exists and op.unique and dn.exists and dn.unique
    assert op.theorem4 is None and op.cond_W is None and dn.theorem4 is not None
    assert op.error_estimate is not None and op.intervals >= 1
    scale = max(1.0, np.abs(dn.x).max(), np.abs(dn.lam).max(), np.abs(dn.u).max())
    for a, b in ((op.x, dn.x), (op.lam, dn.lam), (op.u, dn.u)):
        assert np.abs(a - b).max() <= 1e-8 * scale
    assert abs(op.cost - dn.cost) <= 1e-8 * max(1.0, abs(dn.cost))


@pytest.fixture(scope="module")
def lqr_chain(tmp_path_factory):
    """gen-chain.py --lqr 300 1: nx = 600, the optimality DAE s = 1201."""
    d = tmp_path_factory.mktemp("lqr")
    paths = []
    for extra in ([], ["--inconsistent"]):
        path = str(d / ("c%d.lth" % len(paths)))
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-chain.py"), "--lqr",
                        "300", "1", path] + extra, check=True, capture_output=True)
        paths.append(path)
    return paths


def test_lqr_chain_auto_takes_operator_path_as_the_tool(lqr_chain):
    pb = lth.load(lqr_chain[0])
    sol = lth.lqr(pb, times=[0, 1, 2])
    ref = run_tool("lth-lqr", lqr_chain[0], "--times", "0,1,2", "--format", "json")
    assert sol.path == ref["path"] == "operator"
    for a, key in ((sol.x, "x"), (sol.lam, "lambda"), (sol.u, "u")):
        assert same(a, ref[key]), key
    assert same(sol.cost, ref["cost"]) and same(sol.residual, ref["residual"])
    assert same(sol.error_estimate, ref["error_estimate"])
    assert sol.intervals == ref["intervals"] and sol.pi_proofs == ref["pi_proofs"]
    assert sol.pi_proven == ref["pi_proven"] and sol.exists and sol.unique
    assert sol.theorem4 is None and sol.gain is None


def test_lqr_operator_path_refuses_what_only_dense_answers(lqr_chain):
    """An x0 that needs an impulse: the operator path raises, naming the
    impulse and the dense path (never exists=False with made-up numbers);
    the dense path's options are refused on path='operator'."""
    with pytest.raises(lth.NoSolutionError, match="impulse at t0.*path='dense' analyses it"):
        lth.lqr(lth.load(lqr_chain[1]), times=[0, 1])
    pb = lth.load(data("lqr_double_integrator.lth"))
    with pytest.raises(lth.UsageError, match="does not take gain=True"):
        lth.lqr(pb, gain=True, path="operator")
    with pytest.raises(lth.UsageError, match="does not take method='shooting'"):
        lth.lqr(pb, method="shooting", path="operator")
