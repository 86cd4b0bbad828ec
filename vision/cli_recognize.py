"""``cardtable recognize IMAGE_OR_VIDEO... [--json] [--annotate OUT_DIR]``: find and name every card.

With ``--json`` one JSON object per line per image or video frame::

    {"image": "table.jpg", "cards": [{"card": "QH", "confidence": 0.99,
      "corners": [[x, y], [x, y], [x, y], [x, y]]}], "ms": 7.9}

(video frames also carry ``"frame": n``; ``--follow`` recognises them as the table watcher does, see
``Follower``). ``ms`` is the recognition time of that image (detection and classification, and with ``--mat``
finding the mat; not file decoding). A file that cannot be read gets a clear message on stderr; the others are
still processed and the exit status is 1 at the end. Images are read through ``vision.image_files``: their size
from the header first, a giant one read shrunk (baseline JPEG) or refused, the codecs' own messages kept off
stderr, a video that ends early an error after its last frame.

``--table-rect W,H,X0,Y0,X1,Y1,X2,Y2,X3,Y3`` calibrates a tilted view for every input: any rectangle
lying on the table (the mat, a sheet of A4 paper: 210,297) of W x H and where its corners appear in the
image, clockwise from its top-left. Card shapes are then judged on the table (``detect_cards(plane=)``).

``--deck NAME`` reads the cards against a deck enrolled with ``cardtable deck learn`` (``vision.deck_match``): a
card that is none of that deck's is named ``foreign``.

``--mat GAME,N`` (or a layout JSON) says the images show that calibration mat: each image's table plane comes from
the mat's markers (a video keeps its last calibration through frames that hide them), and the markers are not taken
for cards' paper. An image or frame in which too few markers are found gets an error, as an unreadable one does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibration, Calibrator, marker_areas
from vision.change_regions import PendingRegions, unexplained
from vision.detect import Region
from vision.detector_settings import FAST_SETTINGS, detector_config
from vision.errors import CalibrationError, ImageError, ModelError
from vision.events import BACK, UNKNOWN
from vision.image_files import MAX_FILE_BYTES, MAX_PIXELS, read_frames
from vision.recognizer import (
    BLUR_LOOK_BELOW,
    ONE_CORNER_SURE,
    PIP_LOOK_BELOW,
    SECOND_LOOK_BELOW,
    Recognition,
    Recognizer,
)
from vision.watcher import ChangeGate
from vision.zones import Layout, parse_mat_spec


def positive_int(text: str) -> int:
    """A flag's count of at least 1 (``--max-frames``, ``--threads``): anything else is a usage error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="IMAGE_OR_VIDEO",
        help=f"image or video files. An image over {MAX_PIXELS // 1_000_000} million pixels is read at 1/2, 1/4 or "
        f"1/8 of its size when it is a baseline JPEG (with a note), otherwise refused; a file over "
        f"{MAX_FILE_BYTES // (1024 * 1024)} MiB is refused; a video that ends before the frame count in its "
        "header is an error after its last frame (exit 1)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line per image or frame")
    parser.add_argument(
        "--annotate", metavar="OUT_DIR", type=Path, help="write each image with card outlines and names drawn on it"
    )
    parser.add_argument("--model", type=Path, default=None, help="ONNX model (default: models/cardnet.onnx)")
    parser.add_argument(
        "--threads", type=positive_int, default=1, help="threads for onnxruntime and numpy's BLAS (default 1)"
    )
    parser.add_argument(
        "--max-frames", type=positive_int, default=None, metavar="N", help="at most N frames per video (N >= 1)"
    )
    parser.add_argument(
        "--follow",
        action="store_true",
        help="videos: detect only where a frame changed since the last detection, as the table "
        "watcher does (the whole frame on the first frame, every 30 frames and after a large "
        "change; a frame that did not change repeats the last frame's cards)",
    )
    parser.add_argument(
        "--table-rect",
        metavar="W,H,X0,Y0,...",
        default=None,
        help="a W x H rectangle on the table and its 4 corners in the image (x,y px, clockwise "
        "from its top-left): card shapes are judged on the table, for tilted views",
    )
    parser.add_argument(
        "--mat",
        metavar="GAME,N|LAYOUT.json",
        default=None,
        help="the images show this calibration mat (as `cardtable mat` prints it): the table plane "
        "from its markers in each image, the markers not taken for cards",
    )
    parser.add_argument(
        "--fast",
        action="store_true",
        help="without --table-rect: no size pass (neither on the plane estimated from the cards nor "
        "on the image) and no second detection on that plane (about two thirds of the detection "
        "time; see docs/performance.md)",
    )
    parser.add_argument(
        "--detector",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="change a detector setting (a DetectorConfig field; bools true/false); repeatable",
    )
    parser.add_argument(
        "--both-corners",
        dest="one_corner_sure",
        action="store_const",
        const=None,
        default=ONE_CORNER_SURE,
        help="read both index corners of every card, not the second only where the first is "
        "unsure (slower; the same names on the measured frames, see docs/performance.md)",
    )
    add_pip_look_arguments(parser)
    add_second_look_below_argument(parser)
    add_blur_look_arguments(parser)
    add_learned_argument(parser)
    add_deck_arguments(parser)


