"""Procedurally drawn card faces and backs (OpenCV only, no third-party art).

The drawings are the project's own: they let tests, the table simulator and the training pipeline
make card images without any installed design. ``style`` picks fonts, colours, border and index size
deterministically, so ``render_face("QH", style=3)`` is the same image on every machine.

A face has the usual anatomy a recogniser relies on: rank and suit index in the top-left corner and
the same index rotated 180 degrees in the bottom-right, pips (or a court panel) in the middle.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

RANKS = "A23456789TJQK"
SUITS = "CDHS"

_SHIFT = 4  # fixed-point bits for sub-pixel polygon drawing
_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
_REDS = ((30, 30, 200), (40, 20, 225), (20, 10, 170), (70, 60, 235), (50, 0, 200))
_BLACKS = ((20, 20, 20), (45, 35, 35), (60, 40, 20), (0, 0, 0), (50, 50, 60))
_PAPERS = ((255, 255, 255), (228, 242, 250), (238, 238, 238), (245, 250, 255), (215, 235, 245))


@dataclass(frozen=True)
class FaceStyle:
    """Everything a style number decides."""

    font: int
    italic: bool
    thickness_scale: float
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    paper: tuple[int, int, int]
    border: int  # 0 none, 1 thin line, 2 inset frame
    index_scale: float  # rank glyph height as a fraction of the card width
    index_inset: float  # index distance from the edge, fraction of width
    court_tint: tuple[int, int, int]


@lru_cache(maxsize=256)
def face_style(style: int) -> FaceStyle:
    """The drawing parameters of ``style`` (0 is a plain classic look; others vary)."""
    if style == 0:
        return FaceStyle(
            cv2.FONT_HERSHEY_SIMPLEX, False, 1.0, _REDS[0], _BLACKS[0], _PAPERS[0], 1, 0.17, 0.05, (60, 160, 220)
        )
    rng = random.Random(1000 + style)
    return FaceStyle(
        font=rng.choice(_FONTS),
        italic=rng.random() < 0.2,
        thickness_scale=rng.uniform(0.7, 1.5),
        red=rng.choice(_REDS),
        black=rng.choice(_BLACKS),
        paper=rng.choice(_PAPERS),
        border=rng.randrange(3),
        index_scale=rng.uniform(0.13, 0.21),
        index_inset=rng.uniform(0.035, 0.07),
        court_tint=(rng.randrange(40, 220), rng.randrange(40, 220), rng.randrange(40, 220)),
    )


# --- suit shapes as polygons in unit coordinates: centred on 0, height 1, y pointing down ----------


def _circle(cx: float, cy: float, r: float, n: int = 28) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)


def _heart(n: int = 60) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    pts = np.stack([x, y], axis=1)
    pts -= (pts.max(0) + pts.min(0)) / 2
    out: np.ndarray = pts / (pts[:, 1].max() - pts[:, 1].min())
    return out


@lru_cache(maxsize=4)
def _suit_polygons(suit: str) -> tuple[np.ndarray, ...]:
    if suit == "D":
        return (np.array([[0, -0.5], [0.37, 0], [0, 0.5], [-0.37, 0]], float),)
    if suit == "H":
        return (_heart(),)
    if suit == "S":
        body = _heart() * np.array([1.0, -1.0]) * 0.82 + np.array([0.0, -0.08])
        stem = np.array([[0, 0.1], [0.17, 0.5], [-0.17, 0.5]], float)
        return (body, stem)
    if suit == "C":
        r = 0.2
        stem = np.array([[0, 0.0], [0.15, 0.5], [-0.15, 0.5]], float)
        return (_circle(0, -0.28, r), _circle(-0.22, 0.06, r), _circle(0.22, 0.06, r), _circle(0, -0.02, 0.12), stem)
    raise ValueError(f"unknown suit {suit!r}")


def draw_suit(
    img: np.ndarray,
    suit: str,
    centre: tuple[float, float],
    height: float,
    colour: tuple[int, int, int],
    *,
    upside_down: bool = False,
) -> None:
    """Fill the suit symbol of ``height`` pixels centred on ``centre`` (in place)."""
    flip = -1.0 if upside_down else 1.0
    polys = []
    for poly in _suit_polygons(suit):
        pts = poly * height * flip + np.asarray(centre, float)
        polys.append(np.round(pts * (1 << _SHIFT)).astype(np.int32))
    cv2.fillPoly(img, polys, colour, lineType=cv2.LINE_AA, shift=_SHIFT)


def _rank_text(rank: str) -> str:
    return "10" if rank == "T" else rank


def _put_text_centred(
    img: np.ndarray,
    text: str,
    centre: tuple[float, float],
    height: float,
    st: FaceStyle,
    colour: tuple[int, int, int],
    *,
    max_width: float | None = None,
) -> None:
    font = st.font | (cv2.FONT_ITALIC if st.italic else 0)
    (w, h), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = height / max(h, 1)
    if max_width is not None and w * scale > max_width:
        scale = max_width / w
    thick = max(1, round(scale * 2.2 * st.thickness_scale))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (round(centre[0] - w / 2), round(centre[1] + h / 2))
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def _draw_index(img: np.ndarray, rank: str, suit: str, st: FaceStyle, colour: tuple[int, int, int]) -> None:
    width = img.shape[1]
    glyph = st.index_scale * width
    inset = st.index_inset * width
    cx = inset + glyph * 0.45
    _put_text_centred(img, _rank_text(rank), (cx, inset + glyph * 0.6), glyph, st, colour, max_width=glyph * 1.05)
    draw_suit(img, suit, (cx, inset + glyph * 1.85), glyph * 0.8, colour)


# Pip positions (column, row) inside the pip area; rows below the middle are drawn upside down.
_PIPS: dict[str, tuple[tuple[float, float], ...]] = {
    "2": ((0.5, 0), (0.5, 1)),
    "3": ((0.5, 0), (0.5, 0.5), (0.5, 1)),
    "4": ((0, 0), (1, 0), (0, 1), (1, 1)),
    "5": ((0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)),
    "6": ((0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    "7": ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    "8": ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)),
    "9": ((0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)),
    "T": ((0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)),
}


def _draw_centre(img: np.ndarray, rank: str, suit: str, st: FaceStyle, colour: tuple[int, int, int]) -> None:
    h, w = img.shape[:2]
    if rank == "A":
        draw_suit(img, suit, (w / 2, h / 2), w * 0.42, colour)
        return
    if rank in _PIPS:
        x0, x1 = w * 0.32, w * 0.68
        y0, y1 = h * 0.2, h * 0.8
        pip = w * 0.17
        for col, row in _PIPS[rank]:
            centre = (x0 + col * (x1 - x0), y0 + row * (y1 - y0))
            draw_suit(img, suit, centre, pip, colour, upside_down=row > 0.5)
        return
    # Court card: a tinted panel with a large letter and suit, mirrored top/bottom like real courts.
    px0, py0, px1, py1 = round(w * 0.24), round(h * 0.17), round(w * 0.76), round(h * 0.83)
    tint = tuple(int(0.35 * c + 0.65 * p) for c, p in zip(st.court_tint, st.paper, strict=True))
    cv2.rectangle(img, (px0, py0), (px1, py1), tint, -1)
    cv2.rectangle(img, (px0, py0), (px1, py1), colour, max(1, w // 90), cv2.LINE_AA)
    half = img[py0 : (py0 + py1) // 2, px0:px1]
    ph, pw = half.shape[:2]
    _put_text_centred(half, rank, (pw * 0.5, ph * 0.45), ph * 0.45, st, colour)
    draw_suit(half, suit, (pw * 0.78, ph * 0.2), pw * 0.22, colour)
    cv2.line(half, (0, ph - 1), (pw, ph - 1), colour, max(1, w // 120), cv2.LINE_AA)
    img[(py0 + py1) // 2 : (py0 + py1) // 2 + ph, px0:px1] = np.rot90(half, 2)


def render_face(card: str, *, width: int = 250, height: int = 350, style: int = 0) -> np.ndarray:
    """The face of ``card`` ("QH", "TS", ...) as a BGR uint8 image of ``height`` x ``width``."""
    if len(card) != 2 or card[0] not in RANKS or card[1] not in SUITS:
        raise ValueError(f"not a card code: {card!r} (rank A23456789TJQK then suit CDHS)")
    if width < 20 or height < 20:
        raise ValueError(f"card image too small: {width}x{height}")
    rank, suit = card[0], card[1]
    st = face_style(style)
    colour = st.red if suit in "DH" else st.black
    img = np.empty((height, width, 3), np.uint8)
    img[:] = st.paper
    _draw_centre(img, rank, suit, st, colour)
    img = draw_both_indices(img, lambda face: _draw_index(face, rank, suit, st, colour))
    draw_border(img, st.border, colour)
    return img


def draw_both_indices(img: np.ndarray, draw_index: Callable[[np.ndarray], None]) -> np.ndarray:
    """Draw the top-left index with ``draw_index``, then the same turned 180 degrees bottom-right
    (draw, turn, draw, turn back); returns the new image."""
    draw_index(img)
    img = np.ascontiguousarray(img[::-1, ::-1])
    draw_index(img)
    return np.ascontiguousarray(img[::-1, ::-1])


def draw_border(img: np.ndarray, border: int, colour: tuple[int, int, int]) -> None:
    """``border`` 0: none; 1: a thin grey line at the edge; 2: an inset frame in ``colour`` (in place)."""
    h, w = img.shape[:2]
    if border == 1:
        cv2.rectangle(img, (1, 1), (w - 2, h - 2), (150, 150, 150), 1)
    elif border == 2:
        m = round(w * 0.025)
        cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), colour, max(1, w // 125), cv2.LINE_AA)


_BACK_COLOURS = ((40, 40, 170), (150, 60, 20), (50, 110, 30), (30, 30, 30), (120, 40, 110), (20, 90, 160))


def render_back(*, width: int = 250, height: int = 350, style: int = 0) -> np.ndarray:
    """A card back (face-down card) as a BGR uint8 image: a border and a repeating pattern."""
    if width < 20 or height < 20:
        raise ValueError(f"card image too small: {width}x{height}")
    rng = random.Random(5000 + style)
    ink = _BACK_COLOURS[style % len(_BACK_COLOURS)] if style < len(_BACK_COLOURS) else rng.choice(_BACK_COLOURS)
    paper = (255, 255, 255) if rng.random() < 0.7 else (230, 240, 245)
    img = np.empty((height, width, 3), np.uint8)
    img[:] = paper
    m = round(width * rng.uniform(0.04, 0.09))
    inner = img[m : height - m, m : width - m]
    inner[:] = ink
    ih, iw = inner.shape[:2]
    light = tuple(int(0.45 * c + 0.55 * p) for c, p in zip(ink, paper, strict=True))
    pattern = (style + rng.randrange(4)) % 4
    step = max(4, round(width * rng.uniform(0.05, 0.09)))
    lw = max(1, step // 5)
    if pattern == 0:  # diagonal lattice
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih, ih), light, lw, cv2.LINE_AA)
            cv2.line(inner, (k, ih), (k + ih, 0), light, lw, cv2.LINE_AA)
    elif pattern == 1:  # dots
        for y in range(step // 2, ih, step):
            for x in range(step // 2 + (y // step % 2) * step // 2, iw, step):
                cv2.circle(inner, (x, y), max(1, step // 4), light, -1, cv2.LINE_AA)
    elif pattern == 2:  # concentric frames
        for k in range(0, min(ih, iw) // 2, step):
            cv2.rectangle(inner, (k, k), (iw - 1 - k, ih - 1 - k), light, lw, cv2.LINE_AA)
    else:  # checks
        for y in range(0, ih, step):
            for x in range((y // step % 2) * step, iw, 2 * step):
                cv2.rectangle(inner, (x, y), (x + step - 1, y + step - 1), light, -1)
    cv2.ellipse(inner, (iw // 2, ih // 2), (iw // 4, ih // 6), 0, 0, 360, paper, max(1, lw), cv2.LINE_AA)
    return img
