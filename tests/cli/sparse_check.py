#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compare two tools' JSON outputs of one problem given two ways (mm(...)
matrices and explicit matrix literals, tests/cli/cli_sparse.sh).

    sparse_check.py decompose A.json B.json
        every number of every point (P, Ahat, g, Bhat, q, G, cond_pi, ...)
        normwise per member: |a - b| <= TOL * max(1, max |b| of the member),
        TOL = 1000 eps max(1, cond_chain_max, cond_pi_max).  The data of the
        two files agree to one rounding per entry, and the decomposition's
        forward error is the condition of the chain times a modest multiple
        of eps (its operation count at these sizes is far below 1000).
    sparse_check.py solve A.json B.json
        z at every output time: |a - b| <= 10 (e_a + e_b) + 1000 eps
        max(1, |z|), with e the solves' own global error estimates
        (error_estimate): both answer the same problem, each to within its
        estimate; the factor 10 covers an estimate's own error.
    sparse_check.py ic A.json B.json
        z0: |a - b| <= 1000 eps max(1, |z0|) (a projection, condition 1 here:
        the residual of each is reported and checked by the caller).
Exit 0 when they agree; 1 with the worst difference otherwise.
"""
import json
import sys

EPS = 2.0 ** -52


def numbers(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return []
    if isinstance(v, (int, float)):
        return [float(v)]
    if isinstance(v, list):
        out = []
        for x in v:
            out.extend(numbers(x))
        return out
    return []


def compare_member(name, a, b, tol, worst):
    na, nb = numbers(a), numbers(b)
    if len(na) != len(nb):
        sys.exit(f"sparse_check: {name}: {len(na)} numbers against {len(nb)}")
    if not nb:
        return
    scale = max(1.0, max(abs(x) for x in nb))
    for x, y in zip(na, nb):
        d = abs(x - y) / (tol * scale)
        if d > worst[0]:
            worst[:] = [d, name, x, y, tol * scale]


def main():
    kind, fa, fb = sys.argv[1:4]
    A, B = json.load(open(fa)), json.load(open(fb))
    worst = [0.0, "", 0.0, 0.0, 0.0]
    if kind == "decompose":
        s = B["summary"]
        tol = 1000 * EPS * max(1.0, s["cond_chain_max"], s["cond_pi_max"])
        if len(A["points"]) != len(B["points"]):
            sys.exit("sparse_check: different numbers of points")
        for k, (pa, pb) in enumerate(zip(A["points"], B["points"])):
            if set(pa) != set(pb):
                sys.exit(f"sparse_check: point {k}: keys differ")
            for key in pa:
                if key != "check":  # residuals of each run: rounding, checked below 1e-10
                    compare_member(f"points[{k}].{key}", pa[key], pb[key], tol, worst)
    elif kind == "solve":
        e = 10 * (A["error_estimate"] + B["error_estimate"])
        za, zb = A["z"], B["z"]
        compare_member("times", A["times"], B["times"], 1000 * EPS, worst)
        zmax = max(1.0, max(abs(x) for x in numbers(zb)))
        for k, (ra, rb) in enumerate(zip(za, zb)):
            for i, (x, y) in enumerate(zip(ra, rb)):
                tol = e + 1000 * EPS * zmax
                if abs(x - y) / tol > worst[0]:
                    worst[:] = [abs(x - y) / tol, f"z[{k}][{i}]", x, y, tol]
    elif kind == "ic":
        compare_member("z0", A["z0"], B["z0"], 1000 * EPS, worst)
    else:
        sys.exit(f"sparse_check: unknown kind {kind}")
    if worst[0] > 1.0:
        print(f"sparse_check {kind}: {worst[1]}: {worst[2]!r} against {worst[3]!r} "
              f"(tolerance {worst[4]:.3g})")
        return 1
    print(f"sparse_check {kind}: agree (largest difference {worst[0]:.3g} of the tolerance)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
