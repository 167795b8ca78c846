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
PNGCHECK="$(dirname "$0")/python/pngcheck.py"

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
for k in 1 2 3 4 5 6 7 8 9 10 11; do
  ls "$TMP"/no"$k".png* >/dev/null 2>&1 && fail "a failed run left $TMP/no$k.png behind"
done
finish cli_plot