def add_deck_arguments(parser: argparse.ArgumentParser) -> None:
    """``--deck NAME`` (read the cards against that enrolled deck, ``cardtable deck learn``) and ``--decks-dir DIR``
    (``args.deck``, ``args.decks_dir``)."""
    from vision.cli_deck import add_decks_dir_argument

    parser.add_argument(
        "--deck",
        default=None,
        metavar="NAME",
        help="read the cards against this enrolled deck (cardtable deck learn); a card of another deck is 'foreign'",
    )
    add_decks_dir_argument(parser)


def with_deck(recognizer: Recognizer, args: argparse.Namespace, *, foreign: str | None = None) -> Recognizer:
    """``recognizer`` reading against ``args.deck`` (``vision.deck_match.DeckReader``), or itself without one. Raises
    ``vision.deck_profile.DeckError`` (a ValueError) for a deck that is not enrolled or not readable."""
    if getattr(args, "deck", None) is None:
        return recognizer
    from vision.deck_match import FOREIGN, DeckReader
    from vision.deck_profile import DeckStore

    profile = DeckStore(args.decks_dir).load(args.deck)
    reader: Recognizer = DeckReader(recognizer, profile, foreign=foreign or FOREIGN)  # type: ignore[assignment]
    return reader


def look_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Recognizer's keyword arguments for the looks that the flags of ``configure`` (and of the training scripts
    and benchmarks, which add the same ones) set."""
    return {
        "one_corner_sure": args.one_corner_sure,
        "pip_look": args.pip_look,
        "pip_look_below": args.pip_look_below,
        "second_look_below": args.second_look_below,
        "blur_look": args.blur_look,
        "blur_look_below": args.blur_look_below,
        "learned": args.learned,
    }


def add_learned_argument(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--learned`` (the default) / ``--no-learned`` (``args.learned``, Recognizer's ``learned``): find the cards with
    the learned outline networks first, the shipped detector only where they leave a doubt; or with the shipped
    detector alone. ``note``: what a script's help adds to ``--no-learned``."""
    parser.add_argument(
        "--learned",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="find the cards with the learned outline networks first, the detector only where they "
        "leave a doubt (the default: vision.learned_detect, about a third of the detection "
        "time, docs/performance.md); --no-learned: the shipped detector alone" + note,
    )


def add_pip_look_arguments(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--no-pip-look`` (unsure cards are not weighed by the pip model's reading of the whole card:
    Recognizer's ``pip_look``, ``args.pip_look``) or ``--pip-look-below X`` (the top-1 probability under which a
    face card gets that look: ``args.pip_look_below``, the shipped ``PIP_LOOK_BELOW`` without it). One or the
    other: a threshold for a look that is not taken is a usage error, as is a value outside (0, 1]. Also the
    training scripts' and benchmarks' flags (``note``: what their help adds)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--no-pip-look",
        dest="pip_look",
        action="store_false",
        help="do not weigh unsure cards by the suit and rank read from the whole card's pips "
        "(models/pipnet.onnx)" + note,
    )
    group.add_argument(
        "--pip-look-below",
        type=pip_look_below,
        default=PIP_LOOK_BELOW,
        metavar="X",
        help="weigh a face card by the pip model's look when it is named under this probability "
        f"(over 0, at most 1; default {PIP_LOOK_BELOW})" + note,
    )


