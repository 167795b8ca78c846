# SPDX-License-Identifier: GPL-3.0-or-later
"""pip's build of the Python package lth over an installed liblth.

The package (python/lth) is pure Python over ctypes; what it needs from the
C side are two generated modules:

- ``_layout.py``: the struct layouts and function signatures the library was
  compiled with (python/gen_layout.c).  ``cmake --install`` puts the one made
  with the library in LIBDIR/lth/python/ (it depends on the ABI, so it lives
  with the library), and this build copies it: no compiler is needed, and
  the layout cannot disagree with the library it describes.
- ``_config.py``: the path of the shared library to load.

liblth is found through pkg-config (``lth.pc``); ``LTH_PREFIX=P`` (the prefix
given to ``cmake --install``) adds P's pkg-config directory, as does
PKG_CONFIG_PATH.  Each failure says what to do.  Everything works offline:
``pip install --no-build-isolation ./python`` uses the setuptools and wheel
already installed (Debian: python3-setuptools, python3-wheel).
"""

import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
INSTALL_HINT = ("build and install liblth first (cmake -S . -B build && cmake --build build && "
                "cmake --install build --prefix P), then run pip with LTH_PREFIX=P (or "
                "PKG_CONFIG_PATH=P/lib/pkgconfig); docs/python.md, section 1")


def fail(message):
    sys.exit("lth: %s" % message)


def package_version():
    with open(os.path.join(HERE, "lth", "__init__.py"), encoding="utf-8") as fp:
        m = re.search(r'^__version__ = "([^"]+)"', fp.read(), re.M)
    return m.group(1) if m else None


def isolated_build():
    """True inside pip's isolated build environment, which has only the build
    requirements: NumPy is then installed as a dependency, not checked here."""
    return any("pip-build-env-" in p for p in sys.path + [os.environ.get("PYTHONPATH", "")])


def check_numpy():
    if isolated_build() or importlib.util.find_spec("numpy") is not None:
        return
    fail("NumPy is missing for %s: install it first (Debian: apt-get install python3-numpy, and "
         "make the venv with `python3 -m venv --system-site-packages`; elsewhere: pip install "
         "numpy), then install lth again" % sys.executable)


def pkg_config(*args):
    env = dict(os.environ)
    prefix = os.environ.get("LTH_PREFIX")
    if prefix:
        dirs = sorted(glob.glob(os.path.join(prefix, "lib*", "pkgconfig")) +
                      glob.glob(os.path.join(prefix, "lib", "*", "pkgconfig")))
        if not dirs:
            fail("LTH_PREFIX=%s has no lib*/pkgconfig directory: is it the prefix liblth was "
                 "installed to? %s" % (prefix, INSTALL_HINT))
        env["PKG_CONFIG_PATH"] = os.pathsep.join(dirs + [env.get("PKG_CONFIG_PATH", "")])
    exe = shutil.which("pkg-config")
    if not exe:
        fail("pkg-config is not installed (Debian: apt-get install pkg-config); it finds liblth")
    proc = subprocess.run([exe] + list(args) + ["lth"], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        fail("pkg-config does not find liblth (lth.pc): %s" % INSTALL_HINT)
    return proc.stdout.strip()


def find_liblth():
    """(library path, layout file) of the installed liblth, checked."""
    libdir = pkg_config("--variable=libdir")
    version = pkg_config("--modversion")
    if version != package_version():
        fail("liblth %s in %s is not the version of this package (%s): install the liblth "
             "built from the same source" % (version, libdir, package_version()))
    here = os.path.join(libdir, "lth", "python")
    layout = os.path.join(here, "_layout.py")
    soname = os.path.join(here, "soname")
    if not (os.path.isfile(layout) and os.path.isfile(soname)):
        fail("%s lacks the struct layouts the Python package needs (lth/python/_layout.py): "
             "install liblth with CMake (cmake --install), which puts them there" % libdir)
    with open(soname, encoding="utf-8") as fp:
        library = os.path.join(os.path.realpath(libdir), fp.read().strip())
    if not os.path.exists(library):
        fail("%s is missing: the liblth install is incomplete; %s" % (library, INSTALL_HINT))
    return library, layout


class BuildWithLibrary(build_py):
    """build_py plus the two generated modules."""

    def run(self):
        library, layout = find_liblth()
        super().run()
        dest = os.path.join(self.build_lib, "lth")
        self.copy_file(layout, os.path.join(dest, "_layout.py"))
        with open(os.path.join(dest, "_config.py"), "w", encoding="utf-8") as fp:
            fp.write("# Written by python/setup.py: the library this package loads.\n"
                     "LIBRARY = %r\n" % library)


check_numpy()
setup(cmdclass={"build_py": BuildWithLibrary})
