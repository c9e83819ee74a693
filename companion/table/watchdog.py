"""systemd's service protocol without a dependency: readiness, status and the watchdog.

The kiosk runs as a ``Type=notify`` unit with ``WatchdogSec=``. A pinger thread tells systemd the
kiosk is alive only while every registered heartbeat is fresh: the screen's (its clock ticks)
and, while a camera is watched, the referee thread's (it beats once a frame). A frozen screen or
a stuck camera therefore stops the pings, and systemd restarts the kiosk. The journal keeps the
game; the restarted kiosk offers to resume it.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable


class Notifier:
    """Datagrams to ``$NOTIFY_SOCKET`` (a path, or ``@`` for an abstract name); silent when the
    kiosk was not started by systemd."""

    def __init__(self, address: str | None = None) -> None:
        self.address = address if address is not None else os.environ.get("NOTIFY_SOCKET")

    @property
    def active(self) -> bool:
        return bool(self.address)

    def send(self, message: str) -> bool:
        if not self.address:
            return False
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.setblocking(False)  # never hold the screen up: a full queue drops the message
            try:
                sock.sendto(message.encode(), target)
            except OSError:
                return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")

    def ping(self) -> bool:
        return self.send("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")


def watchdog_interval(environ: dict[str, str] | None = None) -> float | None:
    """Seconds between pings (half of ``$WATCHDOG_USEC``), or None when no watchdog is set or
    it is meant for another process (``$WATCHDOG_PID``)."""
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC")
    pid = env.get("WATCHDOG_PID")
    if not usec or (pid and pid.isdigit() and int(pid) != os.getpid()):
        return None
    try:
        return max(0.05, int(usec) / 1e6 / 2)
    except ValueError:
        return None


class Heartbeats:
    """Named heartbeats, each with how old it may get before it counts as stuck."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._beats: dict[str, tuple[float, float]] = {}  # name -> (last beat, max age)
        self._lock = threading.Lock()

    def register(self, name: str, max_age_s: float) -> None:
        with self._lock:
            self._beats[name] = (self.clock(), max_age_s)

    def unregister(self, name: str) -> None:
        with self._lock:
            self._beats.pop(name, None)

    def beat(self, name: str) -> None:
        with self._lock:
            if name in self._beats:
                self._beats[name] = (self.clock(), self._beats[name][1])

    def stale(self) -> list[str]:
        """The heartbeats older than they may be."""
        now = self.clock()
        with self._lock:
            return sorted(n for n, (t, age) in self._beats.items() if now - t > age)


class WatchdogPinger:
    """Pings systemd's watchdog every ``interval`` seconds while no heartbeat is stale."""

    def __init__(self, notifier: Notifier, beats: Heartbeats, interval: float) -> None:
        self.notifier = notifier
        self.beats = beats
        self.interval = interval
        self.withheld: list[str] = []  # the stale heartbeats of the last withheld ping
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> bool:
        """One round: ping if every heartbeat is fresh; returns whether it pinged."""
        stale = self.beats.stale()
        if stale:
            if stale != self.withheld:
                self.notifier.status(f"not answering: {', '.join(stale)}")
            self.withheld = stale
            return False
        self.withheld = []
        return self.notifier.ping()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.check()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.interval + 1)
