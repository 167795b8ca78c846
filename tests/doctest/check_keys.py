#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every JSON key the tools write is documented in docs/format.md.

    python3 tests/doctest/check_keys.py --apps build/apps

Runs each tool with the options that switch on its optional keys, collects
every key of the JSON output (at any depth), and checks that each appears in
docs/format.md inside `backquotes`.  Exit status 1 lists the missing keys and
the command that printed them.
"""
import argparse
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = [
    "lth-decompose data/slope.lth --at 0.5 --check --order 1 --format json",
    "lth-decompose data/sampled.lth --at 1 --format json",
    "lth-decompose data/lqr_timevarying.lth --at 1 --format json",
    "lth-ic data/pendulum.lth --fix 1=0.1 --conditions --format json",
    "lth-ic data/index2.lth --nearest --format json",
    "lth-ic data/two_carts.lth --format json",
    "lth-decompose data/slope_equations.lth --at 1 --format json",
    "lth-solve data/pendulum.lth --z0 0.1,0,0.05,0.2,3 --project --times 0,1 --format json",
    "lth-solve data/sampled.lth --times 0,1 --format json",
    "lth-bvp data/index2.lth --times 0,3 --format json",
    "lth-bvp data/index2.lth --times 0,3 --method multiple --format json",
    "lth-bvp data/index2.lth --times 0,3 --method fd --format json",
    "lth-lqr data/lqr_timevarying.lth --times 0,1.5 --gain --format json",
    "lth-lqr data/lqr_double_integrator.lth --times 0,2 --format json",
    "lth-lqr tests/data/lqr_spring_tv.lth --times 0,2 --format json",
    "lth-ss data/carts_io.lth --format json",
    "lth-ss data/carts_io.lth --raw --at 1 --format json",
]


def keys(x, out):
    if isinstance(x, dict):
        for k, v in x.items():
            out.add(k)
            keys(v, out)
    elif isinstance(x, list):
        for v in x:
            keys(v, out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--apps", required=True)
    a = ap.parse_args()
    with open(os.path.join(REPO, "docs", "format.md"), encoding="utf-8") as f:
        doc = f.read()
    documented = set()
    for line in doc.split("\n"):
        if line.lstrip().startswith("```"):
            continue
        for span in re.findall(r"`([^`]+)`", line):
            documented.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span))
    env = dict(os.environ, PATH=os.path.abspath(a.apps) + os.pathsep + os.environ["PATH"])
    missing = 0
    for cmd in RUNS:
        p = subprocess.run(cmd, shell=True, cwd=REPO, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            print("check_keys: `%s` failed (%d): %s" % (cmd, p.returncode,
                                                         p.stderr.decode()[-500:]))
            missing += 1
            continue
        for k in sorted(keys(json.loads(p.stdout), set()) - documented):
            print("check_keys: key `%s` (from `%s`) is not in docs/format.md" % (k, cmd))
            missing += 1
    print("check_keys: %d commands, %s" % (len(RUNS), "%d problems" % missing if missing
                                           else "every JSON key documented"))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
