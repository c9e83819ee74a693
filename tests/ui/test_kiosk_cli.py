"""`companion kiosk` arguments checked before any window opens."""

from __future__ import annotations

from companion.cli import main


def test_a_model_folder_that_cannot_be_read_is_named_before_the_kiosk_starts(capsys, tmp_path):
    assert main(["kiosk", "--model", str(tmp_path / "no-model")]) == 2
    err = capsys.readouterr().err
    assert "no-model/cells.onnx not found" in err
