"""``cardtable deck`` end to end on the project's own drawn faces (no Debian designs needed): enrol a deck from four
photos of 13 cards, use it, list, show, remove; decks that are not one whole deck refused with the cards named and
nothing written; the assignment and the profile name cards the generic model gets wrong."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.training.evaluate import matched_outlines
from models.training.four_colour import four_colour_deck
from models.training.synth import FELT, LABELS, Deck, SceneSpec, faces_deck, laid_out_photo, make_scene, paste_flat
from table.cli import main
from vision.deck_match import FOREIGN, SURE, DeckReader
from vision.enrol import SeenCard, name_cards, read_photos
from vision.recognizer import Recognition, Recognizer

STYLE = 6
FACES = [str(f) for f in LABELS[:52]]


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer(threads=1)


Photo = tuple[str, np.ndarray, list[tuple[str, np.ndarray]]]
"""A photo's file name, image, and true cards (label, outline)."""


def _photos(deck: Deck, labels: list[str], seed: int = 1) -> list[Photo]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(0, len(labels), 13):
        scene = laid_out_photo(rng, deck, labels[i : i + 13])
        out.append((f"row{i // 13 + 1}.jpg", scene.image, scene.cards))
    return out


def _write(folder: Path, photos: list[Photo]) -> list[str]:
    paths = []
    for name, image, _ in photos:
        cv2.imwrite(str(folder / name), image)
        paths.append(str(folder / name))
    return paths


def _order(seed: int) -> list[str]:
    return [str(v) for v in np.random.default_rng(seed).permutation(np.array(FACES))]


def _truth_of(cards: list[SeenCard], photos: list[Photo]) -> dict[int, str]:
    """Each seen card's true face, by its index in ``cards``."""
    truth: dict[int, str] = {}
    for name, _, true_cards in photos:
        mine = [i for i, c in enumerate(cards) if c.source == name]
        for (label, _), j in zip(
            true_cards, matched_outlines(true_cards, [cards[i].recognition.corners for i in mine]), strict=True
        ):
            if j is not None:
                truth[mine[j]] = label
    return truth


def test_a_deck_is_enrolled_used_listed_shown_and_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decks = tmp_path / "decks"
    deck = faces_deck(STYLE)
    photos = _write(tmp_path, _photos(deck, _order(3)))
    assert main(["deck", "--decks-dir", str(decks), "learn", "home", *photos, "--yes"]) == 0
    assert "deck home: 52 cards from 4 photos" in capsys.readouterr().out
    assert (decks / "home.deck").stat().st_size <= 2 * 1024 * 1024
    assert main(["deck", "--decks-dir", str(decks), "list"]) == 0
    assert capsys.readouterr().out.startswith("home ")
    assert main(["deck", "--decks-dir", str(decks), "show", "home"]) == 0
    assert "52 of 52 faces, back no" in capsys.readouterr().out
    # the profile reads a table of that deck; a card of another design on it is foreign
    frame = np.full((720, 1280, 3), FELT, np.uint8)
    laid = ["7D", "QS", "2C", "TH", "KD"]
    for i, label in enumerate(laid):
        paste_flat(frame, deck(label), 60 + 200 * i, 100, 130, 182)
    paste_flat(frame, faces_deck(STYLE + 11)("KH"), 60, 400, 130, 182)  # another deck's card
    table = tmp_path / "table.png"
    cv2.imwrite(str(table), frame)
    assert main(["recognize", "--json", "--deck", "home", "--decks-dir", str(decks), str(table)]) == 0
    cards = json.loads(capsys.readouterr().out)["cards"]
    assert sorted(c["card"] for c in cards) == sorted([*laid, FOREIGN])
    # a second learn under the same name needs --replace
    assert main(["deck", "--decks-dir", str(decks), "learn", "home", *photos, "--yes"]) == 2
    assert "exists already" in capsys.readouterr().err
    assert main(["deck", "--decks-dir", str(decks), "remove", "home"]) == 0
    assert main(["deck", "--decks-dir", str(decks), "show", "home"]) == 2
    assert "no deck named 'home'" in capsys.readouterr().err
    assert main(["recognize", "--deck", "home", "--decks-dir", str(decks), str(table)]) == 2


def test_a_deck_with_a_card_missing_is_refused_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    order = [c for c in _order(4) if c != "9C"]
    decks = tmp_path / "decks"
    photos = _write(tmp_path, _photos(faces_deck(STYLE), order))
    assert main(["deck", "--decks-dir", str(decks), "learn", "short", *photos, "--yes"]) == 1
    err = capsys.readouterr().err
    assert "missing: 9C" in err and "nothing written" in err
    assert not decks.exists() or not any(decks.iterdir())


