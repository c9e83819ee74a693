"""The kiosk's settings file (``kiosk.json`` in the data directory), behind an admin PIN.

The PIN is set at the first start and kept only as a salted PBKDF2 hash.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = 1
PIN_ROUNDS = 200_000
PIN_DIGITS = (4, 8)


class SettingsError(ValueError):
    """A settings file that cannot be used, or a value that is not allowed."""


@dataclass
class KioskSettings:
    path: Path
    source: str = "camera"
    language: str = "en"
    options: dict[str, dict[str, str]] = field(default_factory=dict)  # by game
    pin_salt: str | None = None
    pin_hash: str | None = None

    @classmethod
    def load(cls, data_dir: Path) -> KioskSettings:
        """The settings in ``data_dir`` (defaults where there is no file yet).

        :raises SettingsError: naming what is wrong; the file is left as it is.
        """
        path = Path(data_dir) / "kiosk.json"
        if not path.exists():
            return cls(path)
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SettingsError(f"{path} cannot be read ({exc}): move it away to start with "
                                "fresh settings (the journal is not touched)") from exc
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise SettingsError(f"{path} is not a kiosk settings file of schema {SCHEMA}: move "
                                "it away to start with fresh settings")
        pin = data.get("pin") or {}
        options = data.get("options", {})
        if not isinstance(options, dict) or not all(
                isinstance(v, dict) for v in options.values()):
            raise SettingsError(f"{path}: 'options' must map each game to its options")
        return cls(path, str(data.get("source", "camera")), str(data.get("language", "en")),
                   options, pin.get("salt"), pin.get("hash"))

    def save(self) -> None:
        data = {"schema": SCHEMA, "source": self.source, "language": self.language,
                "options": self.options,
                "pin": {"salt": self.pin_salt, "hash": self.pin_hash} if self.pin_hash else None}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)

    # --- the PIN ----------------------------------------------------------------------------------
    @property
    def has_pin(self) -> bool:
        return bool(self.pin_hash)

    def set_pin(self, pin: str) -> None:
        low, high = PIN_DIGITS
        if not (pin.isascii() and pin.isdigit() and low <= len(pin) <= high):
            raise SettingsError(f"a PIN is {low} to {high} digits")
        salt = os.urandom(16)
        self.pin_salt = salt.hex()
        self.pin_hash = _hash(pin, salt)
        self.save()

    def check_pin(self, pin: str) -> bool:
        if not self.pin_hash or not self.pin_salt:
            return False
        return hmac.compare_digest(_hash(pin, bytes.fromhex(self.pin_salt)), self.pin_hash)


def _hash(pin: str, salt: bytes) -> str:
    return hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, PIN_ROUNDS).hex()
