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

# The modules whose tests take minutes, first, each kept whole (its module fixtures made once),
# the longest single wait first. `make test` runs the suite with pytest-xdist's work stealing:
# a process that runs out of tests takes half of another's queue. With the long tests at the
# front of the queues, the short ones are left for the end, where they even out the processes;
# in the order they were collected, one process was left with minutes of enrollment's cuts
# while the other had nothing to do.
SLOW_FIRST = ("tests/ui/test_kiosk.py", "tests/vision/test_enroll.py",
              "tests/table/test_recordings.py")


def pytest_collection_modifyitems(config, items) -> None:  # noqa: ANN001
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(SLOW_FIRST)))
