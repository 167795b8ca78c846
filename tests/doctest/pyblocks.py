# SPDX-License-Identifier: GPL-3.0-or-later
"""The ```python blocks of one document, run in a child process.

The parent (run_doctests.py) starts `python3 run_doctests.py --python-worker
FILE` in the scratch directory with PYTHONPATH=<build>/python and
LTH_LIBRARY=<build>/liblth.so; the worker runs every python block of FILE in
order with one shared namespace (a later block may use an earlier block's
names) and prints one JSON object per example on standard output:
{"line": L, "want": ..., "got": ..., "ok": bool}, L the 0-based file line of
the example's first expected-output line.  A crash of the interpreter (which
the C library must never cause) shows up as a missing report.
"""
import doctest
import json
import sys
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import compare  # noqa: E402
import mdparse  # noqa: E402


class Checker(doctest.OutputChecker):
    """doctest's exact comparison replaced by the harness's rules."""

    def __init__(self):
        super().__init__()
        self.rtol, self.atol = compare.RTOL, compare.ATOL

    def check_output(self, want, got, optionflags):
        w = [l if l.strip() != "<BLANKLINE>" else "" for l in want.splitlines()]
        return compare.block_match(w, got.splitlines(), self.rtol, self.atol)


class Recorder(doctest.DocTestRunner):
    def __init__(self, checker):
        super().__init__(checker=checker, verbose=False,
                         optionflags=doctest.ELLIPSIS)
        self.records = []

    def _rec(self, ex, got, ok):
        self.records.append((ex, got, ok))

    def report_start(self, out, test, example):
        pass

    def report_success(self, out, test, example, got):
        self._rec(example, got, True)

    def report_failure(self, out, test, example, got):
        self._rec(example, got, False)

    def report_unexpected_exception(self, out, test, example, exc_info):
        got = "".join(traceback.format_exception_only(*exc_info[:2]))
        self._rec(example, "Traceback (most recent call last):\n  ...\n" + got, False)


def run(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blks, _ = mdparse.blocks(path, lines)
    checker = Checker()
    runner = Recorder(checker)
    globs = {"__name__": "__doctest__"}
    parser = doctest.DocTestParser()
    for b in blks:
        if b.lang != "python" or "skip" in b.opts:
            continue
        text = "\n".join(b.body(lines)) + "\n"
        if ">>> " not in text:
            continue
        checker.rtol = b.opts.get("rtol", compare.RTOL)
        checker.atol = b.opts.get("atol", compare.ATOL)
        test = parser.get_doctest(text, globs, path, path, b.first)
        runner.records = []
        runner.run(test, clear_globs=False, out=lambda s: None)
        globs.update(test.globs)  # DocTest works on a copy: share names with later blocks
        for ex, got, ok in runner.records:
            nsrc = len(ex.source.rstrip("\n").split("\n"))
            line = b.first + ex.lineno + nsrc
            print(json.dumps({"line": line, "nwant": len(ex.want.splitlines()),
                              "indent": ex.indent + b.indent, "want": ex.want,
                              "got": got, "ok": ok, "block": b.first}))
            sys.stdout.flush()


if __name__ == "__main__":
    run(sys.argv[1])
