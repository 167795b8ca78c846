# SPDX-License-Identifier: GPL-3.0-or-later
"""Code blocks of a Markdown file, as the doc-test harness sees them.

A block is a fenced code block (``` or ~~~, three or more).  Its info string
(the word after the fence) says what it is:

  sh / console / shell / bash   lines starting with "$ " are commands, the
                                lines after each one (up to the next "$ "
                                line) its expected output; a block without
                                "$ " lines is shown, not run
  python                        doctest style (">>> ", "... " prompts)
  lth, c, text, json, cmake, csv, roff, ...   shown, not run (unless a
                                `file NAME` directive writes it to disk)

An HTML comment on the line(s) right before the fence, `<!-- doctest: ... -->`,
sets per-block options (several may be separated by ';'):

  rtol=X, atol=X      number tolerances for this block
  timeout=S           seconds per command (default 300)
  skip (reason)       do not run; the reason is printed
  file NAME           write the block's text to NAME in the scratch
                      directory before later blocks run (a data file or a C
                      program that a later command uses)
  invalid             a ```lth block that lth must reject (input error, exit
                      status 2) instead of one it must read
"""
import re

SHELL_LANGS = {"sh", "console", "shell", "bash", "shell-session"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)\s*(.*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*doctest:\s*(.*?)\s*-->\s*$")
EXIT_NOTE = re.compile(r"\s#\s*exit status (\d+)\s*$")


class Block:
    """One fenced block: lines[first:last] are its body (0-based indices into
    the file's lines); line numbers reported to users are 1-based."""

    def __init__(self, path, lang, first, last, indent, opts):
        self.path, self.lang, self.first, self.last = path, lang, first, last
        self.indent, self.opts = indent, opts

    def body(self, lines):
        return [strip_indent(l, self.indent) for l in lines[self.first:self.last]]

    def where(self, offset=0):
        return "%s:%d" % (self.path, self.first + 1 + offset)


def strip_indent(line, indent):
    """A fenced block inside a list item is indented like its fence."""
    n = 0
    while n < indent and n < len(line) and line[n] == " ":
        n += 1
    return line[n:]


def parse_directive(text):
    """'rtol=1e-3; file x.lth' -> {'rtol': 1e-3, 'file': 'x.lth'}."""
    opts = {}
    for part in [p.strip() for p in text.split(";") if p.strip()]:
        m = re.match(r"^(rtol|atol|timeout)\s*=\s*([0-9.eE+-]+)$", part)
        if m:
            opts[m.group(1)] = float(m.group(2))
            continue
        if part == "invalid":
            opts["invalid"] = True
            continue
        m = re.match(r"^skip\b\s*(.*)$", part)
        if m:
            reason = m.group(1).strip()
            if reason.startswith("(") and reason.endswith(")"):
                reason = reason[1:-1].strip()
            if not reason:
                raise ValueError("`skip` needs a reason: skip (why)")
            opts["skip"] = reason
            continue
        m = re.match(r"^file\s+(\S+)$", part)
        if m:
            if "/" in m.group(1) or m.group(1).startswith("."):
                raise ValueError("`file NAME`: a plain file name, no directories")
            opts["file"] = m.group(1)
            continue
        raise ValueError("unknown doctest directive '%s'" % part)
    return opts


def blocks(path, lines):
    """All fenced blocks of a file, and a list of (line, message) problems:
    a fence without a language, an unterminated fence, a bad directive."""
    out, problems = [], []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        opts = {}
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0:
            d = DIRECTIVE.match(lines[j])
            if d:
                try:
                    opts = parse_directive(d.group(1))
                except ValueError as e:
                    problems.append((j + 1, str(e)))
        if not lang:
            problems.append((i + 1, "code block without a language: write ```sh "
                             "(with $ commands), ```text, ```lth, ```c, ... so that it "
                             "is clear whether the harness runs it"))
        k = i + 1
        close = re.compile(r"^\s*" + re.escape(fence[0]) + "{%d,}\\s*$" % len(fence))
        while k < len(lines) and not close.match(lines[k]):
            k += 1
        if k == len(lines):
            problems.append((i + 1, "unterminated code block"))
            break
        out.append(Block(path, lang, i + 1, k, indent, opts))
        i = k + 1
    return out, problems


class Command:
    """One "$ " command of a shell block: the command text, the expected
    exit status (a trailing `# exit status N`, default 0), and the indices
    [out_first, out_last) of its expected output lines in the file."""

    def __init__(self, text, line, out_first, out_last, status):
        self.text, self.line = text, line
        self.out_first, self.out_last, self.status = out_first, out_last, status


def commands(block, lines):
    """The commands of a shell block; [] if it has no "$ " line.  A command
    line ending in a backslash continues on the next line."""
    body = block.body(lines)
    cmds, k = [], 0
    if not any(l.startswith("$ ") or l == "$" for l in body):
        return []
    if not (body[0].startswith("$ ")):
        raise ValueError("%s: a shell block with commands must start with a '$ ' line"
                         % block.where())
    while k < len(body):
        start = k
        text = body[k][2:]
        while text.endswith("\\") and k + 1 < len(body):
            k += 1
            text = text[:-1] + "\n" + body[k]
        k += 1
        out_first = k
        while k < len(body) and not body[k].startswith("$ "):
            k += 1
        m = EXIT_NOTE.search(text)
        status = int(m.group(1)) if m else 0
        cmds.append(Command(text, block.first + start, block.first + out_first,
                            block.first + k, status))
    return cmds
