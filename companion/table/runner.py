"""The referee session on its own thread, for front ends with an event loop (the kiosk).

The runner owns the session, the frame source and the reader: only its thread touches them.
A front end sends commands (answer, enter, undo, correct, pause, a private look) and polls
:attr:`SessionRunner.events`, a queue of :class:`~companion.table.session.Event`, from its own
thread. Besides the session's events it posts ``frame`` (a small preview with the latest
reading drawn over it, a few times a second), ``camera`` (live, board not found, ended, failed),
``reply`` (a command's outcome) and ``private`` (a private question's options, for the cover
screen only: never logged, never kept).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.table.session import AnswerError, Event, RefereeSession
from companion.table.sources import (
    FolderSource,
    FrameSource,
    SourceError,
    VideoSource,
    jpeg,
)
from companion.table.watchdog import Heartbeats

log = logging.getLogger(__name__)

PREVIEW_WIDTH = 480  # px of the preview image sent to the screen
PREVIEW_EVERY_S = 0.25  # s between previews, in the source's time
CAMERA_STUCK_S = 10.0  # s without a frame (or a wait for the table) that counts as stuck


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[Any, ...] = ()
    tag: str = ""


class SessionRunner:
    """Frames in, events out, on a thread of its own.

    ``session`` may be None for a camera check (previews only). ``source`` None means manual
    entry: steps come from :meth:`enter`. ``pace`` plays a recorded source at that many times
    its own speed (0: as fast as it reads). A recorded source waits while a question is open,
    as a table would; a live one keeps showing the board.
    """

    def __init__(self, session: RefereeSession | None, source: FrameSource | None, *,
                 reader_factory: Callable[[], Any] | None = None, pace: float = 1.0,
                 hold_warning_s: float = 0.0, heartbeats: Heartbeats | None = None,
                 start_pose: Callable[[tuple[int, int], Callable[[str], Any]], Any] | None = None
                 ) -> None:
        self.session = session
        # a calibrated rig's pose for the first frame's size, or None with a warning told why
        # (companion.table.calibrate.start_pose); posted as a ``rig`` event
        self.start_pose = start_pose
        self.source = source
        self.reader_factory = reader_factory
        self.pace = pace
        self.hold_warning_s = hold_warning_s  # a recording stops this long on a new warning
        self.heartbeats = heartbeats  # beaten once a loop while a source is watched
        self._held_until = 0.0
        self._warned = False
        self.events: queue.Queue[Event] = queue.Queue()
        self._commands: queue.Queue[Command] = queue.Queue()
        self._stop = threading.Event()
        self._paused = False
        self._thread: threading.Thread | None = None
        self._manual: list[Any] = []  # the steps offered for manual entry at the last sync
        self._corrections: tuple[int, list[Any]] | None = None
        self.oracle: Any = None  # a ScriptedTable that answers for a demo's players
        self.recorded = isinstance(source, FolderSource | VideoSource)
        if session is not None:
            session.subscribe(self.events.put)

    # --- the front end's side ------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="referee", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self.heartbeats is not None:
            self.heartbeats.unregister("camera")
        self._commands.put(Command("wake"))
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def send(self, name: str, *args: Any, tag: str = "") -> None:
        """Queue a command: answer(qid, choice), enter(action), undo(seat),
        correct(n, action, seat), private(qid), pause(bool)."""
        self._commands.put(Command(name, args, tag))

    # --- the thread ------------------------------------------------------------------------------
    def _post(self, kind: str, **data: Any) -> None:
        self.events.put(Event(kind, data))

    def _run(self) -> None:
        try:
            if self.session is not None:
                self.session.begin()
                self._sync()
            if self.source is None:
                self._post("camera", state="none", text="no camera: steps are entered by hand")
                while not self._stop.is_set():
                    self._handle(self._commands.get())
                return
            self._watch()
        except Exception as exc:  # the screen must learn of it; the journal keeps the game
            log.exception("the referee stopped")
            self._post("camera", state="failed", text=f"the referee stopped: {exc}")

    def _drain(self) -> None:
        while True:
            try:
                command = self._commands.get_nowait()
            except queue.Empty:
                return
            self._handle(command)

    def _waiting_for_table(self) -> bool:
        """A question the table must answer is open. With a recorded table (the demo's
        hands), also one it will answer although the camera might have: the recording was
        made by a table that answered before it went on."""
        session = self.session
        if session is None:
            return False
        if session.warning is not None:  # the board is to be put back first: keep watching
            return False
        for q in session.questions.values():
            if not q.optional:
                return True
            if self.oracle is not None and self.oracle.answer(session.state, q) is not None:
                return True
        return False

    def _watch(self) -> None:
        from companion.table.settle import Settler

        assert self.source is not None
        reader = self.reader_factory() if self.reader_factory is not None else None
        if reader is None:
            from companion.vision.reader import BoardReader
            reader = BoardReader()
        seated = self.session.seated if self.session is not None else []
        settler = Settler(reader, seated)
        centres_mm = reader.geometry.centres.reshape(-1, 2)
        start = first_t = None
        last_preview = -1e9
        beats = self.heartbeats
        if beats is not None:
            beats.register("camera", CAMERA_STUCK_S)
        try:
            with self.source as source:
                frames = source.frames()
                while not self._stop.is_set():
                    if beats is not None:
                        beats.beat("camera")
                    self._drain()
                    if self.recorded and (self._paused or self._waiting_for_table()
                                          or time.monotonic() < self._held_until):
                        try:  # a recording waits for the table, as the table waits for it
                            self._handle(self._commands.get(timeout=0.05))
                        except queue.Empty:
                            pass
                        start = None
                        continue
                    frame = next(frames, None)
                    if frame is None:
                        self._post("camera", state="ended", text="the recording has ended")
                        if beats is not None:  # nothing left to watch: not stuck
                            beats.unregister("camera")
                        break
                    if self.recorded and self.pace > 0:
                        if start is None:
                            start, first_t = time.monotonic() - 1e-3, frame.t
                        time.sleep(max(0.0, start + (frame.t - first_t) / self.pace
                                       - time.monotonic()))
                    if self.start_pose is not None:  # a calibrated rig: start from its pose
                        h, w = frame.image.shape[:2]
                        settler.start_from(self.start_pose(
                            (w, h), lambda text: self._post("rig", text=text)))
                        self.start_pose = None
                    settled = None if self._paused else settler.push(frame)
                    if frame.t - last_preview >= PREVIEW_EVERY_S:
                        last_preview = frame.t
                        self._preview(frame, settler.last_reading, centres_mm)
                    if settled is not None and self.session is not None \
                            and not self.session.state.is_terminal():
                        self.session.observe(settled.keys, jpeg(settled.frame.image),
                                             settled.frame.t, settled.confidence)
                        self._sync()
                # the game is over or the frames ended: answer what is still asked
                while not self._stop.is_set():
                    try:
                        self._handle(self._commands.get(timeout=0.1))
                    except queue.Empty:
                        continue
        except SourceError as exc:
            self._post("camera", state="failed", text=str(exc))
            if beats is not None:  # a failed camera is shown, and restarting would not help
                beats.unregister("camera")
            while not self._stop.is_set():
                self._handle(self._commands.get())

    def _preview(self, frame: Any, reading: Any, centres_mm: Any) -> None:
        seated = self.session.seated if self.session is not None else []
        image, cells = board_preview(frame.image, reading, centres_mm, seated)
        found = bool(cells)  # the cells are placed only on a board that was found
        # a board found and still not read (another edition, too blurred, too small) says why
        unread = reading is not None and reading.reason is not None and all(
            c["kind"] == "unknown" for row in reading.cells for c in row)
        state = "board not found" if not found else "not read" if unread else "live"
        reason = reading.reason if reading is not None and (unread or not found) else None
        self._post("frame", image=image, cells=cells, t=frame.t, state=state, reason=reason)

    def _handle(self, command: Command) -> None:
        name, args = command.name, command.args
        if name == "wake":
            return
        if name == "pause":
            self._paused = bool(args[0])
            self._held_until = 0.0
            self._post("reply", name=name, tag=command.tag, ok=True, paused=self._paused)
            return
        session = self.session
        if session is None:
            self._post("reply", name=name, tag=command.tag, ok=False, error="no game")
            return
        try:
            if name == "private":
                qid = args[0]
                self._post("private", question=qid, options=session.private_options(qid))
                return
            result: Any = None
            if name == "answer":
                session.answer(args[0], args[1])
            elif name == "enter":
                if not 0 <= args[0] < len(self._manual):
                    raise AnswerError("that step is no longer offered")
                session.enter(self._manual[args[0]])
            elif name == "undo":
                result = session.undo(seat=args[0])
            elif name == "correction-options":
                self._corrections = (args[0], session.correction_options(args[0]))
                result = [str(a) for a in self._corrections[1]]
            elif name == "correct":
                n, index, seat = args
                if self._corrections is None or self._corrections[0] != n or not \
                        0 <= index < len(self._corrections[1]):
                    raise AnswerError("pick the step to correct again")
                result = session.correct(n, self._corrections[1][index], seat=seat)
                self._corrections = None
            elif name == "suggest":
                result = self._suggest(args[0])
            else:
                raise AnswerError(f"unknown command {name}")
        except (AnswerError, KeyError) as exc:
            self._post("reply", name=name, tag=command.tag, ok=False, error=str(exc).strip("'"))
            self._sync()
            return
        # a private answer's reply says only that it was taken
        self._post("reply", name=name, tag=command.tag, ok=True,
                   result=None if name == "answer" else result)
        self._sync()

    def _suggest(self, qid: int) -> int | None:
        """What the recorded game answered to a question (the demo's hands), as an index."""
        session = self.session
        q = session.questions.get(qid) if session is not None else None
        if q is None or self.oracle is None:
            return None
        choice = self.oracle.answer(session.state, q)
        if choice is None or isinstance(choice, int):
            return choice
        return q.options.index(choice) if choice in q.options else None

    def _sync(self) -> None:
        """Post what the screen shows, in one public snapshot."""
        from companion.rules.summary import smileys

        session = self.session
        if session is None:
            return
        self._manual = session.manual_options() if self.source is None else []
        if session.warning is not None and not self._warned:  # a new warning: hold on it
            self._held_until = time.monotonic() + self.hold_warning_s
        self._warned = session.warning is not None
        state = session.state
        scores = smileys(state)
        actor = state.current_player()
        turn = session.names[actor] if actor >= 0 else ""
        board = state.camera_board()
        # a game the camera does not follow: its public view, for the screen's status lines
        table = state.view(None) if board is None else None
        self._post("sync", n=len(state.log), waiting=session.waiting,
                   questions=[session.public_question(q) for q in session.questions.values()],
                   warning=session.warning, board=board, table=table,
                   seats={state.player_name(i): name for i, name in enumerate(session.names)},
                   expected=session.expected(), unsure=list(session.weak),
                   history=[h["text"] for h in session.history[-12:]],
                   scores={session.names[i]: v for i, v in enumerate(scores.values())},
                   manual=[state.describe(a) for a in self._manual], over=state.is_terminal(),
                   turn=turn)


def board_preview(image: Any, reading: Any, centres_mm: Any, seated: list[str]
                  ) -> tuple[Any, list[dict[str, Any]]]:
    """A small copy of the frame, cropped to the board with a margin where it was found, and
    each cell's centre in it with its key and confidence (for the screen's rings)."""
    import cv2

    from companion.table.board import cell_key
    from companion.vision.geometry import project

    found = reading is not None and reading.found and reading.pose is not None
    x0 = y0 = 0
    if found and reading.corners is not None:  # the board, with a margin, fills the view
        h, w = image.shape[:2]
        (bx0, by0), (bx1, by1) = reading.corners.min(axis=0), reading.corners.max(axis=0)
        margin = 0.08 * max(bx1 - bx0, by1 - by0)
        x0, y0 = int(max(0, bx0 - margin)), int(max(0, by0 - margin))
        x1, y1 = int(min(w, bx1 + margin)), int(min(h, by1 + margin))
        if x1 - x0 > 16 and y1 - y0 > 16:
            image = image[y0:y1, x0:x1]
        else:
            x0 = y0 = 0
    h, w = image.shape[:2]
    scale = PREVIEW_WIDTH / w
    small = cv2.resize(image, (PREVIEW_WIDTH, max(1, int(h * scale))),
                       interpolation=cv2.INTER_AREA)
    cells: list[dict[str, Any]] = []
    if found:
        centres = (project(reading.pose.pose, centres_mm) - (x0, y0)) * scale
        for i, (x, y) in enumerate(centres):
            cell = reading.cells[i // 5][i % 5]
            cells.append({"x": float(x), "y": float(y), "key": cell_key(cell, seated),
                          "confidence": float(cell.get("confidence", 0.0))})
    return small, cells
