"""What the demo world draws on: the table as the senses see it. Zones are the controller's (``layout``,
``seat:0``, ``capture:2``, ``trick``, ...; seats from 0).

* :class:`DirectScene`: a perfect camera, each placed or taken card reported at once as a table event
  (face-down cards as ``back``);
* :class:`SimScene`: :class:`vision.simtable.SimTable`, drawn by a hand over the next frames and seen
  through the real camera pipeline;
* :class:`RecordedScene`: the world's hands on either, each change written to the world's log before it is
  made, or, while the log is replayed after a kill, made at once and unseen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from table.controller.adapters import zone_to_mat
from table.controller.referee import Input
from table.demo.world_log import WorldRecord

RESTART_TRACKS = 100_000
"""Track ids of a freshly started camera's report start here, apart from the ones the journal holds."""


class Scene(Protocol):
    """A table the world lays cards on and takes them from."""

    silent: bool  # a world being rebuilt after a kill: nobody is watching

    def place(
        self, card: str, zone: str, *, face_up: bool = True, seat: int | None = None, animate: bool = True
    ) -> int:
        """Lay ``card`` in ``zone`` (by ``seat``'s hand, else the zone's seat's); returns its id."""

    def take(
        self, card_ids: Sequence[int], to_zone: str | None = None, *, seat: int | None = None, animate: bool = True
    ) -> None:
        """Pick the cards up and lay them face down on ``to_zone``'s pile (off the table when None)."""

    def clear(self, *, animate: bool = True) -> None:
        """Everything off the mat (between deals)."""

    def on_mat(self, card: str) -> bool:
        """Whether ``card`` lies face up on the mat."""

    def newest_in(self, zone: str) -> str | None:
        """The face of the card laid last in ``zone`` (None: none there, or face down)."""


def seat_of(zone: str | None) -> int | None:
    """The seat a seat's zone belongs to (``seat:2`` and ``capture:2`` -> 2), else None."""
    if zone is None or not zone.startswith(("seat:", "capture:")):
        return None
    return int(zone.split(":")[1])


class DirectScene:
    """A perfect camera over the mat: each placed or taken card is one table event."""

    def __init__(self, post: Callable[[Input], None]) -> None:
        self.post = post
        self.cards: dict[int, tuple[str, str, bool]] = {}  # id -> (card, zone, face up)
        self._next = 1
        self._lock = threading.Lock()
        self.silent = False

    def place(
        self, card: str, zone: str, *, face_up: bool = True, seat: int | None = None, animate: bool = True
    ) -> int:
        with self._lock:
            cid = self._next
            self._next += 1
            self.cards[cid] = (card, zone, face_up)
        if not self.silent:
            self.post(_appeared(card, zone, face_up, cid))
        return cid

    def take(
        self, card_ids: Sequence[int], to_zone: str | None = None, *, seat: int | None = None, animate: bool = True
    ) -> None:
        for cid in card_ids:
            with self._lock:
                card, zone, face_up = self.cards.pop(cid)
            if not self.silent:
                self.post(Input("table", "removed", card if face_up else "back", zone, to=to_zone, track=cid))

    def clear(self, *, animate: bool = True) -> None:
        self.take(sorted(self.cards))

    def on_mat(self, card: str) -> bool:
        with self._lock:
            return any(c == card and up for c, _, up in self.cards.values())

    def newest_in(self, zone: str) -> str | None:
        with self._lock:
            faces = [(c if up else None) for c, z, up in self.cards.values() if z == zone]
        return faces[-1] if faces else None

    def show_all(self) -> None:
        """What a freshly started camera reports: every card now on the mat, under new track ids."""
        with self._lock:
            items = sorted(self.cards.items())
        for cid, (card, zone, face_up) in items:
            self.post(_appeared(card, zone, face_up, RESTART_TRACKS + cid))


def _appeared(card: str, zone: str, face_up: bool, track: int) -> Input:
    label = card if face_up else "back"
    return Input("table", "appeared", label, zone, track=track, candidates=((label, 0.99),) if face_up else ())


