"""``cardtable deck learn|list|show|remove``: teach the table the deck being played.

    cardtable deck learn home row1.jpg row2.jpg row3.jpg row4.jpg [--back back.jpg] [--yes]
    cardtable deck learn home --camera usb:0          # one view of the camera per Enter, until q (or end of input)
    cardtable deck learn sim --camera "sim:chinese-ten,3?script=deck" --yes   # the simulated table's own deck
    cardtable deck list | show home | remove home

``learn`` reads every card of the photos (or of videos' frames, or of camera views), names all 52 at once
(``vision.enrol``), asks in the terminal about the cards it is unsure of (``--yes``: its own naming stands) and
writes the profile (``vision.deck_profile``) to the decks folder (``--decks-dir``, default beside the journal:
``$CARDTABLE_DECKS`` or ``$XDG_DATA_HOME/cardtable/decks``). A deck with cards missing or doubled, more cards than
one deck, or cards of two sizes is refused with the cards named, and nothing is written. Exit status: 0 done, 1 the
deck was refused, 2 bad arguments, unreadable files or an unknown deck.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from vision.deck_profile import DeckError, DeckStore, check_name
from vision.errors import VisionError


def add_decks_dir_argument(parser: argparse.ArgumentParser) -> None:
    """``--decks-dir DIR`` (``args.decks_dir``): where deck profiles live."""
    parser.add_argument(
        "--decks-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where deck profiles live (default $CARDTABLE_DECKS, else $XDG_DATA_HOME/cardtable/decks)",
    )


def configure(parser: argparse.ArgumentParser) -> None:
    add_decks_dir_argument(parser)
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    learn = sub.add_parser("learn", help="enrol a deck from photos of all its cards face up")
    learn.add_argument("name", help="the deck's name (letters, digits, . _ -)")
    learn.add_argument("photos", nargs="*", metavar="IMAGE_OR_VIDEO", help="photos (or videos) of the deck, face up")
    learn.add_argument("--camera", default=None, help="take the views from this camera (usb:0, picam:, ...) instead")
    learn.add_argument("--back", type=Path, default=None, help="a photo of one card face down (the deck's back)")
    learn.add_argument("--yes", action="store_true", help="accept the naming without questions")
    learn.add_argument("--replace", action="store_true", help="replace a profile of that name")
    sub.add_parser("list", help="the enrolled decks")
    show = sub.add_parser("show", help="what a profile holds")
    show.add_argument("name")
    remove = sub.add_parser("remove", help="delete a profile")
    remove.add_argument("name")


def run(args: argparse.Namespace) -> int:
    store = DeckStore(args.decks_dir)
    try:
        if args.action == "list":
            for name in store.names():
                try:
                    p = store.load(name)
                    print(f"{name}  enrolled {p.created}  from {len(p.sources)} photos")
                except DeckError as exc:
                    print(f"{name}  (unreadable: {exc})")
            return 0
        if args.action == "show":
            p = store.load(args.name)
            faces = int(p.present[:52].sum())
            print(f"deck {p.name}: {faces} of 52 faces, back {'yes' if p.has_back else 'no'}")
            print(f"  cards {p.aspect:.3f} times as high as wide, {p.card_width_px:.0f} px wide in the photos")
            print(f"  enrolled {p.created} from {', '.join(p.sources) or '-'}")
            print(f"  file {store.path(p.name)} ({store.path(p.name).stat().st_size / 1024:.0f} KiB)")
            return 0
        if args.action == "remove":
            store.remove(args.name)
            print(f"removed deck {args.name}")
            return 0
        return _learn(args, store)
    except DeckError as exc:
        print(f"cardtable deck: {exc}", file=sys.stderr)
        return 2


def _photos(args: argparse.Namespace) -> list[tuple[str, np.ndarray]]:
    from vision.image_files import read_frames

    if args.camera:
        if args.photos:
            raise DeckError("give photos or --camera, not both")
        return _camera_views(args.camera)
    if not args.photos:
        raise DeckError("give photos of the deck face up (or --camera SPEC)")
    photos: list[tuple[str, np.ndarray]] = []
    for name in args.photos:
        try:
            for frame_no, frame in read_frames(Path(name)):
                photos.append((name if frame_no is None else f"{name}#{frame_no}", frame))
        except (VisionError, OSError) as exc:
            raise DeckError(f"{name}: {exc}") from None
    return photos


def _camera_views(spec: str) -> list[tuple[str, np.ndarray]]:
    """One view of the camera ``spec`` each time Enter is pressed, until q (or the end of input)."""
    from vision.camera import camera_for

    def failed(exc: VisionError) -> DeckError:
        said = str(exc)
        return DeckError(f"camera {said}" if said.startswith(spec) else f"camera {spec}: {said}")

    try:
        source = camera_for(spec)
        source.open()
    except VisionError as exc:
        raise failed(exc) from None
    views: list[tuple[str, np.ndarray]] = []
    try:
        while True:
            try:
                answer = input(
                    f"lay cards out face up and press Enter for view {len(views) + 1} (q and Enter when done): "
                )
            except EOFError:
                break
            if answer.strip().lower() == "q":
                break
            frame = source.read()
            if frame is None:
                raise DeckError(f"camera {spec} gave no frame")
            views.append((f"{spec} view {len(views) + 1}", frame.image))
    except VisionError as exc:
        raise failed(exc) from None
    finally:
        source.close()
    if not views:
        raise DeckError("no views taken: nothing written")
    return views


def parse_card(answer: str) -> str | None:
    """A card code from what a user types ("qh", "10s", "T S"), or None when it is not one."""
    code = answer.strip().upper().replace(" ", "").replace("10", "T")
    if len(code) == 2 and code[0] in "A23456789TJQK" and code[1] in "CDHS":
        return code
    return None


def ask_in_terminal(card: object) -> str | None:
    """Ask which card ``card`` (a ``vision.enrol.SeenCard``) is; Enter: none of the deck."""
    from vision.enrol import SeenCard

    assert isinstance(card, SeenCard)
    while True:
        try:
            answer = input(f"which card is at {card.where}? (read {card.guesses()}; Enter: not of this deck) ")
        except EOFError:
            raise DeckError("no answer (end of input): run with --yes to accept the naming") from None
        if not answer.strip():
            return None
        code = parse_card(answer)
        if code is not None:
            return code
        print("  a rank (A 2-10 J Q K) and a suit (C D H S), for example QH or 10S")


def _learn(args: argparse.Namespace, store: DeckStore) -> int:
    from vision.enrol import name_cards, read_photos, unsure
    from vision.image_files import read_frames
    from vision.recognizer import Recognizer

    name = check_name(args.name)
    if store.path(name).exists() and not args.replace:
        raise DeckError(f"a deck named {name!r} exists already (--replace to replace it)")
    photos = _photos(args)
    back = None
    if args.back is not None:
        try:
            back = next(iter(read_frames(args.back)))[1]
        except (VisionError, OSError, StopIteration) as exc:
            raise DeckError(f"{args.back}: {exc or 'no image'}") from None
    start = time.perf_counter()
    recognizer = Recognizer(threads=1)
    cards = read_photos(recognizer, photos)
    enrolment = name_cards(cards, None if args.yes else ask_in_terminal)
    for card in unsure(cards):  # with --yes: the cards a user would have been asked about
        print(f"cardtable deck: {card.where} taken for {card.face} (read {card.guesses()})", file=sys.stderr)
    if not enrolment.complete:
        for problem in enrolment.problems:
            print(f"cardtable deck: {problem}", file=sys.stderr)
        print("cardtable deck: nothing written", file=sys.stderr)
        return 1
    profile = enrolment.profile(
        name, dict(photos), back=back, recognizer=recognizer, sources=[Path(n).name for n, _ in photos]
    )
    path = store.save(profile)
    took = time.perf_counter() - start
    print(f"deck {name}: 52 cards from {len(photos)} photos in {took:.1f} s -> {path}")
    return 0
