"""Card faces drawn with the machine's installed fonts, for training only (needs Pillow).

Why: the project's own drawings (``vision/faces.py``) know only OpenCV's six Hershey fonts. The held-out
failures of model v4 were clean, readable index corners in typefaces it had never seen (a crossed 7, a
round Q), left ``unknown``. Real decks are printed in many typefaces; Debian's font packages give a few
hundred families (``python -m models.training.font_faces`` lists them; ``models/training/fonts.txt`` holds the
list model v5 was trained with).

A style number fixes everything (typeface for the rank, suit shapes from a font or from the project's
polygons, index size, layout and position, weight, width, inks, paper, border), so
``font_deck(12)`` draws the same cards on every machine with the same fonts installed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from models.training.synth import Deck, _rounded_alpha
from vision.faces import _PIPS, draw_border, draw_both_indices, draw_suit, render_back

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
RANK_GLYPHS = "A234567890JQK"
SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
MIN_FONTS = 20  # fewer usable rank typefaces than this and the variety this module exists for is gone
VARIED_LAYOUT_FROM = 240  # styles from here on also vary the pip field and may have jumbo indices
# (styles 0-239, which model v5 was trained on, keep the fixed pip field and draw as they always did)
FIXED_PIPS = (0.32, 0.68, 0.22, 0.78, 0.16)  # pip field x0, x1, y0, y1 (card fractions), pip size (of width)
# Fonts whose letters are not Latin letters although their cmap says so (symbol, dingbat, math, Nushu).
NOT_TEXT = ("Symbol", "D050000L", "Math", "Nushu", "Symbola")

_REDS = (
    (30, 30, 200),
    (40, 20, 225),
    (20, 10, 170),
    (70, 60, 235),
    (50, 0, 200),
    (60, 40, 230),
    (90, 40, 220),
    (40, 70, 220),
    (80, 20, 160),
    (30, 0, 140),
)
_BLACKS = ((20, 20, 20), (45, 35, 35), (60, 40, 20), (0, 0, 0), (50, 50, 60), (70, 30, 10), (40, 40, 40), (80, 60, 50))
_PAPERS = (
    (255, 255, 255),
    (228, 242, 250),
    (238, 238, 238),
    (245, 250, 255),
    (215, 235, 245),
    (250, 250, 250),
    (235, 245, 245),
)


class FontFacesError(RuntimeError):
    """The fonts this module draws with are not installed."""


def _font_files() -> list[Path]:
    files: list[Path] = []
    for root in FONT_DIRS:
        if root.is_dir():
            files += [p for p in root.rglob("*") if p.suffix.lower() in (".ttf", ".otf")]
    return sorted(set(files))


def _mask(font: ImageFont.FreeTypeFont, text: str) -> tuple[tuple[int, int], bytes]:
    """What ``text`` draws: (size, pixels), comparable between glyphs."""
    box = font.getbbox(text)
    img = Image.new("L", (max(1, int(box[2] - box[0])), max(1, int(box[3] - box[1]))), 0)
    ImageDraw.Draw(img).text((-box[0], -box[1]), text, font=font, fill=255)
    return img.size, img.tobytes()


def _draws(font: ImageFont.FreeTypeFont, chars: str) -> bool:
    """Every char draws something other than the font's missing-glyph box, each a different glyph."""
    missing = _mask(font, "\ue000")  # private use: no text font maps it, so this is .notdef
    masks = [_mask(font, c) for c in chars]
    return all(m != missing and any(m[1]) for m in masks) and len(set(masks)) == len(masks)


def _has_glyphs(path: Path, chars: str) -> bool:
    try:
        return _draws(ImageFont.truetype(str(path), 40), chars)
    except (OSError, ValueError):
        return False


