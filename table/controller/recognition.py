"""Recognition that knows the game: which card did the camera really see?

The classifier gives probabilities over the 52 faces. The referee knows which cards can be there:
in a one-pack game a card already captured or lying on the layout cannot appear again, a card
reader on the dealer says which card it just dealt, known hands say which cards a seat may play.
Multiplying the classifier's probabilities by that prior (zero for impossible cards) and
renormalising corrects most misreads (a 6H read as 8H when 8H was captured long ago). When the
best card is still not clearly ahead, the referee asks people to confirm instead of guessing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

FACES = tuple(r + s for s in "CDHS" for r in "A23456789TJQK")

# Accept without asking when the best possible card holds this share of the possible mass...
ACCEPT_SHARE = 0.90
# ...and the classifier gave the possible cards at least this much mass in the first place
# (otherwise it saw something else entirely: a card we believe impossible, or not a card).
MIN_POSSIBLE_MASS = 0.05
# Probability spread over all faces for the part of the mass the classifier did not report
# (the tracker may pass only the top few candidates).
FLOOR = 1e-4


@dataclass(frozen=True, slots=True)
class Reading:
    """The referee's reading of one sighting: the card, whether it is sure, and the alternatives."""

    card: str | None  # None: nothing possible was seen at all
    sure: bool
    share: float  # the best card's share of the possible probability mass
    ranked: tuple[tuple[str, float], ...]  # every possible card, best first, with its posterior

    def alternatives(self) -> list[str]:
        return [c for c, _ in self.ranked[1:4]]


def posterior(candidates: Sequence[tuple[str, float]], possible: Collection[str]) -> list[tuple[str, float]]:
    """The classifier's probabilities restricted to ``possible`` cards and renormalised, best first."""
    probs = dict.fromkeys(possible, FLOOR)
    for label, p in candidates:
        if label in probs:
            probs[label] = max(probs[label], float(p))
    total = sum(probs.values())
    if total <= 0:
        return []
    ranked = sorted(((c, p / total) for c, p in probs.items()), key=lambda cp: (-cp[1], cp[0]))
    return ranked


def read_card(
    candidates: Sequence[tuple[str, float]],
    possible: Collection[str],
    *,
    hint: str | None = None,
    accept_share: float = ACCEPT_SHARE,
) -> Reading:
    """Decide which card was seen.

    ``candidates``: classifier labels with probabilities (any order, may be only the top few).
    ``possible``: the cards that can be there now. ``hint``: a card named by another sensor (the
    dealer's card reader); it is taken when possible and not contradicted outright by the camera.
    """
    if not possible:
        return Reading(None, False, 0.0, ())
    if hint is not None and hint in possible:
        seen = dict(candidates)
        best_other = max((p for c, p in candidates if c != hint and c in FACES), default=0.0)
        # The reader is trusted unless the camera is confident of a different face.
        if seen.get(hint, 0.0) >= 0.05 or best_other < 0.9:
            return Reading(hint, True, 1.0, ((hint, 1.0),))
    ranked = posterior(candidates, possible)
    raw_mass = sum(p for c, p in candidates if c in possible)
    best, share = ranked[0]
    sure = share >= accept_share and raw_mass >= MIN_POSSIBLE_MASS
    return Reading(best, sure, share, tuple(ranked))


def ask_order(
    ranked: Sequence[tuple[str, float]], candidates: Sequence[tuple[str, float]], faces: Collection[str] = FACES
) -> list[str]:
    """The cards to ask people about, best first: the possible ones (``ranked``, a posterior); when none is
    possible, the card ``faces`` among the camera's candidates, so that "unknown" or "back" is never offered
    as a name (confirmed, it would not parse as a card)."""
    return [c for c, _ in ranked] or [c for c, _ in candidates if c in faces]


def readable_face(card: str | None, candidates: Sequence[tuple[str, float]]) -> bool:
    """A face-up card: read as a face, or ``unknown`` (the camera's votes did not agree) with a face
    as its best candidate, which the referee then identifies or asks about. ``back`` and an unknown
    whose best guess is a back are face-down cards."""
    if card is not None and card in FACES:
        return True
    return card == "unknown" and bool(candidates) and candidates[0][0] in FACES


def reread_labels(card: str | None, candidates: Sequence[tuple[str, float]], possible: Collection[str]) -> list[str]:
    """After a restart, the faces by which a re-read sighting may be matched to a card the referee
    already knows, in order: the reading, then its runner-up. The runner-up (a misread known card)
    is left out when the camera is sure of the reading (``ACCEPT_SHARE``) and the reading is
    ``possible`` as a new card: a card laid while the controller was down, re-read before the known
    card its runner-up names, would otherwise take that card's place."""
    reading = card if card in FACES else (candidates[0][0] if candidates else card)
    if reading is None:
        return []
    labels = [reading] + [c for c, _ in candidates[:2] if c != reading]
    if dict(candidates).get(reading, 0.0) >= ACCEPT_SHARE and reading in possible:
        return labels[:1]
    return labels
