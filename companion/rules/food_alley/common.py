"""Actions shared by the Food Alley modes: chance outcomes that the table supplies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from companion.rules.protocol import Action


@dataclass(frozen=True)
class Draw(Action):
    """Chance: the token that came out of the bag."""

    token: str
    kind: ClassVar[str] = "draw"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "token": self.token}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Draw:
        return cls(str(d["token"]))

    def __str__(self) -> str:
        return f"draw {self.token}"


@dataclass(frozen=True)
class RevealCat(Action):
    """Chance: the value of the cat taken from the player's face-down, shuffled supply."""

    value: int
    kind: ClassVar[str] = "cat"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "value": self.value}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RevealCat:
        return cls(int(d["value"]))

    def __str__(self) -> str:
        return f"cat {self.value}"
