"""The kiosk in a real offscreen window (SDL2 offscreen): whole games through simulated
touches, screenshots at 800x480 and 1280x720 with their layout checks, and the private-entry
leak check over every widget. Each run is a subprocess: Kivy opens one window per process."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from companion.table.answers import load_record
from companion.table.demo import DEMO_DIR
from companion.table.journal import Journal
from companion.ui.autoplay import OPTIONAL_SHOTS, SHOTS
from tests.table.helpers import made_once, shared_folder
from tests.table.test_recordings import _rendered

# Runs the kiosk with every socket it makes recorded (Python's socket class wrapped: an audit
# hook slows Kivy's start-up too much), to show that it talks to nothing but systemd's notify
# socket.
AUDITED = r"""
import atexit, json, socket, sys
events = []
class Recorded(socket.socket):
    def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
        super().__init__(family, type, proto, fileno)
        events.append(["socket.__new__", [repr(socket.AddressFamily(self.family))]])
    def connect(self, address):
        events.append(["socket.connect", [repr(address)]])
        return super().connect(address)
    def sendto(self, data, *args):
        events.append(["socket.sendto", [repr(args[-1])]])
        return super().sendto(data, *args)
    def bind(self, address):
        events.append(["socket.bind", [repr(address)]])
        return super().bind(address)
def lookup(*args, **kwargs):
    events.append(["socket.getaddrinfo", [repr(args[:2])]])
    raise OSError("no network in the kiosk")
socket.socket = Recorded
socket.getaddrinfo = lookup
atexit.register(lambda: open(sys.argv[1], "w").write(json.dumps(events)))
from companion.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _strace() -> list[str]:
    """strace tracing only the network's system calls (through a seccomp filter, so the rest
    runs at full speed), where it is installed and may trace; else nothing."""
    command = ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=%network"]
    try:
        probe = subprocess.run([*command, "-o", os.devnull, sys.executable, "-c", "pass"],
                               capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return command if probe.returncode == 0 else []


STRACE = _strace()


def kiosk(tmp: Path, *args: str, notify: Path | None = None) -> subprocess.Popen:
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1",
               KIVY_HOME=str(tmp / "kivy"), KIVY_NO_CONSOLELOG="1")
    command = ["kiosk", "--demo", "--screenshots", str(tmp / "shots"), "--data",
               str(tmp / "data"), "--tap-delay", "0.05", "--pace", "0", *args]
    if notify is not None:  # as systemd starts it: a notify socket and a 2 s watchdog
        env.update(NOTIFY_SOCKET=str(notify), WATCHDOG_USEC="2000000")
        tmp.mkdir(parents=True, exist_ok=True)
        launch = [sys.executable, "-c", AUDITED, str(tmp / "sockets.json"), *command]
        if STRACE:  # and every socket call the process makes, from C libraries too
            launch = [*STRACE, "-o", str(tmp / "strace.txt"), *launch]
    else:
        launch = [sys.executable, "-m", "companion", *command]
    tmp.mkdir(parents=True, exist_ok=True)
    with open(tmp / "output.txt", "w") as out:  # a file, not a pipe that could fill up
        return subprocess.Popen(launch, env=env, stdout=out, stderr=subprocess.STDOUT,
                                text=True)


def finished(proc: subprocess.Popen, tmp: Path) -> dict:
    proc.wait(timeout=400)
    out = (tmp / "output.txt").read_text()
    report_path = tmp / "shots" / "report.json"
    assert report_path.is_file(), out[-3000:]
    report = json.loads(report_path.read_text())
    assert proc.returncode == 0, report.get("failure")
    return report


MANUAL = r"""
import json, sys
from pathlib import Path
from companion.ui.cli import _prepare_kivy
_prepare_kivy((800, 480), False)
from kivy.clock import Clock
from companion.ui.app import KioskApp, KioskConfig
from companion.ui.autoplay import tap

app = KioskApp(KioskConfig(data_dir=Path(sys.argv[1]), source="none"))
seen = {"taps": 0, "screens": set()}

def act(dt):
    name = app.root.current
    screen = app.root.current_screen
    seen["screens"].add(name)
    if name == "start":
        app.start.pick_game("food-alley/shopper")
        tap(screen.ids.start)
    elif name == "question":
        tap(list(reversed(screen.ids.options.children))[0])
    elif name == "table" and app.table is not None and app.table.view.manual:
        buttons = list(reversed(screen.ids.steps.children))
        seen["taps"] += tap(buttons[0])
    if app.table is not None and app.table.view.n >= 12:
        print(json.dumps({"n": app.table.view.n, "taps": seen["taps"],
                          "screens": sorted(seen["screens"]),
                          "board": app.root.get_screen("table").ids.view_box.children[0]
                          .__class__.__name__}))
        app.stop()

Clock.schedule_interval(act, 0.15)
Clock.schedule_once(lambda *_: app.stop(), 120)
app.run()
"""


