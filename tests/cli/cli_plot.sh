#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# lth-plot: every kind of result drawn to a PNG of the requested size with
# non-trivial content (tests/python/pngcheck.py decodes it: valid chunks and
# CRCs, the announced size, at least 4 colours and 0.5% of the pixels off the
# background), SVG and PDF by extension, standard input, --select; and the
# failures: gnuplot missing (exit 2, naming the Debian package), gnuplot
# failing, bad JSON (line:column), a result with nothing over t, bad options.
# A failed run leaves no picture behind.
# Usage: bash cli_plot.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
PLOT="$APPS/lth-plot"
# shellcheck source=/dev/null
. "$APPS/../python/env.sh"
PNGCHECK="$(dirname "$0")/../python/pngcheck.py"

png_ok() { # FILE W H WHAT
  "$LTH_PYTHON" "$PNGCHECK" "$1" "$2" "$3" 2>"$TMP/pngerr" || fail "$4: $(cat "$TMP/pngerr")"
}

# ---- one picture per tool ----
run 0 "decompose json" "$APPS/lth-decompose" "$DATA/index2.lth" --format json -q --check &&
  cp "$TMP/out" "$TMP/dec.json"
run 0 "solve json" "$APPS/lth-solve" "$DATA/slope.lth" --format json -q && cp "$TMP/out" "$TMP/solve.json"
run 0 "bvp json" "$APPS/lth-bvp" "$DATA/index2.lth" --format json --method fd && cp "$TMP/out" "$TMP/bvp.json"
run 0 "lqr json" "$APPS/lth-lqr" "$DATA/lqr_timevarying.lth" --format json && cp "$TMP/out" "$TMP/lqr.json"
run 0 "ic json" "$APPS/lth-ic" "$DATA/slope.lth" --format json && cp "$TMP/out" "$TMP/ic.json"
for kind in dec solve bvp lqr; do
  run 0 "plot $kind" "$PLOT" "$TMP/$kind.json" -o "$TMP/$kind.png" --size 640x480 &&
    png_ok "$TMP/$kind.png" 640 480 "plot $kind"
done
# default size: 900 wide
run 0 "default size" "$PLOT" "$TMP/solve.json" -o "$TMP/default.png"
"$LTH_PYTHON" - "$TMP/default.png" <<'PY' || fail "default size: not 900 wide"
import struct, sys
w, h = struct.unpack(">II", open(sys.argv[1], "rb").read()[16:24])
sys.exit(0 if w == 900 and h > 400 else 1)
PY
# standard input, a title, selected entries
run 0 "stdin" sh -c "\"$PLOT\" - -o \"$TMP/stdin.png\" --size 500x400 --title 'slope from stdin' < \"$TMP/solve.json\"" &&
  png_ok "$TMP/stdin.png" 500 400 "stdin"
run 0 "select" "$PLOT" "$TMP/dec.json" -o "$TMP/sel.png" --size 600x500 --select 'P[1,1],Ahat[1,2],q[4]' &&
  png_ok "$TMP/sel.png" 600 500 "select"
# other formats by extension
run 0 "svg" "$PLOT" "$TMP/lqr.json" -o "$TMP/lqr.svg" && grep -q "<svg" "$TMP/lqr.svg" ||
  fail "svg: no <svg> element"
run 0 "pdf" "$PLOT" "$TMP/bvp.json" -o "$TMP/bvp.pdf" && [ "$(head -c 5 "$TMP/bvp.pdf")" = "%PDF-" ] ||
  fail "pdf: no %PDF- header"

