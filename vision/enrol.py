"""Enrol a deck: read every card of it from a few photos and name them all at once.

The photos show the deck face up, each card once, in any order (for example four rows of 13). Every card is read by
the generic recogniser; then the 52 faces are given to the cards together, as the assignment that makes the
readings most likely under the rule that a deck holds each face once (a card read "QC 0.5, QS 0.4" is QS when
another card is surely QC). Cards the assignment leaves unsure are put to ``ask`` (the user names them; without
``ask`` the assignment stands). A deck with cards missing, doubled, more cards than a deck holds, or cards of two
sizes is refused with their names, and no profile is made.

    cards = read_photos(recognizer, [("row1.jpg", image), ...])
    enrolment = name_cards(cards, ask=terminal_question)
    profile = enrolment.profile("home", images, back=back_image)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import cv2
import numpy as np

from table.cards import CARD_CODES
from vision.deck_match import ink_maps, padded_corner_crops
from vision.deck_profile import DeckError, DeckProfile
from vision.events import BACK
from vision.recognizer import LABELS, Recognition, Recognizer
from vision.rectify import CORNER_H, CORNER_W

FACES: tuple[str, ...] = tuple(CARD_CODES)
SURE = 0.6
"""An assigned face the generic reading gave this probability or more is not asked about."""
DOUBLED = 0.9
"""A card read this surely as a face that another card was given is that face doubled ..."""
FORCED = 1e-5
"""... when the face it was given instead (if any) is this improbable by its reading: the assignment had no likely
face left for it. A four-colour deck's blue 7D read 7S at 0.93 still gives 7D 1e-4 or more."""
MIXED_ASPECT = 0.06
"""Cards whose heights over widths fall into two groups this far apart are of two decks."""
BLURS = (0.0, 1.0, 2.0)
"""Each corner is kept sharp and blurred this much (crop pixels, Gaussian sigma): how a camera may see it later,
out of focus or smaller."""


@dataclass(eq=False)
class SeenCard:
    """A card of an enrolment photo: where, the generic reading over the 52 faces, and the face given to it."""

    source: str
    recognition: Recognition
    faces: np.ndarray  # (52,) the generic reading's faces, summing to one
    face: str | None = None
    told: bool = False  # named by the user

    @property
    def where(self) -> str:
        x, y = self.recognition.corners.mean(axis=0)
        return f"{self.source} at ({x:.0f}, {y:.0f})"

    def guesses(self, n: int = 3) -> str:
        top = np.argsort(self.faces)[::-1][:n]
        return ", ".join(f"{FACES[i]} {self.faces[i]:.2f}" for i in top)

    @property
    def guess(self) -> str:
        """The face a card-by-card reading gives it."""
        return FACES[int(np.argmax(self.faces))]


Ask = Callable[[SeenCard], str | None]
"""Asks the user which face ``card`` is: a card code ("QH"), or None to leave it out (not a card of the deck)."""


def assign(cost: np.ndarray) -> list[int]:
    """For an (n, m) cost, the column given to each row (-1 for none) that makes the total least, each column used
    at most once (the Hungarian method, O(n^2 m) for n <= m; for n > m the rows no column takes get none)."""
    n, m = cost.shape
    if n == 0:
        return []
    if n > m:
        cols = assign(cost.T)
        rows = [-1] * n
        for j, i in enumerate(cols):
            if i >= 0:
                rows[i] = j
        return rows
    inf = float("inf")
    u, v = np.zeros(n + 1), np.zeros(m + 1)
    p = np.zeros(m + 1, dtype=int)  # p[j]: the row (from 1) given column j
    way = np.zeros(m + 1, dtype=int)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            cand = np.where(free, minv[1:], inf)
            j1 = int(np.argmin(cand)) + 1
            delta = cand[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    out = [-1] * n
    for j in range(1, m + 1):
        if p[j]:
            out[p[j] - 1] = j - 1
    return out


def aspect(r: Recognition) -> float:
    """A card's height over width from its outline."""
    c = r.corners
    w = float(np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3])) / 2
    h = float(np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])) / 2
    return max(w, h) / max(min(w, h), 1e-6)


