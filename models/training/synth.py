"""Synthetic table scenes: cards of one design on a table, seen by a tilted camera, with clutter and bad light.

Used by training (crops come from the project's own detector run on these scenes), by the tests and by
the benchmark. Everything is drawn here with numpy/OpenCV; card art comes from ``render_designs``
(Debian designs rendered at run time) or from ``vision.faces`` (the project's own drawings).

    scene = make_scene(rng, deck, SceneSpec(n_cards=12))
    scene.image            # BGR uint8, 1280x720 by default
    scene.cards            # [(label, quad (4,2) float32 clockwise)]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from models.training import photo_look
from vision.faces import render_back, render_face

LABELS = tuple(r + s for s in "CDHS" for r in "A23456789TJQK") + ("back",)

Deck = Callable[[str], np.ndarray]
"""A design: label -> BGRA card image (alpha 0 outside the rounded outline)."""


def _rounded_alpha(h: int, w: int, radius: float) -> np.ndarray:
    alpha = np.zeros((h, w), np.uint8)
    r = max(1, round(radius))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return alpha


def faces_deck(style: int, width: int = 200) -> Deck:
    """A deck drawn by :mod:`vision.faces` in ``style``."""
    height = round(width * 1.4)
    alpha = _rounded_alpha(height, width, width * 0.05)
    cache: dict[str, np.ndarray] = {}

    def deck(label: str) -> np.ndarray:
        if label not in cache:
            bgr = (
                render_back(width=width, height=height, style=style)
                if label == "back"
                else render_face(label, width=width, height=height, style=style)
            )
            cache[label] = np.dstack([bgr, alpha])
        return cache[label]

    return deck


def folder_deck(folder: Path) -> Deck:
    """A deck rendered by ``render_designs`` into ``folder`` (one BGRA PNG per label)."""
    cache: dict[str, np.ndarray] = {}

    def deck(label: str) -> np.ndarray:
        if label not in cache:
            img = cv2.imread(str(folder / f"{label}.png"), cv2.IMREAD_UNCHANGED)
            if img is None:
                raise FileNotFoundError(folder / f"{label}.png")
            cache[label] = img
        return cache[label]

    return deck


# --- tables ---------------------------------------------------------------------------------------


def _gauss(rng: np.random.Generator, shape: tuple[int, ...], sigma: float) -> np.ndarray:
    """Fast Gaussian noise (OpenCV's generator, seeded from ``rng`` so scenes stay reproducible)."""
    cv2.setRNGSeed(int(rng.integers(1 << 30)))
    out = np.empty(shape, np.float32)
    cv2.randn(out, 0.0, float(sigma))  # type: ignore[call-overload]  # the stubs want arrays for mean and sigma
    return out


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    small = rng.random((max(2, h // cells), max(2, w // cells))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def make_background(rng: np.random.Generator, w: int, h: int, kind: str | None = None) -> np.ndarray:
    """A table surface: felt, wood, cloth, plain light or dark."""
    kind = kind or str(rng.choice(["felt", "felt", "wood", "cloth", "light", "dark"]))
    if kind == "felt":
        base = np.array(
            rng.choice([(40, 110, 30), (120, 60, 20), (30, 30, 140), (60, 90, 40), (90, 40, 30), (50, 50, 50)]),
            np.float32,
        )
        base *= rng.uniform(0.7, 1.3)
        tex = 1 + 0.15 * (_smooth_noise(rng, h, w, 40) - 0.5) + _gauss(rng, (h, w), 0.08)
        img = base[None, None, :] * tex[:, :, None]
    elif kind == "wood":
        base = np.array([40, 90, 150], np.float32) * rng.uniform(0.5, 1.3)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        t = x * math.cos(ang) + y * math.sin(ang)
        warp = 25 * _smooth_noise(rng, h, w, 150)
        grain = 0.5 + 0.5 * np.sin((t + warp) / rng.uniform(3, 12))
        tex = 0.8 + 0.25 * grain + _gauss(rng, (h, w), 0.06)
        img = base[None, None, :] * tex[:, :, None]
    elif kind == "cloth":
        c1 = rng.integers(30, 230, 3).astype(np.float32)
        c2 = rng.integers(30, 230, 3).astype(np.float32)
        period = int(rng.integers(8, 60))
        y, x = np.mgrid[0:h, 0:w]
        pattern = (
            (((x // period) + (y // period)) % 2).astype(np.float32)
            if rng.random() < 0.5
            else ((x // period) % 2).astype(np.float32)
        )
        pattern = cv2.GaussianBlur(pattern, (0, 0), 1.0)
        img = c1 * pattern[:, :, None] + c2 * (1 - pattern[:, :, None])
        img *= (1 + _gauss(rng, (h, w), 0.05))[:, :, None]
    elif kind == "light":
        base = rng.integers(170, 245, 3).astype(np.float32)
        img = base[None, None, :] * (1 + 0.06 * (_smooth_noise(rng, h, w, 60) - 0.5))[:, :, None]
    else:
        base = rng.integers(10, 70, 3).astype(np.float32)
        img = base[None, None, :] * (1 + 0.2 * (_smooth_noise(rng, h, w, 60) - 0.5))[:, :, None]
    out: np.ndarray = np.clip(img, 0, 255).astype(np.uint8)
    return out


# --- clutter: things on a table that are not cards ---------------------------------------------------


def _draw_coin(img: np.ndarray, rng: np.random.Generator) -> None:
    h, w = img.shape[:2]
    r = int(rng.integers(15, 45))
    c = (int(rng.integers(r, w - r)), int(rng.integers(r, h - r)))
    colour = rng.choice([(60, 160, 200), (180, 180, 180), (50, 110, 170)])
    cv2.circle(img, c, r, [int(v) for v in colour], -1, cv2.LINE_AA)
    cv2.circle(img, c, int(r * 0.8), [int(v * 0.8) for v in colour], 2, cv2.LINE_AA)


def _draw_chip(img: np.ndarray, rng: np.random.Generator) -> None:
    h, w = img.shape[:2]
    r = int(rng.integers(20, 50))
    c = (int(rng.integers(r, w - r)), int(rng.integers(r, h - r)))
    colour = [int(v) for v in rng.integers(0, 255, 3)]
    cv2.circle(img, c, r, colour, -1, cv2.LINE_AA)
    for k in range(6):
        a = k * math.pi / 3
        p = (int(c[0] + r * 0.8 * math.cos(a)), int(c[1] + r * 0.8 * math.sin(a)))
        cv2.circle(img, p, max(2, r // 6), (255, 255, 255), -1, cv2.LINE_AA)
    cv2.circle(img, c, int(r * 0.55), (240, 240, 240), 2, cv2.LINE_AA)


def _draw_hand(img: np.ndarray, rng: np.random.Generator) -> None:
    h, w = img.shape[:2]
    skin = [int(v) for v in rng.choice([(120, 160, 220), (90, 130, 190), (60, 90, 140), (40, 60, 90)])]
    side = int(rng.integers(4))
    cx, cy = int(rng.integers(100, w - 100)), int(rng.integers(100, h - 100))
    cx, cy = [(cx, h), (cx, 0), (0, cy), (w, cy)][side]
    tip = (int(rng.integers(w // 4, 3 * w // 4)), int(rng.integers(h // 4, 3 * h // 4)))
    cv2.line(img, (cx, cy), tip, skin, int(rng.integers(90, 150)), cv2.LINE_AA)
    ang = math.atan2(tip[1] - cy, tip[0] - cx)
    for k in range(-2, 3):
        a = ang + k * 0.25
        end = (int(tip[0] + 110 * math.cos(a)), int(tip[1] + 110 * math.sin(a)))
        cv2.line(img, tip, end, skin, 24, cv2.LINE_AA)


def _draw_phone(img: np.ndarray, rng: np.random.Generator) -> None:
    h, w = img.shape[:2]
    pw = float(rng.uniform(70, 150))
    ph = pw * float(rng.uniform(2.0, 2.2))
    rect = ((float(rng.uniform(150, w - 150)), float(rng.uniform(150, h - 150))), (pw, ph), float(rng.uniform(0, 180)))
    box = cv2.boxPoints(rect).astype(np.int32)
    cv2.fillConvexPoly(img, box, (20, 20, 20), cv2.LINE_AA)
    inner = cv2.boxPoints((rect[0], (pw * 0.9, ph * 0.93), rect[2])).astype(np.int32)
    cv2.fillConvexPoly(img, inner, [int(v) for v in rng.integers(60, 255, 3)], cv2.LINE_AA)


def _draw_edge(img: np.ndarray, rng: np.random.Generator) -> None:
    """The table's edge: the floor or the room beyond it."""
    h, w = img.shape[:2]
    depth = int(rng.integers(20, 160))
    other = make_background(rng, w, h, str(rng.choice(["wood", "dark", "light"])))
    mask = np.zeros((h, w), np.uint8)
    y0, y1 = depth + int(rng.integers(-30, 30)), depth + int(rng.integers(-30, 30))
    cv2.fillPoly(mask, [np.array([[0, 0], [w, 0], [w, y1], [0, y0]], np.int32)], 255)
    if rng.random() < 0.5:
        mask = mask[::-1].copy()
    img[mask > 0] = other[mask > 0]


CLUTTER: dict[str, Callable[[np.ndarray, np.random.Generator], None]] = {
    "coin": _draw_coin,
    "chip": _draw_chip,
    "hand": _draw_hand,
    "phone": _draw_phone,
    "edge": _draw_edge,
}


# --- scenes -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SceneSpec:
    width: int = 1280
    height: int = 720
    n_cards: int = 12
    card_width: tuple[float, float] = (90.0, 200.0)  # short side in pixels (before tilt)
    gap: float = 6.0  # minimum distance between cards, pixels
    max_tilt_deg: float = 25.0
    clutter: int = 2
    glare: float = 0.4  # chance of a glare spot
    shadow: float = 0.3
    blur: float = 0.4
    face_down: float = 0.08  # chance that a card is a back
    background: str | None = None
    hard: bool = False
    # Clutter lies under the cards (0), or (7: the older drawing) is drawn over the table after the
    # cards but this many pixels clear of them, which leaves a band of bare table round every card on a hand or a
    # chip: a second rectangle no real table shows. The detector's regression tests pin frames drawn that way.
    clear_band: int = 0
    # The chance that a scene gets the look of a real photograph of printed cards (``photo_look``: halftone, paper,
    # worn edges, bends and sheen on the cards; vignetting, a Bayer sensor's noise, a tone curve, oversharpening and
    # JPEG on the frame; patterned cloths, paper, marble, dark wood and a hand on the table). At 0 no draw is made
    # for it, so the frames pinned by seed stay as they were.
    realism: float = 0.0


class Blur(NamedTuple):
    """The camera blur a scene was given: ``kind`` "none", "defocus" (Gaussian, ``amount`` = sigma in
    pixels) or "motion" (a line kernel ``amount`` pixels long, turned ``angle`` degrees counter-clockwise from the
    image's x axis as seen, as ``vision.motion_blur.Motion``'s)."""

    kind: str
    amount: float
    angle: float = 0.0


@dataclass
class Scene:
    image: np.ndarray
    cards: list[tuple[str, np.ndarray]] = field(default_factory=list)
    # image pixels -> table plane (the scene's own camera tilt undone): what a calibrated table knows
    plane: np.ndarray | None = None
    blur: Blur = Blur("none", 0.0)


def tilt_homography(rng: np.random.Generator, w: int, h: int, max_deg: float) -> np.ndarray:
    """A camera looking at the table up to ``max_deg`` off vertical (keystone perspective)."""
    deg = float(rng.uniform(0, max_deg))
    k = math.tan(math.radians(deg)) * 0.5  # relative shrink of the far side
    axis = rng.integers(4)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src.copy()
    if axis == 0:  # far side at the top
        dst[0, 0] += w * k / 2
        dst[1, 0] -= w * k / 2
    elif axis == 1:
        dst[3, 0] += w * k / 2
        dst[2, 0] -= w * k / 2
    elif axis == 2:
        dst[0, 1] += h * k / 2
        dst[3, 1] -= h * k / 2
    else:
        dst[1, 1] += h * k / 2
        dst[2, 1] -= h * k / 2
    return cv2.getPerspectiveTransform(src, dst)


def _place(rng: np.random.Generator, spec: SceneSpec, tilt: np.ndarray) -> list[np.ndarray]:
    """Non-overlapping card rectangles on the table plane, mapped to the image through ``tilt``."""
    placed: list[np.ndarray] = []
    margin = 8
    size = float(rng.uniform(*spec.card_width))  # one deck: all cards one size
    for _ in range(spec.n_cards * 40):
        if len(placed) == spec.n_cards:
            break
        cw = size * float(rng.uniform(0.97, 1.03))
        ch = cw * float(rng.uniform(1.38, 1.45))
        angle = (
            float(rng.uniform(0, 360))
            if rng.random() < 0.6
            else float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 4))
        )
        centre = (
            float(rng.uniform(margin + ch / 2, spec.width - margin - ch / 2)),
            float(rng.uniform(margin + ch / 2, spec.height - margin - ch / 2)),
        )
        box = cv2.boxPoints((centre, (cw, ch), angle)).astype(np.float32)[[1, 2, 3, 0]]  # TL TR BR BL
        quad = cv2.perspectiveTransform(box[None], tilt)[0]
        if quad.min() < 2 or quad[:, 0].max() > spec.width - 3 or quad[:, 1].max() > spec.height - 3:
            continue
        grown = cv2.boxPoints((centre, (cw + 2 * spec.gap, ch + 2 * spec.gap), angle)).astype(np.float32)
        grown = cv2.perspectiveTransform(grown[None], tilt)[0]
        if any(cv2.intersectConvexConvex(grown, q)[0] > 0 for q in placed):
            continue
        placed.append(quad)
    return placed


def composite(img: np.ndarray, card: np.ndarray, quad: np.ndarray) -> None:
    """Warp the BGRA ``card`` onto ``img`` at ``quad`` (corner order: card's TL, TR, BR, BL)."""
    ch, cw = card.shape[:2]
    src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    x0, y0 = np.floor(quad.min(0)).astype(int)
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 1
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(img.shape[1], x1), min(img.shape[0], y1)
    m = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    warped = cv2.warpPerspective(
        card,
        m,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_AREA if cw > 250 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    a = warped[:, :, 3:4].astype(np.float32) / 255
    roi = img[y0:y1, x0:x1]
    roi[:] = (warped[:, :, :3] * a + roi * (1 - a)).astype(np.uint8)


def _light(rng: np.random.Generator, img: np.ndarray, spec: SceneSpec) -> np.ndarray:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    # uneven light: a linear gradient plus a smooth blotch
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    ang = rng.uniform(0, 2 * math.pi)
    strength = rng.uniform(0.1, 0.6 if spec.hard else 0.4)
    grad = 1 + strength * ((x / w - 0.5) * math.cos(ang) + (y / h - 0.5) * math.sin(ang))
    grad *= 1 + 0.25 * (_smooth_noise(rng, h, w, 200) - 0.5)
    f *= grad[:, :, None] * rng.uniform(0.6, 1.25)
    if rng.random() < spec.shadow:  # a soft shadow (an arm, a lamp)
        mask = np.zeros((h // 4, w // 4), np.float32)  # soft masks are drawn at quarter size
        pts = np.stack([rng.uniform(0, w / 4, 5), rng.uniform(0, h / 4, 5)], 1).astype(np.int32)
        cv2.fillConvexPoly(mask, cv2.convexHull(pts), 1.0)
        mask = cv2.resize(cv2.GaussianBlur(mask, (0, 0), rng.uniform(2.5, 10)), (w, h))
        f *= (1 - rng.uniform(0.25, 0.55) * mask)[:, :, None]
    if rng.random() < spec.glare:  # specular glare: a bright soft spot
        mask = np.zeros((h // 4, w // 4), np.float32)
        c = (int(rng.uniform(0, w / 4)), int(rng.uniform(0, h / 4)))
        axes = (int(rng.uniform(8, 38)), int(rng.uniform(5, 23)))
        cv2.ellipse(mask, c, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        mask = cv2.resize(cv2.GaussianBlur(mask, (0, 0), rng.uniform(2, 7.5)), (w, h))
        f += (rng.uniform(80, 200) * mask)[:, :, None]
    cast = rng.uniform(0.85, 1.15, 3).astype(np.float32)  # white balance off
    f *= cast
    return np.clip(f, 0, 255).astype(np.uint8)


def _lens_blur(rng: np.random.Generator, img: np.ndarray, spec: SceneSpec) -> tuple[np.ndarray, Blur]:
    img = np.asarray(img)  # the same array; typed loosely, as OpenCV's results are
    blur = Blur("none", 0.0)
    if rng.random() < spec.blur:
        if rng.random() < 0.5:
            sigma = rng.uniform(0.5, 1.8 if spec.hard else 1.3)
            blur = Blur("defocus", float(sigma))
            img = cv2.GaussianBlur(img, (0, 0), sigma)
        else:  # motion blur
            k = int(rng.integers(3, 9 if spec.hard else 6))
            kernel: np.ndarray = np.zeros((k, k), np.float32)
            kernel[k // 2, :] = 1 / k
            angle = float(rng.uniform(0, 180))
            blur = Blur("motion", float(k), angle)
            rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), angle, 1)
            kernel = cv2.warpAffine(kernel, rot, (k, k))
            img = cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    return img, blur


def _camera(rng: np.random.Generator, img: np.ndarray, spec: SceneSpec) -> tuple[np.ndarray, Blur]:
    img, blur = _lens_blur(rng, img, spec)
    noise = _gauss(rng, img.shape, float(rng.uniform(1, 8 if spec.hard else 5)))
    img = cv2.add(img.astype(np.float32), noise, dtype=cv2.CV_8U)
    quality = int(rng.integers(35 if spec.hard else 55, 95))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return (img if decoded is None else np.asarray(decoded)), blur


FELT = (40, 110, 40)


def paste_flat(frame: np.ndarray, card: np.ndarray, x: int, y: int, width: int, height: int) -> None:
    """Paste the BGRA ``card`` into ``frame`` in place, flat and square: shrunk to ``width`` x ``height`` px
    with its top-left pixel at (x, y), blended by its alpha (the table shows at its rounded corners)."""
    small = cv2.resize(card, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32)
    alpha = small[:, :, 3:] / 255.0
    region = frame[y : y + height, x : x + width].astype(np.float32)
    frame[y : y + height, x : x + width] = (small[:, :, :3] * alpha + region * (1 - alpha) + 0.5).astype(np.uint8)


def flat_frame(card: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """A 1280x720 felt frame with the BGRA ``card`` pasted flat and square ``width`` px wide, and its true
    outline: no perspective, blur or light, only the design's index left to read."""
    height = round(width * card.shape[0] / card.shape[1])
    frame = np.full((720, 1280, 3), FELT, np.uint8)
    x, y = 400, 200
    paste_flat(frame, card, x, y, width, height)
    quad = np.array([[x, y], [x + width, y], [x + width, y + height], [x, y + height]], np.float32) - 0.5
    return frame, quad


def make_scene(
    rng: np.random.Generator, deck: Deck | None, spec: SceneSpec = SceneSpec(), labels: list[str] | None = None
) -> Scene:
    """A table with ``spec.n_cards`` cards of ``deck`` (None: no cards, clutter only)."""
    spec = settled(rng, spec)
    img = make_table(rng, spec)
    deck = printed(rng, deck, spec)
    clutter = list(CLUTTER)
    # table edge first (it is the background), then the other clutter, then the cards on top of it all: a card
    # lies on whatever is on the table and is never hidden (``SceneSpec.clear_band``: the random draws are made in
    # the same order either way)
    if spec.clutter and rng.random() < 0.3:
        _draw_edge(img, rng)
    tilt = tilt_homography(rng, spec.width, spec.height, spec.max_tilt_deg)
    scene = Scene(img, plane=np.linalg.inv(tilt))
    faces: list[np.ndarray] = []
    if deck is not None and spec.n_cards:
        quads = _place(rng, spec, tilt)
        for i, quad in enumerate(quads):
            if labels is not None:
                label = labels[i % len(labels)]
            else:
                label = "back" if rng.random() < spec.face_down else str(rng.choice(LABELS[:52]))
            faces.append(deck(label))
            scene.cards.append((label, quad))
    others = [c for c in clutter if c != "edge"]
    if spec.clear_band:  # the older drawing: the cards, then the clutter kept clear of them
        for face, (_, quad) in zip(faces, scene.cards, strict=True):
            composite(img, face, quad)
        layer = img.copy()
        for _ in range(spec.clutter):
            CLUTTER[str(rng.choice(others))](layer, rng)
        occupied: np.ndarray = np.zeros(img.shape[:2], np.uint8)
        for _, q in scene.cards:
            cv2.fillConvexPoly(occupied, cv2.convexHull(q.astype(np.int32)), 255)
        band = 2 * spec.clear_band + 1
        cv2.copyTo(layer, cv2.bitwise_not(cv2.dilate(occupied, np.ones((band, band), np.uint8))), img)
    else:  # the clutter on the table, the cards on top of it
        for _ in range(spec.clutter):
            CLUTTER[str(rng.choice(others))](img, rng)
        for face, (_, quad) in zip(faces, scene.cards, strict=True):
            composite(img, face, quad)
    scene.image, scene.blur = photograph(rng, img, spec)
    return scene


def photograph(rng: np.random.Generator, img: np.ndarray, spec: SceneSpec) -> tuple[np.ndarray, Blur]:
    """The drawn table ``img`` as the camera gives it: uneven light, shadow, glare and colour cast, then blur, noise and
    JPEG (``spec``'s chances), and the blur it was given. With chance ``spec.realism`` the camera is a real one
    (``photo_look.optics`` before the blur, ``photo_look.sensor`` after it)."""
    if not photo_look.chance(rng, spec.realism):
        return _camera(rng, _light(rng, img, spec), spec)
    img, blur = _lens_blur(rng, photo_look.optics(rng, _light(rng, img, spec)), spec)
    return photo_look.sensor(rng, img, spec.hard), blur


REAL_TABLES = ("felt", "felt", "wood", "cloth", "light", "dark", *photo_look.BACKGROUNDS)
"""The tables of a scene with the photographic look: ``make_background``'s and ``photo_look.BACKGROUNDS``."""
ARM = 0.25
"""The chance that a table with the photographic look has a player's arm on it."""


def settled(rng: np.random.Generator, spec: SceneSpec) -> SceneSpec:
    """``spec`` with ``realism`` settled for one scene: 1 (the scene gets the photographic look) with chance
    ``spec.realism``, else 0; no draw when it is 0 or 1."""
    if spec.realism in (0.0, 1.0):
        return spec
    return replace(spec, realism=1.0 if photo_look.chance(rng, spec.realism) else 0.0)


def make_table(rng: np.random.Generator, spec: SceneSpec) -> np.ndarray:
    """``spec``'s table (``make_background``), or with the photographic look (``spec.realism`` settled to 1) one of
    ``REAL_TABLES``, now and then with an arm on it."""
    if spec.realism < 1.0:
        return make_background(rng, spec.width, spec.height, spec.background)
    kind = spec.background or str(rng.choice(REAL_TABLES))
    draw = photo_look.BACKGROUNDS.get(kind)
    img = draw(rng, spec.width, spec.height) if draw else make_background(rng, spec.width, spec.height, kind)
    if rng.random() < ARM:
        photo_look.draw_arm(rng, img)
    return img


def printed(rng: np.random.Generator, deck: Deck | None, spec: SceneSpec) -> Deck | None:
    """``deck`` as real printed cards (``photo_look.card_look``, drawn from ``rng`` for each card asked for) when
    ``spec.realism`` is settled to 1, else ``deck`` itself."""
    if deck is None or spec.realism < 1.0:
        return deck
    plain = deck
    return lambda label: photo_look.card_look(rng, plain(label))


PINNED_CLEAR_BAND = 7
"""``SceneSpec.clear_band`` of the older drawing (clutter kept clear of the cards)."""


def make_pinned_scene(
    rng: np.random.Generator, deck: Deck | None, spec: SceneSpec = SceneSpec(), labels: list[str] | None = None
) -> Scene:
    """``make_scene`` as the older drawing drew every frame (``PINNED_CLEAR_BAND``): the frames the detector's and
    the recogniser's regression tests pin by seed and index."""
    return make_scene(rng, deck, replace(spec, clear_band=PINNED_CLEAR_BAND), labels)


HARD = SceneSpec(
    card_width=(75.0, 110.0), gap=3.0, max_tilt_deg=30.0, glare=0.9, shadow=0.6, blur=0.7, clutter=3, hard=True
)
"""Small cards close together, strong tilt, glare, shadow and blur."""


ENROL = SceneSpec(glare=0.0, shadow=0.0, blur=0.0, max_tilt_deg=4.0, clutter=0, face_down=0.0)
"""How a user photographs a deck to enrol it: flat, well lit, no clutter, the camera nearly overhead."""


def laid_out_photo(
    rng: np.random.Generator, deck: Deck, labels: list[str], spec: SceneSpec = ENROL, *, card_width: float = 150.0
) -> Scene:
    """A photo of ``labels`` laid out face up in rows of seven, a little apart and a little turned (as a user lays
    out a deck to enrol it), on a plain table, with the light and camera of ``spec``; the cards ``card_width`` px
    wide, or less where the rows would not fit the frame."""
    # a table that the cards stand out from, as the enrolment's instructions ask
    img = make_background(rng, spec.width, spec.height, str(rng.choice(["felt", "wood", "dark"])))
    tilt = tilt_homography(rng, spec.width, spec.height, spec.max_tilt_deg)
    scene = Scene(img, plane=np.linalg.inv(tilt))
    per_row = 7
    rows = max(1, math.ceil(len(labels) / per_row))
    fits = min((spec.width - 20) / per_row - 24, ((spec.height - 20) / rows - 24) / 1.4)  # every card in the frame
    cw = min(card_width * float(rng.uniform(0.95, 1.05)), fits)
    ch = cw * 1.4
    for i, label in enumerate(labels):
        row, col = divmod(i, per_row)
        centre = (20 + (col + 0.5) * (cw + 24) + rng.normal(0, 3), 20 + (row + 0.5) * (ch + 24) + rng.normal(0, 3))
        angle = float(rng.choice([0.0, 180.0]) + rng.normal(0, 3))
        box = cv2.boxPoints((centre, (cw, ch), angle)).astype(np.float32)[[1, 2, 3, 0]]
        quad = cv2.perspectiveTransform(box[None], tilt)[0]
        composite(img, deck(label), quad)
        scene.cards.append((label, quad))
    scene.image, scene.blur = photograph(rng, img, spec)
    return scene