# ---- the script lth-plot gives gnuplot, captured by a stand-in program ----
# (tests/python/gpscript.py reads it back: datablocks, and per plot command
# the series with their style and decoded titles)
GPSCRIPT="$(dirname "$0")/../python/gpscript.py"
printf '#!/bin/sh\ncat > "$LTH_PLOT_CAPTURE"\nprintf picture\n' >"$TMP/fakegp"
chmod +x "$TMP/fakegp"
capture() { # JSON SCRIPT: draw JSON with the stand-in, its script to SCRIPT
  LTH_PLOT_CAPTURE="$2" LTH_GNUPLOT="$TMP/fakegp" "$PLOT" "$1" -o "$TMP/capture.png" \
    >"$TMP/out" 2>"$TMP/err" || fail "capture $1: $(head -c 300 "$TMP/err")"
}
# the equation form in the file's order and names: the curve called x1 is the
# exact x1 = cos t - 9.81 sin 2t (z holds it third), lambda = 1 + 98.1 sin t
run 0 "equations json" "$APPS/lth-solve" "$DATA/pendulum_equations.lth" --format json -q --grid 21 &&
  cp "$TMP/out" "$TMP/eq.json" && capture "$TMP/eq.json" "$TMP/eq.gp" &&
  "$LTH_PYTHON" - "$GPSCRIPT" "$TMP/eq.gp" <<'PY' || fail "equation form: not the user's order, names and values (above)"
import math, sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from gpscript import read_script
blocks, plots = read_script(open(sys.argv[2], encoding="utf-8").read())
series = [s for p in plots for s in p]
names = [s["title"] for s in series]
exact = {"x1": lambda t: math.cos(t) - 9.81 * math.sin(2 * t),
         "x2": lambda t: math.sin(t) + 9.81 * (1 + math.cos(2 * t)),
         "v1": lambda t: -math.sin(t) - 19.62 * math.cos(2 * t),
         "v2": lambda t: math.cos(t) - 19.62 * math.sin(2 * t),
         "lambda": lambda t: 1 + 98.1 * math.sin(t)}
ok = names == ["x1", "x2", "v1", "v2", "lambda"]
if not ok:
    print("FAIL: series in the order %r" % names, file=sys.stderr)