def add_blur_look_arguments(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--no-blur-look`` (cards still unsure are not read again from the frame deconvolved for its motion blur:
    Recognizer's ``blur_look``, ``args.blur_look``) or ``--blur-look-below X`` (``args.blur_look_below``, the shipped
    ``BLUR_LOOK_BELOW`` without it); one or the other, as the pip look's. ``note``: what a script's help adds."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--no-blur-look",
        dest="blur_look",
        action="store_false",
        help="do not read cards still unsure again from the frame deconvolved for its motion blur" + note,
    )
    group.add_argument(
        "--blur-look-below",
        type=blur_look_below,
        default=BLUR_LOOK_BELOW,
        metavar="X",
        help="read a face card again from the deblurred frame when it is named under this probability "
        f"(over 0, at most 1; default {BLUR_LOOK_BELOW})" + note,
    )


def pip_look_below(text: str) -> float:
    """``--pip-look-below X``'s value: checked here, in the range Recognizer's ``pip_look_below`` takes, so a
    bad one is a usage error before any model loads. Also the type of the training scripts' flag."""
    return _probability(text, zero=False)


def add_second_look_below_argument(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--second-look-below X``: Recognizer's ``second_look_below`` (a card named under X also gets the second
    look), ``args.second_look_below``; the shipped ``SECOND_LOOK_BELOW`` without it. A value outside 0-1 is a
    usage error. Also the training scripts' and benchmarks' flag (``note``: what their help adds)."""
    parser.add_argument(
        "--second-look-below",
        type=second_look_below,
        default=SECOND_LOOK_BELOW,
        metavar="X",
        help="give a card named under this probability the second look too (0-1; 0: only unknown "
        f"cards; default {SECOND_LOOK_BELOW})" + note,
    )


def blur_look_below(text: str) -> float:
    """``--blur-look-below X``'s value, in the range Recognizer's ``blur_look_below`` takes."""
    return _probability(text, zero=False)


def second_look_below(text: str) -> float:
    """``--second-look-below X``'s value, in the range Recognizer's ``second_look_below`` takes."""
    return _probability(text, zero=True)


def _probability(text: str, *, zero: bool) -> float:
    """A flag's probability: at most 1, and over 0 or (``zero``) from 0. Raises ArgumentTypeError saying which."""
    allowed = "from 0 to 1" if zero else "over 0 and at most 1"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number {allowed}, got {text!r}") from None
    above_least = value >= 0.0 if zero else value > 0.0
    if not (above_least and value <= 1.0):  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
    return value


def table_plane(spec: str) -> np.ndarray:
    """``--table-rect`` -> the image-to-table homography. Raises CalibrationError saying what is wrong."""
    try:
        vals = [float(v) for v in spec.split(",")]
    except ValueError:
        raise CalibrationError(f"--table-rect: not a list of numbers: {spec!r}") from None
    if len(vals) != 10 or not all(np.isfinite(vals)):
        raise CalibrationError(f"--table-rect needs 10 numbers (W,H and 4 corners x,y), got {len(vals)}")
    try:
        return Calibration.rectangle(vals[0], vals[1], np.array(vals[2:]).reshape(4, 2)).image_to_mat
    except CalibrationError as exc:
        raise CalibrationError(f"--table-rect: {exc}") from None


