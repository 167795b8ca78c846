# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared fixtures of the Python tests (run by tests/cli/cli_python.sh, which sets
PYTHONPATH and LTH_LIBRARY to the build tree and LTH_APPS_DIR to its tools)."""

import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("LTH_DATA_DIR", os.path.join(ROOT, "data"))
APPS = os.environ.get("LTH_APPS_DIR", os.path.join(ROOT, "build", "apps"))


def data(name):
    """Path of a shipped example."""
    return os.path.join(DATA, name)


def run_tool(tool, *args, expect=0):
    """Run build/apps/TOOL with args; return its parsed JSON stdout (or the
    completed process when expect != 0)."""
    exe = os.path.join(APPS, tool)
    if not os.path.exists(exe):
        pytest.fail("%s is not built (LTH_APPS_DIR=%s)" % (tool, APPS))
    proc = subprocess.run([exe] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != expect:
        pytest.fail("%s %s: exit status %d, expected %d; stderr: %s"
                    % (tool, " ".join(map(str, args)), proc.returncode, expect, proc.stderr[:800]))
    if expect != 0:
        return proc
    return json.loads(proc.stdout)


@pytest.fixture
def tmpdir_path(tmp_path):
    return str(tmp_path)
