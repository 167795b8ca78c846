#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The layers of lib/ and what each may include.

lib/ holds one folder per layer, in the order data flows (LAYERS below).  A
file may include
  - headers of its own folder (its private *_impl.h among them),
  - public headers (include/lth/*.h) of its own layer or a layer below,
  - non-private headers of a folder below it (shared by several layers:
    core/),
and nothing else: no upward include, no private header of another folder.
Tests (tests/unit/<layer>/) may use their own layer's private headers;
tools, Python and benchmarks only public headers (plus tests' shared
fixtures).

Prints the layer graph (folder -> folders it includes, with counts) and
exits 1 on a violation, naming file, line and include.

    python3 scripts/check-layers.py            # check, print the graph
    python3 scripts/check-layers.py --quiet    # check only
    python3 scripts/check-layers.py --root DIR # check another copy of the tree
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Bottom to top.
LAYERS = ["core", "jet", "source", "samples", "system", "model", "decomp", "table", "ic",
          "ivp", "ss", "colloc", "bvp", "lqr", "reader"]

# The layer each public header belongs to.
PUBLIC = {
    "status.h": "core", "defaults.h": "core", "norms.h": "core",
    "jet.h": "jet", "expr.h": "jet",
    "source.h": "source",
    "samples.h": "samples",
    "system.h": "system", "enclose.h": "system",
    "model.h": "model",
    "decomp.h": "decomp", "grid.h": "decomp", "verify.h": "decomp", "conditioning.h": "decomp",
    "sampling_error.h": "decomp", "opdecomp.h": "decomp",
    "table.h": "table",
    "ic.h": "ic", "opic.h": "ic",
    "ivp.h": "ivp", "opivp.h": "ivp", "opsolve.h": "ivp", "path.h": "ivp",
    "ss.h": "ss",
    "bvp.h": "bvp",
    "lqr.h": "lqr",
    "plqr.h": "lqr",
    "kalman.h": "lqr",
    "problem.h": "reader",
    "lth.h": "reader",  # the umbrella header includes every layer
}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def rank(layer):
    return LAYERS.index(layer)


def lib_files():
    out = []
    for d, _, files in os.walk(os.path.join(ROOT, "lib")):
        for f in files:
            if f.endswith((".c", ".h")):
                out.append(os.path.join(d, f))
    return sorted(out)


def folder_of(path):
    rel = os.path.relpath(path, os.path.join(ROOT, "lib"))
    return rel.split(os.sep)[0] if os.sep in rel else None


def resolve(inc, src):
    """(kind, layer, path): kind 'public', 'lib' or 'system' (not ours)."""
    if inc.startswith("lth/"):
        name = inc[4:]
        return ("public", PUBLIC.get(name), name)
    here = os.path.join(os.path.dirname(src), inc)
    if os.path.exists(here):
        return ("lib", folder_of(here), os.path.normpath(here))
    cand = os.path.join(ROOT, "lib", inc)
    if os.path.exists(cand):
        return ("lib", folder_of(cand), os.path.normpath(cand))
    return ("system", None, inc)


def lines_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check(quiet):
    problems = []
    edges = {}
    files = lib_files()
    if not files:
        problems.append("lib/ holds no sources")
    for f in files:
        layer = folder_of(f)
        rel = os.path.relpath(f, ROOT)
        if layer not in LAYERS:
            problems.append("%s: not inside a layer folder (%s)" % (rel, ", ".join(LAYERS)))
            continue
        text = open(f, encoding="utf-8").read()
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            kind, target, path = resolve(inc, f)
            where = "%s:%d: #include \"%s\"" % (rel, lines_of(text, m.start()), inc)
            if kind == "system":
                problems.append("%s: no such header in lib/ or include/lth/" % where)
                continue
            if target is None:
                problems.append("%s: public header of no declared layer (scripts/check-layers.py"
                                " PUBLIC)" % where)
                continue
            if target not in LAYERS:
                problems.append("%s: %s is not inside a layer folder" % (where, path))
                continue
            if rank(target) > rank(layer):
                problems.append("%s: upward, from %s to %s" % (where, layer, target))
            if kind == "lib" and target != layer and path.endswith("_impl.h"):
                problems.append("%s: private header of %s" % (where, target))
            if target != layer:
                edges.setdefault(layer, {}).setdefault(target, 0)
                edges[layer][target] += 1
    problems += cycles(edges)
    for d in ("apps", "python", "bench", "examples"):
        problems += outside(d)
    problems += tests()
    if not quiet:
        print("layers of lib/, bottom to top, and what each includes (includes per layer):")
        for layer in LAYERS:
            deps = edges.get(layer, {})
            n = len([f for f in files if folder_of(f) == layer])
            dep = ", ".join("%s %d" % (k, deps[k]) for k in sorted(deps, key=rank, reverse=True))
            print("  %-8s %3d files  -> %s" % (layer, n, dep or "(nothing)"))
    for p in problems:
        print("check-layers: " + p, file=sys.stderr)
    return 1 if problems else 0


def cycles(edges):
    """Cycles among folders (impossible without an upward include, checked
    all the same so that a wrong LAYERS order cannot hide one)."""
    out, state = [], {}

    def visit(n, stack):
        state[n] = 1
        for m in edges.get(n, {}):
            if state.get(m) == 1:
                out.append("cycle: " + " -> ".join(stack[stack.index(m):] + [m]))
            elif m not in state:
                visit(m, stack + [m])
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n, [n])
    return out


def outside(d):
    """Front ends and benchmarks use public headers only."""
    out = []
    base = os.path.join(ROOT, d)
    for dd, _, files in os.walk(base):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dd, f)
            text = open(path, encoding="utf-8", errors="replace").read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                if inc.endswith("_impl.h") or inc.startswith("../lib") or "lib/" in inc:
                    out.append("%s:%d: #include \"%s\": %s/ may use public headers only" %
                               (os.path.relpath(path, ROOT), lines_of(text, m.start()), inc, d))
    return out


def tests():
    """tests/unit/<layer>/ may use its own layer's private headers only; a
    test program or script outside tests/unit/<layer>/ or tests/cli/ would not
    be built or run."""
    out = []
    base = os.path.join(ROOT, "tests")
    for f in sorted(os.listdir(base)):
        if re.match(r"(test_.*\.c|cli_.*\.sh)$", f):
            out.append("tests/%s: tests live in tests/unit/<layer>/ (test_*.c) and tests/cli/"
                       " (cli_*.sh); here it is never run" % f)
    unit = os.path.join(base, "unit")
    if os.path.isdir(unit):
        for d in sorted(os.listdir(unit)):
            if d not in LAYERS:
                out.append("tests/unit/%s: not a layer (%s)" % (d, ", ".join(LAYERS)))
    for dd, _, files in os.walk(base):
        rel = os.path.relpath(dd, base).split(os.sep)
        own = rel[1] if len(rel) >= 2 and rel[0] == "unit" else None
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dd, f)
            text = open(path, encoding="utf-8", errors="replace").read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                if not inc.endswith("_impl.h"):
                    continue
                cand = [os.path.join(ROOT, "lib", l, os.path.basename(inc)) for l in LAYERS]
                owner = [l for l, c in zip(LAYERS, cand) if os.path.exists(c)]
                if not owner or owner[0] != own:
                    out.append("%s:%d: #include \"%s\": a test may use the private headers of"
                               " its own layer's folder only" %
                               (os.path.relpath(path, ROOT), lines_of(text, m.start()), inc))
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--root" in args:
        i = args.index("--root")
        if i + 1 >= len(args):
            sys.exit("usage: check-layers.py [--quiet] [--root DIR]")
        ROOT = os.path.abspath(args[i + 1])
    sys.exit(check("--quiet" in args))