@lru_cache(maxsize=1)
def _scan() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(rank fonts, suit fonts) of the installed fonts: each font file opened once."""
    suit_chars = "".join(SUIT_GLYPHS.values())
    ranks: list[Path] = []
    suits: list[Path] = []
    for path in _font_files():
        try:
            font = ImageFont.truetype(str(path), 40)
            if not any(w in path.name for w in NOT_TEXT) and _draws(font, RANK_GLYPHS):
                ranks.append(path)
            if _draws(font, suit_chars):
                suits.append(path)
        except (OSError, ValueError):  # not a font Pillow can read: skipped
            continue
    return tuple(ranks), tuple(suits)


def rank_fonts() -> tuple[Path, ...]:
    """Installed fonts that draw all of A, 2-10, J, Q, K as distinct glyphs."""
    return _scan()[0]


def suit_fonts() -> tuple[Path, ...]:
    """Installed fonts that draw the four filled suit symbols."""
    return _scan()[1]


def _family(path: Path) -> str:
    return path.stem.split("-")[0].split("_")[0]


@dataclass(frozen=True)
class FontStyle:
    rank_font: Path
    suit_font: Path | None  # None: the project's own suit polygons
    rank_height: float  # fraction of card width
    suit_height: float  # fraction of the rank height
    width_scale: float  # condensed (<1) or expanded (>1) glyphs
    bold: int  # extra stroke in 1/100 of the rank height
    beside: bool  # suit to the right of the rank instead of under it
    inset: float  # fraction of card width
    gap: float  # rank to suit, fraction of the rank height
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    paper: tuple[int, int, int]
    border: int  # 0 none, 1 thin grey line, 2 inset frame in ink
    court_tint: tuple[int, int, int]
    aspect: float  # card height / width
    pips: tuple[float, float, float, float, float] = FIXED_PIPS  # pip field x0, x1, y0, y1; pip size


def is_jumbo(style: int) -> bool:
    """Whether ``style`` draws jumbo indices (a rank a fifth to a third of the card wide, a suit under it that
    the index crop cuts): about a quarter of the styles from ``VARIED_LAYOUT_FROM`` on."""
    return font_style(style).rank_height >= 0.2


def font_style(style: int) -> FontStyle:
    ranks, suits = rank_fonts(), suit_fonts()
    if len(ranks) < MIN_FONTS:
        raise FontFacesError(
            f"only {len(ranks)} installed fonts draw card ranks (need {MIN_FONTS}); install the font packages "
            "listed in models/README.md (fonts-noto-core, fonts-urw-base35, fonts-texgyre, ...)"
        )
    rng = random.Random(7000 + style)
    families: dict[str, list[Path]] = {}
    for p in ranks:
        families.setdefault(_family(p), []).append(p)
    rank_font = rng.choice(families[rng.choice(sorted(families))])
    suit_font = rng.choice(suits) if suits and rng.random() < 0.6 else None
    beside = rng.random() < 0.1
    st = FontStyle(
        rank_font=rank_font,
        suit_font=suit_font,
        rank_height=rng.uniform(0.09, 0.13) if beside else rng.uniform(0.10, 0.20),
        suit_height=rng.uniform(0.55, 1.0),
        width_scale=rng.uniform(0.7, 1.3) if rng.random() < 0.4 else 1.0,
        bold=rng.choice((0, 0, 0, 3, 6)),
        beside=beside,
        inset=rng.uniform(0.03, 0.08),
        gap=rng.uniform(0.05, 0.35),
        red=rng.choice(_REDS),
        black=rng.choice(_BLACKS),
        paper=rng.choice(_PAPERS),
        border=rng.choice((0, 0, 1, 2)),
        court_tint=(rng.randrange(40, 220), rng.randrange(40, 220), rng.randrange(40, 220)),
        aspect=rng.uniform(1.36, 1.5),
    )
    if style < VARIED_LAYOUT_FROM:
        return st
    # A second generator, so that the draws above (and styles 0-239) stay as they were.
    more = random.Random(f"layout {style}")
    x0, y0 = more.uniform(0.2, 0.36), more.uniform(0.13, 0.26)
    pips = (x0, 1 - x0, y0, 1 - y0, more.uniform(0.12, 0.22))
    if st.beside or more.random() >= 0.3:
        return replace(st, pips=pips)
    # Jumbo indices (plastic and bridge decks): the rank about a quarter of the card wide, a small suit
    # under it that a 27%-of-height crop cuts, the pips pushed to the middle.
    return replace(
        st,
        pips=(max(x0, 0.3), 1 - max(x0, 0.3), max(y0, 0.22), 1 - max(y0, 0.22), pips[4]),
        rank_height=more.uniform(0.2, 0.3),
        suit_height=more.uniform(0.4, 0.7),
        inset=more.uniform(0.02, 0.05),
        gap=more.uniform(0.0, 0.15),
    )


@lru_cache(maxsize=4096)
def _glyph(font_path: Path, text: str, height: int, width_scale: float, bold: int) -> np.ndarray:
    """Coverage (0..1 float32) of ``text`` scaled to ``height`` px of ink, width times ``width_scale``."""
    size = 96
    font = ImageFont.truetype(str(font_path), size)
    stroke = round(size * bold / 100)
    box = font.getbbox(text, stroke_width=stroke)
    img = Image.new("L", (int(box[2] - box[0]) + 4, int(box[3] - box[1]) + 4), 0)
    ImageDraw.Draw(img).text((2 - box[0], 2 - box[1]), text, font=font, fill=255, stroke_width=stroke, stroke_fill=255)
    ink = np.asarray(img, np.float32) / 255.0
    ys, xs = np.nonzero(ink > 0.05)
    ink = ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h = max(2, height)
    w = max(1, round(ink.shape[1] * h / ink.shape[0] * width_scale))
    return np.ascontiguousarray(cv2.resize(ink, (w, h), interpolation=cv2.INTER_AREA))


def _stamp(
    img: np.ndarray,
    cover: np.ndarray,
    centre: tuple[float, float],
    colour: tuple[int, int, int],
    *,
    upside_down: bool = False,
) -> None:
    if upside_down:
        cover = cover[::-1, ::-1]
    h, w = cover.shape
    x0, y0 = round(centre[0] - w / 2), round(centre[1] - h / 2)
    ih, iw = img.shape[:2]
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(iw, x0 + w), min(ih, y0 + h)
    if cx0 >= cx1 or cy0 >= cy1:
        return
    a = cover[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0, None]
    region = img[cy0:cy1, cx0:cx1].astype(np.float32)
    img[cy0:cy1, cx0:cx1] = (region * (1 - a) + np.asarray(colour, np.float32) * a + 0.5).astype(np.uint8)


def _suit(
    img: np.ndarray,
    st: FontStyle,
    suit: str,
    centre: tuple[float, float],
    height: float,
    colour: tuple[int, int, int],
    *,
    upside_down: bool = False,
) -> None:
    if st.suit_font is None:
        draw_suit(img, suit, centre, height, colour, upside_down=upside_down)
    else:
        _stamp(
            img, _glyph(st.suit_font, SUIT_GLYPHS[suit], round(height), 1.0, 0), centre, colour, upside_down=upside_down
        )


def _index(img: np.ndarray, st: FontStyle, rank: str, suit: str, colour: tuple[int, int, int]) -> None:
    width = img.shape[1]
    rh = st.rank_height * width
    text = "10" if rank == "T" else rank
    glyph = _glyph(st.rank_font, text, round(rh), st.width_scale, st.bold)
    max_w = rh * (1.3 if text == "10" else 1.0)
    if glyph.shape[1] > max_w:  # a wide "10" is squeezed, as printed indices are
        glyph = cv2.resize(glyph, (round(max_w), glyph.shape[0]), interpolation=cv2.INTER_AREA)
    inset = st.inset * width
    sh = rh * st.suit_height
    if st.beside:
        cy = inset + rh / 2
        _stamp(img, glyph, (inset + glyph.shape[1] / 2, cy), colour)
        _suit(img, st, suit, (inset + glyph.shape[1] + rh * st.gap + sh / 2, cy), sh, colour)
    else:
        cx = inset + max(glyph.shape[1], sh) / 2
        _stamp(img, glyph, (cx, inset + rh / 2), colour)
        _suit(img, st, suit, (cx, inset + rh * (1 + st.gap) + sh / 2), sh, colour)


def _centre(img: np.ndarray, st: FontStyle, rank: str, suit: str, colour: tuple[int, int, int]) -> None:
    h, w = img.shape[:2]
    if rank == "A":
        _suit(img, st, suit, (w / 2, h / 2), w * 0.4, colour)
        return
    if rank in _PIPS:
        fx0, fx1, fy0, fy1, size = st.pips
        x0, x1, y0, y1 = w * fx0, w * fx1, h * fy0, h * fy1
        for col, row in _PIPS[rank]:
            _suit(img, st, suit, (x0 + col * (x1 - x0), y0 + row * (y1 - y0)), w * size, colour, upside_down=row > 0.5)
        return
    # Court: a tinted picture panel with a big letter, a few strokes of "drawing", mirrored top to bottom.
    px0, py0, px1, py1 = round(w * 0.22), round(h * 0.16), round(w * 0.78), round(h * 0.84)
    tint = tuple(int(0.4 * c + 0.6 * p) for c, p in zip(st.court_tint, st.paper, strict=True))
    cv2.rectangle(img, (px0, py0), (px1, py1), tint, -1)
    half = img[py0 : (py0 + py1) // 2, px0:px1]
    ph, pw = half.shape[:2]
    # a str seed is hashed the same in every process (hash() of a tuple of str is salted per process)
    rng = random.Random(f"{rank}{suit}{st.court_tint}")
    for _ in range(6):
        p0 = (rng.randrange(pw), rng.randrange(ph))
        p1 = (rng.randrange(pw), rng.randrange(ph))
        ink = colour if rng.random() < 0.5 else tuple(int(c * 0.6) for c in st.court_tint)
        cv2.line(half, p0, p1, ink, max(1, w // 60), cv2.LINE_AA)
    _stamp(half, _glyph(st.rank_font, rank, round(ph * 0.45), 1.0, st.bold), (pw * 0.5, ph * 0.5), colour)
    img[(py0 + py1) // 2 : (py0 + py1) // 2 + ph, px0:px1] = np.rot90(half, 2)
    cv2.rectangle(img, (px0, py0), (px1, py1), colour, max(1, w // 90), cv2.LINE_AA)


def render_font_face(card: str, style: int, width: int = 200) -> np.ndarray:
    """The face of ``card`` in font style ``style``: BGR uint8, ``width`` wide."""
    st = font_style(style)
    height = round(width * st.aspect)
    rank, suit = card[0], card[1]
    colour = st.red if suit in "DH" else st.black
    img = np.empty((height, width, 3), np.uint8)
    img[:] = st.paper
    _centre(img, st, rank, suit, colour)
    img = draw_both_indices(img, lambda face: _index(face, st, rank, suit, colour))
    draw_border(img, st.border, colour)
    return img


def font_deck(style: int, width: int = 200) -> Deck:
    """A deck drawn in font style ``style`` (backs from the project's own back drawings)."""
    height = round(width * font_style(style).aspect)
    alpha = _rounded_alpha(height, width, width * corner_radius(style))
    cache: dict[str, np.ndarray] = {}

    def deck(label: str) -> np.ndarray:
        if label not in cache:
            bgr = (
                render_back(width=width, height=height, style=100 + style)
                if label == "back"
                else render_font_face(label, style, width)
            )
            cache[label] = np.dstack([bgr, alpha])
        return cache[label]

    return deck


def corner_radius(style: int) -> float:
    """Corner radius as a fraction of the width (real decks range from nearly square to well rounded)."""
    return random.Random(9000 + style).uniform(0.02, 0.08)


APT_LINE = (
    "apt-get install fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf fonts-urw-base35 "
    "fonts-noto-core fonts-crosextra-carlito fonts-crosextra-caladea fonts-linuxlibertine fonts-ebgaramond "
    "fonts-roboto-unhinted fonts-open-sans fonts-lato fonts-cantarell fonts-comfortaa fonts-inconsolata "
    "fonts-firacode fonts-sil-gentium fonts-adf-accanthis fonts-symbola fonts-courier-prime fonts-quicksand"
)


def listing() -> str:
    """``models/training/fonts.txt``: the installed fonts the faces draw with, and how to install them."""
    ranks, suits = rank_fonts(), suit_fonts()
    lines = [
        "# Fonts the training faces (models/training/font_faces.py) draw with; written by",
        "#   python -m models.training.font_faces > models/training/fonts.txt",
        f"# Debian packages (bookworm): {APT_LINE}",
        f"# {len(ranks)} font files in {len({_family(p) for p in ranks})} families draw the ranks; "
        f"{len(suits)} draw the suit symbols.",
        "# rank fonts (file names):",
        *(p.name for p in ranks),
        "# suit fonts (file names):",
        *(p.name for p in suits),
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(listing(), end="")
