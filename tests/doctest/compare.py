# SPDX-License-Identifier: GPL-3.0-or-later
"""Comparing a command's output with the output printed in a document.

Rules (tests/doctest/README.md states them for writers of documents):
- Timing figures are masked on both sides before comparing: a number followed
  by the unit ` s`, ` ms` or ` points/s`, and the value of a JSON key whose name
  contains `seconds` or `elapsed`.
- Numbers are compared with a tolerance: |a - e| <= rtol max(|a|, |e|) + atol
  (defaults rtol = 1e-6, atol = 1e-13: values below ~1e-13, i.e. rounding
  noise such as residuals of 1e-16, compare equal to each other and to 0).
- Counts of work (steps, right-hand sides, decompositions, panels, mesh
  intervals, ...: a number followed by such a word, or the value of a JSON key
  that counts them) depend on where rounding tips an adaptive decision, so
  they are compared within a factor of two (COUNT_RTOL), never exactly.
- Text between numbers must match exactly, except that runs of white space
  match any run of white space (column widths follow the numbers).
- `...` inside a line matches any text; a line that is just `...` matches
  any number of lines (zero or more).
"""
import re

RTOL, ATOL = 1e-6, 1e-13
NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
NUM_RE = re.compile(NUM)
MASK = "<time>"
COUNT_RTOL = 0.5
_COUNT_WORDS = r"(?:steps|right-hand sides|decompositions|panels|mesh intervals|rejected|iterations|evaluations)"
_COUNT_KEYS = r"(?:steps|rhs_evals|decomps|table_panels|direct_panels|panels|mesh_intervals|rejected|iterations)"
_COUNT_AFTER = re.compile(r"\s+" + _COUNT_WORDS + r"\b")
_COUNT_KEY_BEFORE = re.compile(r'"' + _COUNT_KEYS + r'"\s*:\s*$')
_MASKS = [
    (re.compile(r'("[A-Za-z_]*(?:seconds|elapsed)[A-Za-z_]*"\s*:\s*)' + NUM), r"\1" + MASK),
    (re.compile(NUM + r"(?= (?:s|ms|points/s)\b(?![=_\[(]))"), MASK),
]


def mask(line):
    for rx, rep in _MASKS:
        line = rx.sub(rep, line)
    return line


def _pattern(expected):
    """Regex for an expected line: numbers become capture groups, `...` a
    wildcard, white space runs flexible, everything else literal."""
    out, pos, nums = ["^\\s*"], 0, []
    counts = []
    tokens = re.compile(r"(\.\.\.)|(" + NUM + r")|(\s+)")
    text = expected.strip()
    for m in tokens.finditer(text):
        if m.start() > pos:
            out.append(re.escape(text[pos:m.start()]))
        if m.group(1):
            out.append(".*?")
        elif m.group(2):
            out.append("(" + NUM + ")")
            nums.append(m.group(2))
            counts.append(bool(_COUNT_AFTER.match(text, m.end()) or
                               _COUNT_KEY_BEFORE.search(text, 0, m.start())))
        else:
            out.append("\\s+")
        pos = m.end()
    out.append(re.escape(text[pos:]) + "\\s*$")
    return "".join(out), nums, counts


_CACHE = {}


def _compiled(expected):
    c = _CACHE.get(expected)
    if c is None:
        pat, nums, counts = _pattern(expected)
        c = (re.compile(pat, re.S), nums, counts)
        _CACHE[expected] = c
    return c


def close(e, a, rtol, atol):
    x, y = float(e), float(a)
    return abs(x - y) <= rtol * max(abs(x), abs(y)) + atol


def line_match(expected, actual, rtol=RTOL, atol=ATOL):
    """True if the actual line matches the expected one within tolerance."""
    expected, actual = mask(expected), mask(actual)
    if expected.strip() == actual.strip():
        return True
    rx, nums, counts = _compiled(expected)
    m = rx.match(actual)
    if not m:
        return False
    return all(close(e, a, max(rtol, COUNT_RTOL) if c else rtol, atol)
               for e, a, c in zip(nums, m.groups(), counts))


