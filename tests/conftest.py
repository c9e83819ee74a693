"""Every test process (each pytest-xdist worker too) imports Kivy with its own home folder and
without Kivy reading the command line: set before any test module imports Kivy."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("KIVY_NO_ARGS", "1")
if "KIVY_HOME" not in os.environ:
    _home = tempfile.mkdtemp(prefix="kivy-home-")
    os.environ["KIVY_HOME"] = _home
    atexit.register(shutil.rmtree, _home, ignore_errors=True)
