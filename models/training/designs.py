"""Which designs train the model, which are held out, and which are never used (with the reason)."""

from __future__ import annotations

from pathlib import Path

from models.training.render_designs import CACHE, render_all
from models.training.synth import Deck, faces_deck, folder_deck

# Whole families are held out: a design and its recoloured or re-rasterised twins never train.
HELD_OUT = (
    "gnome:bellot",
    "gnome:tigullio",
    "kde:tigullio-international",  # same family as gnome:tigullio
    "gnome:neoclassical",
    "gnome:plastic",
    "gnome:simplistic",
)

NOT_USED = {
    "gnome:neoclassical_4_color": "twin of held-out neoclassical (and four-colour suits)",
    "gnome:swiss-xvii": "Swiss suits (shields, roses, bells, acorns), not French",
    "kde:gm-paris": "renders blurred/pixelated by id export",
    "kde:oxygen": "renders pixelated by id export",
    "kde:oxygen-white": "renders pixelated by id export",
    "kde:dondorf": "renders pixelated by id export; gnome:dondorf is the same art",
}

FACE_STYLES = tuple(range(24))  # vision.faces styles used in training (the project's own drawings)
FONT_STYLES = tuple(range(240))  # font_faces styles: the installed typefaces (training only)


def rendered_designs(cache: Path = CACHE) -> dict[str, Path]:
    """Every installed, renderable design (rendered into the cache if needed)."""
    return {k: v for k, v in render_all(cache=cache).items() if k not in NOT_USED}


def training_decks(cache: Path = CACHE) -> dict[str, Deck]:
    decks: dict[str, Deck] = {
        name: folder_deck(folder) for name, folder in rendered_designs(cache).items() if name not in HELD_OUT
    }
    for style in FACE_STYLES:
        decks[f"faces:{style}"] = faces_deck(style)
    return decks


FONT_PREFIX = "fonts:"  # deck names of the font-drawn styles: "fonts:12"


def is_font_deck(name: str) -> bool:
    return name.startswith(FONT_PREFIX)


def font_decks(styles: tuple[int, ...] = FONT_STYLES) -> dict[str, Deck]:
    """Faces drawn with the installed fonts (needs Pillow and the font packages; see models/README.md)."""
    from models.training.font_faces import font_deck  # Pillow is a training-only dependency

    return {f"{FONT_PREFIX}{style}": font_deck(style) for style in styles}


FOUR_COLOUR_TWINS = ("gnome:neoclassical_4_color",)
"""Debian's own four-colour twins of held-out designs (orange diamonds, green clubs): never trained on."""


def four_colour_held_out_decks(cache: Path = CACHE) -> dict[str, Deck]:
    """Each held-out design painted as a four-colour deck (blue diamonds, green clubs: ``four_colour``), named
    ``NAME+4c``, and the held-out designs' own four-colour twins as Debian ships them."""
    from models.training.four_colour import four_colour_deck

    decks = {f"{name}+4c": four_colour_deck(deck) for name, deck in held_out_decks(cache).items()}
    twins = render_all(only=list(FOUR_COLOUR_TWINS), cache=cache)
    return decks | {name: folder_deck(folder) for name, folder in twins.items()}


def held_out_decks(cache: Path = CACHE) -> dict[str, Deck]:
    """The held-out designs (only these are rendered, so tests stay quick)."""
    return {name: folder_deck(folder) for name, folder in render_all(only=list(HELD_OUT), cache=cache).items()}
