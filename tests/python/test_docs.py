# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python examples of docs/python.md and docs/plots.md run and print
exactly what the pages show (doctest; one namespace per page, run from the
repository root as the pages assume)."""

import doctest
import os
import re

import pytest

from conftest import ROOT

PAGES = ["docs/python.md", "docs/plots.md"]


def python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def file_blocks(text):
    """(NAME, text) of the blocks marked <!-- doctest: file NAME -->."""
    return re.findall(r"^<!-- doctest: file (\S+) -->\n```\w*\n(.*?)^```", text,
                      flags=re.S | re.M)


def scratch_root(tmp_path, files):
    """A scratch directory with the repository's top-level entries linked
    (data/... works) and the page's data files written, as tests/doctest
    runs the pages."""
    for entry in os.listdir(ROOT):
        os.symlink(os.path.join(ROOT, entry), os.path.join(str(tmp_path), entry))
    for name, body in files:
        with open(os.path.join(str(tmp_path), name), "w", encoding="utf-8") as fp:
            fp.write(body)
    return str(tmp_path)


@pytest.mark.parametrize("page", PAGES)
def test_page(page, monkeypatch, tmp_path):
    path = os.path.join(ROOT, page)
    with open(path, encoding="utf-8") as fp:
        text = fp.read()
    blocks = python_blocks(text)
    if page == "docs/python.md":
        assert len(blocks) >= 8
    files = file_blocks(text)
    monkeypatch.chdir(scratch_root(tmp_path, files) if files else ROOT)
    parser = doctest.DocTestParser()
    test = parser.get_doctest("\n".join(blocks), {}, page, path, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    assert runner.tries > 0 or page != "docs/python.md"


def test_figures_exist_and_are_pictures():
    """Every picture docs/plots.md shows is committed and a valid, non-blank PNG
    (scripts/make-doc-figures.sh makes them)."""
    import struct

    from pngcheck import check
    with open(os.path.join(ROOT, "docs", "plots.md"), encoding="utf-8") as fp:
        names = re.findall(r"\]\((figures/[^)]+\.png)\)", fp.read())
    assert len(names) == 7
    for name in names:
        path = os.path.join(ROOT, "docs", name)
        assert os.path.exists(path), "%s missing: run scripts/make-doc-figures.sh" % name
        with open(path, "rb") as fp:
            w, h = struct.unpack(">II", fp.read(24)[16:24])
        assert check(path, w, h) is None


def test_control_figures():
    """docs/control.md's pictures -- the crane's realization (section 5) and its
    LQG loop (section 12) -- are committed, valid PNGs of curves, of the size
    the page's plotting code draws (scripts/make-doc-figures.sh makes them)."""
    import struct

    from pngcheck import check
    with open(os.path.join(ROOT, "docs", "control.md"), encoding="utf-8") as fp:
        page = fp.read()
    names = re.findall(r"\]\((figures/[^)]+\.png)\)", page)
    assert names == ["figures/control-crane.png", "figures/control-lqg.png"]
    drawn = {"figures/control-crane.png": ((800, 900), "size=(800, 900)"),
             "figures/control-lqg.png": ((800, 700), "Figure(figsize=(8, 7), dpi=100)")}
    for name in names:
        path = os.path.join(ROOT, "docs", name)
        assert os.path.exists(path), "%s missing: run scripts/make-doc-figures.sh" % name
        with open(path, "rb") as fp:
            w, h = struct.unpack(">II", fp.read(24)[16:24])
        size, call = drawn[name]
        assert (w, h) == size and call in page, name
        assert check(path, w, h) is None