def refill(expected, actual):
    """For --update: the expected line with its numbers replaced by the
    actual ones, when the two differ only in numbers (keeps the document's
    own `...` abbreviations and layout); None otherwise."""
    if mask(expected) != expected:
        return None
    rx, nums, _ = _compiled(expected)
    m = rx.match(mask(actual))
    if not m or not nums:
        return None
    # Rebuild from the original expected text, substituting group by group.
    out, pos, k = [], 0, 0
    for t in re.finditer(r"(\.\.\.)|(" + NUM + r")", expected):
        out.append(expected[pos:t.start()])
        if t.group(2):
            if k < len(m.groups()):
                out.append(m.group(k + 1))
            k += 1
        else:
            out.append(t.group(0))
        pos = t.end()
    out.append(expected[pos:])
    return "".join(out)


def _trim(lines):
    lines = [l.rstrip() for l in lines]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def block_match(expected, actual, rtol=RTOL, atol=ATOL):
    """Match lists of lines, a `...` line standing for any number of lines."""
    e, a = _trim(expected), _trim(actual)
    memo = {}

    def go(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(e):
            r = j == len(a)
        elif e[i].strip() == "...":
            r = any(go(i + 1, k) for k in range(j, len(a) + 1))
        elif j == len(a):
            r = False
        else:
            r = line_match(e[i], a[j], rtol, atol) and go(i + 1, j + 1)
        memo[key] = r
        return r

    return go(0, 0)


def _structural(expected, actual):
    """The actual line has the expected line's text, whatever its numbers."""
    expected, actual = mask(expected), mask(actual)
    if expected.strip() == actual.strip():
        return True
    return _compiled(expected)[0].match(actual) is not None


def _align(e, a):
    """Pairs (i, j) of expected and actual lines matched structurally, a
    `...` line absorbing any number of actual lines; None if impossible."""
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        r = None
        if i == len(e):
            r = [] if j == len(a) else None
        elif e[i].strip() == "...":
            for k in range(j, len(a) + 1):
                rest = go(i + 1, k)
                if rest is not None:
                    r = rest
                    break
        elif j < len(a) and _structural(e[i], a[j]):
            rest = go(i + 1, j + 1)
            if rest is not None:
                r = [(i, j)] + rest
        memo[(i, j)] = r
        return r

    return go(0, 0)


def updated(expected, actual, rtol=RTOL, atol=ATOL):
    """The text --update writes for an expected output that did not match.
    Where the document's lines still match the run's structurally (same text,
    numbers aside; `...` lines absorbing elided lines), keep each line that
    differs only in masked timings or white space, and take the run's line
    for the others (the run's numbers put into the document's line where the
    document abbreviates it with `...`).  Otherwise take the run's output, unless the
    document elides lines (`...`): then None, and the output is updated by
    hand."""
    e, a = _trim(expected), _trim(actual)
    pairs = _align(e, a)
    if pairs is None:
        if any(l.strip() == "..." or "..." in l for l in e):
            return None
        return a
    out = list(e)
    for i, j in pairs:
        if " ".join(mask(e[i]).split()) == " ".join(mask(a[j]).split()):
            continue  # the same up to timings and column widths
        r = refill(e[i], a[j]) if "..." in e[i] else None
        out[i] = r if r is not None else a[j]
    return out


def shown(expected, actual, rtol=RTOL, atol=ATOL):
    """The run's lines for a diff, with each line that matches the document
    within tolerance replaced by the document's line, so that the diff shows
    only the real differences."""
    e, a = _trim(expected), _trim(actual)
    out, i = [], 0
    for line in a:
        for k in range(i, min(i + 5, len(e))):
            if e[k].strip() != "..." and line_match(e[k], line, rtol, atol):
                out.append(e[k])
                i = k + 1
                break
        else:
            out.append(line)
    return out