def width(r: Recognition) -> float:
    c = r.corners
    sides = [float(np.linalg.norm(c[(i + 1) % 4] - c[i])) for i in range(4)]
    return float(min((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))


@dataclass
class Enrolment:
    """The cards as named, and what keeps them from being one whole deck (nothing when they are)."""

    cards: list[SeenCard]
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.problems and sorted(c.face for c in self.cards if c.face) == sorted(FACES)

    def profile(
        self,
        name: str,
        images: Mapping[str, np.ndarray],
        *,
        back: np.ndarray | None = None,
        recognizer: Recognizer | None = None,
        sources: Sequence[str] = (),
    ) -> DeckProfile:
        """The deck's profile from the cards as named (``images``: each card's photo by its source). ``back``: a
        photo of one card face down, read with ``recognizer``. Raises DeckError when the enrolment is not complete or
        the back photo shows no card."""
        if not self.complete:
            raise DeckError("; ".join(self.problems) or "the deck is not complete")
        k = 2 * len(BLURS)
        templates = np.zeros((len(LABELS), k, CORNER_H, CORNER_W, 3), np.uint8)
        for card in self.cards:
            assert card.face is not None
            templates[LABELS.index(card.face)] = corner_templates(images[card.source], card.recognition.corners)
        if back is not None:
            if recognizer is None:
                raise DeckError("reading the back photo needs the recogniser")
            found = recognizer.classify_quads(back, recognizer.detect(back))
            if not found:
                raise DeckError("the back photo shows no card")
            best = max(found, key=lambda r: float(r.probabilities[LABELS.index(BACK)]))
            templates[LABELS.index(BACK)] = corner_templates(back, best.corners)
        recs = [c.recognition for c in self.cards]
        return DeckProfile(
            name=name,
            templates=templates,
            aspect=float(np.median([aspect(r) for r in recs])),
            card_width_px=float(np.median([width(r) for r in recs])),
            created=datetime.now(UTC).isoformat(timespec="seconds"),
            sources=tuple(sources),
        )


def corner_templates(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """(2 len(BLURS), CORNER_H, CORNER_W, 3) uint8 ink maps of the card's two index corners, sharp and blurred."""
    crops = padded_corner_crops(image, quad, margin=0)
    out = []
    for sigma in BLURS:
        for crop in crops:
            seen = crop if sigma == 0 else cv2.GaussianBlur(crop, (0, 0), sigma)
            out.append(ink_maps(seen[None])[0])
    return np.round(np.stack(out) * 255).astype(np.uint8)


def read_photos(recognizer: Recognizer, photos: Sequence[tuple[str, np.ndarray]]) -> list[SeenCard]:
    """Every face-up card of the photos with its generic reading (face-down cards and outlines that are no card left
    out)."""
    cards: list[SeenCard] = []
    for source, image in photos:
        for r in recognizer.recognize(image):
            faces = r.probabilities[: len(FACES)].astype(np.float64)
            if r.card == BACK or faces.sum() < 0.3:
                continue
            cards.append(SeenCard(source, r, faces / faces.sum()))
    return cards


def name_cards(cards: list[SeenCard], ask: Ask | None) -> Enrolment:
    """Give the 52 faces to ``cards`` at once; ask about the unsure ones (``ask``), then check the deck."""
    enrolment = Enrolment(cards)
    _assign(cards)
    if ask is not None:
        for card in unsure(cards) + [c for c in cards if c.face is None]:
            answer = ask(card)
            if answer is not None and answer not in FACES:
                raise DeckError(f"{answer!r} is not a card (a rank A23456789TJQK and a suit CDHS, as QH)")
            card.told = True
            card.face = answer
        _assign(cards)
    enrolment.problems = check(cards)
    return enrolment


def _assign(cards: list[SeenCard]) -> None:
    """Faces for the cards the user has not named, under the faces the user gave: the least total of
    -log(probability), each face once."""
    told = {c.face for c in cards if c.told and c.face}
    open_cards = [c for c in cards if not c.told]
    free = [f for f in FACES if f not in told]
    if not open_cards:
        return
    idx = [FACES.index(f) for f in free]
    cost = -np.log(np.stack([c.faces[idx] for c in open_cards]) + 1e-9)
    for card, j in zip(open_cards, assign(cost), strict=True):
        card.face = free[j] if j >= 0 else None


def check(cards: list[SeenCard]) -> list[str]:
    """What makes these cards not one whole deck, in words: cards doubled, missing, more than a deck, two sizes."""
    problems: list[str] = []
    given = {c.face: c for c in cards if c.face}
    missing = [f for f in FACES if f not in given]
    doubled = [
        (c.guess, c)
        for c in cards
        if c.faces.max() >= DOUBLED
        and c.face != c.guess
        and c.guess in given
        and not c.told
        and (c.face is None or c.faces[FACES.index(c.face)] < FORCED)
    ]
    if doubled:
        problems.append(
            "doubled: "
            + "; ".join(f"{face} ({c.where} and {given[face].where})" for face, c in doubled)
            + " (two decks mixed, or a photo of the same cards twice?)"
        )
    if missing:
        problems.append(f"missing: {' '.join(missing)} ({len(cards)} cards seen, a deck holds 52)")
    twice = {id(c) for _, c in doubled}
    leftover = [c for c in cards if c.face is None and not c.told and id(c) not in twice]
    if leftover:
        problems.append("more cards than a deck: " + "; ".join(f"{c.where} (read {c.guesses(1)})" for c in leftover))
    sizes = two_sizes(cards)
    if sizes is not None:
        problems.append(
            f"two decks mixed: cards {sizes[0]:.2f} and {sizes[1]:.2f} times as high as wide (enrol one deck at a time)"
        )
    return problems


def two_sizes(cards: list[SeenCard]) -> tuple[float, float] | None:
    """The two heights over widths of the cards when they fall into two groups of at least three that differ by more
    than ``MIXED_ASPECT`` (a poker deck and a bridge deck), else None."""
    aspects = sorted(aspect(c.recognition) for c in cards)
    best: tuple[float, float] | None = None
    for i in range(3, len(aspects) - 2):
        low, high = aspects[:i], aspects[i:]
        if high[0] - low[-1] > MIXED_ASPECT and (best is None or high[0] - low[-1] > best[1] - best[0]):
            best = (float(np.median(low)), float(np.median(high)))
    return best


def unsure(cards: list[SeenCard]) -> list[SeenCard]:
    """The cards (nobody named) whose face is in doubt: given a face the generic reading gave under ``SURE``, or
    another face than its own reading, or a face that another card reads as its own at ``SURE`` or more (a
    four-colour deck's blue 7D read 7S at 0.93 beside the black 7S: both are asked about)."""
    contested = {c.guess for c in cards if c.faces.max() >= SURE and c.face != c.guess}
    return [
        c
        for c in cards
        if c.face and not c.told and (c.faces[FACES.index(c.face)] < SURE or c.face != c.guess or c.face in contested)
    ]
