"""``cardtable demo --enrol``: the demo enrols its own deck before the game, so deck profiles run end to end
without a camera or a deck at hand.

The deck is the one the simulated table camera draws (:mod:`vision.faces` in ``FACE_STYLE``). It is laid out face
up, shuffled, in four photos of 13 cards (``models.training.synth.laid_out_photo``, seeded from the demo's seed),
read by the camera path's recogniser and named all at once with no questions (``vision.enrol.name_cards`` with
``ask=None``, as ``cardtable deck learn --yes``). The cards a user would have been asked about are counted.

    enrolment = enrol_demo_deck(seed=5, name="demo")
    print(enrolment.line())
    enrolment.profile      # a DeckProfile, None when the deck was not enrolled whole (enrolment.problems says why)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from vision.deck_profile import DeckProfile
    from vision.recognizer import Recognizer

PHOTOS = 4
PER_PHOTO = 13


@dataclass(frozen=True)
class DemoEnrolment:
    """What enrolling the demo's deck gave: the profile (None when the deck was refused), the cards named, the
    questions a user would have been asked, the photos, the time taken and what kept the deck from being whole."""

    profile: DeckProfile | None
    named: int
    questions: int
    photos: int
    seconds: float
    problems: tuple[str, ...] = field(default=())

    @property
    def complete(self) -> bool:
        return self.profile is not None

    def line(self) -> str:
        """One line for the terminal."""
        what = f"deck {self.profile.name} enrolled" if self.profile is not None else "deck NOT enrolled"
        return (
            f"{what}: {self.named} of 52 cards named from {self.photos} photos, "
            f"{self.questions} question{'s' if self.questions != 1 else ''} it would have asked, {self.seconds:.1f} s"
        )


def enrol_demo_deck(seed: int, name: str, *, recognizer: Recognizer | None = None) -> DemoEnrolment:
    """Lay out the demo's deck in four photos, read and name it, and make the profile ``name`` (not saved).
    ``recognizer``: the one to read the photos with (default: the demo camera path's)."""
    from models.training.synth import LABELS, faces_deck, laid_out_photo
    from table.demo.senses import FACE_STYLE, camera_recognizer
    from vision.enrol import name_cards, read_photos, unsure

    start = time.perf_counter()
    rng = np.random.default_rng([seed, 57])  # its own stream: the game's shuffle is not disturbed
    faces = [str(label) for label in rng.permutation(np.array(LABELS[:52]))]
    deck = faces_deck(FACE_STYLE)
    photos = [
        (f"row{i // PER_PHOTO + 1}", laid_out_photo(rng, deck, faces[i : i + PER_PHOTO]).image)
        for i in range(0, PHOTOS * PER_PHOTO, PER_PHOTO)
    ]
    reader = recognizer or camera_recognizer()
    cards = read_photos(reader, photos)
    enrolment = name_cards(cards, ask=None)
    questions = len(unsure(cards)) + sum(1 for c in cards if c.face is None)
    named = sum(1 for c in cards if c.face is not None)
    profile = (
        enrolment.profile(name, dict(photos), sources=[source for source, _ in photos]) if enrolment.complete else None
    )
    problems = tuple(enrolment.problems) or (() if profile is not None else ("the deck is not complete",))
    return DemoEnrolment(profile, named, questions, len(photos), time.perf_counter() - start, problems)