class MatView:
    """Where a calibration mat lies in each image of one input: its plane and its markers' areas
    (``calibration.marker_areas``). A video's frames share one ``Calibrator``, so a frame with a hand over the
    markers keeps the last calibration."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._calibrator = Calibrator(layout)

    def next_input(self) -> None:
        """A new file: forget the last one's calibration."""
        self._calibrator = Calibrator(self.layout)

    def locate(self, frame: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """(image-to-mat homography, the markers' areas in the image). Raises CalibrationError when no calibration
        is known yet and this frame shows too few markers."""
        cal = self._calibrator.update(frame)
        if cal is None:
            raise CalibrationError(
                f"the {self.layout.name} mat's markers were not found "
                f"(need {self._calibrator.min_markers} of {len(self.layout.markers)})"
            )
        return cal.image_to_mat, marker_areas(self.layout, cal)


class Follower:
    """A video's frames recognised as the table watcher recognises them (``vision.change_regions``): the whole frame
    on the first frame, every ``refresh`` frames, where the change since the last detection is large, and where a
    detection of regions leaves a change no card explains; otherwise only the regions around the change, the other
    cards kept where they were: re-classified where a region crosses them, else with their last reading
    (``Recognizer.recognize_regions``). A frame that did not change (at an eighth
    of its size, by the change gate's level) gets the last frame's cards again, with no detection at all. After a
    change that reached the frame's edge (a hand or an arm in view: what it did under it may have been missed, and
    the change it leaves is the hand's), the first frame whose changes do not reach the edge is detected whole."""

    def __init__(self, recognizer: Recognizer, *, refresh: int = 30) -> None:
        self.recognizer = recognizer
        self.refresh = refresh
        self.gate = ChangeGate()
        self.stats = {"whole": 0, "regions": 0, "unchanged": 0}
        self._last: list[Recognition] | None = None
        self._since_whole = 0
        self._pending = PendingRegions()

    def next_input(self) -> None:
        """A new file: nothing is known of it."""
        self.gate = ChangeGate()
        self._last = None
        self._pending = PendingRegions()

    def recognize(self, frame: np.ndarray, *, plane: np.ndarray | None, ignore: list[np.ndarray]) -> list[Recognition]:
        small = self.gate.small(frame)
        self._since_whole += 1
        last = self._last
        if last is None or self._since_whole >= self.refresh:
            return self._whole(frame, small, [], plane, ignore)
        known = [r.corners for r in last]
        self._pending.settled()  # every frame that changed is detected, and the reference moves on with it
        changes = self._pending.note(self.gate.reference, small, frame.shape, known)
        if not changes and not self._pending.edge_due:
            self.stats["unchanged"] += 1
            return list(last)
        regions = self._pending.regions(changes, [], known, frame.shape)
        if regions is None:
            return self._whole(frame, small, changes, plane, ignore)
        cards = self.recognizer.recognize_regions(frame, regions, known, plane=plane, ignore=ignore, readings=last)
        if unexplained(
            changes, regions, [(r.card, r.corners) for r in last], [(r.card, r.corners) for r in cards], frame.shape
        ):
            return self._whole(frame, small, changes, plane, ignore)
        self.stats["regions"] += 1
        self.gate.remember(small)
        self._last = cards
        return cards

    def _whole(
        self,
        frame: np.ndarray,
        small: np.ndarray,
        changes: list[Region],
        plane: np.ndarray | None,
        ignore: list[np.ndarray],
    ) -> list[Recognition]:
        cards = self.recognizer.recognize(frame, plane=plane, ignore=ignore)
        self.stats["whole"] += 1
        self._pending.whole_detected(changes, frame.shape)
        self.gate.remember(small)
        self._last, self._since_whole = cards, 0
        return cards


def card_json(r: Recognition) -> dict[str, object]:
    return {
        "card": r.card,
        "confidence": round(float(r.confidence), 4),
        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in r.corners],
        "visible": r.visible,
    }


def annotate(frame: np.ndarray, cards: list[Recognition]) -> np.ndarray:
    out = frame.copy()
    for r in cards:
        colour = (0, 200, 0) if r.card not in (UNKNOWN, BACK) else (0, 160, 255) if r.card == BACK else (0, 0, 255)
        pts = np.round(r.corners).astype(np.int32)
        # a card found by its index corner has an estimated outline: drawn thin
        cv2.polylines(out, [pts], True, colour, 1 if r.visible == "index" else 2, cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in pts[0]), 4, colour, -1, cv2.LINE_AA)
        text = f"{r.card} {r.confidence:.2f}"
        org = (int(r.corners[:, 0].min()), max(14, int(r.corners[:, 1].min()) - 6))
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2, cv2.LINE_AA)
    return out


