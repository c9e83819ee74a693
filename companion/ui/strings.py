"""The kiosk's words, from one file (``strings.yaml``), in English and French.

The referee's own sentences (what it waits for, each step) come from the rules engines in
English; the kiosk's labels, buttons and titles are translated here.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

STRINGS_FILE = Path(__file__).parent / "strings.yaml"
SCHEMA = 1


class StringsError(ValueError):
    """The strings file is malformed."""


@lru_cache(maxsize=4)
def _load(path: Path) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise StringsError(f"{path}: cannot be read ({exc})") from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise StringsError(f"{path}: needs 'schema: {SCHEMA}', 'languages' and 'strings'")
    languages = data.get("languages")
    strings = data.get("strings")
    if not isinstance(languages, dict) or not isinstance(strings, dict):
        raise StringsError(f"{path}: 'languages' and 'strings' must be mappings")
    for key, texts in strings.items():
        missing = [lang for lang in languages if not isinstance(texts, dict)
                   or not isinstance(texts.get(lang), str)]
        if missing:
            raise StringsError(f"{path}: '{key}' has no text for {', '.join(missing)}")
    return dict(languages), strings


class Strings:
    """``t(key, **values)``: the text of a key in the chosen language."""

    def __init__(self, language: str = "en", path: Path = STRINGS_FILE) -> None:
        self.languages, self._strings = _load(path)
        if language not in self.languages:
            raise StringsError(f"no language {language!r}; known: "
                               f"{', '.join(self.languages)}")
        self.language = language

    def t(self, key: str, **values: Any) -> str:
        try:
            text = self._strings[key][self.language]
        except KeyError:
            raise StringsError(f"no text for {key!r} in {STRINGS_FILE.name}") from None
        return text.format(**values) if values else text

    def keys(self) -> list[str]:
        return list(self._strings)
