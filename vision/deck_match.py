"""Reading cards against one enrolled deck (``vision.deck_profile``): the generic model's reading weighed by how well
each card's index corners match the deck's own.

For each card the recogniser named, both index corners are cut with a margin, turned to ink maps as the profile's
are, and compared by normalised cross-correlation, at half size, with every template of every label, the crop moved
up to ``SHIFT_PX`` in each direction (an outline a pixel or two off moves the index in the crop); a label's
similarity is its best. The card's probabilities become the generic ones times ``exp(similarity / TEMPERATURE)``,
normalised: the generic model still tells ranks apart where the deck's corners are alike, and the deck's corners
tell the generic model's confusions apart (a four-colour deck's blue 7D, read 7S at 0.93 by the generic model, is
7D by its colour). How far the deck may weigh against the generic reading depends on how sure that reading is
(``MAX_WEIGHT``, ``SURE``, ``SURE_WEIGHT``): a sure reading is overturned only by corners that clearly match another
face. A card whose corners match none of the deck's well (best similarity under ``FOREIGN_BELOW``)
is ``FOREIGN``: another deck's card, a joker, another deck's back where the profile holds this deck's.

    reader = DeckReader(Recognizer(), store.load("home"))
    reader.recognize(frame)          # as Recognizer.recognize, read against the deck
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from vision.classify import decide
from vision.deck_profile import DeckProfile
from vision.events import BACK, UNKNOWN
from vision.recognizer import LABELS, Recognition, Recognizer
from vision.rectify import CARD_H, CARD_W, CORNER_FRACTION_H, CORNER_FRACTION_W, CORNER_H, CORNER_W, card_homography

FOREIGN = "foreign"
"""The label of a card that is none of the profile's."""
TEMPERATURE = 0.01
"""How sharply a similarity decides between labels: ``exp(similarity / TEMPERATURE)``. A similarity 0.02 higher
weighs a label e^2 (7.4) times more. Chosen with ``MAX_WEIGHT``, ``SURE`` and ``SURE_WEIGHT`` on the validation decks
(``benchmarks/deck_enrolment.py --validation``: font-drawn styles the model never trained on, training designs and
the project's own faces, each also as a four-colour deck), never on the held-out designs: of 0.0075 to 0.02, 0.01
names the fewest cards wrong at 0.9 or more; higher ones name a few fewer wrong in all, more of them at 0.9 or more
(docs/performance.md, Deck enrolment)."""
MAX_WEIGHT = 9.0
"""The deck weighs a label at most ``exp(MAX_WEIGHT)`` (8,100) times less than its best match: a corner crop spoilt by
glare or a shadow's edge matches its own templates badly, and the generic model's reading must keep some weight.
Where the generic model is unsure (under ``SURE``) the deck has this much say: a four-colour deck's green QC, read QD
at 0.7 by the generic model, is QC by its corners."""
SURE = 0.9
"""A face the generic model reads at this probability or more is a sure reading: the deck weighs it at most
``exp(SURE_WEIGHT)`` times less than its best match, not ``exp(MAX_WEIGHT)``."""
SURE_WEIGHT = 5.0
"""How far the deck may weigh against a sure reading (``SURE``): e^5 (150) overturns a reading at 0.95 whose corners
match another face of the deck clearly better, not one at 0.995 or more (odds over e^5) whose own template is a
little off (an enrolment photo's outline a pixel out, so that its 9S matches worse than its TS). On the validation
decks this names about as many cards as one cap of ``MAX_WEIGHT`` for every card, with a fifth fewer named wrong at
0.9 or more; one cap of 3 for every card names more four-colour cards wrong; one cap of 5 for every card does as
well there, but would also cap the deck's say where the generic model is unsure, as it is of most of a four-colour
deck's confusions (docs/performance.md, Deck enrolment)."""
FOREIGN_BELOW = 0.6
"""A card named a face (or a back, when the profile holds the back) whose corners match no template of the profile
this well is another deck's (``benchmarks/deck_enrolment.py`` measures the deck's own cards and other designs)."""
CANDIDATES = 10
"""The deck compares each card with the generic model's this many likeliest faces (the others keep their small
probability, weighed as least like the card): a four-colour deck's blue 7D read 7S at 0.93 has 7D among them."""
SHIFT_PX = 2
"""How far (crop pixels) the corner crops are moved in each direction to find the index."""
PERCENTILE = 98.0
"""The paper's level in each channel of a crop (as ``vision.classify.preprocess`` takes it)."""
_MARGIN = SHIFT_PX