def _annotation_path(out_dir: Path, path: Path, index: int, frame: int | None, used: set[Path]) -> Path:
    stem = path.stem if frame is None else f"{path.stem}_{frame:05d}"
    target = out_dir / f"{stem}.png"
    if target in used:  # two inputs with one name: keep both
        target = out_dir / f"{stem}_{index}.png"
    used.add(target)
    return target


def run(args: argparse.Namespace) -> int:
    try:
        if args.mat is not None and args.table_rect is not None:
            raise CalibrationError("give --mat or --table-rect, not both")
        plane = None if args.table_rect is None else table_plane(args.table_rect)
        mat = None if args.mat is None else MatView(parse_mat_spec(args.mat))
        detector = detector_config([*(FAST_SETTINGS if args.fast else ()), *args.detector])
        recognizer = with_deck(
            Recognizer(args.model, threads=args.threads, detector=detector, **look_settings(args)), args
        )
        follower = Follower(recognizer) if args.follow else None
    except (ModelError, ValueError) as exc:
        print(f"cardtable recognize: {exc}", file=sys.stderr)
        return 2
    if args.annotate is not None:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"cardtable recognize: cannot create {args.annotate}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    failed = False
    used: set[Path] = set()
    for index, name in enumerate(args.paths):
        path = Path(name)
        if mat is not None:
            mat.next_input()
        if follower is not None:
            follower.next_input()

        def note(text: str, where: str = name) -> None:
            print(f"cardtable recognize: {where}: {text}", file=sys.stderr)

        try:
            for frame_no, frame in read_frames(path, args.max_frames, note):
                start = time.perf_counter()
                ignore: list[np.ndarray] = []
                if mat is not None:
                    try:
                        plane, ignore = mat.locate(frame)
                    except CalibrationError as exc:
                        failed = True
                        where = name if frame_no is None else f"{name} frame {frame_no}"
                        print(f"cardtable recognize: {where}: {exc}", file=sys.stderr)
                        continue
                if follower is not None and frame_no is not None:  # (a still image is recognised whole)
                    cards = follower.recognize(frame, plane=plane, ignore=ignore)
                else:
                    cards = recognizer.recognize(frame, plane=plane, ignore=ignore)
                ms = (time.perf_counter() - start) * 1000
                _report(name, frame_no, cards, ms, as_json=args.json)
                if args.annotate is not None:
                    target = _annotation_path(args.annotate, path, index, frame_no, used)
                    if not cv2.imwrite(str(target), annotate(frame, cards)):
                        raise ImageError(f"cannot write annotation {target}")
        except (ImageError, OSError) as exc:
            failed = True
            note(exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc))
        sys.stdout.flush()
    return 1 if failed else 0


def _report(name: str, frame_no: int | None, cards: list[Recognition], ms: float, *, as_json: bool) -> None:
    if as_json:
        obj: dict[str, object] = {"image": name}
        if frame_no is not None:
            obj["frame"] = frame_no
        obj["cards"] = [card_json(r) for r in cards]
        obj["ms"] = round(ms, 2)
        print(json.dumps(obj))
        return
    where = name if frame_no is None else f"{name} frame {frame_no}"
    print(f"{where}: {len(cards)} card{'s' if len(cards) != 1 else ''} ({ms:.1f} ms)")
    for r in sorted(cards, key=lambda r: (float(r.corners[:, 1].mean()), float(r.corners[:, 0].mean()))):
        cx, cy = r.corners.mean(axis=0)
        seen = "  (by its index: partly covered)" if r.visible == "index" else ""
        print(f"  {r.card:<7} {r.confidence:5.2f}  at ({cx:.0f}, {cy:.0f}){seen}")
