# SPDX-License-Identifier: GPL-3.0-or-later
"""Reads back the gnuplot script lth-plot writes (tests/cli/cli_plot.sh captures
it with a stand-in gnuplot): its datablocks and, for each plot command, the
series drawn from them with their style and titles, the titles' strings
decoded as gnuplot decodes double-quoted strings (\\n, \\ooo and \\0ooo
octal escapes) and joined where the script concatenates them with '.'."""

import re

_STRING = r'"(?:[^"\\]|\\.)*"'
# a series: "$D0_1 using 1:2" (block D0_1) or "NaN" (no block: a legend line)
_SERIES = re.compile(r"(?:\$(\w+) using 1:2|NaN) with (.*?) title ((?:%s)(?: \. (?:%s))*)"
                     % (_STRING, _STRING))


def decode(literal):
    """A gnuplot double-quoted string literal (quotes included) as text."""
    out, i = bytearray(), 0
    raw = literal[1:-1].encode("utf-8")
    while i < len(raw):
        c = raw[i]
        if c != 0x5C:
            out.append(c)
            i += 1
            continue
        nxt = raw[i + 1:i + 2]
        if nxt == b"n":
            out.append(10)
            i += 2
        elif nxt and nxt in b"01234567":
            width = 4 if nxt == b"0" else 3
            digits = re.match(rb"[0-7]{1,%d}" % width, raw[i + 1:i + 1 + width]).group(0)
            out.append(int(digits, 8) & 255)
            i += 1 + len(digits)
        else:
            out.extend(nxt)
            i += 2
    return out.decode("utf-8")


def read_script(text):
    """(datablocks {name: [(t, y)]}, plots [[{block, style, title}]]); block
    is None for a series that only adds a line to the legend."""
    blocks = {}
    for name, body in re.findall(r"^\$(\w+) << EOD\n(.*?)^EOD$", text, re.S | re.M):
        blocks[name] = [tuple(float(x) for x in line.split()) for line in body.splitlines()]
    plots = []
    for cmd in re.findall(r"^plot (.*?)(?<!\\)\n", text.replace("\\\n", " "), re.M):
        plots.append([{"block": b or None, "style": st,
                       "title": "".join(decode(lit) for lit in re.findall(_STRING, ti))}
                      for b, st, ti in _SERIES.findall(cmd)])
    return blocks, plots
