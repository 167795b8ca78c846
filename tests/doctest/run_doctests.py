#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run every example of README.md and docs/*.md and compare its output.

    python3 tests/doctest/run_doctests.py --apps build/apps [FILE.md ...]
    python3 tests/doctest/run_doctests.py --apps build/apps --update

Shell blocks (```sh with "$ " lines) run with bash from a scratch copy of the
repository root (every top-level entry symlinked), with the tools directory
first on PATH, PKG_CONFIG_PATH pointing at the build tree's uninstalled
lth.pc, PYTHONPATH=<build>/python and LTH_LIBRARY=<build>/liblth.so.  The
expected output of a command is its standard output followed by its standard
error; its exit status must be 0, or N when the command line ends in the
comment `# exit status N`.  ```python blocks run as doctests when
python/lth exists (otherwise they are reported as skipped).  See compare.py
for how outputs are compared and mdparse.py for the block syntax.

--update rewrites, in place, the expected output of every example that does
not match, from the real run; it touches only output lines (never commands
or prose) and keeps lines that differ only in masked timings.  With
--update-all it also rewrites outputs that match within tolerance, so that
the documents show exactly what this machine prints.  Exit status: 0 when every
example matches, 1 otherwise (each mismatch listed as FILE:LINE with a diff),
2 on usage errors.
"""
import argparse
import difflib
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import mdparse  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))


class Report:
    def __init__(self):
        self.failures, self.commands, self.examples, self.skipped = 0, 0, 0, 0
        self.edits = {}  # path -> [(first, last, new_lines)]

    def fail(self, where, msg, expected=None, actual=None):
        self.failures += 1
        print("MISMATCH %s: %s" % (where, msg))
        if expected is not None:
            for l in difflib.unified_diff(expected, actual, "document", "actual run",
                                          lineterm="", n=2):
                print("    " + l)

    def skip(self, where, why):
        self.skipped += 1
        print("skipped %s: %s" % (where, why))


def scratch_dir():
    d = tempfile.mkdtemp(prefix="lth-doctest-")
    for name in os.listdir(REPO):
        if name in (".git",) or name.startswith("build"):
            continue
        os.symlink(os.path.join(REPO, name), os.path.join(d, name))
    return d


def environment(args):
    env = dict(os.environ)
    env["PATH"] = os.path.abspath(args.apps) + os.pathsep + env.get("PATH", "")
    env["LC_ALL"] = "C"
    # the package as CMake assembles it in the build tree (sources plus the
    # generated struct layouts); the source tree's python/ lacks _layout.py
    pkg = os.path.join(args.build, "python")
    if not os.path.isdir(os.path.join(pkg, "lth")):
        pkg = os.path.join(REPO, "python")
    env["PYTHONPATH"] = pkg + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["LTH_LIBRARY"] = os.path.join(args.build, "liblth.so")
    pc = os.path.join(args.build, "pkgconfig")
    if os.path.isdir(pc):
        env["PKG_CONFIG_PATH"] = pc
    for v in ("LTH_DATA_DIR", "TERM"):
        env.pop(v, None)
    return env


def run_command(cmd, cwd, env, timeout):
    t = time.time()
    try:
        p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, [], time.time() - t
    text = p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")
    return p.returncode, text.split("\n"), time.time() - t


def do_shell(block, lines, cwd, env, rep, update, update_all=False):
    try:
        cmds = mdparse.commands(block, lines)
    except ValueError as e:
        rep.fail(block.where(), str(e))
        return
    rtol = block.opts.get("rtol", compare.RTOL)
    atol = block.opts.get("atol", compare.ATOL)
    for c in cmds:
        rep.commands += 1
        where = "%s:%d" % (block.path, c.line + 1)
        status, out, secs = run_command(c.text, cwd, env, block.opts.get("timeout", 300))
        if secs > 20:
            print("note %s: took %.1f s" % (where, secs))
        if status is None:
            rep.fail(where, "timed out: %s" % c.text)
            continue
        if status != c.status:
            rep.fail(where, "exit status %d, expected %d (end the command with "
                     "`# exit status N` when it is meant to fail): %s"
                     % (status, c.status, c.text), [], compare._trim(out))
            continue
        want = [mdparse.strip_indent(l, block.indent) for l in lines[c.out_first:c.out_last]]
        ok = compare.block_match(want, out, rtol, atol)
        if ok and not (update and update_all):
            continue
        new = compare.updated(want, out, rtol, atol) if update else None
        if new is not None and new != compare._trim(want):
            rep.edits.setdefault(block.path, []).append(
                (c.out_first, c.out_last, [(" " * block.indent + l).rstrip() for l in new]))
            print("updated %s: %s" % (where, c.text))
        elif not ok:
            rep.fail(where, "output differs: %s%s" % (
                c.text, " (elided output: update by hand)" if update else ""),
                compare._trim(want), compare.shown(want, out, rtol, atol))


def do_python(path, lines, blocks, cwd, env, rep, update):
    pyb = [b for b in blocks if b.lang == "python"
           and any(l.lstrip().startswith(">>> ") for l in b.body(lines))]
    if not pyb:
        return
    for b in pyb:
        if "skip" in b.opts:
            rep.skip(b.where(), b.opts["skip"])
    why = None
    if not os.path.isfile(os.path.join(REPO, "python", "lth", "__init__.py")):
        why = "python block: python/lth does not exist yet"
    elif sanitized(env):
        why = "python block: liblth is built with sanitizers (LTH_SANITIZE), which " \
              "a plain python3 cannot load"
    if why:
        for b in pyb:
            if "skip" not in b.opts:
                rep.skip(b.where(), why)
        return
    p = subprocess.run([sys.executable, os.path.join(HERE, "pyblocks.py"),
                        os.path.abspath(path)], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    records = [json.loads(l) for l in p.stdout.decode().splitlines() if l.startswith("{")]
    if p.returncode != 0:
        rep.fail(path, "python examples: the interpreter exited with status %d: %s"
                 % (p.returncode, p.stderr.decode()[-2000:]))
    for r in records:
        rep.examples += 1
        if r["ok"]:
            continue
        where = "%s:%d" % (path, r["line"] + 1)
        got = [l if l.strip() else "<BLANKLINE>" for l in r["got"].rstrip("\n").split("\n")]
        if update and "..." not in r["want"]:
            rep.edits.setdefault(path, []).append(
                (r["line"], r["line"] + r["nwant"], [" " * r["indent"] + l for l in got]))
            print("updated %s" % where)
        else:
            rep.fail(where, "python example output differs",
                     r["want"].rstrip("\n").split("\n"), got)


def parse_lth(block, lines, cwd, env, rep):
    """A complete data file shown in a ```lth block (one with `blocks` or
    `sizes` and `interval`) must be one lth reads: lth-decompose may fail on
    its numbers (exit status 3) but not on its syntax (1, 2); a block marked
    `invalid` must be rejected as an input error (2)."""
    body = block.body(lines)
    words = {l.split()[0] for l in body if l.strip() and not l.lstrip().startswith("#")}
    if not ({"blocks", "sizes"} & words and "interval" in words):
        return
    name = block.opts.get("file") or "_block_%d.lth" % (block.first + 1)
    path = os.path.join(cwd, name)
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(body) + "\n")
    status, out, _ = run_command("lth-decompose %s --grid 2 --format json > /dev/null" % name,
                                 cwd, env, 60)
    rep.commands += 1
    if block.opts.get("invalid"):
        if status != 2:
            rep.fail(block.where(), "this data file is marked invalid, but lth-decompose "
                     "exits with status %s, not 2 (input error)" % status)
    elif status not in (0, 3):
        rep.fail(block.where(), "the data file in this block does not parse (exit status %s): %s"
                 % (status, " ".join(out).strip()))


def sanitized(env):
    cache = os.path.join(os.path.dirname(env["LTH_LIBRARY"]), "CMakeCache.txt")
    try:
        with open(cache, encoding="utf-8") as f:
            return any(l.strip() == "LTH_SANITIZE:BOOL=ON" for l in f)
    except OSError:
        return False


def check_file(path, args, env, rep):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, problems = mdparse.blocks(path, lines)
    for line, msg in problems:
        rep.fail("%s:%d" % (path, line), msg)
    cwd = scratch_dir()
    try:
        for b in blocks:
            if "file" in b.opts:
                with open(os.path.join(cwd, b.opts["file"]), "w", encoding="utf-8") as f:
                    f.write("\n".join(b.body(lines)) + "\n")
            if b.lang == "lth" and "skip" not in b.opts:
                parse_lth(b, lines, cwd, env, rep)
            if b.lang not in mdparse.SHELL_LANGS:
                continue
            if "skip" in b.opts:
                rep.skip(b.where(), b.opts["skip"])
                continue
            do_shell(b, lines, cwd, env, rep, args.update, args.update_all)
        do_python(path, lines, blocks, cwd, env, rep, args.update)
    finally:
        shutil.rmtree(cwd, ignore_errors=True)


def apply_edits(path, edits):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for first, last, new in sorted(edits, reverse=True):
        lines[first:last] = new
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", required=True, help="directory of the built tools (build/apps)")
    ap.add_argument("--build", help="build directory (default: the parent of --apps)")
    ap.add_argument("--update", action="store_true",
                    help="rewrite mismatching expected outputs from real runs")
    ap.add_argument("--update-all", action="store_true",
                    help="with --update, also rewrite outputs that match within tolerance "
                         "(the documents then show exactly what this machine prints)")
    ap.add_argument("files", nargs="*", help="documents (default README.md docs/*.md)")
    args = ap.parse_args()
    if not os.path.isdir(args.apps):
        print("run_doctests: no tools directory %s" % args.apps, file=sys.stderr)
        return 2
    args.build = os.path.abspath(args.build or os.path.join(args.apps, ".."))
    files = args.files or ([os.path.join(REPO, "README.md")] +
                           sorted(glob.glob(os.path.join(REPO, "docs", "*.md"))))
    env = environment(args)
    rep = Report()
    for path in files:
        rel = os.path.relpath(path, os.getcwd())
        check_file(rel if not rel.startswith("..") else path, args, env, rep)
    for path, edits in rep.edits.items():
        apply_edits(path, edits)
    print("doctest: %d commands, %d python examples in %d files; %d skipped; %d mismatches%s"
          % (rep.commands, rep.examples, len(files), rep.skipped, rep.failures,
             "; %d outputs updated" % sum(len(e) for e in rep.edits.values())
             if args.update else ""))
    return 1 if rep.failures else 0


if __name__ == "__main__":
    sys.exit(main())
