#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate the pictures of docs/plots.md and docs/control.md
# (docs/figures/*.png, committed): lth-plot on the tools' JSON output, and the
# lth.plot helpers of the Python package, on the shipped examples and on the
# crane of docs/control.md (its data file taken from the page; the LQG picture of its
# section 12 drawn by the page's own code).  Needs a build (default: build/) and
# gnuplot-nox and python3-matplotlib.
#   bash scripts/make-doc-figures.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(cd "${1:-build}" && pwd)
export PATH="$BUILD/apps:$PATH"
# shellcheck source=/dev/null
. "$BUILD/python/env.sh"
out=docs/figures
mkdir -p "$out"

# ---- lth-plot: one picture per tool ----
lth-decompose data/index2.lth --format json -q --check --grid 151 |
  lth-plot - -o "$out/cli-decompose.png" --size 800x760 \
    --title "lth-decompose data/index2.lth --check --grid 151"
lth-solve data/pendulum.lth --format json -q --grid 401 |
  lth-plot - -o "$out/cli-solve.png" --size 800x620 --title "lth-solve data/pendulum.lth"
lth-bvp data/index2.lth --method fd --format json |
  lth-plot - -o "$out/cli-bvp.png" --size 800x480 --title "lth-bvp data/index2.lth --method fd"
lth-lqr data/lqr_double_integrator.lth --format json --grid 101 |
  lth-plot - -o "$out/cli-lqr.png" --size 800x620 --title "lth-lqr data/lqr_double_integrator.lth"

# ---- the Python helpers ----
MPLBACKEND=Agg "$LTH_PYTHON" - "$out" <<'PY'
import os, sys
import lth, lth.plot

out = sys.argv[1]
pb = lth.load("data/slope.lth")
sol = lth.solve(pb, grid=81)
fig = lth.plot.solution(sol, problem=pb, size=(800, 700), title="lth.plot.solution: data/slope.lth")
fig.savefig(os.path.join(out, "py-solution.png"))
smp = lth.load("data/sampled.lth")
dec = lth.decompose(smp, check=True)
fig = lth.plot.decomposition(dec, problem=smp, size=(800, 900), title="lth.plot.decomposition: data/sampled.lth")
fig.savefig(os.path.join(out, "py-decomposition.png"))
res = lth.lqr("data/lqr_timevarying.lth", grid=61)
fig = lth.plot.lqr(res, size=(800, 620), title="lth.plot.lqr: data/lqr_timevarying.lth")
fig.savefig(os.path.join(out, "py-lqr.png"))

# docs/control.md: the crane's data file is the page's block marked `file crane.lth`
import re
page = open("docs/control.md", encoding="utf-8").read()
text = re.search(r"^<!-- doctest: file crane.lth -->\n```lth\n(.*?)^```", page, re.S | re.M).group(1)
crane = lth.parse(text, name="crane.lth")
fig = lth.plot.realization(lth.ss(crane, grid=161), size=(800, 900),
                           title="lth.plot.realization: the crane (docs/control.md)")
# about 30 curves: quantized to 64 colours (Pillow, which matplotlib uses), a fifth of the bytes
import io
from PIL import Image
png = io.BytesIO()
fig.savefig(png, format="png")
Image.open(png).convert("RGB").quantize(colors=64).save(os.path.join(out, "control-crane.png"),
                                                        optimize=True)

# docs/control.md section 12: the page's own Python examples, run in a scratch directory
# holding its data files (as the doctests run them); the figure is their `fig_lqg`
import doctest, tempfile
scratch = tempfile.mkdtemp()
for name, body in re.findall(r"^<!-- doctest: file (\S+) -->\n```\w*\n(.*?)^```", page,
                             re.S | re.M):
    with open(os.path.join(scratch, name), "w", encoding="utf-8") as fp:
        fp.write(body)
here = os.getcwd()
os.chdir(scratch)
globs = {"__name__": "__doctest__"}
for block in re.findall(r"^```python\n(.*?)^```", page, re.S | re.M):
    for ex in doctest.DocTestParser().get_examples(block):
        try:
            exec(compile(ex.source, "docs/control.md", "exec"), globs)
        except Exception:
            if ex.exc_msg is None:  # not an example that shows a refusal
                raise
os.chdir(here)
png = io.BytesIO()
globs["fig_lqg"].savefig(png, format="png")
Image.open(png).convert("RGB").quantize(colors=64).save(os.path.join(out, "control-lqg.png"),
                                                        optimize=True)
PY
ls -l "$out"