def test_without_a_camera_steps_are_tapped_in_and_journaled(tmp_path):
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1",
               KIVY_HOME=str(tmp_path / "kivy"), KIVY_NO_CONSOLELOG="1")
    out = subprocess.run([sys.executable, "-c", MANUAL, str(tmp_path / "data")], env=env,
                         capture_output=True, text=True, timeout=300)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["n"] >= 12 and result["taps"] >= 5
    assert result["board"] == "BoardView"  # the game's board drawn, no camera view
    journal = Journal(tmp_path / "data")
    steps = journal.steps(journal.games()[-1].id)
    assert len(steps) >= 12 and {s["decided_by"] for s in steps} >= {"entry"}


ENTRY_GAME = r"""
import json, sys
from pathlib import Path
from companion.ui.cli import _prepare_kivy
_prepare_kivy((800, 480), False)
from kivy.clock import Clock
from companion.ui.app import KioskApp, KioskConfig
from companion.ui.autoplay import tap, texts

app = KioskApp(KioskConfig(data_dir=Path(sys.argv[1]), source="none"))
seen = {"screens": [], "chosen": [], "shown_after": []}

def act(dt):
    name = app.root.current
    screen = app.root.current_screen
    if name not in seen["screens"]:
        seen["screens"].append(name)
    if name == "start":
        app.start.pick_game(sys.argv[2])
        tap(screen.ids.start)
    elif name == "question":
        seen["shown_after"] += texts(app.root)
        tap(list(reversed(screen.ids.options.children))[0])
    elif name == "private":
        entry = app.table.private
        options = list(reversed(screen.ids.options.children))
        if entry is None or not entry.is_open:
            seen["shown_after"] += texts(app.root)
            tap(screen.ids.action)
        elif options:
            seen["chosen"].append(options[0].text)
            tap(options[0])
    elif name == "reveal":
        tap([w for w in screen.walk() if getattr(w, "text", "") == app.t("reveal.continue")][0])
    if name == "final" or (app.table is not None and app.table.view.n >= 20):
        print(json.dumps({"n": app.table.view.n, **seen}))
        app.stop()

Clock.schedule_interval(act, 0.1)
Clock.schedule_once(lambda *_: app.stop(), 150)
app.run()
"""


def test_the_alley_cats_game_is_refereed_by_entry_its_dogs_hidden_behind_the_cover(tmp_path):
    """A game the camera does not follow, picked on the start screen and played by taps: the
    dustbins placed in public, each dog hidden behind the cover, and what a player hid never
    on a shared screen."""
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1",
               KIVY_HOME=str(tmp_path / "kivy"), KIVY_NO_CONSOLELOG="1")
    out = subprocess.run([sys.executable, "-c", ENTRY_GAME, str(tmp_path / "data"),
                          "alley-cats"], env=env, capture_output=True, text=True, timeout=300)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["n"] >= 20
    assert {"start", "question", "private"} <= set(result["screens"])
    assert result["chosen"] and all("dog" in c for c in result["chosen"])
    assert not set(result["chosen"]) & set(result["shown_after"])
    journal = Journal(tmp_path / "data")
    steps = journal.steps(journal.games()[-1].id)
    assert journal.games()[-1].game == "alley-cats" and len(steps) >= 20


OTHER_MODES = [("food-alley/shopper", 2, 4), ("food-alley/stray", 2, 4)]
AT_ONCE = 3  # kiosk runs at a time


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[dict, Path]]:
    """The kiosk runs of this module, made once in a test run. pytest-xdist may hand this
    module's tests to two processes; the second waits for the first's runs, under a lock,
    rather than make the five runs (minutes of work) again beside them. A process whose
    runs failed leaves no reports, and the next to ask makes them afresh."""
    shared = shared_folder(tmp_path_factory, "kiosk")
    done = shared / "reports.json"

    def run_all() -> None:
        reports = _run_kiosks(Path(tempfile.mkdtemp(prefix="r", dir=shared)))
        written = shared / ".reports.json"
        written.write_text(json.dumps({k: [r, str(p)] for k, (r, p) in reports.items()}))
        written.rename(done)

    made_once(shared / ".lock", done, run_all)
    return {k: (r, Path(p)) for k, (r, p) in json.loads(done.read_text()).items()}


