"""The kiosk's settings file with its hashed PIN, and its words in two languages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.ui.settings import KioskSettings, SettingsError
from companion.ui.strings import STRINGS_FILE, Strings, StringsError

UI = Path(__file__).parents[2] / "companion" / "ui"


def test_the_pin_is_kept_only_as_a_salted_hash(tmp_path):
    settings = KioskSettings.load(tmp_path)
    assert not settings.has_pin
    settings.set_pin("2468")
    text = (tmp_path / "kiosk.json").read_text()
    assert "2468" not in text
    again = KioskSettings.load(tmp_path)
    assert again.check_pin("2468") and not again.check_pin("2469")
    other = KioskSettings.load(tmp_path)
    other.set_pin("2468")
    assert other.pin_hash != settings.pin_hash  # a fresh salt each time


@pytest.mark.parametrize("pin", ["123", "123456789", "12a4", "١٢٣٤"])
def test_a_pin_is_4_to_8_ascii_digits(tmp_path, pin):
    with pytest.raises(SettingsError, match="4 to 8 digits"):
        KioskSettings.load(tmp_path).set_pin(pin)


def test_settings_survive_a_reload_and_a_broken_file_is_named(tmp_path):
    s = KioskSettings.load(tmp_path)
    s.source, s.language = "webcam:0", "fr"
    s.options = {"food-alley/sambal": {"recipes": "open"}}
    s.save()
    again = KioskSettings.load(tmp_path)
    assert (again.source, again.language, again.options) == ("webcam:0", "fr", s.options)
    (tmp_path / "kiosk.json").write_text("{not json")
    with pytest.raises(SettingsError, match="move it away"):
        KioskSettings.load(tmp_path)
    (tmp_path / "kiosk.json").write_text(json.dumps({"schema": 99}))
    with pytest.raises(SettingsError, match="schema 1"):
        KioskSettings.load(tmp_path)


def test_every_key_the_kiosk_uses_has_a_text_in_every_language():
    strings = Strings("en")
    used = set()
    for path in [*UI.glob("*.py"), *UI.glob("*.kv")]:
        used |= set(re.findall(r'\bt\("([a-z_.]+)"', path.read_text()))
    used |= {f"settings.source_{k}" for k in ("camera", "webcam", "none")}
    used |= {"settings.option.recipes.top", "settings.option.recipes.open"}
    missing = sorted(k for k in used if k not in strings.keys())
    assert not missing, missing
    assert len(used) > 40
    for lang in strings.languages:
        local = Strings(lang)
        for key in strings.keys():  # the same {values} in every language
            english = set(re.findall(r"{(\w+)}", strings._strings[key]["en"]))
            assert set(re.findall(r"{(\w+)}", local._strings[key][lang])) == english, key
            assert local.t(key, **dict.fromkeys(english, "x"))


def test_a_translation_missing_a_text_is_named(tmp_path):
    bad = tmp_path / "strings.yaml"
    bad.write_text("schema: 1\nlanguages: {en: English, fr: Francais}\n"
                   "strings:\n  ok: {en: OK}\n")
    with pytest.raises(StringsError, match="'ok' has no text for fr"):
        Strings("en", bad)
    with pytest.raises(StringsError, match="no language"):
        Strings("xx", STRINGS_FILE)
