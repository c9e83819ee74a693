"""The kiosk's systemd unit, and its service protocol: readiness and a watchdog that only pings
while the screen and the camera both beat."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from companion.table.watchdog import Heartbeats, Notifier, WatchdogPinger, watchdog_interval

UNIT = Path(__file__).parents[2] / "systemd" / "food-alley-kiosk.service"
SECURITY_THRESHOLD = 6  # systemd's exposure scale x10: 0.6 "SAFE", as low as the devices allow

needs_systemd = pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                                   reason="systemd-analyze is not installed here")


def unit_copy(tmp_path: Path) -> Path:
    """The unit with its ExecStart pointing at an executable that exists here."""
    text = UNIT.read_text().replace("/opt/food-alley-companion/.venv/bin/companion",
                                    sys.executable + " -m companion")
    path = tmp_path / UNIT.name
    path.write_text(text)
    return path


@needs_systemd
def test_the_unit_verifies(tmp_path):
    out = subprocess.run(["systemd-analyze", "verify", str(unit_copy(tmp_path))],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "food-alley-kiosk.service" not in out.stderr, out.stderr


@needs_systemd
def test_the_unit_is_hardened(tmp_path):
    out = subprocess.run(["systemd-analyze", "security", "--offline=true",
                          f"--threshold={SECURITY_THRESHOLD}", str(unit_copy(tmp_path))],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-1500:]


def test_the_unit_says_what_the_kiosk_needs():
    text = UNIT.read_text()
    for line in ("Type=notify", "WatchdogSec=", "Restart=on-failure",
                 "SupplementaryGroups=video render input", "Environment=SDL_VIDEODRIVER=kmsdrm",
                 "StateDirectory=food-alley", "ProtectSystem=strict", "NoNewPrivileges=yes",
                 "PrivateTmp=yes", "PrivateNetwork=yes", "DeviceAllow=char-drm rw",
                 "DeviceAllow=char-video4linux rw", "DeviceAllow=char-media rw",
                 "DeviceAllow=char-dma_heap rw", "DeviceAllow=char-input r",
                 "StandardOutput=journal", "StandardError=journal", "SystemCallFilter=~@resources"):
        assert line in text, line


@pytest.fixture
def notify_socket(tmp_path):
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2)
    yield str(path), sock
    sock.close()


def received(sock: socket.socket) -> list[str]:
    out = []
    sock.settimeout(0.2)
    while True:
        try:
            out.append(sock.recv(4096).decode())
        except TimeoutError:
            return out


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_ready_status_and_pings_reach_the_socket(notify_socket):
    path, sock = notify_socket
    notifier = Notifier(path)
    assert notifier.ready("the start screen is up") and notifier.ping()
    assert received(sock) == ["READY=1\nSTATUS=the start screen is up", "WATCHDOG=1"]
    assert not Notifier("").ping()  # not under systemd: silent


def test_the_watchdog_pings_only_while_every_heartbeat_is_fresh(notify_socket):
    path, sock = notify_socket
    clock = Clock()
    beats = Heartbeats(clock)
    beats.register("screen", 10)
    beats.register("camera", 10)
    pinger = WatchdogPinger(Notifier(path), beats, 1.0)
    assert pinger.check()
    clock.now = 11
    beats.beat("screen")  # the screen ticks, the camera is stuck
    assert not pinger.check() and pinger.withheld == ["camera"]
    assert received(sock) == ["WATCHDOG=1", "STATUS=not answering: camera"]
    beats.unregister("camera")  # the recording ended: nothing to watch, nothing stuck
    assert pinger.check()
    clock.now = 30  # the screen froze
    assert not pinger.check() and pinger.withheld == ["screen"]


def test_the_pinger_thread_pings_on_its_interval(notify_socket):
    path, sock = notify_socket
    beats = Heartbeats()
    beats.register("screen", 10)
    pinger = WatchdogPinger(Notifier(path), beats, 0.05)
    pinger.start()
    try:
        sock.settimeout(2)
        assert sock.recv(64) == b"WATCHDOG=1"
    finally:
        pinger.stop()


def test_the_interval_is_half_of_what_systemd_set():
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
