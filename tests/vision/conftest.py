from __future__ import annotations

import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "images"


def load_fixtures():
    out = []
    for image in sorted(FIXTURES.glob("*.jpg")):
        truth = json.loads(image.with_suffix(".json").read_text(encoding="utf-8"))
        out.append((image, truth))
    return out


@pytest.fixture(scope="session")
def fixtures():
    items = load_fixtures()
    assert len(items) >= 30, "tests/fixtures/images needs its 30 scenes (make_images.sh)"
    return items
