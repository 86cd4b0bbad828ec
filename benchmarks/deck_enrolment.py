"""Deck enrolment: each held-out design (and its four-colour variant) enrolled from four photos of 13 flat cards, then
its table scenes read with and without the profile.

    nice .venv/bin/python benchmarks/deck_enrolment.py [--scenes 6] [--seed 2026] [--designs gnome:bellot,...]
    nice .venv/bin/python benchmarks/deck_enrolment.py --validation     # the decks deck_match's constants are chosen on

For each design: four ``synth.laid_out_photo`` photos of the shuffled deck are read (``vision.enrol.read_photos``)
and named at once (``name_cards``); the cards it would ask about are answered with the truth, as a user answers
them (``questions``; ``wrong --yes``: cards the assignment alone names wrong); ``enrol s``: reading, naming and
making the profile. Then ``--scenes`` realistic and hard scenes (``evaluate.NORMAL``, ``synth.HARD``) and the
realistic ones 30% darker and under a colour cast (blue up 20%, red down 20%) are recognised once and read without
and with the profile (the same outlines: the profile does not find cards). Counts are of the cards found; ``named``
also as a share of all cards. ``conf. wrong``: named wrong at 0.9 or more. ``foreign``: the deck's own cards read
as another deck's. ``ms a frame``: recognising a frame, and reading
its cards against the profile (one core, a shared machine). Needs the Debian designs (``models/training/designs.py``).

``--validation`` measures, instead of the held-out designs, the decks ``vision.deck_match``'s constants are chosen on:
``VALIDATION_FONTS`` (font-drawn styles outside the model's trained range; needs Pillow), ``VALIDATION_DESIGNS``
(Debian designs the model trained on) and ``VALIDATION_FACES`` (the project's own drawn faces), each also as a
four-colour deck. The held-out designs are measured once a choice is made, never to make it. ``--weighings
"max_weight=3,sure=2;temperature=0.02"`` also reads the same recognitions under other weighings
(``vision.deck_match.Weighing``; ``;`` between them) and tabulates each over all scenes.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.training import designs  # noqa: E402
from models.training.evaluate import NORMAL, matched_outlines  # noqa: E402
from models.training.four_colour import four_colour_deck  # noqa: E402
from models.training.synth import HARD, LABELS, Deck, SceneSpec, faces_deck, laid_out_photo, make_scene  # noqa: E402
from vision.deck_match import FOREIGN, DeckReader, Weighing, read_with_deck  # noqa: E402
from vision.enrol import name_cards, read_photos, unsure  # noqa: E402
from vision.events import UNKNOWN  # noqa: E402
from vision.recognizer import Recognition, Recognizer  # noqa: E402

FACES = [str(f) for f in LABELS[:52]]
VALIDATION_FONTS = tuple(range(960, 990))
"""``font_faces`` styles the model never trained on (it trained on 0-479; ``validate_fonts`` uses 960 on)."""
VALIDATION_DESIGNS = (
    "gnome:anglo",
    "gnome:anglo_poker",
    "gnome:atlasnye",
    "gnome:berlin",
    "gnome:dondorf",
    "gnome:guyenne-classic",
    "gnome:lattmann",
    "gnome:paris",
    "gnome:tango",
    "kde:standard",
    "kde:nicu-white",
    "gnome:ornamental",
)
VALIDATION_FACES = (0, 2, 4, 6, 8, 11, 13, 15, 17, 19, 21, 23)


def validation_decks() -> dict[str, Deck]:
    """The decks of ``--validation`` by name."""
    from models.training.font_faces import font_deck  # Pillow: a training dependency

    decks = {f"fonts:{style}": font_deck(style) for style in VALIDATION_FONTS}
    training = designs.training_decks()
    decks |= {name: training[name] for name in VALIDATION_DESIGNS}
    return decks | {f"faces:{style}": faces_deck(style) for style in VALIDATION_FACES}


@dataclass
class Count:
    cards: int = 0
    found: int = 0
    named: int = 0
    wrong: int = 0
    confident_wrong: int = 0
    foreign: int = 0
    frames: int = 0
    ms: float = 0.0

    def add(self, truth: list[tuple[str, np.ndarray]], seen: list[Recognition]) -> None:
        self.frames += 1
        for (label, _), i in zip(truth, matched_outlines(truth, [r.corners for r in seen]), strict=True):
            self.cards += 1
            if i is None:
                continue
            self.found += 1
            card = seen[i].card
            self.named += card == label
            self.foreign += card == FOREIGN
            if card not in (label, UNKNOWN, FOREIGN):
                self.wrong += 1
                self.confident_wrong += seen[i].confidence >= 0.9


@dataclass
class Result:
    design: str
    questions: int = 0
    wrong_yes: int = 0
    enrol_s: float = 0.0
    sets: dict[str, tuple[Count, Count]] = field(default_factory=dict)
    others: dict[Weighing, Count] = field(default_factory=dict)  # other weighings, over all sets


SETS: dict[str, tuple[SceneSpec, Callable[[np.ndarray], np.ndarray]]] = {
    "realistic": (NORMAL, lambda img: img),
    "hard": (HARD, lambda img: img),
    "darker 30%": (NORMAL, lambda img: (img * 0.7).astype(np.uint8)),
    "colour cast": (NORMAL, lambda img: np.clip(img * np.array([1.2, 1.0, 0.8]), 0, 255).astype(np.uint8)),
}


def measure(
    rec: Recognizer, name: str, deck: Deck, scenes: int, seed: int, weighings: tuple[Weighing, ...] = ()
) -> Result:
    result = Result(name)
    rng = np.random.default_rng([seed, 1])
    order = [str(f) for f in rng.permutation(np.array(FACES))]
    photos = [laid_out_photo(rng, deck, order[i : i + 13]) for i in range(0, 52, 13)]
    images = {f"row{k + 1}": p.image for k, p in enumerate(photos)}
    start = time.perf_counter()
    cards = read_photos(rec, list(images.items()))
    read_s = time.perf_counter() - start
    truth: dict[int, str] = {}
    for k, photo in enumerate(photos):
        mine = [i for i, c in enumerate(cards) if c.source == f"row{k + 1}"]
        outlines = [cards[i].recognition.corners for i in mine]
        for (label, _), j in zip(photo.cards, matched_outlines(photo.cards, outlines), strict=True):
            if j is not None:
                truth[mine[j]] = label
    start = time.perf_counter()
    name_cards(cards, ask=None)
    result.wrong_yes = sum(cards[i].face != f for i, f in truth.items()) + 52 - len(truth)
    result.questions = len(unsure(cards))
    enrolment = name_cards(cards, ask=lambda card: truth.get(cards.index(card)))
    if not enrolment.complete:
        print(f"{name}: not enrolled: {enrolment.problems}", file=sys.stderr)
        return result
    profile = enrolment.profile("bench", images)
    result.enrol_s = read_s + time.perf_counter() - start
    reader = DeckReader(rec, profile)
    for kind, (spec, light) in SETS.items():
        generic, with_deck = Count(), Count()
        srng = np.random.default_rng([seed, 2, list(SETS).index(kind)])
        for _ in range(scenes):
            scene = make_scene(srng, deck, spec)
            image = light(scene.image)
            t0 = time.perf_counter()
            seen = rec.recognize(image)
            generic.ms += (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            read = reader._read(image, seen)
            with_deck.ms += (time.perf_counter() - t0) * 1000
            generic.add(scene.cards, seen)
            with_deck.add(scene.cards, read)
            for w in weighings:
                other = read_with_deck(
                    reader.matcher,
                    image,
                    seen,
                    min_confidence=rec.min_confidence,
                    min_margin=rec.min_margin,
                    weighing=w,
                )
                result.others.setdefault(w, Count()).add(scene.cards, other)
        result.sets[kind] = (generic, with_deck)
    return result


def _add(mine: Count, theirs: Count) -> None:
    for k in mine.__dict__:
        setattr(mine, k, getattr(mine, k) + getattr(theirs, k))


def _total(result: Result, which: int) -> Count:
    """All sets' counts without (0) or with (1) the profile."""
    total = Count()
    for pair in result.sets.values():
        _add(total, pair[which])
    return total


