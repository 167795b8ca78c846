# SPDX-License-Identifier: GPL-3.0-or-later
"""The generated struct layouts (lth/_layout.py) are current.

The package reads C structs through offsets that python/gen_layout.c prints
at build time.  Here the generator is compiled again against the headers in
the source tree and its output must equal the _layout.py the package uses:
a header that gained a field after the last build fails this test instead of
silently shifting what Python reads.  A second test shows that such a change
does move the offsets (and that the comparison notices it).
"""

import os
import re
import shutil
import subprocess

import pytest

import lth
from lth import _layout

SRC = os.environ.get("LTH_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CC = os.environ.get("LTH_C_COMPILER") or shutil.which("cc")


def generate(include_dir, tmp):
    if not CC:
        pytest.skip("no C compiler to regenerate the layout")
    exe = os.path.join(tmp, "gen_layout")
    deps = [d for d in os.environ.get("LTH_DEP_INCLUDE_DIRS", "").split(";") if d]
    cmd = [CC, "-std=c11", "-I", include_dir] + ["-I" + d for d in deps] + [
        os.path.join(SRC, "python", "gen_layout.c"), "-o", exe]
    subprocess.run(cmd, check=True, capture_output=True)
    out = os.path.join(tmp, "_layout.py")
    subprocess.run([exe, out], check=True)
    with open(out) as fp:
        return fp.read()


def test_layout_is_current(tmp_path):
    fresh = generate(os.path.join(SRC, "include"), str(tmp_path))
    with open(_layout.__file__) as fp:
        used = fp.read()
    assert fresh == used, ("lth/_layout.py is stale: the headers changed since the package was "
                           "built; rebuild (cmake --build) to regenerate it")


def test_an_added_field_moves_the_offsets(tmp_path):
    inc = os.path.join(str(tmp_path), "include")
    shutil.copytree(os.path.join(SRC, "include"), inc)
    ivp_h = os.path.join(inc, "lth", "ivp.h")
    with open(ivp_h) as fp:
        text = fp.read()
    text, n = re.subn(r"(typedef struct lth_ivp_opts \{\n)", r"\1  double added_field;\n", text)
    assert n == 1
    with open(ivp_h, "w") as fp:
        fp.write(text)
    build = os.path.join(str(tmp_path), "b")
    os.mkdir(build)
    changed = generate(inc, build)
    ns = {}
    exec(changed, ns)
    old = dict((m[0], m[1]) for m in _layout.STRUCTS["lth_bvp_opts"][1])
    new = dict((m[0], m[1]) for m in ns["STRUCTS"]["lth_bvp_opts"][1])
    assert new["colloc"] == old["colloc"] + 8 and new["method"] == old["method"]
    assert ns["STRUCTS"]["lth_ivp_opts"][0] == _layout.STRUCTS["lth_ivp_opts"][0] + 8
    with open(_layout.__file__) as fp:
        assert changed != fp.read()


def test_struct_classes_match_the_layout():
    for name, (size, members) in _layout.STRUCTS.items():
        cls = lth._lib.S[name]
        assert lth._lib.ctypes.sizeof(cls) == size
        for mname, offset, msize, _ in members:
            assert getattr(cls, mname).offset == offset and getattr(cls, mname).size == msize


def test_a_changed_signature_stops_the_build(tmp_path):
    inc = os.path.join(str(tmp_path), "include")
    shutil.copytree(os.path.join(SRC, "include"), inc)
    ic_h = os.path.join(inc, "lth", "ic.h")
    with open(ic_h) as fp:
        text = fp.read()
    text = text.replace("lth_status lth_ic_setup(lth_ic *ic, double t, lth_error *err);",
                        "lth_status lth_ic_setup(lth_ic *ic, double t, int extra, lth_error *err);")
    with open(ic_h, "w") as fp:
        fp.write(text)
    with pytest.raises(subprocess.CalledProcessError) as ei:
        generate(inc, str(tmp_path))
    assert b"the signature of lth_ic_setup changed" in ei.value.stderr