def _run_kiosks(base: Path) -> dict[str, tuple[dict, Path]]:
    """Every kiosk run of this module, started together (most of a run is the demo's hands
    waiting as a player would), then collected."""
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(base / "notify"))
    notify.settimeout(0.5)
    messages: list[str] = []
    listening = threading.Event()
    listening.set()

    def listen() -> None:  # as systemd does: read as they come
        while listening.is_set():
            try:
                messages.append(notify.recv(4096).decode())
            except TimeoutError:
                continue

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    french = base / "fr"
    (french / "data").mkdir(parents=True)
    (french / "data" / "kiosk.json").write_text(json.dumps(
        {"schema": 1, "source": "camera", "language": "fr", "options": {}, "pin": None}))
    # the longest first (Shopper's recording: about twice the demo), so the last to start is
    # not the one that keeps the others waiting
    launches = {}
    for game, players, seed in OTHER_MODES:
        folder = _rendered(game, players, seed)
        tmp = base / game.split("/")[1]
        launches[game] = (lambda f=folder, t=tmp: kiosk(t, "--recording", str(f)), tmp)
    # the 800x480 run in French: the longer sentences on the smaller screen, the hardest fit
    launches.update({
        "1280": (lambda: kiosk(base / "1280", "--size", "1280x720"), base / "1280"),
        "800": (lambda: kiosk(french, "--size", "800x480", notify=base / "notify"), french),
    })
    # at most AT_ONCE at a time: on 2 cores, five at once starve the demo's hands of time
    reports: dict[str, tuple[dict, Path]] = {}
    waiting = list(launches)
    running: dict[str, tuple[subprocess.Popen, Path, float]] = {}
    while waiting or running:
        while waiting and len(running) < AT_ONCE:
            key = waiting.pop(0)
            start, tmp = launches[key]
            running[key] = (start(), tmp, time.monotonic())
        for key, (proc, tmp, began) in list(running.items()):
            if proc.poll() is None and time.monotonic() - began > 400:
                proc.kill()  # its own time limit (300 s) should have ended it: say so
            if proc.poll() is not None:
                del running[key]
                reports[key] = (finished(proc, tmp), tmp)
        time.sleep(0.2)
    listening.clear()
    listener.join(2)
    notify.close()
    reports["notify"] = ({"messages": messages, "path": str(base / "notify")}, base)
    return reports


def test_under_systemd_it_says_ready_pings_and_talks_to_nothing_else(runs):
    notify, _ = runs["notify"]
    messages = notify["messages"]
    assert messages[0].startswith("READY=1")
    assert messages.count("WATCHDOG=1") >= 5  # every second of a minute-long game
    assert messages[-1] == "STOPPING=1"
    _, tmp = runs["800"]
    events = json.loads((tmp / "sockets.json").read_text())
    made = [e for e in events if e[0] == "socket.__new__"]
    assert made and all(e[1][0] == repr(socket.AF_UNIX) for e in made), made[:3]
    assert len(made) >= 5  # the recording saw the notifier's sockets
    reached = {e[1][0] for e in events if e[0] in ("socket.sendto", "socket.connect")}
    assert reached == {repr(notify["path"])}, reached
    assert not [e for e in events if e[0] in ("socket.getaddrinfo", "socket.bind")]


@pytest.mark.skipif(not STRACE, reason="strace is not installed here, or may not trace")
def test_no_library_under_the_kiosk_opens_a_network_socket(runs):
    """What Python's socket class cannot see: a socket made from C (SDL, Mesa, onnxruntime).
    Every socket the whole process tree made is local (a Unix socket; netlink for udev), and
    the only address reached is systemd's notify socket. (onnxruntime's Linux wheels look up
    Microsoft's telemetry host about 20 s after they start, unless ORT_DISABLE_TELEMETRY is
    set first, as companion/__init__.py does: this run, over a minute long, would see it.)"""
    notify, _ = runs["notify"]
    _, tmp = runs["800"]
    calls = (tmp / "strace.txt").read_text().splitlines()
    made = [c for c in calls if " socket(" in c]
    assert made, calls[:5]
    assert all(re.search(r"socket\((AF_UNIX|AF_NETLINK),", c) for c in made), made
    # an address a call names (connect, sendto, sendmsg, bind): local ones only, and of those
    # only the notify socket (no desktop bus, no sound server, no display server)
    named = [c for c in calls if re.search(r" (connect|sendto|sendmsg|bind)\(", c)
             and "sa_family=" in c]
    assert named, calls[:5]
    for call in named:
        family = re.search(r"sa_family=(AF_\w+)", call).group(1)
        assert family in ("AF_UNIX", "AF_NETLINK"), call
        if family == "AF_UNIX":  # the notify socket, or the C library's local name cache
            assert re.search(f'sun_path="({re.escape(notify["path"])}|/var/run/nscd/socket)"',
                             call), call


