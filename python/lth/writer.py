# SPDX-License-Identifier: GPL-3.0-or-later
"""Data-file text of a Model / LQRModel (docs/format.md section 1).

Numbers are written with Python's repr, the shortest text that reads back
to the same double, so a written file parses to exactly the numbers of the
model.  Sampled blocks given as arrays are written to CSV files (t, then the
entries row by row) with the same guarantee.
"""

import math
import os

import numpy as np

from . import errors


def num(x):
    """Shortest round-trip text of a finite number ("2", "-0.5", "9.81", "1e-300")."""
    x = float(x)
    if not math.isfinite(x):
        raise errors.UsageError("cannot write the non-finite number %r" % x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def matrix(rows):
    """[a, b; c, d] of a list of rows of strings."""
    return "[" + "; ".join(", ".join(r) for r in rows) + "]"


def _vector(v):
    return matrix([[num(x)] for x in np.asarray(v).reshape(-1)])


def _const_matrix(a):
    return matrix([[num(x) for x in row] for row in np.asarray(a)])


def _csv_text(smp, rows, cols):
    flat = smp.flat(rows, cols, "samples")
    head = ["t"] + ["a%d%d" % (i + 1, j + 1) if rows < 10 and cols < 10 else
                    "a%d_%d" % (i + 1, j + 1) for i in range(rows) for j in range(cols)]
    lines = [",".join(head)]
    for t, row in zip(smp.t, flat):
        lines.append(",".join([num(t)] + [num(x) for x in row]))
    return "\n".join(lines) + "\n"


class _Writer:
    def __init__(self, csv_dir, prefix, relative_to):
        self.csv_dir, self.prefix, self.relative_to = csv_dir, prefix, relative_to

    def block(self, label, kind, data, rows, cols):
        if kind == "eye":
            return "eye"
        if kind == "const":
            return _const_matrix(data)
        if kind == "expr":
            ent = [[num(e) if isinstance(e, float) else e for e in row] for row in data]
            return ent[0][0] if rows * cols == 1 else matrix(ent)
        return 'samples("%s")' % self.samples(label, data, rows, cols)

    def samples(self, label, smp, rows, cols):
        if smp.path is not None:
            path = os.path.abspath(smp.path)
            if self.relative_to:
                path = os.path.relpath(path, self.relative_to)
        else:
            if self.csv_dir is None:
                raise errors.UsageError("%s holds sampled data from arrays: write the model with "
                                        "to_file(), or give to_string(csv_dir=...) for the CSV "
                                        "files" % label)
            fname = self.prefix + label.replace("(", "").replace(")", "").replace(",", "") + ".csv"
            with open(os.path.join(self.csv_dir, fname), "w", encoding="utf-8") as fp:
                fp.write(_csv_text(smp, rows, cols))
            path = fname if self.relative_to else os.path.join(self.csv_dir, fname)
        if '"' in path or "\n" in path:
            raise errors.UsageError("the CSV path %r cannot be written in a data file" % path)
        return path


def format_model(model, csv_dir=None, prefix="", relative_to=None):
    """The data file of a Model or LQRModel."""
    w = _Writer(csv_dir, prefix, relative_to)
    lqr = hasattr(model, "nx")
    out = ["# Written by the lth Python package from %s." % model.name.replace("\n", " "),
           "lth 1", "problem lqr" if lqr else "problem dae"]
    out.append("sizes %d %d" % (model.nx, model.nu) if lqr
               else "blocks " + " ".join(str(n) for n in model.blocks))
    out.append("interval %s %s" % (num(model.interval[0]), num(model.interval[1])))
    if model.grid_spec is not None:
        if np.ndim(model.grid_spec) == 0:
            out.append("grid %d" % model.grid_spec)
        else:
            out.append("grid " + matrix([[num(t) for t in model.grid_spec]]))
    if model.sampling_order is not None:
        out.append("sampling order %d" % model.sampling_order)
    for name, val in model.params.items():
        out.append("param %s = %s" % (name, num(val)))
    if lqr:
        for key in ("A", "B", "H"):
            label, (kind, data) = model._blocks[(key,)]
            rows, cols = (model.nx, model.nu) if key == "B" else (model.nx, model.nx)
            out.append("%s = %s" % (key, w.block(label, kind, data, rows, cols)))
        out.append("C = " + _const_matrix(model.C))
        out.append("x0 = " + _vector(model.x0))
    else:
        for key, (label, (kind, data)) in sorted(model._blocks.items()):
            rows = model.blocks[key[1] - 1]
            cols = model.blocks[key[2] - 1] if key[0] == "A" else 1
            out.append("%s = %s" % (label, w.block(label, kind, data, rows, cols)))
        if model.z0 is not None:
            out.append("z0 = " + _vector(model.z0))
        if model.bc is not None:
            B0, B1, beta = model.bc
            out += ["bc B0 = " + _const_matrix(B0), "bc B1 = " + _const_matrix(B1),
                    "bc beta = " + _vector(beta)]
    return "\n".join(out) + "\n"
