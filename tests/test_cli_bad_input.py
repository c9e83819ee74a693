"""The command line on bad input: the real cause named, the batch going on, a non-zero exit."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main

FIXTURE = "tests/fixtures/images/scene-2026-000.jpg"


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("companion 0.")


def test_tiny_and_thin_frames_are_named_too_small_and_the_batch_goes_on(tmp_path, capsys):
    tiny, thin = tmp_path / "tiny.png", tmp_path / "thin.png"
    cv2.imwrite(str(tiny), np.full((4, 4, 3), 200, np.uint8))
    cv2.imwrite(str(thin), np.full((63, 2000, 3), 200, np.uint8))
    code = main(["scan", "--json", str(tiny), str(thin), FIXTURE])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 1 and len(lines) == 3
    assert "4x4 px, too small" in lines[0]["error"]
    assert "2000x63 px, too small" in lines[1]["error"]
    assert lines[2]["board"]["found"] and "error" not in lines[2]


def test_a_file_error_names_the_file_once_and_a_folder_is_a_folder(tmp_path, capsys):
    folder = tmp_path / "adir"
    folder.mkdir()
    code = main(["scan", str(folder), str(tmp_path / "missing.jpg")])
    out = capsys.readouterr().out
    assert code == 1
    assert f"{folder}: a folder, not an image" in out
    assert out.count(str(folder)) == 1
    assert out.count("missing.jpg") == 1 and "no such file" in out


def test_a_low_resolution_frame_is_refused_not_misread(tmp_path, capsys):
    small = tmp_path / "small.jpg"
    image = cv2.imread(FIXTURE)
    cv2.imwrite(str(small), cv2.resize(image, (320, 180), interpolation=cv2.INTER_AREA))
    code = main(["scan", "--json", str(small)])
    reading = json.loads(capsys.readouterr().out)
    assert code == 0 and reading["board"]["found"]
    assert all(c["kind"] == "unknown" for row in reading["cells"] for c in row)
    assert "px apart" in reading["error"] and "move the camera closer" in reading["error"]


@pytest.mark.parametrize("args,message", [
    (["render", "--count", "-2", "--out", "{tmp}/r"], "--count is how many scenes"),
    (["render", "--out", "{tmp}/file"], "is a file; --out names a folder"),
    (["render", "--hand-every", "-1", "--out", "{tmp}/r"], "--hand-every is 0"),
    (["train", "--epochs", "0"], "--epochs is 1 or more"),
    (["train", "--scenes", "0"], "--scenes is 1 or more"),
    (["train", "--out", "{tmp}/file"], "is a file; --out names a folder"),
])
def test_render_and_train_refuse_what_they_cannot_do(tmp_path, capsys, args, message):
    (tmp_path / "file").write_text("x")
    code = main([a.replace("{tmp}", str(tmp_path)) for a in args])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_every_option_of_train_and_render_says_its_default(capsys):
    for command in ("train", "render"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        options = [w for w in text.split() if w.startswith("--") and w not in ("--help",)]
        assert options
        assert text.count("default") + text.count("made if missing") >= len(set(options)) - 1
