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


@pytest.mark.parametrize("page", PAGES)
def test_page(page, monkeypatch):
    path = os.path.join(ROOT, page)
    with open(path, encoding="utf-8") as fp:
        blocks = python_blocks(fp.read())
    if page == "docs/python.md":
        assert len(blocks) >= 8
    monkeypatch.chdir(ROOT)
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
