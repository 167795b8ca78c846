# SPDX-License-Identifier: GPL-3.0-or-later
"""Inputs and outputs through Python (docs/equations.md section 11): y
against C z + D u computed here in NumPy, the refusal of a free input (the
tools' message and exit status), and Problem.set_input."""

import numpy as np
import pytest

import lth
from conftest import data, run_tool
from test_cli_equal import IO_SIGNALS, io_file


def test_outputs_by_hand(tmp_path):
    """y1 = x1 - 0.5 x2, y2 = c(t) lam + 2 u1 from the returned z: a few
    roundings of an inner product of 7 terms (1e-14 relative)."""
    pb = lth.load(io_file(tmp_path, "equations"))
    for sol in (lth.solve(pb, project=True), lth.bvp(pb)):
        t = sol.times
        x1, x2, lam = (sol.component(n) for n in ("x1", "x2", "lam"))
        want = np.c_[x1 - 0.5 * x2, (1 + 0.5 * np.sin(t)) * lam + 2 * np.sin(3 * t)]
        scale = np.abs(want).max()
        assert np.abs(sol.y - want).max() <= 1e-14 * scale
        assert np.array_equal(sol.output("y2"), sol.y[:, 1])
    res = lth.ic(pb)
    z = dict(zip(res.components, res.z0))
    assert abs(res.y[0] - (z["x1"] - 0.5 * z["x2"])) <= 1e-15 * max(1, abs(z["x1"]))
    assert abs(res.y[1] - z["lam"]) <= 1e-15 * abs(z["lam"])  # c(0) = 1, u1(0) = 0


def test_no_outputs():
    pb = lth.load(data("pendulum.lth"))
    assert (pb.inputs, pb.outputs, pb.free_inputs) == ([], [], [])
    sol = lth.solve(pb)
    assert sol.outputs == [] and sol.y is None
    with pytest.raises(ValueError):
        sol.output("y1")
    with pytest.raises(lth.UsageError):
        pb.set_input("u1", "t")


def test_block_outputs_named_by_position(tmp_path):
    path = io_file(tmp_path, "blocks")
    with open(path) as f:
        text = f.read().replace("outputs y1 y2\n", "")
    pb = lth.parse(text)
    assert pb.outputs == ["y[1]", "y[2]"] and lth.ic(pb).outputs == ["y[1]", "y[2]"]


@pytest.mark.parametrize("form", ["equations", "blocks"])
def test_free_input_refused(tmp_path, form):
    """ic, solve and bvp refuse a free input naming it, with the tools'
    message (lth.solve in the place of lth-solve) and exit status 1."""
    path = io_file(tmp_path, form, "u1(t) = sin(3*t)\n")
    pb = lth.load(path)
    assert pb.free_inputs == ["u2"]
    for fn, tool in ((lambda: lth.ic(pb), "lth-ic"), (lambda: lth.solve(pb, project=True),
                                                       "lth-solve"),
                     (lambda: lth.bvp(pb), "lth-bvp")):
        with pytest.raises(lth.UsageError) as ei:
            fn()
        e = ei.value
        assert e.exit_code == 1
        proc = run_tool(tool, path, "--project" if tool == "lth-solve" else "-q",
                        expect=e.exit_code)
        text = e.message.replace(tool.replace("-", "."), tool).replace(
            " or by Problem.set_input", "")
        assert proc.stderr.strip() == "%s: %s" % (tool, text)


def test_set_input(tmp_path):
    """A signal given in Python is the one a file would give: the free
    file completed by set_input equals the complete file (the same
    expression, compiled alike: bit for bit); another signal moves y as
    that signal in a file does; None makes the input free again."""
    full = lth.load(io_file(tmp_path, "equations"))
    pb = lth.load(io_file(tmp_path, "equations", "u1(t) = sin(3*t)\n"))
    pb.set_input("u2", "0.1*t^2")
    assert pb.free_inputs == []
    a, b = lth.solve(pb, project=True), lth.solve(full, project=True)
    assert np.array_equal(a.y, b.y) and np.array_equal(a.z, b.z)
    pb.set_input(1, "0.2*t^2")
    other = lth.load(io_file(tmp_path, "equations", IO_SIGNALS.replace("0.1", "0.2")))
    c, d = lth.solve(pb, project=True), lth.solve(other, project=True)
    assert np.array_equal(c.y, d.y)
    assert np.abs(c.y - a.y).max() > 1e-3  # the new signal is used
    pb.set_input("u1", 0)  # a number: u1 = 0
    e = lth.solve(pb, project=True)
    t = e.times
    assert np.abs(e.y[:, 1] - (1 + 0.5 * np.sin(t)) * e.component("lam")).max() <= \
        1e-14 * np.abs(e.y[:, 1]).max()
    pb.set_input("u2", None)
    assert pb.free_inputs == ["u2"]
    with pytest.raises(lth.UsageError, match="the input u2 has no signal: lth.solve"):
        lth.solve(pb, project=True)


def test_set_input_errors(tmp_path):
    pb = lth.load(io_file(tmp_path, "equations"))
    with pytest.raises(lth.UsageError, match="no input 'u3'; the inputs of .* are u1, u2"):
        pb.set_input("u3", "t")
    with pytest.raises(lth.UsageError, match="no input 2"):
        pb.set_input(2, "t")
    with pytest.raises(lth.ParseError, match=r"the signal u1\(t\) = sin\(3\*t\) \+:"):
        pb.set_input("u1", "sin(3*t) +")
    with pytest.raises(lth.Error, match=r"the signal u1\(t\) = c\(t\):"):
        pb.set_input("u1", "c(t)")  # the file's named functions are not known here
    with pytest.raises(lth.UsageError):
        pb.set_input("u1", " ")
    with pytest.raises(lth.UsageError):
        pb.set_input("u1", float("nan"))
    assert pb.free_inputs == []  # a refused signal leaves the file's in place
    sol = lth.solve(pb, project=True)
    assert np.abs(sol.y[:, 1] - ((1 + 0.5 * np.sin(sol.times)) * sol.component("lam")
                                 + 2 * np.sin(3 * sol.times))).max() <= 1e-13


def test_inputs_in_index1_constraints():
    """data/circuit_io.lth (the sources of circuit_mna.lth as inputs, uV in the
    constraint that fixes e1): every unknown, index-1 ones included, equals the
    circuit with the sources written in (the same integration: rounding), and
    iV_out = iV; with uV free, the index-1 values are refused naming uV."""
    a = lth.solve(lth.load(data("circuit_io.lth")), times=[0, 1.3, 2.5])
    b = lth.solve(lth.load(data("circuit_mna.lth")), times=[0, 1.3, 2.5])
    assert a.components == b.components
    assert np.abs(a.z - b.z).max() <= 1e-13
    assert np.array_equal(a.output("iV_out"), a.component("iV"))
    pb = lth.load(data("circuit_io.lth"))
    pb.set_input("uV", None)
    assert pb.free_inputs == ["uV"]
    with pytest.raises(lth.UsageError, match="uV"):
        lth.solve(pb, times=[0, 1])
    pb.set_input("uV", "sin(t)")
    c = lth.solve(pb, times=[0, 1.3, 2.5])
    assert np.abs(c.z - b.z).max() <= 1e-13