def test_a_doubled_card_is_refused_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    order = _order(5)
    order.insert(20, "KH")
    decks = tmp_path / "decks"
    photos = _write(tmp_path, _photos(faces_deck(STYLE), order))
    assert main(["deck", "--decks-dir", str(decks), "learn", "twice", *photos, "--yes"]) == 1
    assert "doubled: KH" in capsys.readouterr().err
    assert not decks.exists() or not any(decks.iterdir())


def test_two_decks_mixed_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Half the cards from a poker deck, half from a narrower bridge deck of another design: refused."""
    order = _order(6)
    photos = _photos(faces_deck(STYLE), order[:26]) + _photos(faces_deck(STYLE + 3), order[26:], seed=2)
    narrow = []
    for name, image, cards in photos[2:]:
        narrow.append((name.replace("row", "bridge"), cv2.resize(image, None, fx=0.88, fy=1.0), cards))
    decks = tmp_path / "decks"
    paths = _write(tmp_path, photos[:2] + narrow)
    assert main(["deck", "--decks-dir", str(decks), "learn", "mixed", *paths, "--yes"]) == 1
    assert "two decks mixed" in capsys.readouterr().err
    assert not decks.exists() or not any(decks.iterdir())


def test_the_questions_are_asked_in_the_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --yes the unsure cards are asked about on stdin; an answer names the card (here: every answer is
    what the card was given, so the deck is written)."""
    deck = four_colour_deck(faces_deck(STYLE))
    photos = _photos(deck, _order(7))
    paths = _write(tmp_path, photos)
    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return prompt.split("(read ")[1].split(" ")[0]  # the first guess

    monkeypatch.setattr("builtins.input", answer)
    decks = tmp_path / "decks"
    code = main(["deck", "--decks-dir", str(decks), "learn", "four", *paths])
    assert asked and all(p.startswith("which card is at ") and "row" in p for p in asked)
    assert code in (0, 1)  # taking the first guess for each may name a card twice: then refused


def test_the_assignment_beats_card_by_card_guessing_on_a_hard_set() -> None:
    """Four-colour decks (blue diamonds, green clubs) of two drawn styles, three shuffles each, read by the generic
    model as it reads a deck whose suits it cannot tell (by their colour: ``ink_shape=False``): card by card it names
    several diamonds and clubs spades; under the rule that a deck holds each card once, more cards are named right
    in all (deck by deck it is not always so: the cards asked about make the rest right)."""
    recognizer = Recognizer(threads=1, ink_shape=False)
    guessed = assigned = 0
    for style in (11, 2):
        for seed in (8, 9, 10):
            photos = _photos(four_colour_deck(faces_deck(style)), _order(seed))
            cards = read_photos(recognizer, [(n, img) for n, img, _ in photos])
            truth = _truth_of(cards, photos)
            assert len(truth) == 52
            guessed += sum(cards[i].guess == face for i, face in truth.items())
            name_cards(cards, ask=None)
            assigned += sum(cards[i].face == face for i, face in truth.items())
    assert assigned >= guessed + 6, (assigned, guessed)


def _read_on_tables(recognizer: Recognizer, deck: Deck) -> Iterator[tuple[str, Recognition, Recognition]]:
    """``deck`` enrolled from four photos of 13 (the unsure cards answered right), then four tables of 12 of its
    cards: for each card found, its face, the recogniser's reading and the reading against the deck."""
    photos = _photos(deck, _order(9))
    cards = read_photos(recognizer, [(n, img) for n, img, _ in photos])
    truth = _truth_of(cards, photos)
    enrolment = name_cards(cards, ask=lambda card: truth[cards.index(card)])
    assert enrolment.complete, enrolment.problems
    reader = DeckReader(recognizer, enrolment.profile("four", {n: img for n, img, _ in photos}))
    spec = SceneSpec(n_cards=12, card_width=(90, 160), face_down=0, clutter=1)
    rng = np.random.default_rng(10)
    for _ in range(4):
        scene = make_scene(rng, deck, spec)
        seen = recognizer.recognize(scene.image)
        read = reader._read(scene.image, seen)
        for (label, _), i in zip(scene.cards, matched_outlines(scene.cards, [r.corners for r in seen]), strict=True):
            if i is not None:
                yield label, seen[i], read[i]


def test_the_profile_names_cards_the_generic_model_gets_wrong() -> None:
    """Enrolled with the user's answers for the unsure cards, the four-colour deck's cards on a table are named more
    often and named wrong less often than by a generic model that cannot tell this deck's suits (one that reads them
    by their colour, ``ink_shape=False``)."""
    recognizer = Recognizer(threads=1, ink_shape=False)
    generic_right = generic_wrong = deck_right = deck_wrong = cards_seen = 0
    for label, generic, own in _read_on_tables(recognizer, four_colour_deck(faces_deck(STYLE))):
        cards_seen += 1
        generic_right += generic.card == label
        generic_wrong += generic.card not in (label, "unknown")
        deck_right += own.card == label
        deck_wrong += own.card not in (label, "unknown")
    assert deck_right > generic_right and deck_wrong < generic_wrong, (
        cards_seen,
        (generic_right, generic_wrong),
        (deck_right, deck_wrong),
    )


