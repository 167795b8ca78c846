# SPDX-License-Identifier: GPL-3.0-or-later
"""Error paths: the right exception class with the right fields, and for
library errors the same one-line message the tools print."""

import math
import os
import pickle

import numpy as np
import pytest

import lth
from conftest import data, run_tool

SINGULAR = "blocks 1 1\ninterval 0 2\nA(1,2) = t - 1\nA(2,1) = 1\n"
BAD_EXPR = "blocks 2 2 1\ninterval 0 1\nA(1,3) = [1; 2 +]\n"


def write(tmp_path, name, text):
    path = os.path.join(str(tmp_path), name)
    with open(path, "w") as fp:
        fp.write(text)
    return path


# Where the two messages may differ: the names of options and tools.
PYTHON_VS_TOOL = (('method="collocation"', "--method collocation"), ("(lth.ic)", "(lth-ic)"),
                  ("pass project=True", "use --project"), ("stabilize=", "--stabilize "))


def same_as_tool(exc, tool, *args):
    """The tool fails with the exception's exit status and prints its message,
    in its own words for options (--project for project=True)."""
    proc = run_tool(tool, *args, expect=exc.exit_code)
    text = exc.formatted
    for py, flag in PYTHON_VS_TOOL:
        text = text.replace(py, flag)
    assert proc.stderr.strip() == "%s: %s" % (tool, text)


def test_missing_file():
    with pytest.raises(lth.FileError) as ei:
        lth.load("no/such/file.lth")
    e = ei.value
    assert isinstance(e, lth.InputError) and e.exit_code == 2
    assert e.status_name == "LTH_EIO" and e.status == lth.errors.STATUS_VALUE["LTH_EIO"]
    assert e.file == "no/such/file.lth" and "no/such/file.lth" in str(e)
    same_as_tool(e, "lth-decompose", "no/such/file.lth")


def test_syntax_error_position(tmp_path):
    path = write(tmp_path, "bad.lth", BAD_EXPR)
    with pytest.raises(lth.ParseError) as ei:
        lth.load(path)
    e = ei.value
    assert (e.file, e.line, e.column) == (path, 3, 17)
    assert e.message.startswith("expected an expression after unary '+'")
    assert e.t is None and e.cond is None
    same_as_tool(e, "lth-decompose", path)
    with pytest.raises(lth.ParseError) as ei:
        lth.parse(BAD_EXPR, name="text.lth")
    assert (ei.value.file, ei.value.line, ei.value.column) == ("text.lth", 3, 17)


def test_bad_expression_in_model():
    m = lth.Model([2, 2, 1], (0, 1))
    m.A[1, 3] = [["1"], ["2 +"]]
    m.A[2, 1] = "eye"
    m.A[3, 2] = [[1, 2]]
    with pytest.raises(lth.ParseError) as ei:
        m.build()
    e = ei.value
    assert e.column == 4 and "A(1,3) entry (2,1)" in e.message
    assert "expected an expression after" in e.message and e.file == "<model>"
    m.A[1, 3] = [["1"], ["2 + nosuchparam"]]
    with pytest.raises(lth.ParseError, match="nosuchparam"):
        m.build()


def test_singular_pi_names_t(tmp_path):
    path = write(tmp_path, "sing.lth", SINGULAR)
    pb = lth.load(path)
    with pytest.raises(lth.NumericalError) as ei:
        lth.decompose(pb, [0, 1])
    e = ei.value
    assert isinstance(e, (lth.SingularError, lth.ConditionError))
    assert e.t == 1.0 and e.exit_code == 3 and e.cond is not None
    assert "singular" in e.message
    same_as_tool(e, "lth-decompose", path, "--at", "0,1")
    # the same through ic at t = 1, and a chain condition above cond_max
    with pytest.raises(lth.NumericalError) as ei:
        lth.ic(pb, at=1)
    assert ei.value.t == 1.0
    ill = lth.parse("blocks 2 2\ninterval 0 2\nA(1,2) = eye\nA(2,1) = [1, 0; 0, t - 1]\n")
    with pytest.raises(lth.ConditionError) as ei:
        lth.decompose(ill, [0, 1 + 1e-9], cond_max=1e6)
    assert ei.value.t == 1 + 1e-9 and ei.value.cond > 1e6


def test_messages_name_python_options():
    """The library names its C options (opts.project); Python says project=True."""
    pb = lth.load(data("pendulum.lth"))
    with pytest.raises(lth.InconsistentError) as ei:
        lth.solve(pb, z0=[0.1, 0, 0.05, 0.2, 3], times=[0, 1])
    e = ei.value
    assert "project=True" in e.message and "(lth.ic)" in e.message, e.message
    assert "opts." not in str(e) and "--" not in e.message, str(e)