@pytest.mark.parametrize("key,size", [("800", (800, 480)), ("1280", (1280, 720))])
def test_the_demo_through_the_ui_at_both_sizes(runs, key, size):
    report, tmp = runs[key]
    _, recorded = load_record(DEMO_DIR / "answers.jsonl")
    assert report["window"] == list(size)
    assert not report["missing"]
    assert set(SHOTS) <= set(report["screens"]) <= set(SHOTS) | set(OPTIONAL_SHOTS)
    assert not report["problems"], report["problems"]
    assert not report["leaks"] and report["private_checks"] >= 10
    assert report["final"]["scores"] == recorded["scores"]
    for name in SHOTS:
        assert (tmp / "shots" / f"{name}.png").stat().st_size > 5_000


@pytest.mark.parametrize("game,players,seed", OTHER_MODES)
def test_a_whole_game_of_each_other_mode_through_the_ui(runs, game, players, seed):
    report, _ = runs[game]
    _, recorded = load_record(_rendered(game, players, seed) / "answers.jsonl")
    assert report["final"] is not None, "the game did not reach the final scores"
    assert report["final"]["scores"] == recorded["scores"]
    assert report["final"]["winners"] == recorded["winners"]
    assert not report["problems"], report["problems"]
    assert not report["leaks"]


def test_the_french_screens_fit_too(runs):
    """The 800x480 run is in French: every screen shown, nothing overflowing or hidden."""
    report, tmp = runs["800"]
    assert json.loads((tmp / "data" / "kiosk.json").read_text())["language"] == "fr"
    assert not report["missing"] and not report["problems"], report["problems"]
    assert not report["leaks"]


ENROLL_SCREEN = r"""
import json, sys
from pathlib import Path
from companion.ui.cli import _prepare_kivy
_prepare_kivy((800, 480), False)
from kivy.clock import Clock
from kivy.core.window import Window
from companion.ui.app import KioskApp, KioskConfig
from companion.ui.autoplay import audit

folder = Path(sys.argv[2])
app = KioskApp(KioskConfig(data_dir=Path(sys.argv[1]), source="none"))
seen = {}

pending = []  # the screenshot asked for and not yet taken: no step runs meanwhile

def settled():
    # a screen change lays out on the next frames: both screens are in the tree until then
    return not app.root.transition.is_active and len(app.root.children) == 1

def shoot(name):
    if not settled():
        Clock.schedule_once(lambda *_: shoot(name), 0.2)
        return
    pending.clear()
    written = Window.screenshot(name=str(folder / "shot.png"))
    Path(written).replace(folder / f"{name}.png")
    screen = app.root.current_screen
    seen[name] = {"problems": audit(app.root, (Window.width, Window.height)),
                  "title": screen.ids.title.text,
                  "pictures": sum(1 for box in screen.ids.grid.children
                                  if any(type(w).__name__ == "Image" for w in box.children)),
                  "next": not screen.ids.next.disabled}

def later(name):
    pending.append(name)
    Clock.schedule_once(lambda *_: shoot(name), 0.3)

def step(dt):
    if pending or not settled():
        return
    if app.root.current != "settings" and "settings" not in seen:
        app.set_language("fr")  # the longer sentences: the hardest fit at 800x480
        app.show("settings")
    elif "settings" not in seen:
        seen["settings"] = {"problems": audit(app.root, (Window.width, Window.height))}
    elif "empty" not in seen:
        app.open_enroll_plan()
        later("empty")
    elif "coins" not in seen:
        app.step_enroll_plan(3)
        later("coins")
    elif "last" not in seen:
        app.step_enroll_plan(9)
        later("last")
    else:
        print(json.dumps(seen))
        app.stop()

Clock.schedule_interval(step, 0.5)
Clock.schedule_once(lambda *_: app.stop(), 60)
app.run()
"""


def test_the_photos_that_teach_the_reader_are_shown_as_pictures(tmp_path):
    """Settings > Your box's art: each photo of the plan, its cells as pictures of the faces
    to lay, the empty board first; nothing overflows at 800x480, in French (the longest
    sentences), a photo that shows coins again included."""
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", KIVY_NO_ARGS="1",
               KIVY_HOME=str(tmp_path / "kivy"), KIVY_NO_CONSOLELOG="1")
    out = subprocess.run([sys.executable, "-c", ENROLL_SCREEN, str(tmp_path / "data"),
                          str(tmp_path)], env=env, capture_output=True, text=True, timeout=120)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert not seen["settings"]["problems"]
    assert seen["empty"]["pictures"] == 0 and seen["empty"]["title"].startswith("Photo 1 sur 9")
    assert seen["coins"]["pictures"] == 25 and "layout-03.jpg" in seen["coins"]["title"]
    assert seen["last"]["pictures"] == 19 and not seen["last"]["next"]  # the coins again
    for name in ("empty", "coins", "last"):
        assert not seen[name]["problems"], seen[name]["problems"]
        assert (tmp_path / f"{name}.png").stat().st_size > 5_000