def _other(weighing: Weighing) -> Callable[[Result], Count]:
    """A result's counts under ``weighing`` (one of ``--weighings``)."""
    return lambda r: r.others.get(weighing, Count())


def parse_weighing(text: str) -> Weighing:
    """``"max_weight=3,sure=2"`` -> ``Weighing(max_weight=3.0, sure=2.0)``; ValueError naming what is wrong."""
    fields = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        if key.strip() not in Weighing.__dataclass_fields__:
            raise ValueError(
                f"no such weighing field {key.strip()!r} (one of {', '.join(Weighing.__dataclass_fields__)})"
            )
        fields[key.strip()] = float(value)
    return Weighing(**fields)


def _pct(a: int, b: int) -> str:
    return f"{100 * a / max(1, b):.2f}%"


def report(results: list[Result]) -> str:
    lines = [
        "| scenes | cards | found | named without / with profile (of found) | named with (of all) "
        "| wrong without / with | conf. wrong without / with | foreign | ms a frame: recognize + profile |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for group, pick in (
        ("two-colour", lambda r: not r.design.endswith("4")),
        ("four-colour", lambda r: r.design.endswith("4")),
    ):
        chosen = [r for r in results if pick(r) and r.sets]
        for kind in SETS:
            g, d = Count(), Count()
            for r in chosen:
                _add(g, r.sets[kind][0])
                _add(d, r.sets[kind][1])
            lines.append(
                f"| {group} {kind} | {g.cards} | {_pct(g.found, g.cards)} | {_pct(g.named, g.found)} / "
                f"**{_pct(d.named, d.found)}** | {_pct(d.named, d.cards)} | {g.wrong} / {d.wrong} | "
                f"{g.confident_wrong} / {d.confident_wrong} | {d.foreign} | "
                f"{g.ms / max(1, g.frames):.0f} + {d.ms / max(1, d.frames):.1f} |"
            )
    weighings = list(dict.fromkeys(w for r in results for w in r.others))
    if weighings:
        lines.append("")
        lines.append(
            "| weighing (all scenes) | two-colour: named / wrong / conf. wrong / foreign | four-colour: the same |"
        )
        lines.append("|---|---|---|")
        rows: list[tuple[str, Callable[[Result], Count]]] = [
            ("without the profile", lambda r: _total(r, 0)),
            (str(Weighing()), lambda r: _total(r, 1)),
        ]
        rows += [(str(w), _other(w)) for w in weighings]
        for label, pick in rows:
            cells = []
            for four in (False, True):
                total = Count()
                for r in results:
                    if r.sets and r.design.endswith("4") == four:
                        _add(total, pick(r))
                cells.append(f"{total.named} / {total.wrong} / {total.confident_wrong} / {total.foreign}")
            lines.append(f"| {label} | {cells[0]} | {cells[1]} |")
    lines.append("")
    lines.append("| design | questions | wrong with --yes | enrol s |")
    lines.append("|---|---|---|---|")
    for r in results:
        lines.append(f"| {r.design} | {r.questions} | {r.wrong_yes} | {r.enrol_s:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=int, default=6, help="scenes of each kind a design (default 6)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--designs", default=None, help="comma-separated held-out designs (default: all six)")
    ap.add_argument("--validation", action="store_true", help="the validation decks instead of the held-out designs")
    ap.add_argument(
        "--weighings", default="", help='other weighings to compare: "max_weight=3,sure=2;temperature=0.02"'
    )
    args = ap.parse_args(argv)
    try:
        weighings = tuple(parse_weighing(w) for w in args.weighings.split(";") if w.strip())
    except ValueError as exc:
        ap.error(f"--weighings: {exc}")
    decks = validation_decks() if args.validation else designs.held_out_decks()
    unknown = sorted(set(args.designs.split(",")) - set(decks)) if args.designs else []
    if unknown:
        ap.error(f"no such design: {', '.join(unknown)}")
    names = args.designs.split(",") if args.designs else sorted(decks)
    rec = Recognizer(threads=1)
    results = []
    for name in names:
        for four in (False, True):
            label = f"{name}{' 4' if four else ''}"
            deck = four_colour_deck(decks[name]) if four else decks[name]
            results.append(measure(rec, label, deck, args.scenes, args.seed, weighings))
            print(f"{label}: done", file=sys.stderr, flush=True)
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
