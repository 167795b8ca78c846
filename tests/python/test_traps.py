# SPDX-License-Identifier: GPL-3.0-or-later
"""Small traps of the Python front end: every one either answers honestly or
raises an lth.Error naming the cause, never a bare Python exception, a
silent inf or an input quietly reshaped."""

import os
import subprocess
import sys

import numpy as np
import pytest

import lth
from conftest import ROOT, data, run_tool

SLOPE = data("slope.lth")


def test_integers_beyond_a_double_are_usage_errors():
    pb = lth.load(SLOPE)
    huge = 2 ** 1024
    cases = [
        lambda: lth.solve(pb, [huge, 0, 0, 0, 0]),
        lambda: lth.ic(pb, guess=[0, 0, huge, 0, 0]),
        lambda: lth.ic(pb, fix={0: huge}),
        lambda: lth.solve(pb, times=[0, huge]),
        lambda: lth.decompose(pb, [huge]),
        lambda: lth.solve(pb, rtol=huge),
        lambda: lth.bvp(data("index2.lth"), bc=([[huge, 0, 0, 0]], [[0, 0, 0, 0]], [1])),
        lambda: lth.Model([2, 2, 1], (0, 1), params={"g": huge}),
        lambda: lth.Model([2, 2, 1], (0, huge)),
        lambda: lth.Model([2, 2, 1], (0, 1)).set_A(1, 3, [[huge], [1]]),
        lambda: setattr(lth.Model([2, 2, 1], (0, 1)), "z0", [huge, 0, 0, 0, 0]),
        lambda: lth.Samples([0, 1], [huge, 1]),
    ]
    for k, fn in enumerate(cases):
        with pytest.raises(lth.UsageError) as ei:
            fn()
        assert "too large" in str(ei.value), (k, str(ei.value))


@pytest.mark.parametrize("method", ["project", "nearest"])
def test_ic_never_reports_an_infinite_change(method):
    """A guess of 1e308 everywhere: its residual overflows, and the tool
    refuses naming it; Python raises the same error.  A guess of 1e300 is
    fine: the change is computed without overflow and equals the tool's."""
    guess = [1e308] * 5
    with pytest.raises(lth.NotFiniteError) as ei:
        lth.ic(SLOPE, guess=guess, method=method)
    args = ["--guess", ",".join(map(repr, guess))] + (["--nearest"] if method == "nearest"
                                                      else [])
    proc = run_tool("lth-ic", SLOPE, *args, expect=3)
    assert proc.stderr.strip() == "lth-ic: " + str(ei.value)
    guess = [1e300, -1e300, 2e300, 1e300, 0]
    res = lth.ic(SLOPE, guess=guess, method=method)
    js = run_tool("lth-ic", SLOPE, "--format", "json", "--guess", ",".join(map(repr, guess)),
                  *args[2:])
    assert np.isfinite(res.change) and res.change == js["change"]
    assert res.change > 1e300


@pytest.mark.parametrize("name", ["t", "pi", "sin", "eye", "samples"])
def test_reserved_param_names_are_refused(name):
    with pytest.raises(lth.UsageError) as ei:
        lth.Model([2, 2, 1], (0, 1), params={name: 5})
    assert "'%s' cannot be a param name" % name in str(ei.value)


def test_every_accepted_param_name_round_trips():
    m = lth.Model([1, 1], (0, 1), params={"e": 2.0, "x1": 3.0, "grid": 1.5})
    m.A[1, 2] = "e"
    m.A[2, 1] = "x1 * grid"
    back = lth.parse(m.to_string())
    assert np.array_equal(lth.decompose(back, [0.5]).q, lth.decompose(m, [0.5]).q)


def test_file_error_is_an_os_error(tmp_path):
    path = os.path.join(str(tmp_path), "missing.lth")
    with pytest.raises(OSError) as ei:
        lth.load(path)
    e = ei.value
    assert isinstance(e, lth.FileError) and isinstance(e, lth.InputError)
    assert e.filename == path and e.exit_code == 2 and str(e).startswith(path)
    import pickle
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is lth.FileError and str(e2) == str(e) and e2.filename == path


def test_arrays_of_the_wrong_shape_are_refused():
    pb = lth.load(SLOPE)
    cases = [
        (lambda: lth.solve(pb, times=[[0, 1], [1.5, 2]]), "times"),
        (lambda: lth.decompose(pb, [[0.5]]), "times"),
        (lambda: lth.bvp(data("index2.lth"), [[0, 1, 2]]), "times"),
        (lambda: lth.lqr(data("lqr_double_integrator.lth"), [[0, 1]]), "times"),
        (lambda: lth.solve(pb, np.zeros((5, 1))), "z0"),
        (lambda: lth.ic(pb, guess=np.zeros((1, 5))), "guess"),
    ]
    for fn, what in cases:
        with pytest.raises(lth.UsageError) as ei:
            fn()
        assert what in str(ei.value) and "one-dimensional" in str(ei.value), str(ei.value)


def test_problem_docstring_names_the_users_unknowns():
    doc = lth.Problem.__doc__
    assert "variables" in doc and "equation" in doc


def _python(code, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full, cwd=ROOT, timeout=120)


def test_the_source_tree_says_what_to_use_instead():
    proc = _python("import lth", PYTHONPATH=os.path.join(ROOT, "python"))
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ") and "_layout.py" in last, last
    assert "build/python" in last and "pip install" in last, last


def test_missing_numpy_is_named():
    proc = _python("import sys; sys.modules['numpy'] = None; import lth")
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ") and "NumPy" in last and "python3-numpy" in last, last
