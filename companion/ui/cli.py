"""``companion kiosk``: the touchscreen referee (Kivy), or its demo headless without a display."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


def display_available() -> bool:
    """Whether a window can open here: an X or Wayland display, a driver chosen through SDL
    (offscreen, kmsdrm), or a DRM device for Kivy's full-screen mode on a Pi without a desktop."""
    if sys.platform != "linux":
        return True
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return True
    if os.environ.get("SDL_VIDEODRIVER"):
        return True
    return any(Path("/dev/dri").glob("card*"))


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT, such as 800x480, not "
                                         f"{text!r}") from None
    if w < 640 or h < 400:
        raise argparse.ArgumentTypeError(f"{text} is too small: the kiosk needs at least "
                                         "640x400")
    return w, h


def _prepare_kivy(size: tuple[int, int], fullscreen: bool) -> None:
    """Settings that must be in place before Kivy opens its window."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_HOME", str(Path(tempfile.gettempdir()) / "companion-kivy"))
    # Kivy makes only the last folder of its home, and exits silently when it cannot
    Path(os.environ["KIVY_HOME"]).mkdir(parents=True, exist_ok=True)
    from kivy.config import Config

    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))
    Config.set("graphics", "resizable", "0")
    Config.set("graphics", "maxfps", "30")  # enough for a board; leaves the CPU to the reader
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    Config.set("kivy", "keyboard_mode", "systemanddock")
    Config.set("input", "mouse", "mouse,disable_multitouch")
    Config.set("kivy", "log_level", "warning")


def run_kiosk_command(args: argparse.Namespace) -> int:
    from companion.table.journal import default_data_dir

    data = Path(args.data) if args.data else default_data_dir()
    if args.screenshots and not args.demo:
        print("companion kiosk: --screenshots plays the demo: add --demo", file=sys.stderr)
        return 2
    if args.demo and args.source:
        print("companion kiosk: --demo plays its own recording: leave out --source",
              file=sys.stderr)
        return 2
    if args.model:  # a model folder that cannot be read is said now, not after the game starts
        from companion.vision.classify import ModelError, load_model
        try:
            load_model(Path(args.model))
        except ModelError as exc:
            print(f"companion kiosk: {exc}", file=sys.stderr)
            return 2
    if not display_available():
        if not args.demo:
            print("companion kiosk: no display here (no DISPLAY, WAYLAND_DISPLAY or "
                  "/dev/dri); run it on the touchscreen, or try --demo", file=sys.stderr)
            return 2
        return _headless_demo(Path(args.recording) if args.recording else None)
    if args.recording and not args.demo:
        print("companion kiosk: --recording is played by --demo: add --demo", file=sys.stderr)
        return 2
    if args.demo:
        try:
            from companion.table.demo import DEMO_DIR, bundled_demo
            bundled_demo(Path(args.recording) if args.recording else DEMO_DIR)
        except FileNotFoundError as exc:
            print(f"companion kiosk: {exc}", file=sys.stderr)
            return 2
        if args.data is None:  # the demo keeps its own journal, apart from real games
            data = Path(tempfile.mkdtemp(prefix="companion-demo-"))
    _prepare_kivy(args.size, args.fullscreen)
    from companion.ui.app import KioskConfig, run_kiosk

    config = KioskConfig(data_dir=data, source=args.source, demo=args.demo, size=args.size,
                         fullscreen=args.fullscreen,
                         screenshots=Path(args.screenshots) if args.screenshots else None,
                         pace=args.pace if args.pace is not None else (
                             4.0 if args.screenshots else 1.0),
                         recording=Path(args.recording) if args.recording else None,
                         tap_delay=args.tap_delay,
                         model=Path(args.model) if args.model else None)
    if args.screenshots:
        print(f"companion kiosk: playing the demo unattended; screenshots and report.json go "
              f"to {args.screenshots} (about a minute)", flush=True)
    code = run_kiosk(config)
    if args.screenshots:
        print(f"companion kiosk: {'done' if code == 0 else 'a check failed'}: see "
              f"{Path(args.screenshots) / 'report.json'}")
    return code


def _headless_demo(recording: Path | None) -> int:
    """No display: the same demo through ``companion referee``, its log on the terminal."""
    from companion.cli import main as companion_main
    from companion.table.demo import DEMO_DIR, bundled_demo

    demo = bundled_demo(recording or DEMO_DIR)
    print("companion kiosk: no display here, so the demo runs headless through companion "
          "referee (its log follows)")
    folder = Path(tempfile.mkdtemp(prefix="companion-demo-"))
    return companion_main(["referee", demo.game, "--players", str(demo.players),
                           "--source", demo.source, "--answers", str(demo.answers),
                           "--data", str(folder)])


def add_parser(sub: Any) -> None:
    kiosk = sub.add_parser(
        "kiosk", help="the touchscreen referee (Kivy)",
        description="The touchscreen referee: seat the players, watch the board through the "
        "camera, answer what it cannot see, and score the end. Without a display, --demo "
        "plays its recorded game in the terminal instead.")
    kiosk.add_argument("--source", help="camera, webcam:N, frames:DIR, video:FILE or none "
                       "(manual entry); default: the one chosen in the settings (camera)")
    kiosk.add_argument("--data", help="the data directory holding the journal and the "
                       "settings (default $XDG_DATA_HOME/food-alley-companion; the demo: a "
                       "fresh temporary one)")
    kiosk.add_argument("--fullscreen", action="store_true", help="fill the screen (the "
                       "touchscreen at boot)")
    kiosk.add_argument("--size", type=_size, default=(800, 480), metavar="WxH",
                       help="window size (default 800x480, the official 7-inch display)")
    kiosk.add_argument("--demo", action="store_true", help="play the bundled demo: a short "
                       "recorded game of Sambal for two, its recorded answers tapped in for the "
                       "players, 2 s after each question appears")
    kiosk.add_argument("--screenshots", metavar="DIR", help="with --demo: play it to the end "
                       "without a human, save a PNG of every screen and a report.json into "
                       "DIR, and exit (1 if a screen was not reached or a check failed)")
    kiosk.add_argument("--recording", metavar="DIR", help="with --demo: play this recorded "
                       "game (recording.json, answers.jsonl, and recording.mp4 or frames/) "
                       "instead of the bundled one")
    kiosk.add_argument("--model", help="the reader's model folder (cells.onnx, cells.json, "
                       "reader.yaml; default the bundled model)")
    kiosk.add_argument("--tap-delay", type=float, default=None, metavar="S",
                       help="with --demo: seconds before each recorded answer is tapped in "
                       "(default 2; 0.25 with --screenshots)")
    kiosk.add_argument("--pace", type=float, default=None, help="play a recording (video: or "
                       "frames:, and the demo) at this many times its speed, 0 as fast as it "
                       "reads (default 1; 4 with --screenshots)")
    kiosk.set_defaults(func=run_kiosk_command)
