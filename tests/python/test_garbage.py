# SPDX-License-Identifier: GPL-3.0-or-later
"""No crash from Python on garbage: random and mutated data files, random
expressions and arguments either work or raise lth.Error.  The loop runs in a
child process so that a crash shows up as a failure naming the seed."""

import subprocess
import sys

import pytest

from conftest import DATA

CHILD = r"""
import glob, os, random, sys
import numpy as np
import lth

rng = random.Random(int(sys.argv[1]))
texts = [open(f, encoding="utf-8").read() for f in sorted(glob.glob(os.path.join(sys.argv[2], "*.lth")))]
alphabet = "[];,=()+-*/^ .0123456789etasincoxplgbqrdmzfABHCu\n#\"'\t\\" + "\u00e9\x00\x7f"
counts = {"ok": 0, "error": 0}

def attempt(fn):
    try:
        fn()
        counts["ok"] += 1
    except lth.Error:
        counts["error"] += 1

def use(pb):
    t0, t1 = pb.interval
    ts = [t0, (t0 + t1) / 2, t1]
    attempt(lambda: lth.decompose(pb, ts, threads=1))
    if pb.kind == "lqr":
        attempt(lambda: lth.lqr(pb, ts))
    else:
        attempt(lambda: lth.ic(pb))
        if pb.bc is not None:
            attempt(lambda: lth.bvp(pb, ts))

for k in range(int(sys.argv[3])):
    kind = k % 4
    if kind == 0:      # random text
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
    elif kind == 1:    # a shipped file with a few random edits
        text = list(rng.choice(texts))
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(text) + 1)
            op = rng.random()
            if op < 0.4 and pos < len(text):
                del text[pos]
            elif op < 0.7:
                text.insert(pos, rng.choice(alphabet))
            elif pos < len(text):
                text[pos] = rng.choice(alphabet)
        text = "".join(text)
    elif kind == 2:    # random bytes
        text = bytes(rng.randrange(256) for _ in range(rng.randint(0, 120)))
    else:              # a random expression in a model
        expr = "".join(rng.choice("t+-*/^()0123456789.e sincoxptalqrgb") for _ in range(rng.randint(0, 30)))
        m = lth.Model([1, 1], (0, 1), params={"g": 2.0})
        attempt(lambda: m.set_A(1, 2, expr))
        m.A[2, 1] = 1
        try:
            use(m.build())
            counts["ok"] += 1
        except lth.Error:
            counts["error"] += 1
        continue
    try:
        pb = lth.parse(text, name="garbage.lth", basedir=sys.argv[2])
    except lth.Error:
        counts["error"] += 1
        continue
    counts["ok"] += 1
    use(pb)

# bad arguments of every kind
pb = lth.load(os.path.join(sys.argv[2], "slope.lth"))
bad_values = [None, "x", [], [[1, 2], [3]], float("nan"), float("inf"), -1, 10 ** 30, object(),
              np.zeros((2, 2)), [0, "1"], b"\0", True]
for v in bad_values:
    for fn in (lambda: lth.decompose(pb, v), lambda: lth.decompose(pb, grid=v),
               lambda: lth.solve(pb, v), lambda: lth.solve(pb, times=v), lambda: lth.ic(pb, v),
               lambda: lth.ic(pb, guess=v), lambda: lth.bvp(pb, v), lambda: lth.lqr(pb, v),
               lambda: lth.decompose(pb, order=v), lambda: lth.solve(pb, rtol=v),
               lambda: lth.Model([2, 2, 1], (0, 1)).set_A(1, 3, v), lambda: lth.load(v),
               lambda: lth.parse(v), lambda: lth.Model(v, (0, 1)), lambda: lth.Model([1, 1], v)):
        try:
            fn()
        except lth.Error:
            pass
print(counts["ok"], counts["error"])
"""


@pytest.mark.parametrize("seed", [1, 2])
def test_no_crash_on_garbage(seed):
    proc = subprocess.run([sys.executable, "-c", CHILD, str(seed), DATA, "400"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, "seed %d: exit status %d\n%s" % (seed, proc.returncode,
                                                                 proc.stderr[-3000:])
    ok, bad = map(int, proc.stdout.split())
    assert ok + bad >= 400 and ok > 10 and bad > 50, (ok, bad)
