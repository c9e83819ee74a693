"""Every test process (each pytest-xdist worker too) imports Kivy with its own home folder and
without Kivy reading the command line: set before any test module imports Kivy.

xdist's workers inherit the controller's environment, so a home the controller made here is
not taken as given: two workers importing Kivy at once into one home race on creating its
folders (FileExistsError on `mods`). Each process makes its own; a KIVY_HOME set from outside
the suite is kept."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

_MADE_HERE = "COMPANION_TESTS_KIVY_HOME"

os.environ.setdefault("KIVY_NO_ARGS", "1")
if os.environ.get("KIVY_HOME") in (None, os.environ.get(_MADE_HERE)):
    _home = tempfile.mkdtemp(prefix="kivy-home-")
    os.environ["KIVY_HOME"] = os.environ[_MADE_HERE] = _home
    atexit.register(shutil.rmtree, _home, ignore_errors=True)