def ink_maps(crops: np.ndarray) -> np.ndarray:
    """(..., H, W, 3) uint8 BGR crops -> float32 ink maps in [0, 1]: each channel divided by its ``PERCENTILE``
    (the paper), so that the light's brightness and colour cancel, and turned to ink (1 - that)."""
    shape = crops.shape
    flat = crops.reshape(-1, shape[-3] * shape[-2], 3)
    k = round(PERCENTILE / 100 * (flat.shape[1] - 1))
    white = np.partition(flat, k, axis=1)[:, k].astype(np.float32)  # (n, 3)
    scaled = crops.astype(np.float32) / np.maximum(white, 24.0).reshape(*shape[:-3], 1, 1, 3)
    out: np.ndarray = 1.0 - np.clip(scaled, 0.0, 1.0)
    return out


def features(inks: np.ndarray) -> np.ndarray:
    """(n, CORNER_H, CORNER_W, 3) ink maps -> (n, D) unit vectors, zero-mean, at half size (the mean of each 2 x 2
    pixels): their dot products are the maps' normalised cross-correlations."""
    n = len(inks)
    small = inks.reshape(n, CORNER_H // 2, 2, CORNER_W // 2, 2, 3).mean(axis=(2, 4))
    v = small.reshape(n, -1)
    v = v - v.mean(axis=1, keepdims=True)
    out: np.ndarray = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)
    return out


def padded_corner_crops(frame: np.ndarray, quad: np.ndarray, margin: int = _MARGIN) -> np.ndarray:
    """(2, CORNER_H + 2 margin, CORNER_W + 2 margin, 3): ``rectify.corner_crops``' two crops of the card at ``quad``
    (any corner order) with ``margin`` more crop pixels all round; the middle is exactly ``corner_crops``' crop."""
    h = card_homography(quad).astype(np.float64)
    sx, sy = CARD_W * CORNER_FRACTION_W / CORNER_W, CARD_H * CORNER_FRACTION_H / CORNER_H
    size = (CORNER_W + 2 * margin, CORNER_H + 2 * margin)
    out = np.empty((2, size[1], size[0], 3), np.uint8)
    # crop pixel (u, v) samples the card at its centre, as rectify's crops do; the second crop is turned 180 degrees
    first = np.array([[sx, 0, (0.5 - margin) * sx], [0, sy, (0.5 - margin) * sy], [0, 0, 1]], np.float64)
    second = np.array(
        [[-sx, 0, CARD_W - (0.5 - margin) * sx], [0, -sy, CARD_H - (0.5 - margin) * sy], [0, 0, 1]], np.float64
    )
    for k, to_card in enumerate((first, second)):
        out[k] = cv2.warpPerspective(
            frame, h @ to_card, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
        )
    return out


