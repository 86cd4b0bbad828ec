"""Find every card in a camera frame and name it: detection + rectification + classification.

    rec = Recognizer()                      # loads models/cardnet.onnx + models/cardnet.json
    for r in rec.recognize(frame_bgr):      # every card on the table
        print(r.card, r.confidence, r.corners)
    rec.recognize(frame_bgr, plane=cal.image_to_mat)  # on a calibrated table: shapes tested on the table
    rec.classify_quads(frame_bgr, quads)    # when a tracker already knows where the cards are

All crops of a frame go through onnxruntime in one batch. A card the model is unsure of gets a second
look (``SECOND_LOOK_SCALES``, ``SECOND_LOOK_SHIFTS``, ``SECOND_LOOK_ZOOMS``, ``SUIT_LOOK_SHIFT``) in one more batch,
and a face card still under ``PIP_LOOK_BELOW`` a look at its whole face by the pip model (``vision.pip_look``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from threadpoolctl import threadpool_limits

from models import shipped
from table.cards import CARD_CODES
from vision.change_regions import kept_and_reused, untouched_by
from vision.classify import OnnxClassifier, decide, postprocess, preprocess, softmax
from vision.covered_cards import lying_on, read_covered
from vision.detect import DEFAULT_CONFIG, DetectorConfig, Region, detect_cards, detect_in_region
from vision.errors import ImageError, ModelError, SettingError
from vision.events import BACK, UNKNOWN
from vision.index_corners import IndexCornerFinder
from vision.ink_colour import BLACK, RED, InkColour, coloured_ink, ink_colour, ink_colour_of_crop, repaint
from vision.learned_detect import detect_learned
from vision.learned_outlines import DEFAULT_META as DEFAULT_OUTLINE_META
from vision.learned_outlines import OutlineNets
from vision.model_meta import ModelMeta, load_meta
from vision.motion_blur import Motion, deblur, estimate_motion
from vision.pip_look import DEFAULT_PIP_MODEL, PipLook, rank_of_face
from vision.quads import centre_on_any
from vision.rectify import (
    CORNER_FRACTION_H,
    CORNER_FRACTION_W,
    CORNER_H,
    CORNER_W,
    corner_crops,
    order_corners,
)
from vision.working_scale import View, card_width, looked, view_for_cards

LABELS: tuple[str, ...] = (*CARD_CODES, BACK)
"""Classifier outputs: the 52 faces "AC".."KC", "AD".., "AH".., "AS".."KS" (suit-major, as
``table.cards.Card.index``), then "back" for a face-down card."""

NOT_A_CARD = "none"
MODEL_LABELS: tuple[str, ...] = (*LABELS, NOT_A_CARD)
"""The network's outputs: LABELS plus "none", a detected outline that is not a card (a phone, a chip,
a pattern on the cloth). "none" never reaches callers: such outlines are dropped by ``recognize``."""
PIPELINE_CROP = (CORNER_H, CORNER_W, CORNER_FRACTION_W, CORNER_FRACTION_H)
"""The index crops ``rectify`` cuts (pixels, card fractions); a model must declare the same in its metadata."""
_FACES = len(LABELS) - 1
_SUIT_INDEX = np.array(["CDHS".index(label[1]) for label in LABELS[:_FACES]])
_RANK_GROUP = rank_of_face(np.arange(_FACES))  # (52,): face -> its class of the pip model's rank head
_RANK_GROUP_SIZE = np.bincount(_RANK_GROUP[:13]).astype(np.float32)  # faces of a suit in each class: 1, or 3 (courts)
_SUIT_OF_FACE = np.eye(4, dtype=np.float32)[_SUIT_INDEX]  # (52, 4): face -> its suit, to sum by suit
DEFAULT_MODEL = shipped("cardnet.onnx")
DEFAULT_COVERED_MODEL = shipped("covered_cardnet.onnx")
"""The classifier the covered-card pass reads one index corner with: cardnet fine-tuned on the crops that pass cuts
(another card's edge across the crop, a suit cut short by the card on top; ``models/README.md``)."""
SECOND_LOOK_SCALES = (0.93, 0.965, 1.035, 1.07)
"""A card left ``unknown`` (or named under ``SECOND_LOOK_BELOW``) is classified again through its outline
scaled about its centre by each of these, and named by the geometric mean of all five readings. Outlines
a pixel or three off (a side on the printed frame, a blurred edge) move the index in the crop, and the
model can be unsure of a card it reads at 0.8+ through the true outline; the rescaled crops bracket that
error. On held-out designs
(evaluate --scenes 20) it took realistic unknowns from 1.7% to 0.1% and hard ones from 4.9% to 3.5%;
wrong readings stayed at 0.17% in realistic scenes and went from 0.63% to 0.76% in hard ones
(docs/performance.md)."""
SECOND_LOOK_SHIFTS = (0.025, 0.05)
"""... and through its outline moved by each of these fractions of the card's width along each of its four
directions (across and down the card, either way): of those eight readings the surest (highest top-1) joins
the mean, as if the outline were moved to where the index reads best. An outline a few pixels off moves the
index the same way in both crops; a bellot 5H read at 0.28 through its outline 2-3 px off reads 0.64 through
the true one and 0.7-0.8 through the outline moved 3 px. All eight in the mean instead named fewer of the
flat cards of ``test_the_second_look_also_reads_through_moved_outlines`` than no moved outlines at all (57
against 65 in a scratch run; the surest: 70). On twelve seed-and-mode sets (evaluate --scenes 20, seeds 2024, 99, 7, 11,
31,
53) hard named rose at ten and was unchanged at two (about +65 cards of 17,280), wrong +3 cards, realistic
named about +5 of 13,500 (docs/performance.md)."""
SECOND_LOOK_BELOW = 0.7
"""A card named with a top-1 probability under this also gets the second look: such readings are the
guesses among the named (a 6D read as 5D at 0.48 through an outline a little off, 0.92 through the true
one): a referee asks about an unknown card but acts on a wrong one. 0.55 was chosen on the model card's
frames (wrong readings 0.17% -> 0.0% realistic and 0.76% -> 0.49% hard). The second look has since gained
moved outlines, zoomed crops and the suit look and names more of the cards it reads; at 0.7 a
bellot QC read JC at 0.64 is named QC, and so is a plastic JC read JC at 0.553 that the pip look, unsure of
clubs or spades, then left unknown. Validation (validate_fonts --detect --second-look-below X,
four sets), against 0.55: realistic named +5 and wrong -4, hard named +21 and wrong +3; 0.65, 0.75 and 0.85
gave hard named +20, +22 and +21 with wrong +1, +7 and +12. Held-out (evaluate --scenes 20, six
seeds): realistic named 6,659 -> 6,662 (image) and 6,660 -> 6,662 (calibrated), every seed at 99.5% or more;
hard named +1 and -1. Classification time on bench_recognition's speed frames unchanged (2.6 ms a frame)
(docs/performance.md)."""
SECOND_LOOK_ZOOMS: tuple[float, ...] = (1.15, 1.3)
"""... and through index crops zoomed out by each of these (``rectify.corner_crops``'s ``zoom``: the crop
covers that many times the usual part of the card from its corner): each reading is one more member of the
mean, and its faces summed by suit weigh the mean's faces as the suit look's do (below). The crop ends at
0.267 of the card's height, inside a jumbo index's suit; zoomed out, the model sees the whole suit
(gnome:plastic's QC flat on felt, 80-180 px wide: unknown at three widths without, QC at 0.74-0.81 with;
benchmarks/read_flat_card.py). Chosen on the validation set (validate_fonts --scenes 1, two sets of 240
untrained font styles: realistic named 98.29 -> 98.74% and 98.17 -> 98.63%, wrong 0.72 -> 0.68% and
1.19 -> 1.15%; hard named 92.50 -> 93.72% and 92.88 -> 93.78%, wrong 2.99 -> 3.02% and 3.51 -> 3.44%), then
measured on the held-out designs (evaluate --scenes 20, six seeds): realistic named 6,646 -> 6,650 of 6,683
(image) and 6,649 -> 6,652 (calibrated), hard named +19 and +23 of 8,640, hard wrong 94 -> 91 and 87 -> 85
(docs/performance.md)."""
ONE_CORNER_SURE = 0.9
"""A card whose first index corner the model reads at this probability or more (its top output, "none"
included) is named from that corner alone; only the others are read through their second corner too (one
more onnxruntime run for them). The network's arithmetic is most of the classification's time (8.4 M
multiply-accumulates a crop) and most cards are sure at one corner: the second corner was read for 46 of 484
own-drawn cards and 245 of 677 held-out ones, classification 5.67 -> 3.67 and 5.54 -> 4.06 ms a frame
(``benchmarks/bench_classifier_models.py models/cardnet.onnx [--held-out 5] [--both-corners]``). On the
validation set every figure was the same with both corners; on the held-out designs (evaluate --scenes 20,
six seeds, image and calibrated) every count too but one hard card more found and named (docs/performance.md). None:
always both corners."""
SUIT_LOOK_SHIFT = 0.08
"""The second look also reads each unsure card through index crops moved this fraction of the card's
height towards its middle, and weighs the readings' geometric mean by the suit that reading sees
(its probabilities summed by suit; "back" keeps its share). The crop ends at 0.267 of the card's height:
a jumbo index's suit (rank over a suit as large, as on poker decks) or a small index's blurred suit is cut
there, and the model cannot tell a club's top from a spade's (gnome:plastic's QC: QC 0.19, QS 0.18; the
moved crop, which loses the rank, says clubs 0.6, spades 0.3). The rank stays the first readings'. On
the model card's frames and two other seeds (evaluate --scenes 20 --calibrated, seeds 2024, 99 and 7) it
named 17 more of 3372 realistic cards (wrong unchanged) and 26 more of 4320 hard ones (5 more wrong)
(docs/performance.md)."""
PIP_LOOK_BELOW = 0.9
"""A face card named under this top-1 probability after the second look (or left unknown) has its faces
weighed by the suit and the rank the pip model reads from the whole card (``vision.pip_look``,
``models/pipnet.onnx``): a number card's pips are several times the size of its index's suit, and in hard
scenes most cards named wrong had the right rank and the other suit of their colour (61 of 87 on the
validation set's true outlines: clubs read as spades and spades as clubs), most of them motion-blurred. On the
validation set (two sets of 240 untrained font styles, true outlines): hard named 2,699 -> 2,827 and 2,701 ->
2,801 of 2,880, wrong 87 -> 38 and 99 -> 61; realistic named 2,190 -> 2,210 of 2,218 and 2,153 -> 2,164 of
2,183. 0.97 named 3 and 6 hard cards more (wrong 34 and 54) but had the pip model read four times as many
cards (6.4 of 12 realistic cards a frame against 1.6: most cards named from one index corner are at 0.9-0.97),
3-4 ms more a frame (``benchmarks/pip_look_cost.py``; docs/performance.md)."""


Visible = Literal["whole", "index"]


@dataclass(frozen=True, eq=False)
class Recognition:
    """One card seen in a frame."""

    card: str  # "QH" | "back" | "unknown"
    confidence: float  # probability of the top label (also when the card is "unknown")
    corners: np.ndarray  # (4, 2) float32 image pixels, card outline clockwise
    probabilities: np.ndarray  # (53,) softmax over LABELS
    presence: float = 1.0  # probability that the outline is a card at all (1 - the model's "none")
    # "whole": found by its outline and read through both index corners; "index": partly under other cards, found and
    # read by one index corner, its outline estimated from that corner and the deck's card size (vision.covered_cards)
    visible: Visible = "whole"


BLUR_LOOK_BELOW = 0.9
"""A face card still named under this top-1 probability after the second look and the pip look (or left unknown), in a
frame whose cepstrum shows a motion blur (``vision.motion_blur``: ``MOTION_DEPTH``, ``MOTION_ISOLATION``), is read
again, with every look, from a patch of the frame around it deconvolved for that blur; that reading replaces the
first where it names a card, but never turns a card named a face into a back. Most hard cards found and
not named were in frames smeared 6-8 px, their indices past the model; deconvolved, many read again. Chosen on the
validation set (validate_fonts --detect, four sets of 240 untrained font styles, against no blur look): hard named
+12, +5, +12, +5 of 2,880 each, wrong -6, 0, -6, 0; realistic the same card for card. Held-out, six seeds (evaluate
--scenes 20): hard named 8,416 -> 8,447 (image) and 8,434 -> 8,463 (calibrated) of 8,640, wrong 32 -> 24 and 33 ->
26, realistic the same card for card. Naming costs about 2.3 ms more a hard frame, nothing measurable on
bench_recognition's speed frames (docs/performance.md)."""
BLUR_LOOK_LENGTH = 5.5
"""... and only for a blur this long or longer (px). The model reads through shorter ones (the model card's hard frames
with 3-5 px blurs: every card found was named), and on the validation set's realistic frames the look with every
length changed four cards over the two image sets, two of them in sharp frames taken for 4-4.5 px blurs, and
named one fewer in each of the four sets."""


INKED_MIN_CONFIDENCE = 0.65
"""A card read through its coloured ink redrawn (``Recognizer._read_inked``) is named only at this top-1 probability
or more, else it is ``unknown``: its suit rests on the pip model where the readings disagree, and for a court
card the pip model sees a figure, not pips. On four-colour variants of eight training designs (realistic and hard
scenes, 308 such cards) 0.65 was the lowest that named no card wrong (302 right at 0.7, 306 and one wrong at 0.45)."""


SURE_WHOLE = 0.9
"""A whole card named at this probability or more is never dropped for a covered card's corner seen on it
(``vision.covered_cards.against_whole``)."""


def _classifier(model_path: str | Path | None, default: Path, threads: int) -> tuple[OnnxClassifier, ModelMeta]:
    """A card classifier (``default`` where no path is given) and its metadata, checked against the labels and the
    crop this pipeline cuts."""
    path = Path(model_path) if model_path is not None else default
    if not path.is_file():  # said before its metadata file beside it is looked for
        raise ModelError(f"{path}: no such model file" + (" (a directory)" if path.is_dir() else ""))
    meta = load_meta(metadata_path(path), expected_labels=MODEL_LABELS, expected_crop=PIPELINE_CROP)
    return OnnxClassifier(path, meta, threads=threads), meta


def metadata_path(model_path: Path) -> Path:
    """``models/cardnet.onnx`` -> ``models/cardnet.json``."""
    return model_path.with_suffix(".json")


class Recognizer:
    """Detect, rectify and classify cards with the project's ONNX model.

    ``min_confidence`` / ``min_margin`` default to the thresholds stored in the model's metadata; a card
    whose top-1 probability or margin over the second label is below them is ``"unknown"``. ``threads``
    holds for onnxruntime and for numpy's BLAS (process-wide: the detector's products are tiny).
    ``pip_look``: weigh unsure face cards by the pip model (``pip_model_path``, default ``models/pipnet.onnx``)
    read from the whole card, below ``pip_look_below``. ``blur_look``: read face cards still unsure (under
    ``blur_look_below``) again from the frame deconvolved for its motion blur, where it has a clear one
    (``BLUR_LOOK_BELOW``, ``BLUR_LOOK_LENGTH``). ``learned`` (the default): find the cards with
    the learned outline networks first (``vision.learned_detect``; their metadata ``outline_nets``, default
    ``models/outline_nets.json``), the shipped detector only where they leave a doubt; ``False``: the shipped
    detector alone. ``ink_shape``: a card read as a club, a spade or unknown whose index ink is neither red nor black
    (a four-colour deck) is read by its shape (``_read_inked``); ``False``: as the ink is. ``covered`` (the default):
    ``recognize`` also names the cards partly under others by an index corner that shows (``vision.covered_cards``:
    a fanned hand, a pile, a spread row), ``visible == "index"``, their outlines estimated, read by
    ``covered_model_path`` (default ``models/covered_cardnet.onnx``); ``False``: whole cards only. ``index_corners``:
    the metadata of the index-corner network that finds the corners that pass reads (``vision.index_corners``, default
    ``models/index_corners.json``); ``False``: the corners are guessed from straight edges alone.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        threads: int = 1,
        min_confidence: float | None = None,
        min_margin: float | None = None,
        detector: DetectorConfig = DEFAULT_CONFIG,
        second_look: bool = True,
        second_look_below: float = SECOND_LOOK_BELOW,
        suit_look: bool = True,
        second_look_zooms: Sequence[float] | None = None,
        one_corner_sure: float | None = ONE_CORNER_SURE,
        pip_look: bool = True,
        pip_look_below: float = PIP_LOOK_BELOW,
        pip_model_path: str | Path | None = None,
        blur_look: bool = True,
        blur_look_below: float = BLUR_LOOK_BELOW,
        learned: bool = True,
        outline_nets: str | Path | None = None,
        ink_shape: bool = True,
        working_scale: bool = True,
        covered: bool = True,
        covered_model_path: str | Path | None = None,
        index_corners: str | Path | None | bool = None,
    ) -> None:
        self.classifier, self.meta = _classifier(model_path, DEFAULT_MODEL, threads)
        self.covered_reader = _classifier(covered_model_path, DEFAULT_COVERED_MODEL, threads) if covered else None
        self.corner_finder = (
            IndexCornerFinder.load(None if index_corners is True else index_corners, threads)
            if covered and index_corners is not False
            else None
        )
        # numpy's products here are 4 x 4 to a few hundred rows: OpenBLAS's worker threads win nothing on them
        # but spin on another core between calls (detection 61 ms of CPU for 44 ms of wall time with two threads,
        # 41.5 for 41.5 with one: docs/performance.md), so BLAS gets the classifier's thread count
        threadpool_limits(limits=threads, user_api="blas")
        self.min_confidence = self.meta.min_confidence if min_confidence is None else min_confidence
        self.min_margin = self.meta.min_margin if min_margin is None else min_margin
        self.detector = detector
        self.outline_nets = OutlineNets(outline_nets or DEFAULT_OUTLINE_META, threads=threads) if learned else None
        self.second_look = second_look
        if not 0.0 <= second_look_below <= 1.0:  # 0: only unknown cards get the second look
            raise SettingError(f"second_look_below must be 0-1, got {second_look_below}")
        self.second_look_below = second_look_below
        self.suit_look = suit_look
        if one_corner_sure is not None and not 0.5 < one_corner_sure <= 1.0:  # over half: one label at most
            raise SettingError(f"one_corner_sure must be over 0.5 and at most 1.0, got {one_corner_sure}")
        self.one_corner_sure = one_corner_sure
        if not 0.0 < pip_look_below <= 1.0:
            raise SettingError(f"pip_look_below must be over 0 and at most 1.0, got {pip_look_below}")
        self.pip_look_below = pip_look_below
        self.pip_look = PipLook(pip_model_path or DEFAULT_PIP_MODEL, threads=threads) if pip_look else None
        if not 0.0 < blur_look_below <= 1.0:
            raise SettingError(f"blur_look_below must be over 0 and at most 1.0, got {blur_look_below}")
        self.blur_look = blur_look
        self.blur_look_below = blur_look_below
        # None: the shipped SECOND_LOOK_ZOOMS; () reads no zoomed crops
        zooms = SECOND_LOOK_ZOOMS if second_look_zooms is None else second_look_zooms
        self.second_look_zooms = tuple(float(z) for z in zooms)
        self.ink_shape = ink_shape
        if any(not 1.0 <= z <= 1.8 for z in self.second_look_zooms):  # 1.8: the two corners' crops stay apart
            raise SettingError(f"second_look_zooms: each zoom must be 1.0-1.8, got {self.second_look_zooms}")
        # find and read the cards in the frame's working image (``vision.working_scale``: any size and orientation of
        # frame, outlines in the frame's pixels); False: in the frame as it comes (benchmarks/recognition_resolutions.py
        # measures the two)
        self.working_scale = working_scale
        self.covered = covered

    def recognize(
        self, frame_bgr: np.ndarray, *, plane: np.ndarray | None = None, ignore: Sequence[np.ndarray] = ()
    ) -> list[Recognition]:
        """Every card in the frame, named (or ``back`` / ``unknown``). ``plane``: the calibrated table
        (image pixels -> table coordinates, as ``Calibration.image_to_mat``), so that card shapes are
        judged on the table rather than in the tilted image. ``ignore``: polygons (image px) that hold no card,
        such as the mat's markers (``vision.detect.detect_cards``). Any size and orientation of frame: the cards are
        found and read in its working image (``vision.working_scale``), their corners given in frame pixels."""
        frame = _check_frame(frame_bgr)
        if not self.working_scale:
            return self._with_covered(
                frame, self._classify(frame, self._detect_working(frame, plane, ignore), drop_non_cards=True)
            )
        look = looked(frame, self._detect_working, plane, ignore, fallback=self._detect_classic)
        named = self._classify(look.image, look.quads, drop_non_cards=True)
        if look.instead_of is not None and all(r.card in (BACK, UNKNOWN) for r in named):
            # a close-up look that names no card's face: a bare table's textured patches, not a card held close
            look = look.instead_of
            named = self._classify(look.image, look.quads, drop_non_cards=True)
        return _in_frame(look.view, self._with_covered(look.image, named))

    def _with_covered(self, image: np.ndarray, whole: list[Recognition]) -> list[Recognition]:
        """The ``whole`` cards found in ``image`` and, with ``covered``, the cards partly under others that show an
        index corner (``vision.covered_cards``); a whole outline on which another card's corner shows is dropped."""
        if not self.covered:
            return whole
        found = read_covered(
            image,
            self._read_one_corner,
            [r.corners for r in whole],
            [r.card for r in whole],
            MODEL_LABELS,
            [r.card != UNKNOWN and r.confidence >= SURE_WHOLE for r in whole],
            self.corner_finder.find if self.corner_finder is not None else None,
        )
        out = [r for i, r in enumerate(whole) if i not in found.false_outlines]
        for c in found.cards:
            if self.ink_shape and c.card[1] == "S" and self._coloured_index(image, c.outline):
                # a spade printed neither black nor red is a four-colour deck's blue diamond as often as not: read by
                # one corner, without the pip model's shapes, it is not named (a green club reads as a club)
                continue
            probs = c.probabilities[: len(LABELS)] / max(float(c.probabilities[: len(LABELS)].sum()), 1e-12)
            presence = 1.0 - float(c.probabilities[len(LABELS)])
            out.append(Recognition(c.card, float(probs.max()), order_corners(c.outline), probs, presence, "index"))
        return out

    @staticmethod
    def _coloured_index(image: np.ndarray, outline: np.ndarray) -> bool:
        """Whether the index at ``outline``'s first corner (``order_corners``' order) is printed in a colour (a
        four-colour deck's blue or green): the classifier reads such ink as black."""
        crop = corner_crops(image, outline, ordered=True, corners=(0,))[0]
        return ink_colour_of_crop(crop) is InkColour.OTHER

    def _read_one_corner(self, crops: np.ndarray) -> np.ndarray:
        """(N, 54) probabilities of (N, 1, ...) index crops, one corner a card, "none" included (the covered-card
        pass's classifier)."""
        classifier, meta = self.covered_reader or (self.classifier, self.meta)
        return softmax(classifier.infer(preprocess(crops, meta)))

    def detect(
        self, frame_bgr: np.ndarray, *, plane: np.ndarray | None = None, ignore: Sequence[np.ndarray] = ()
    ) -> list[np.ndarray]:
        """The card outlines ``recognize`` names (frame pixels): ``vision.detect.detect_cards``'s, or with ``learned``
        ``vision.learned_detect.detect_learned``'s, in the frame's working image."""
        frame = _check_frame(frame_bgr)
        if not self.working_scale:
            return self._detect_working(frame, plane, ignore)
        look = looked(frame, self._detect_working, plane, ignore, fallback=self._detect_classic)
        return look.view.quads_to_frame(look.quads)

    def _detect_working(
        self, image: np.ndarray, plane: np.ndarray | None, ignore: Sequence[np.ndarray]
    ) -> list[np.ndarray]:
        """The outlines in a working image (``vision.working_scale.Detect``)."""
        if self.outline_nets is not None:
            return detect_learned(image, self.outline_nets, self.detector, plane=plane, ignore=ignore).quads
        return detect_cards(image, self.detector, plane=plane, ignore=ignore)

    def _detect_classic(
        self, image: np.ndarray, plane: np.ndarray | None, ignore: Sequence[np.ndarray]
    ) -> list[np.ndarray]:
        """The shipped detector's outlines in a working image (``vision.working_scale.looked``'s ``fallback``)."""
        return detect_cards(image, self.detector, plane=plane, ignore=ignore)

    def recognize_regions(
        self,
        frame_bgr: np.ndarray,
        regions: Sequence[Region],
        known: Sequence[np.ndarray],
        *,
        plane: np.ndarray | None = None,
        ignore: Sequence[np.ndarray] = (),
        readings: Sequence[Recognition] = (),
    ) -> list[Recognition]:
        """Every card in the frame when only ``regions`` ((x0, y0, x1, y1) frame pixels, ends exclusive, disjoint)
        may have changed since ``known`` (outlines, full-resolution px) were found: the cards detected in each
        region (``vision.detect.detect_in_region``: only those wholly inside it, the deck's size judged with the known
        outlines, as a detection of the whole frame judges it by all its cards) and the known outlines not wholly
        inside one (a card across a region's edge did not change: ``vision.change_regions`` grows each region from
        what changed), all classified in one batch; an outline the model takes for no card is dropped, as
        ``recognize`` drops it. A detection whose centre lies on a kept outline is that card cut by the region's
        edge, and is not kept. ``plane`` and ``ignore`` as for ``recognize``. ``readings``: the last recognitions of
        ``known``, in its order; a known card that no region touches keeps its reading (not a pixel of it changed)
        and is not classified again. The regions are detected in the working image of the frame and the known
        cards' size (``vision.working_scale.view_for_cards``)."""
        frame = _check_frame(frame_bgr)
        by_index: list[Recognition] = []
        if self.covered and readings and len(readings) == len(known):
            # a card seen by an index corner has an estimated outline: read through it as a whole card it would be
            # misread; where no region touches it, it keeps its reading, elsewhere the covered-card pass finds it again
            index = [r.visible == "index" for r in readings]
            untouched = untouched_by([q for q, i in zip(known, index, strict=True) if i], regions)
            seen = [r for r, i in zip(readings, index, strict=True) if i]
            by_index = [r for r, same in zip(seen, untouched, strict=True) if same]
            known = [q for q, i in zip(known, index, strict=True) if not i]
            readings = [r for r, i in zip(readings, index, strict=True) if not i]
        kept, reused = kept_and_reused(known, regions, readings)
        view = view_for_cards((frame.shape[1], frame.shape[0]), known) if self.working_scale else None
        if view is None or view.identity:
            image, plane_w, ignore_w, known_w, kept_w = frame, plane, list(ignore), list(known), kept
            regions_w = list(regions)
        else:
            image, plane_w, ignore_w = view.image(frame), view.plane_to_working(plane), view.ignore_to_working(ignore)
            known_w, kept_w = view.quads_to_working(known), view.quads_to_working(kept)
            # a region no working pixel wide (a sliver of a frame much larger than its working image) is left out
            regions_w = [w for w in map(view.region_to_working, regions) if w[2] > w[0] and w[3] > w[1]]
        found: list[np.ndarray] = []
        for region in regions_w:
            found += [
                q
                for q in detect_in_region(image, region, self.detector, plane=plane_w, ignore=ignore_w, deck=known_w)
                if not centre_on_any(q, kept_w)
            ]
        named = self._classify(image, kept_w + found, drop_non_cards=True)
        if self.covered and regions_w:
            if view is not None:
                moved = view.quads_to_working([r.corners for r in reused])
                reused_w = [replace(r, corners=q) for r, q in zip(reused, moved, strict=True)]
                index_w = view.quads_to_working([r.corners for r in by_index])
            else:
                reused_w, index_w = list(reused), [r.corners for r in by_index]
            covered = self._covered_in_regions(image, regions_w, named + reused_w, index_w)
            named += covered
        return reused + by_index + (named if view is None else _in_frame(view, named))

    def _covered_in_regions(
        self, image: np.ndarray, regions: Sequence[Region], whole: list[Recognition], known: Sequence[np.ndarray]
    ) -> list[Recognition]:
        """The cards partly under others (``_with_covered``) found about ``regions`` (working pixels): in the
        rectangle round them grown by a card's width on each side, the paper ``whole`` (the whole cards read and
        kept) covers explained; a card found on one of ``known`` (outlines of cards seen by an index corner before)
        is that card again, and left out."""
        h, w = image.shape[:2]
        outlines = [r.corners for r in whole] + list(known)
        margin = round(card_width(outlines)) if outlines else round(max(w, h) / 8)
        x0, y0 = max(0, min(r[0] for r in regions) - margin), max(0, min(r[1] for r in regions) - margin)
        x1, y1 = min(w, max(r[2] for r in regions) + margin), min(h, max(r[3] for r in regions) + margin)
        origin = np.array([x0, y0], np.float32)
        found = self._with_covered(image[y0:y1, x0:x1], [replace(r, corners=r.corners - origin) for r in whole])
        out = [replace(r, corners=r.corners + origin) for r in found if r.visible == "index"]
        if not out or not known:
            return out
        again = lying_on(np.array([r.corners.mean(axis=0) for r in out]), known, 0.0) >= 0
        return [r for r, same in zip(out, again.tolist(), strict=True) if not same]

    def recognize_outlines(self, frame_bgr: np.ndarray, quads: Sequence[np.ndarray]) -> list[Recognition]:
        """The cards at outlines another detector found ((4, 2) image points each, any corner order), named as
        ``recognize`` names its own: an outline the model takes for no card is dropped. Read in the working image
        for the outlines' size (``vision.working_scale.view_for_cards``)."""
        return self._classify_in_view(_check_frame(frame_bgr), quads, drop_non_cards=True)

    def classify_quads(self, frame_bgr: np.ndarray, quads: Sequence[np.ndarray]) -> list[Recognition]:
        """Name the cards at the given outlines ((4, 2) image points each, any corner order): one
        Recognition per quad, in order ("unknown" where the outline does not look like a card). Read in the working
        image for the outlines' size, as ``recognize_outlines``."""
        return self._classify_in_view(_check_frame(frame_bgr), quads, drop_non_cards=False)

    def _classify_in_view(
        self, frame: np.ndarray, quads: Sequence[np.ndarray], *, drop_non_cards: bool
    ) -> list[Recognition]:
        """``_classify`` of frame outlines in the working image their size calls for; the corners in frame pixels."""
        if not self.working_scale or not len(quads):
            return self._classify(frame, quads, drop_non_cards=drop_non_cards)
        view = view_for_cards((frame.shape[1], frame.shape[0]), quads)
        if view.identity:
            return self._classify(frame, quads, drop_non_cards=drop_non_cards)
        named = self._classify(view.image(frame), view.quads_to_working(quads), drop_non_cards=drop_non_cards)
        return _in_frame(view, named)

    def _classify(
        self, frame: np.ndarray, quads: Sequence[np.ndarray], *, drop_non_cards: bool, deblurred: bool = False
    ) -> list[Recognition]:
        """The cards at ``quads`` named; a card read as a club, a spade or unknown whose index ink is coloured
        (``vision.ink_colour``) is read again with that ink redrawn red and redrawn black (``_read_inked``), so its
        suit comes from the shape the model sees and not from a colour it never learnt. ``drop_non_cards``: leave out
        the outlines the model takes for no card (else they are ``unknown``)."""
        if not len(quads):
            return []
        ordered = [order_corners(q) for q in quads]
        readings = self._read(frame, ordered, deblurred)
        if self.ink_shape:  # coloured ink reads as black to the classifier: only such cards are looked at
            inked = [
                i
                for i, r in enumerate(readings)
                if (r.card == UNKNOWN or r.card[1:] in ("C", "S"))
                and not self._dropped(r.card, 1.0 - r.presence)
                and ink_colour(frame, ordered[i]) is InkColour.OTHER
            ]
            seen = [readings[i] for i in inked]
            for i, again in zip(inked, self._read_inked(frame, seen, deblurred), strict=True):
                readings[i] = again
        out = []
        for r in readings:
            if self._dropped(r.card, 1.0 - r.presence):
                if drop_non_cards:
                    continue
                r = Recognition(UNKNOWN, r.confidence, r.corners, r.probabilities, r.presence)
            out.append(r)
        return out

    def _read_inked(self, frame: np.ndarray, seen: list[Recognition], deblurred: bool) -> list[Recognition]:
        """The cards ``seen`` (their outlines ordered), whose index ink is coloured, read again with that ink redrawn
        red and redrawn black, each reading with every look. The three readings' faces (as seen, red, black) are
        averaged and weighed by the suit the pip model sees in both redrawn frames (it reads the shapes of the pips,
        grey): the shape decides between the red suit one reading gives and the black suit the other gives. The
        reading as seen keeps a vote because some decks' black is a dark colour (a dark blue spade reads as a spade
        as it is). The covered-card reader, which learnt four-colour decks' index corners, weighs them too by its
        reading of the card's two corners as they are (``_index_faces``): it reads a court card's suit, where the pip
        model sees a figure. Without the pip model the surest reading is kept."""
        if not seen:
            return []
        quads = [r.corners for r in seen]
        inks = coloured_ink(frame, quads)
        frames = (repaint(frame, inks, RED), repaint(frame, inks, BLACK))
        # the frame's motion blur is the same in the redrawn frames: the blur look ran on the reading as seen
        red, black = (self._read(f, quads, deblurred=True) for f in frames)
        if self.pip_look is None:
            return [max(three, key=_surety) for three in zip(seen, red, black, strict=True)]
        probs = np.mean([np.stack([r.probabilities for r in rs]) for rs in (seen, red, black)], axis=0)
        suits = np.sqrt(self.pip_look.read(frames[0], quads)[0] * self.pip_look.read(frames[1], quads)[0])
        _weigh_faces(probs, suits[:, _SUIT_INDEX])
        if self.covered_reader is not None:
            _weigh_faces(probs, self._index_faces(frame, quads))
        named = decide(probs, LABELS, max(self.min_confidence, INKED_MIN_CONFIDENCE), self.min_margin, UNKNOWN)
        return [
            Recognition(label, conf, r.corners, p, r.presence)
            for (label, conf), p, r in zip(named, probs, seen, strict=True)
        ]

    def _index_faces(self, frame: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
        """(N, 52) the covered-card reader's face probabilities of each card at ``quads`` (ordered), the geometric
        mean of its readings of the card's two index corners, each read alone as that pass reads a covered card's."""
        crops = np.stack([corner_crops(frame, q) for q in quads])  # (N, 2, H, W, 3)
        one = self._read_one_corner(crops.reshape(-1, 1, *crops.shape[2:]))[:, :_FACES].reshape(len(quads), 2, -1)
        faces: np.ndarray = np.sqrt(one[:, 0] * one[:, 1])
        return faces

    def _read(self, frame: np.ndarray, ordered: list[np.ndarray], deblurred: bool = False) -> list[Recognition]:
        """One reading per outline (in ``order_corners``' order), every look included (the blur look not on a
        ``deblurred`` frame); an outline the model takes for no card keeps the label it was read as, and
        ``_classify`` drops it."""
        if not ordered:
            return []
        raw = self.model_probabilities(frame, ordered, ordered=True)
        none = raw[:, len(LABELS)]
        probs = raw[:, : len(LABELS)] / np.maximum(raw[:, : len(LABELS)].sum(axis=1, keepdims=True), 1e-12)
        named = decide(probs, LABELS, self.min_confidence, self.min_margin, UNKNOWN)
        if self.second_look:
            unsure = [
                i
                for i, (label, conf) in enumerate(named)
                if (label == UNKNOWN or conf < self.second_look_below) and none[i] < self.meta.not_a_card
            ]
            if unsure:
                probs[unsure] = self._second_look(frame, [ordered[i] for i in unsure], probs[unsure])
                self._decide_again(probs, named, unsure)
        if self.pip_look is not None:
            unsure = self._unsure_faces(named, none, self.pip_look_below)
            if unsure:
                probs[unsure] = self._pip_look(frame, [ordered[i] for i in unsure], probs[unsure])
                self._decide_again(probs, named, unsure)
        if self.blur_look and not deblurred:
            unsure = self._unsure_faces(named, none, self.blur_look_below)
            if unsure:
                self._blur_look(frame, ordered, unsure, probs, named)
        return [
            Recognition(label, conf, quad, p, 1.0 - float(p_none))
            for (label, conf), quad, p, p_none in zip(named, ordered, probs, none, strict=True)
        ]

    def _unsure_faces(self, named: list[tuple[str, float]], none: np.ndarray, below: float) -> list[int]:
        """The cards the pip look and the blur look read again: unknown, or a face named under ``below``; not an
        outline that is dropped as it stands (the looks read faces, they do not judge whether an outline is a card)."""
        return [
            i
            for i, (label, conf) in enumerate(named)
            if (label == UNKNOWN or (label != BACK and conf < below)) and not self._dropped(label, float(none[i]))
        ]

    def _dropped(self, label: str, p_none: float) -> bool:
        """Whether an outline read ``label`` with this "none" probability is not a card. One read "unknown" is
        dropped at a lower "none" probability: on the validation set no card read so had over 0.15 of it,
        while phone screens beside cards had 0.25-0.33."""
        return p_none >= (self.meta.unknown_not_a_card if label == UNKNOWN else self.meta.not_a_card)

    def _decide_again(self, probs: np.ndarray, named: list[tuple[str, float]], which: list[int]) -> None:
        """Name the cards ``which`` again from their (changed) ``probs``, in place in ``named``."""
        for i, decision in zip(
            which, decide(probs[which], LABELS, self.min_confidence, self.min_margin, UNKNOWN), strict=True
        ):
            named[i] = decision

    def _second_look(self, frame: np.ndarray, quads: list[np.ndarray], probs: np.ndarray) -> np.ndarray:
        """(N, 53) probabilities of unsure cards: the geometric mean of ``probs`` and the readings through
        their outlines rescaled by ``SECOND_LOOK_SCALES`` and moved by ``SECOND_LOOK_SHIFTS`` and through crops
        zoomed out by ``second_look_zooms``, its faces weighed by the suits the zoomed crops see and those seen
        through crops moved by ``SUIT_LOOK_SHIFT`` (with ``suit_look``). One onnxruntime run for all."""
        n, k = len(quads), len(SECOND_LOOK_SCALES) + 4 * len(SECOND_LOOK_SHIFTS)
        zooms = self.second_look_zooms
        variants: list[np.ndarray] = []
        for q in quads:
            c = q.mean(axis=0)
            variants += [((q - c) * f + c).astype(np.float32) for f in SECOND_LOOK_SCALES]
            # the card's two directions, both a width long
            across = q[1] - q[0]
            down = (q[3] - q[0]) * (np.linalg.norm(across) / max(1e-6, float(np.linalg.norm(q[3] - q[0]))))
            variants += [
                (q + f * d).astype(np.float32) for f in SECOND_LOOK_SHIFTS for d in (across, -across, down, -down)
            ]
        crops = self._crops(frame, variants)
        if zooms:  # (N * Z) readings after the N * k of the outlines, quad by quad
            crops = np.concatenate([crops, *[self._crops(frame, quads, zoom=z) for z in zooms]])
        if self.suit_look:
            crops = np.concatenate([crops, self._crops(frame, quads, shift=SUIT_LOOK_SHIFT)])
        raw = self._infer(crops)[:, : len(LABELS)]
        raw = raw / np.maximum(raw.sum(axis=1, keepdims=True), 1e-12)
        readings = raw[: n * k].reshape(n, k, -1)
        scales = len(SECOND_LOOK_SCALES)
        if k > scales:  # of the moved outlines, the one through which the index reads surest counts once
            moved = readings[:, scales:]
            surest = moved[np.arange(n), moved.max(axis=2).argmax(axis=1)]
            readings = np.concatenate([readings[:, :scales], surest[:, None]], axis=1)
        suits: list[np.ndarray] = []  # (N, 4) each: each suit's share in a look's crops
        if zooms:
            zoomed = raw[n * k : n * (k + len(zooms))].reshape(len(zooms), n, -1).transpose(1, 0, 2)
            readings = np.concatenate([readings, zoomed], axis=1)
            suits += [zoomed[:, j, :_FACES] @ _SUIT_OF_FACE for j in range(len(zooms))]
        logs = np.log(np.maximum(np.concatenate([probs[:, None], readings], axis=1), 1e-12))
        mean = np.exp(logs.mean(axis=1))
        out: np.ndarray = mean / mean.sum(axis=1, keepdims=True)
        if self.suit_look:
            suits.append(raw[n * (k + len(zooms)) :, :_FACES] @ _SUIT_OF_FACE)
        if suits:
            _weigh_faces(out, np.prod(suits, axis=0)[:, _SUIT_INDEX])
        return out

    def _pip_look(self, frame: np.ndarray, quads: list[np.ndarray], probs: np.ndarray) -> np.ndarray:
        """(N, 53) ``probs`` with their faces weighed by the suit and the rank the pip model reads from the
        whole cards (a court face by a third of the court class, which holds three ranks); the faces keep their
        total, as in the suit look, so the look can move a card between faces but not make it a back."""
        assert self.pip_look is not None
        suits, ranks = self.pip_look.read(frame, quads)
        out = probs.copy()
        _weigh_faces(out, suits[:, _SUIT_INDEX] * (ranks / _RANK_GROUP_SIZE)[:, _RANK_GROUP])
        return out

    def _blur_look(
        self,
        frame: np.ndarray,
        quads: list[np.ndarray],
        which: list[int],
        probs: np.ndarray,
        named: list[tuple[str, float]],
    ) -> None:
        """Where the frame has a motion blur, read the cards ``which`` again from a patch around each, deconvolved
        for it, with every look; a reading that names a card replaces the card's ``probs`` and ``named``, except that
        a card named a face stays a face: a patch deconvolved for a blur the frame lacks rings, and the rings read as a
        back's pattern (a sharp held-out 7S read 0.83 became ``back`` 0.82), while a blurred face is no back."""
        motion = estimate_motion(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), BLUR_LOOK_LENGTH)
        if motion is None:
            return
        for i in which:
            patch, origin = _patch_around(frame, quads[i], motion)
            again = self._classify(deblur(patch, motion), [quads[i] - origin], drop_non_cards=False, deblurred=True)[0]
            if again.card != UNKNOWN and not (again.card == BACK and named[i][0] != UNKNOWN):
                named[i] = (again.card, again.confidence)
                probs[i] = again.probabilities

    def model_probabilities(
        self, frame_bgr: np.ndarray, quads: Sequence[np.ndarray], *, ordered: bool = False
    ) -> np.ndarray:
        """(N, 54) probabilities over MODEL_LABELS for the quads: both index corners of each card in one
        onnxruntime run, or (``one_corner_sure``) the first corners in one and the second corners of the cards
        not sure at the first in another. ``ordered``: the quads are in ``order_corners``' order already."""
        if not len(quads):
            return np.zeros((0, len(MODEL_LABELS)), np.float32)
        if self.one_corner_sure is None:
            return self._infer(self._crops(frame_bgr, quads, ordered=ordered))
        # the second corner is cut only for the cards the first leaves unsure
        first = self.classifier.infer(
            preprocess(self._crops(frame_bgr, quads, ordered=ordered, corners=(0,)), self.meta)
        )
        out = softmax(first)
        unsure = np.flatnonzero(out.max(axis=1) < self.one_corner_sure)
        if len(unsure):
            crops = self._crops(frame_bgr, [quads[i] for i in unsure.tolist()], ordered=ordered, corners=(1,))
            second = self.classifier.infer(preprocess(crops, self.meta))
            out[unsure] = postprocess(np.stack([first[unsure], second], axis=1).reshape(2 * len(unsure), -1))
        return out

    @staticmethod
    def _crops(
        frame: np.ndarray,
        quads: Sequence[np.ndarray],
        *,
        shift: float = 0.0,
        zoom: float = 1.0,
        ordered: bool = False,
        corners: tuple[int, ...] = (0, 1),
    ) -> np.ndarray:
        crops = np.empty((len(quads), len(corners), CORNER_H, CORNER_W, 3), np.uint8)
        for q, out in zip(quads, crops, strict=True):
            corner_crops(frame, q, out, shift=shift, zoom=zoom, ordered=ordered, corners=corners)
        return crops

    def _infer(self, crops: np.ndarray) -> np.ndarray:
        return postprocess(self.classifier.infer(preprocess(crops, self.meta)))


def _surety(reading: Recognition) -> tuple[bool, float]:
    """How sure a reading is: a named card over an unknown one, then the higher top-1 probability."""
    return reading.card != UNKNOWN, reading.confidence


def _weigh_faces(probs: np.ndarray, weights: np.ndarray) -> None:
    """Multiply the faces of (N, 53) ``probs`` by (N, 52) ``weights``, in place, keeping the faces' total: a
    look can move a card between faces but not make a back a face or an unsure card sure of being a card."""
    faces = probs[:, :_FACES]
    weighed = faces * weights
    faces[:] = weighed * (faces.sum(axis=1, keepdims=True) / np.maximum(weighed.sum(axis=1, keepdims=True), 1e-12))


def _patch_around(frame: np.ndarray, quad: np.ndarray, motion: Motion) -> tuple[np.ndarray, np.ndarray]:
    """The part of ``frame`` the looks read for the card at ``quad`` (moved and zoomed crops reach a little
    outside it), with a margin the deconvolution's rings fade in, and the part's top-left corner."""
    margin = int(0.5 * float(np.linalg.norm(quad[1] - quad[0])) + 3 * motion.length)
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - margin, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + margin + 1, (frame.shape[1], frame.shape[0]))
    return frame[y0:y1, x0:x1], np.array([x0, y0], np.float32)


def _in_frame(view: View, named: list[Recognition]) -> list[Recognition]:
    """Recognitions in a working image, their corners moved to frame pixels (in ``order_corners``' order there)."""
    if view.identity:
        return named
    return [replace(r, corners=order_corners(view.points_to_frame(r.corners))) for r in named]


def _check_frame(frame: np.ndarray) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        shape = getattr(frame, "shape", None)
        raise ImageError(f"expected a BGR uint8 image (H, W, 3), got {type(frame).__name__} {shape}")
    if frame.shape[0] < 32 or frame.shape[1] < 32:
        raise ImageError(f"image too small: {frame.shape[1]}x{frame.shape[0]}")
    return frame