def test_bad_arguments():
    pb = lth.load(data("slope.lth"))
    cases = [
        (lambda: lth.decompose(pb, [0, 3]), "outside the interval"),
        (lambda: lth.decompose(pb, [math.nan]), "outside the interval"),
        (lambda: lth.decompose(pb, order=-1), "order"),
        (lambda: lth.decompose(pb, grid=1), "grid"),
        (lambda: lth.decompose(pb, [0], grid=5), "not both"),
        (lambda: lth.decompose(pb, "abc"), "numbers"),
        (lambda: lth.decompose(42), "expected an lth.Problem"),
        (lambda: lth.solve(pb, [1, 2, 3]), "3 values; 5 are needed"),
        (lambda: lth.solve(pb, method="euler"), "unknown integrator"),
        (lambda: lth.solve(pb, rtol=0), "rtol"),
        (lambda: lth.ic(pb, method="nearest", fix={0: 1}), "exclude"),
        (lambda: lth.ic(pb, fix={"w[9]": 1}), "no component named"),
        (lambda: lth.ic(pb, fix={7: 1}), "not in 0..4"),
        (lambda: lth.ic(pb, guess=[np.inf] * 5), "non-finite"),
        (lambda: lth.ic(pb, at=-1), "outside the interval"),
        (lambda: lth.bvp(data("index2.lth"), method="magic"), "unknown BVP method"),
        (lambda: lth.bvp(data("index2.lth"), intervals=3), "multiple"),
        (lambda: lth.lqr(data("lqr_double_integrator.lth"), rtol=1), "rtol"),
        # atol 0 would silently be the library's default (0: "the default")
        (lambda: lth.solve(data("pendulum.lth"), atol=0), "atol"),
        (lambda: lth.Model([2, 2, 3], (0, 1)), "n_r"),
        (lambda: lth.Model([2, 2, 1], (1, 0)), "below"),
        (lambda: lth.Model([2, 2, 1], (0, 1)).set_A(1, 3, [1, 2, 3]), "2 x 1"),
        (lambda: lth.Model([2, 2, 1], (0, 1)).set_A(1, 9, 1), "block column"),
        (lambda: lth.Model([2, 2, 1], (0, 1)).set_A(1, 2, "eye+"), "1 x 1"),
        (lambda: lth.Model([2, 2, 1], (0, 1)).set_f(1, [None, 1]), "neither a number"),
        (lambda: lth.parse(12), "str or bytes"),
    ]
    for fn, text in cases:
        with pytest.raises(lth.UsageError) as ei:
            fn()
        e = ei.value
        assert text in str(e), (text, str(e))
        assert isinstance(e, ValueError) and e.exit_code == 1 and e.status_name == "LTH_EINVAL"
    with pytest.raises(lth.UsageError) as ei:
        lth.solve(pb, times=[0, 5])
    assert ei.value.t == 5.0


def test_input_errors():
    with pytest.raises(lth.DataError, match="problem lqr"):
        lth.bvp(data("lqr_double_integrator.lth"))
    with pytest.raises(lth.DataError, match="no boundary conditions"):
        lth.bvp(data("slope.lth"))
    with pytest.raises(lth.DataError, match="not a `problem lqr` file"):
        lth.lqr(data("slope.lth"))
    pb = lth.load(data("index2.lth"))
    B0, B1, beta = pb.bc
    with pytest.raises(lth.BoundaryConditionError) as ei:  # rank [B0 B1] < p
        lth.bvp(pb, bc=(0 * B0, 0 * B1, beta))
    assert ei.value.exit_code == 2 and ei.value.message.startswith("bc: ")
    with pytest.raises(lth.UsageError, match="must be 1 x 4"):
        lth.bvp(pb, bc=(B0, B1, [1.0]))


def test_numerical_errors():
    pb = lth.load(data("slope.lth"))
    with pytest.raises(lth.InconsistentError) as ei:
        lth.solve(pb, [1, 0, 2, 1, 3.924])
    assert ei.value.exit_code == 3
    same_as_tool(ei.value, "lth-solve", pb.name, "--z0", "1,0,2,1,3.924")
    with pytest.raises(lth.InconsistentError) as ei:  # more prescriptions than p = 2
        lth.ic(pb, fix={0: 1, 1: 1, 4: 1})
    assert ei.value.t == 0.0


def test_errors_pickle_and_hierarchy():
    e = lth.SingularError("Pi is singular", t=1.5, cond=math.inf)
    assert e.status_name == "LTH_ESING" and e.t == 1.5
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is lth.SingularError and str(e2) == str(e) and e2.t == 1.5
    for status, cls in lth.errors.BY_STATUS.items():
        assert issubclass(cls, lth.Error) and cls(status=status, message="x").status == status


def test_closed_problem():
    pb = lth.load(data("slope.lth"))
    pb.close()
    with pytest.raises(lth.UsageError, match="closed"):
        lth.decompose(pb)
