"""Table events: what the tracker reports once the table has settled."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np

BACK = "back"
"""The label of a face-down card, after the 52 faces (``vision.recognizer.LABELS``)."""
UNKNOWN = "unknown"
"""The label of a card that is not named: the classifier unsure, or the tracker's votes in no agreement."""
N_LABELS = 53
"""Labels a probability vector holds: the 52 faces and ``BACK``."""


class EventKind(enum.StrEnum):
    APPEARED = "appeared"  # a card arrived (on an empty spot, or laid face up on a pile: see ``covers``)
    REMOVED = "removed"  # a card left the table, or left a pile uncovering the card below
    MOVED = "moved"  # a card left one zone and arrived in another (same face seen in both)
    TURNED_OVER = "turned_over"  # a card was turned in place: face down -> up or up -> down


@dataclass(frozen=True, eq=False)
class TableEvent:
    kind: EventKind
    card: str  # "QH", "back" (face down) or "unknown" (no agreement); for REMOVED the label it had
    zone: str | None  # where the card is now (REMOVED: where it was); None = on the mat, in no zone
    position_mm: tuple[float, float]  # card centre on the mat
    track_id: int  # the tracker's id of the physical card (stable across events)
    frame: int  # index of the frame at which the event was decided
    timestamp: float  # that frame's capture time (seconds)
    frames: tuple[int, ...]  # frames whose observations the decision rests on
    confidence: float  # 0..1: share of agreeing votes times their mean classifier confidence
    probabilities: np.ndarray | None = None  # (53,) mean softmax over the agreeing votes (LABELS order)
    from_zone: str | None = None  # MOVED: the zone it came from
    previous: str | None = None  # TURNED_OVER: the label before; APPEARED on a pile: the label it covers
    duplicate: bool = False  # a one-pack game already has this card on the table

    def to_dict(self, *, probabilities: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "event": self.kind.value,
            "card": self.card,
            "zone": self.zone,
            "position_mm": [round(self.position_mm[0], 1), round(self.position_mm[1], 1)],
            "track": self.track_id,
            "frame": self.frame,
            "time": round(self.timestamp, 3),
            "frames": list(self.frames),
            "confidence": round(self.confidence, 3),
        }
        if self.from_zone is not None or self.kind is EventKind.MOVED:
            d["from_zone"] = self.from_zone
        if self.previous is not None:
            d["previous"] = self.previous
        if self.duplicate:
            d["duplicate"] = True
        if probabilities and self.probabilities is not None:
            d["probabilities"] = [round(float(p), 4) for p in self.probabilities]
        return d

    def describe(self) -> str:
        where = self.zone or "mat"
        text = {
            EventKind.APPEARED: f"{self.card} appeared in {where}",
            EventKind.REMOVED: f"{self.card} removed from {where}",
            EventKind.MOVED: f"{self.card} moved {self.from_zone or 'mat'} -> {where}",
            EventKind.TURNED_OVER: f"{self.previous} turned over: {self.card} in {where}",
        }[self.kind]
        if self.kind is EventKind.APPEARED and self.previous:
            text += f" (on {self.previous})"
        if self.duplicate:
            text += " [DUPLICATE]"
        return f"{text}  ({self.confidence:.2f}, frame {self.frame})"