class SimScene:
    """The scene on a :class:`vision.simtable.SimTable` (mat zones and seats from 1 there). A hand brings
    each change in over the next frames unless ``animate`` is off."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self.labels: dict[int, tuple[str, str]] = {}  # id -> (card, zone)
        self._lock = threading.Lock()
        self.silent = False  # a camera sees what lies there; a replay lays the cards without a hand

    def place(
        self, card: str, zone: str, *, face_up: bool = True, seat: int | None = None, animate: bool = True
    ) -> int:
        hand = seat if seat is not None else seat_of(zone)
        cid = int(
            self.sim.place(
                card, zone_to_mat(zone), face_up=face_up, seat=None if hand is None else hand + 1, animate=animate
            )
        )
        with self._lock:
            self.labels[cid] = (card, zone)
        return cid

    def take(
        self, card_ids: Sequence[int], to_zone: str | None = None, *, seat: int | None = None, animate: bool = True
    ) -> None:
        ids = list(card_ids)
        hand = seat if seat is not None else (int(to_zone.split(":")[1]) if to_zone and ":" in to_zone else None)
        pile = zone_to_mat(to_zone) if to_zone is not None and to_zone.startswith("capture:") else None
        self.sim.take(ids, pile, face_up=False, seat=None if hand is None else hand + 1, animate=animate)
        with self._lock:
            for cid in ids:
                self.labels.pop(cid, None)

    def clear(self, *, animate: bool = True) -> None:
        with self._lock:
            ids = sorted(self.labels)
        cards = set(self.sim.cards)
        self.take([i for i in ids if i in cards] + [i for i in sorted(cards) if i not in ids], animate=animate)

    def on_mat(self, card: str) -> bool:
        with self._lock:
            return any(c == card for c, _ in self.labels.values())

    def newest_in(self, zone: str) -> str | None:
        """The card laid last in ``zone`` (ids grow with each card laid), None if none."""
        with self._lock:
            faces = [c for _, (c, z) in sorted(self.labels.items()) if z == zone]
        return faces[-1] if faces else None

    def signature(self) -> tuple[int, int]:
        """Changes when anything on the table changes: the newest stacking order and the number of cards."""
        cards = list(self.sim.cards.values())
        return max((c.order for c in cards), default=0), len(cards)


class RecordedScene:
    """The world's hands on the scene: each change logged before it is made; replayed at once and unseen."""

    def __init__(self, scene: Scene, record: WorldRecord) -> None:
        self.scene = scene
        self.record = record
        self.silent = False

    def place(
        self, card: str, zone: str, *, face_up: bool = True, seat: int | None = None, animate: bool = True
    ) -> int:
        cid: int = self.record.do(
            {"place": [card, zone, face_up]},
            lambda: self.scene.place(card, zone, face_up=face_up),
            lambda: self._quietly(lambda: self.scene.place(card, zone, face_up=face_up, animate=False)),
        )
        return cid

    def take(
        self, card_ids: Sequence[int], to_zone: str | None = None, *, seat: int | None = None, animate: bool = True
    ) -> None:
        ids = list(card_ids)
        self.record.do(
            {"take": [ids, to_zone]},
            lambda: self.scene.take(ids, to_zone),
            lambda: self._quietly(lambda: self.scene.take(ids, to_zone, animate=False)),
        )

    def clear(self, *, animate: bool = True) -> None:
        self.record.do(
            {"clear": True}, self.scene.clear, lambda: self._quietly(lambda: self.scene.clear(animate=False))
        )

    def on_mat(self, card: str) -> bool:
        return self.scene.on_mat(card)

    def newest_in(self, zone: str) -> str | None:
        return self.scene.newest_in(zone)

    def _quietly(self, do: Callable[[], Any]) -> Any:
        self.scene.silent = True
        try:
            return do()
        finally:
            self.scene.silent = False