for s in series:
    pts = blocks[s["block"]]
    # rtol 1e-10 over [0, 10] (the file's default): far below 1e-6 of values <= 100
    err = max(abs(y - exact[s["title"]](t)) for t, y in pts) if s["title"] in exact else math.inf
    if len(pts) != 21 or not err < 1e-6:
        ok = False
        print("FAIL: the curve called %s is off its exact solution by %g" % (s["title"], err), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
# outputs (docs/equations.md section 11): after the unknowns, one curve per output with
# its name and the values of "y" (the circuit's iV_out is its unknown iV)
run 0 "outputs json" "$APPS/lth-solve" "$DATA/circuit_io.lth" --format json -q --grid 11 &&
  cp "$TMP/out" "$TMP/io.json" && capture "$TMP/io.json" "$TMP/io.gp" &&
  "$LTH_PYTHON" - "$GPSCRIPT" "$TMP/io.gp" "$TMP/io.json" <<'PY' || fail "outputs: not drawn with their names and values (above)"
import json, sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from gpscript import read_script
blocks, plots = read_script(open(sys.argv[2], encoding="utf-8").read())
d = json.load(open(sys.argv[3]))
series = [s for p in plots for s in p]
names = [s["title"] for s in series]
ok = names == d["variables"] + d["outputs"]
if not ok:
    print("FAIL: series %r" % names, file=sys.stderr)
for j, name in enumerate(d["outputs"]):
    s = next(s for s in series if s["title"] == name)
    pts = blocks[s["block"]]
    if [t for t, y in pts] != d["times"] or [y for t, y in pts] != [row[j] for row in d["y"]]:
        ok = False
        print("FAIL: the curve %s is not the output's values" % name, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
"$LTH_PYTHON" - "$TMP/eq.json" "$TMP/eqbad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["variable_index"][1] = d["variable_index"][0]
json.dump(d, open(sys.argv[2], "w"))
PY
run 2 "variable_index not a permutation" "$PLOT" "$TMP/eqbad.json" -o "$TMP/no12.png" &&
  err_has "\"variable_index\" is not a permutation" "variable_index not a permutation"
# --check: the positive residuals drawn with their points (alone between two
# zeros they are no line), the zeros as markers on a floor a decade below the
# smallest, stated in the legend: every time is drawn once
capture "$TMP/dec.json" "$TMP/dec.gp"
"$LTH_PYTHON" - "$GPSCRIPT" "$TMP/dec.gp" "$TMP/dec.json" <<'PY' || fail "--check panel: residuals not all drawn, or the floor not stated (above)"
import json, math, re, sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from gpscript import read_script
blocks, plots = read_script(open(sys.argv[2], encoding="utf-8").read())
worst = [(p["t"], p["check"]["worst"]) for p in json.load(open(sys.argv[3]))["points"]]
pos = [w for t, w in worst if w > 0]
panel = plots[-1]
titles = [s["title"] for s in panel]
bad = []
if not (0 < len(pos) < len(worst)):
    bad.append("the example needs both zero and positive residuals: %d of %d positive"
               % (len(pos), len(worst)))
line = next((s for s in panel if s["title"] == "worst"), None)
zero = next((s for s in panel if s["title"] == "worst = 0"), None)
if line is None or "points" not in line["style"]:
    bad.append("'worst' is not drawn with its points: %r" % (line,))
if zero is None:
    bad.append("no legend entry 'worst = 0': %r" % titles)
else:
    zp = [(t, y) for t, y in blocks[zero["block"]] if not math.isnan(y)]
    floors = {y for t, y in zp}
    if len(floors) != 1 or not 0 < min(floors) <= min(pos) / 10:
        bad.append("the zeros are not on one floor a decade below %g: %r" % (min(pos), floors))
    else:
        f = floors.pop()
        if not any(re.fullmatch(r"\(drawn at %.0e\)" % f, t) for t in titles):
            bad.append("the floor %g is not stated in the legend %r" % (f, titles))
        if [t for t, y in zp] != [t for t, w in worst if w == 0]:
            bad.append("the zero markers are not at the times of the zero residuals")
    drawn = [(t, y) for t, y in blocks[line["block"]] if not math.isnan(y)]
    if drawn != [(t, w) for t, w in worst if w > 0]:
        bad.append("the line does not hold every positive residual")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# ---- no string reaches a command interpreter ----
# Every string lth-plot puts in the picture -- component names, equation-form
# variable names, sampled-block labels, --title, the result's file name (the
# default title) and -o -- carrying backquotes, $(...), quotes that would end
# a gnuplot string, system(), @macros, newlines, and a leading '|' (gnuplot's
# `set output '|cmd'` is a pipe).  Each would run `touch pwnK` in the current
# directory; none may, every plot must render, and the SVG must show the
# strings literally (control characters as spaces).
mkdir "$TMP/sandbox"
"$LTH_PYTHON" - "$PLOT" "$TMP/sandbox" "$PNGCHECK" "$TMP/fakegp" <<'PY' || fail "strings reached a command interpreter or did not render literally (above)"
import html, json, os, re, subprocess, sys
plot, box, pngcheck, fakegp = sys.argv[1:5]
sys.path.insert(0, os.path.dirname(pngcheck))
from pngcheck import check
P = ["`touch pwn1`", "$(touch pwn2)", '"; system("touch pwn3"); "', "'; system('touch pwn4'); '",
     '\\"; system(\\"touch pwn5\\") #', 'a"\n!touch pwn6 #', "x' . system('touch pwn7') . '",
     'x" . system("touch pwn8") . "', "; touch pwn9; #", "|touch pwn10 #",
     '@GPVAL_PWD" . system("touch pwn11") . "@x', "''`touch pwn12`''", "x\\",
     'system("touch pwn14")', "\\`touch pwn15\\`", "\u00e9 `touch pwn16` %s %n", "!touch pwn17",
     "\t`touch pwn18`\r"]
bad = []
def literal(s):
    return re.sub(r"[\x00-\x1f\x7f]", " ", s)
def svg_text(path):
    body = open(path, encoding="utf-8").read()
    return [html.unescape(re.sub(r"<[^>]*>", "", m)) for m in re.findall(r"<text[^>]*>(.*?)</text>", body, re.S)]
def plot_it(args, what):
    r = subprocess.run([plot] + args, cwd=box, capture_output=True)
    if r.returncode != 0:
        bad.append("%s: exit status %d: %s" % (what, r.returncode, r.stderr[:300]))
    return r.returncode == 0
for k, s in enumerate(P):
    z = [[0.0, 1.0], [1.0, 0.5], [0.5, 2.0]]
    plain = {"times": [0, 1, 2], "z": z, "components": [s, "b[1]"], "drift": 1e-16,
             "sampling": [{"block": s, "degree": 5, "error": [1e-12, 1e-10]}]}
    eq = {"times": [0, 1, 2], "z": z, "components": ["b", "a"], "variables": ["a", s],
          "variable_index": [2, 1]}
    for name, doc in (("c", plain), ("e", eq)):
        with open(os.path.join(box, "%s%s%d.json" % (s, name, k)), "w") as fp:
            json.dump(doc, fp)
    if plot_it(["%sc%d.json" % (s, k), "-o", "%s%d.png" % (s, k), "--title", s, "--size", "500x400"],
               "payload %d %r, png" % (k, s)):
        why = check(os.path.join(box, "%s%d.png" % (s, k)), 500, 400)
        if why:
            bad.append("payload %d: %s" % (k, why))
    for name in "ce":
        out = "%s%s%d.svg" % (s, name, k)
        if not plot_it(["%s%s%d.json" % (s, name, k), "-o", out], "payload %d %r, svg %s" % (k, s, name)):
            continue
        texts = svg_text(os.path.join(box, out))
        # the component's name as a legend entry, the file name in the title
        if literal(s).strip() not in [t.strip() for t in texts]:
            bad.append("payload %d: no legend entry %r in the SVG (%s)" % (k, literal(s), out))
        want = [literal("lth-solve: %s%s%d.json" % (s, name, k))]
        if name == "c":
            want.append(literal("sampled %s: estimated error of derivative 0: 1e-12, 1: 1e-10" % s))
        for w in want:
            if not any(w in t for t in texts):
                bad.append("payload %d: %r is not in the SVG's text (%s)" % (k, w, out))
# bytes that are not UTF-8 (a file name, --title) drawn as U+FFFD, the SVG valid
r = subprocess.run([plot, P[0] + "c0.json", "-o", "utf8.svg", "--title",
                    b"bad \xff\xfe\xc3 utf-8 \xe2\x82"], cwd=box, capture_output=True)
try:
    texts = svg_text(os.path.join(box, "utf8.svg")) if r.returncode == 0 else []
    if not any("bad \ufffd\ufffd\ufffd utf-8 \ufffd\ufffd" in t for t in texts):
        bad.append("a title that is not UTF-8: exit status %d, not drawn with U+FFFD" % r.returncode)
except UnicodeDecodeError as e:
    bad.append("a title that is not UTF-8 made an SVG that is not UTF-8: %s" % e)
# and the script itself: none of the strings' backquotes, '@' or line starts
doc = {"times": [0, 1], "z": [[k, -k] for k in (1.5, 2.5)], "components": [P[0], P[1]],
       "sampling": [{"block": s, "degree": 3, "error": [1e-9]} for s in P]}
with open(os.path.join(box, "all.json"), "w") as fp:
    json.dump(doc, fp)
script = os.path.join(os.path.dirname(box), "all.gp")
r = subprocess.run([plot, "all.json", "-o", "all.png", "--title", "".join(P)], cwd=box,
                   env=dict(os.environ, LTH_GNUPLOT=fakegp, LTH_PLOT_CAPTURE=script))
text = open(script, "rb").read() if r.returncode == 0 else b""
if r.returncode != 0 or b"`" in text or b"@" in text or b"\n!" in text:
    bad.append("the script holds a backquote, '@' or a line starting with '!' (exit status %d)"
               % r.returncode)
ran = sorted(f for f in os.listdir(box) if f.startswith("pwn"))
if ran:
    bad.append("commands ran: %r in %s" % (ran, box))
stray = [f for f in os.listdir(box) if not re.search(r"\.(json|png|svg)$", f) and f not in ran]
if stray:
    bad.append("files left in %s: %r" % (box, stray))
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# ---- failures ----
run 2 "gnuplot missing" env LTH_GNUPLOT=/nonexistent/gnuplot "$PLOT" "$TMP/solve.json" -o "$TMP/no1.png" &&
  err_has "gnuplot-nox" "gnuplot missing"
run 2 "gnuplot not on PATH" env PATH=/nonexistent "$PLOT" "$TMP/solve.json" -o "$TMP/no2.png" &&
  err_has "apt-get install gnuplot-nox" "gnuplot not on PATH"
run 2 "gnuplot failing" env LTH_GNUPLOT=/bin/false "$PLOT" "$TMP/solve.json" -o "$TMP/no3.png" &&
  err_has "failed (exit status 1)" "gnuplot failing"
printf '{"times": [0, 1], "z": [[1, 2], [3,]]}' >"$TMP/bad.json"
run 2 "bad json" "$PLOT" "$TMP/bad.json" -o "$TMP/no4.png" && err_has "bad.json:1:36: expected a value" "bad json"
printf '{"times": [0, 1], "z": [[1, 2], [3]]}' >"$TMP/ragged.json"
run 2 "ragged table" "$PLOT" "$TMP/ragged.json" -o "$TMP/no5.png" && err_has "not a table" "ragged table"
run 2 "ic result" "$PLOT" "$TMP/ic.json" -o "$TMP/no6.png" && err_has "nothing to draw over t" "ic result"
printf '[1, 2, 3]' >"$TMP/other.json"
run 2 "not lth" "$PLOT" "$TMP/other.json" -o "$TMP/no7.png" && err_has "not the JSON output" "not lth"
run 2 "missing file" "$PLOT" "$TMP/none.json" -o "$TMP/no8.png" && err_has "none.json" "missing file"
run 1 "no -o" "$PLOT" "$TMP/solve.json"
run 1 "bad extension" "$PLOT" "$TMP/solve.json" -o "$TMP/no9.jpg" && err_has ".png, .svg or .pdf" "bad extension"
run 1 "bad size" "$PLOT" "$TMP/solve.json" -o "$TMP/no10.png" --size 10x10
run 1 "bad select" "$PLOT" "$TMP/dec.json" -o "$TMP/no11.png" --select 'P[9,9]' &&
  err_has "not an entry" "bad select"
# garbage JSON: truncated and mutated tool outputs, deep nesting, bad
# numbers, escapes and bytes: exit 0 or 2, never a crash (or a sanitizer report)
"$LTH_PYTHON" - "$TMP" >/dev/null <<'PY'
import os, random, sys
tmp = sys.argv[1]
rng = random.Random(5)
docs = [open(os.path.join(tmp, n + ".json"), "rb").read() for n in ("dec", "solve", "bvp", "lqr")]
cases = [b"", b"[" * 100000, b"{\"a\":" * 300, b"1e999", b"-", b"[1,]", b'"\\ud800"', b'"\\u0000"',
         b'"\x01"', b"[1 2]", b'{"times": [0, 1], "z": [[1e308], [-1e308]]}', b"\xff\xfe{}",
         b'{"times": [], "z": []}', b'{"points": []}', b'{"points": [{"t": 1}]}',
         b'{"times": [0, 1], "x": [], "lambda": [], "u": []}']
for k in range(60):
    d = bytearray(rng.choice(docs))
    if k % 3 == 0:
        d = d[:rng.randrange(len(d))]
    else:
        for _ in range(rng.randint(1, 5)):
            d[rng.randrange(len(d))] = rng.choice(b'[]{},:"0123456789.eE-+ \\ntruefalsenull\x00\xff')
    cases.append(bytes(d))
for k, c in enumerate(cases):
    open(os.path.join(tmp, "g%d.json" % k), "wb").write(c)
print(len(cases))
PY
for f in "$TMP"/g*.json; do
  "$PLOT" "$f" -o "$TMP/g.png" --size 300x300 >/dev/null 2>"$TMP/gerr"
  rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
    fail "garbage $(basename "$f"): exit status $rc: $(head -c 300 "$TMP/gerr")"
  fi
done
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
  ls "$TMP"/no"$k".png* >/dev/null 2>&1 && fail "a failed run left $TMP/no$k.png behind"
done
finish cli_plot