class DeckMatcher:
    """A profile's templates ready to compare: ``similarities(frame, quads)``."""

    def __init__(self, profile: DeckProfile) -> None:
        self.profile = profile
        t = profile.templates
        self.present = profile.present
        self.k = t.shape[1]
        feats = features(t.reshape(-1, CORNER_H, CORNER_W, 3).astype(np.float32) / 255.0)
        feats[~np.repeat(self.present, self.k)] = 0.0
        self.templates = np.ascontiguousarray(feats.T)  # (D, 53 K)

    def similarities(
        self, frame: np.ndarray, quads: Sequence[np.ndarray], candidates: np.ndarray | None = None
    ) -> np.ndarray:
        """(N, 53): each card's best normalised cross-correlation with each label's templates (-1 for a label the
        profile lacks), over both corners and every shift up to ``SHIFT_PX``. ``candidates``: (N, C) the labels to
        compare each card with (the others get -1), a fraction of the cost of all 53."""
        if not len(quads):
            return np.zeros((0, len(LABELS)), np.float32)
        n = len(quads)
        # at half size (the mean of each 2 x 2 pixels, as the templates' features), where one pixel is a shift of two
        half = np.stack(
            [
                cv2.resize(c, (c.shape[1] // 2, c.shape[0] // 2), interpolation=cv2.INTER_AREA)
                for q in quads
                for c in padded_corner_crops(frame, q)
            ]
        )  # (2N, H/2 + m, W/2 + m, 3) uint8
        m = _MARGIN // 2
        inks = _ink_with_white(half, half[:, m : m + CORNER_H // 2, m : m + CORNER_W // 2])
        half = inks.reshape(n, 2, *inks.shape[1:])
        h, w, steps = CORNER_H // 2, CORNER_W // 2, range(0, 2 * (_MARGIN // 2) + 1)
        windows = np.stack([half[:, :, dy : dy + h, dx : dx + w] for dy in steps for dx in steps], axis=2)
        v = windows.reshape(n * 2 * len(steps) ** 2, -1)
        v = v - v.mean(axis=1, keepdims=True)
        v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)
        if candidates is None:
            sims = (v @ self.templates).reshape(n, -1, len(LABELS), self.k).max(axis=(1, 3))
        else:
            per_card = v.reshape(n, -1, v.shape[1])
            sims = np.full((n, len(LABELS)), -1.0, np.float32)
            cols = (candidates[:, :, None] * self.k + np.arange(self.k)).reshape(n, -1)  # (N, C K) template columns
            for i in range(n):
                got = (per_card[i] @ self.templates[:, cols[i]]).reshape(-1, candidates.shape[1], self.k)
                sims[i, candidates[i]] = got.max(axis=(0, 2))
        out: np.ndarray = np.where(self.present[None, :], sims, -1.0).astype(np.float32)
        return out


def _ink_with_white(crops: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """Ink maps of the padded ``crops`` with each one's paper level taken from its ``inner`` part (the crop proper)."""
    shape = inner.shape
    flat = inner.reshape(-1, shape[-3] * shape[-2], 3)
    k = round(PERCENTILE / 100 * (flat.shape[1] - 1))
    white = np.partition(flat, k, axis=1)[:, k].astype(np.float32).reshape(*shape[:-3], 1, 1, 3)
    out: np.ndarray = 1.0 - np.clip(crops.astype(np.float32) / np.maximum(white, 24.0), 0.0, 1.0)
    return out


@dataclass(frozen=True)
class Weighing:
    """How a card's similarities weigh its faces (``weigh_faces``): the module's constants, or others to compare
    (``benchmarks/deck_enrolment.py --weighings``).

    >>> Weighing(max_weight=3.0)
    Weighing(temperature=0.01, max_weight=3.0, sure=0.9, sure_weight=5.0)
    """

    temperature: float = TEMPERATURE
    max_weight: float = MAX_WEIGHT
    sure: float = SURE
    sure_weight: float = SURE_WEIGHT


def weigh_faces(probs: np.ndarray, sim: np.ndarray, present: np.ndarray, weighing: Weighing = Weighing()) -> np.ndarray:
    """(53,) ``probs`` with the faces the profile holds weighed by ``exp(similarity / temperature)``, keeping the
    faces' total: the deck moves a card between faces; whether it is face down stays the generic model's word (its
    corners match no face, and the faces' similarities say nothing about a back). A face is weighed at most
    ``exp(max_weight)`` times less than the best match; the generic model's top face, when it reads it at ``sure`` or
    more, at most ``exp(sure_weight)`` times less."""
    faces = len(LABELS) - 1
    out = probs.astype(np.float64).copy()
    held = present[:faces]
    if not held.any():
        return out.astype(np.float32)
    s = sim[:faces].astype(np.float64)
    floor = np.full(faces, -weighing.max_weight)
    top = int(np.argmax(out))
    if top < faces and out[top] >= weighing.sure:
        floor[top] = -min(weighing.sure_weight, weighing.max_weight)
    weights = np.where(held, np.exp(np.maximum((s - s[held].max()) / weighing.temperature, floor)), 0.0)
    weighed = out[:faces] * weights
    total = weighed.sum()
    if total > 0:
        out[:faces] = weighed * (out[:faces].sum() / total)
    return out.astype(np.float32)


def read_with_deck(
    matcher: DeckMatcher,
    frame: np.ndarray,
    recognitions: Sequence[Recognition],
    *,
    min_confidence: float,
    min_margin: float,
    foreign: str = FOREIGN,
    weighing: Weighing = Weighing(),
) -> list[Recognition]:
    """``recognitions`` of ``frame`` read again against the deck: probabilities weighed by the deck's templates, named
    again; a card that matches none of the deck's ``foreign`` (its probabilities as the generic model gave them).
    Cards read ``unknown`` stay candidates: the deck may name them."""
    if not recognitions:
        return []
    probs = np.stack([r.probabilities for r in recognitions])
    candidates = np.argsort(-probs[:, : len(LABELS) - 1], axis=1)[:, :CANDIDATES]
    if matcher.profile.has_back:  # a back is compared with the deck's back too: another deck's is foreign
        candidates = np.concatenate([candidates, np.full((len(candidates), 1), LABELS.index(BACK))], axis=1)
    sims = matcher.similarities(frame, [r.corners for r in recognitions], candidates)
    out: list[Recognition] = []
    present = matcher.present
    for r, sim in zip(recognitions, sims, strict=True):
        if r.visible == "index":  # one corner shows: the profile's two-corner templates cannot be matched
            out.append(r)
            continue
        new = weigh_faces(np.asarray(r.probabilities, np.float64), sim, present, weighing)
        label, conf = decide(new[None], LABELS, min_confidence, min_margin, UNKNOWN)[0]
        back_of_another = label == BACK and matcher.profile.has_back and sim[LABELS.index(BACK)] < FOREIGN_BELOW
        face_of_another = label not in (BACK, UNKNOWN) and float(sim[LABELS.index(label)]) < FOREIGN_BELOW
        if back_of_another or face_of_another:
            out.append(replace(r, card=foreign, confidence=conf, probabilities=new))
            continue
        out.append(replace(r, card=label, confidence=conf, probabilities=new))
    return out


class DeckReader:
    """A ``Recognizer`` that reads every card against one deck's profile; the same entry points (``recognize``,
    ``recognize_regions``, ``recognize_outlines``, ``classify_quads``), and the recogniser's other attributes.
    ``foreign``: the label given to a card of another deck (``FOREIGN``; the table watcher passes ``unknown``, so the
    referee asks about it). ``weighing``: how similarities weigh the faces (the module's constants)."""

    def __init__(
        self, recognizer: Recognizer, profile: DeckProfile, *, foreign: str = FOREIGN, weighing: Weighing = Weighing()
    ) -> None:
        self.recognizer = recognizer
        self.profile = profile
        self.matcher = DeckMatcher(profile)
        self.foreign = foreign
        self.weighing = weighing

    def __getattr__(self, name: str) -> Any:  # detect, meta, outline_nets, ...: the recogniser's own
        return getattr(self.recognizer, name)

    def _read(self, frame: np.ndarray, recognitions: Sequence[Recognition]) -> list[Recognition]:
        return read_with_deck(
            self.matcher,
            frame,
            recognitions,
            min_confidence=self.recognizer.min_confidence,
            min_margin=self.recognizer.min_margin,
            foreign=self.foreign,
            weighing=self.weighing,
        )

    def recognize(
        self, frame_bgr: np.ndarray, *, plane: np.ndarray | None = None, ignore: Sequence[np.ndarray] = ()
    ) -> list[Recognition]:
        return self._read(frame_bgr, self.recognizer.recognize(frame_bgr, plane=plane, ignore=ignore))

    def recognize_outlines(self, frame_bgr: np.ndarray, quads: Sequence[np.ndarray]) -> list[Recognition]:
        return self._read(frame_bgr, self.recognizer.recognize_outlines(frame_bgr, quads))

    def classify_quads(self, frame_bgr: np.ndarray, quads: Sequence[np.ndarray]) -> list[Recognition]:
        return self._read(frame_bgr, self.recognizer.classify_quads(frame_bgr, quads))

    def recognize_regions(self, frame_bgr: np.ndarray, *args: Any, **kwargs: Any) -> list[Recognition]:
        """``Recognizer.recognize_regions``; the readings it reuses (read against the deck already) are kept."""
        readings = list(kwargs.get("readings", ()))
        got = self.recognizer.recognize_regions(frame_bgr, *args, **kwargs)
        reused = {id(r) for r in readings}
        fresh = [i for i, r in enumerate(got) if id(r) not in reused]
        read = self._read(frame_bgr, [got[i] for i in fresh])
        out = list(got)
        for i, r in zip(fresh, read, strict=True):
            out[i] = r
        return out
