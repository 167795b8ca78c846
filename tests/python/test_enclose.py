# SPDX-License-Identifier: GPL-3.0-or-later
"""A load that vanishes at every point lth once sampled is kept: the equation
form's structural zeros come from the expression (tests/data/enclose)."""

import math
import os

import lth

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_load_that_vanishes_past_t_0_07_is_kept():
    pb = lth.load(os.path.join(HERE, "data", "enclose", "load_exp.lth"))
    sol = lth.solve(pb, times=[1.0])
    y = sol.component("y")[0]
    truth = 2000.0 / 1999.0 * (math.exp(-1.0) - math.exp(-2000.0))  # 0.3680634729078963
    assert abs(y - truth) <= 1e-8 * truth, y