def test_a_sure_reading_stands_against_a_template_a_little_off(recognizer: Recognizer) -> None:
    """The project's own four-colour faces, enrolled and read on tables by the recogniser users run: the generic
    model names every card found, most at 0.99 or more. Read against the deck none of its sure readings (``SURE``) is
    named wrong or left unknown: the deck's 9S template (its photo's outline a pixel out) matches a 9S worse than its
    TS template does, and that alone does not overturn a 9S read at 0.99; a blurred 9S that matches none of the
    deck's templates well is foreign, not another card."""
    sure = overturned = named = found = 0
    for label, generic, own in _read_on_tables(recognizer, four_colour_deck(faces_deck(STYLE))):
        found += 1
        named += own.card == label
        if generic.card == label and generic.confidence >= SURE:
            sure += 1
            overturned += own.card not in (label, FOREIGN)
    assert sure >= 40 and overturned == 0, (found, sure, overturned)
    assert named >= found - 1, (found, named)


def test_with_the_back_enrolled_another_decks_back_is_foreign(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = faces_deck(STYLE)
    photos = _write(tmp_path, _photos(deck, _order(3)))
    back = np.full((720, 1280, 3), FELT, np.uint8)
    paste_flat(back, deck("back"), 500, 200, 150, 210)
    cv2.imwrite(str(tmp_path / "back.jpg"), back)
    decks = str(tmp_path / "decks")
    assert (
        main(["deck", "--decks-dir", decks, "learn", "home", *photos, "--back", str(tmp_path / "back.jpg"), "--yes"])
        == 0
    )
    assert main(["deck", "--decks-dir", decks, "show", "home"]) == 0
    assert "52 of 52 faces, back yes" in capsys.readouterr().out
    table = np.full((720, 1280, 3), FELT, np.uint8)
    paste_flat(table, deck("back"), 100, 200, 150, 210)
    paste_flat(table, faces_deck(STYLE + 11)("back"), 400, 200, 150, 210)
    cv2.imwrite(str(tmp_path / "table.png"), table)
    assert main(["recognize", "--json", "--deck", "home", "--decks-dir", decks, str(tmp_path / "table.png")]) == 0
    cards = sorted(json.loads(capsys.readouterr().out)["cards"], key=lambda c: c["corners"][0][0])
    assert [c["card"] for c in cards] == ["back", FOREIGN]


def test_a_deck_is_enrolled_from_camera_views(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``learn --camera``: one view per Enter until q, here from the simulated table laying out its deck 13 cards a
    view (``sim:...?script=deck``); the deck enrolled from the four views reads another view of the same deck."""
    from vision.camera import camera_for

    answers = iter(["", "", "", "", "q"])
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr("builtins.input", answer)
    decks = str(tmp_path / "decks")
    spec = "sim:chinese-ten,3?script=deck&seed=4"
    assert main(["deck", "--decks-dir", decks, "learn", "home", "--camera", spec, "--yes"]) == 0
    assert len(prompts) == 5 and prompts[0].startswith("lay cards out face up and press Enter for view 1")
    assert "deck home: 52 cards from 4 photos" in capsys.readouterr().out
    assert main(["deck", "--decks-dir", decks, "show", "home"]) == 0
    shown = capsys.readouterr().out
    assert "52 of 52 faces" in shown and "view 4" in shown
    with camera_for("sim:chinese-ten,3?script=deck&seed=9") as source:
        frame = source.read()
        assert frame is not None
        laid = sorted(c.card for c in source.sim.cards.values())  # type: ignore[attr-defined]
    cv2.imwrite(str(tmp_path / "table.png"), frame.image)
    assert main(["recognize", "--json", "--deck", "home", "--decks-dir", decks, str(tmp_path / "table.png")]) == 0
    assert sorted(c["card"] for c in json.loads(capsys.readouterr().out)["cards"]) == laid


def test_camera_enrolment_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    decks = str(tmp_path / "decks")
    learn = ["deck", "--decks-dir", decks, "learn", "home", "--yes", "--camera"]
    assert main([*learn, "sim:chinese-ten,3?script=dance"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "cardtable deck: camera sim:chinese-ten,3?script=dance: script must be random, deck or none"
    ]
    assert main(["deck", "--decks-dir", decks, "learn", "home", "row1.jpg", "--camera", "sim:chinese-ten,3"]) == 2
    assert "give photos or --camera, not both" in capsys.readouterr().err
    monkeypatch.setattr("builtins.input", lambda prompt: "q")
    assert main([*learn, "sim:chinese-ten,3?script=deck"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == ["cardtable deck: no views taken: nothing written"]
    assert not (tmp_path / "decks").exists()
