"""The look of a real photograph of real printed cards, for the synthetic table scenes (``synth``).

A rendered card is flat, evenly inked and exactly coloured, and ``synth.photograph``'s camera adds Gaussian noise and
JPEG to a perfect image. A phone or a Pi camera looking at a printed deck sees more: the print's halftone dots and
its plates a little out of register, paper fibre, worn edges, a card that is not quite flat and a plastic coating
that shines; then a lens that darkens the corners and splits the colours a little, a Bayer sensor with noise that
grows with the light, a tone curve, oversharpening and JPEG with its colour halved. Tables are not all felt either.
Everything here is drawn procedurally (no third-party art) and seeded by the generator passed in.

Three groups, each used by ``synth`` when a scene gets the treatment (``synth.SceneSpec.realism``):

* card faces (BGRA, before ``synth.composite``): ``card_look`` and the effects it draws from;
* whole frames (BGR, in ``synth.photograph``): ``optics`` before the lens blur, ``sensor`` after it;
* tables: ``BACKGROUNDS`` and ``draw_arm``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

# --- shared helpers -------------------------------------------------------------------------------------------------


def chance(rng: np.random.Generator, p: float) -> bool:
    """True with probability ``p``; draws from ``rng`` only when 0 < p < 1, so that ``p`` = 0 leaves it untouched."""
    if p <= 0.0:
        return False
    if p >= 1.0:
        return True
    return bool(rng.random() < p)


def _noise(rng: np.random.Generator, shape: tuple[int, ...], sigma: float = 1.0) -> np.ndarray:
    """Gaussian noise, float32 (OpenCV's generator seeded from ``rng``: fast, and reproducible by seed)."""
    cv2.setRNGSeed(int(rng.integers(1 << 30)))
    out = np.empty(shape, np.float32)
    cv2.randn(out, 0.0, float(sigma))  # type: ignore[call-overload]  # the stubs want arrays for mean and sigma
    return out


def _smooth(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Smooth noise in [0, 1] with features about ``cell`` pixels across."""
    small = rng.random((max(2, round(h / cell)), max(2, round(w / cell)))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _turbulence(rng: np.random.Generator, h: int, w: int, cell: float, octaves: int = 4) -> np.ndarray:
    """Sum of smooth noise at halving sizes, about [0, 1]: the irregular flow of marble veins or wood grain."""
    out = np.zeros((h, w), np.float32)
    total = 0.0
    for k in range(octaves):
        weight = 0.5**k
        out += weight * _smooth(rng, h, w, max(2.0, cell / 2**k))
        total += weight
    return out / total


def _u8(f: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.clip(f + 0.5, 0, 255).astype(np.uint8)
    return out


# --- card faces -----------------------------------------------------------------------------------------------------


def _wave(along_x: np.ndarray, along_y: np.ndarray) -> np.ndarray:
    """cos(x-term + y-term) over the grid, from the two 1-D phases (cos(a + b) = cos a cos b - sin a sin b): a
    plane wave at the cost of two outer products."""
    out: np.ndarray = np.outer(np.cos(along_y), np.cos(along_x)) - np.outer(np.sin(along_y), np.sin(along_x))
    return out


SCREEN_ANGLES = (0.0, 75.0, 15.0, 45.0)
"""The classic screen angles of the yellow, magenta, cyan and black plates (degrees): their dots make the rosette."""


def halftone(rng: np.random.Generator, bgr: np.ndarray, strength: float) -> np.ndarray:
    """Print ``bgr`` (float32 0-255) as four halftone plates (CMYK, rotated dot screens about 70 lines across the
    card), blended ``strength`` (0-1) with the continuous tone: flat colour areas get the fine rosette texture a
    camera half resolves (and aliases into moire) on a printed card."""
    h, w = bgr.shape[:2]
    light = np.maximum(bgr.max(axis=2), 0.255)  # 255 x (1 - black)
    k = 1.0 - light / 255.0
    cmy = 1.0 - bgr / light[:, :, None]  # B, G, R channels: the yellow, magenta and cyan plates
    period = max(2.2, w / float(rng.uniform(55, 85)))
    x = np.arange(w, dtype=np.float32) * (2 * math.pi / period)
    y = np.arange(h, dtype=np.float32) * (2 * math.pi / period)
    turn = float(rng.uniform(0, 90))
    plates = [cmy[:, :, 0], cmy[:, :, 1], cmy[:, :, 2], k]
    out = []
    for plate, angle in zip(plates, SCREEN_ANGLES, strict=True):
        a = math.radians(angle + turn)
        screen = 0.5 + 0.25 * (
            _wave(x * math.cos(a), y * math.sin(a) + float(rng.uniform(0, 2 * math.pi)))
            + _wave(-x * math.sin(a), y * math.cos(a) + float(rng.uniform(0, 2 * math.pi)))
        )
        dots = np.clip((plate - screen) * 5.0 + 0.5, 0.0, 1.0)
        dots *= np.minimum(1.0, plate * 20.0)  # no ink where the plate has none
        out.append(cv2.addWeighted(plate, 1.0 - strength, dots, strength, 0.0))
    result: np.ndarray = (1.0 - cv2.merge(out[:3])) * ((1.0 - out[3]) * 255.0)[:, :, None]
    return result.astype(np.float32, copy=False)


def misregister(rng: np.random.Generator, bgr: np.ndarray, pixels: float) -> np.ndarray:
    """Shift the colour plates (here the B, G and R channels: yellow, magenta, cyan) each up to about ``pixels``
    apart: the coloured fringes of a print whose plates are a little out of register."""
    h, w = bgr.shape[:2]
    out = np.empty_like(bgr)
    for ch in range(3):
        dx, dy = rng.normal(0.0, pixels / 2, 2)
        m = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        out[:, :, ch] = cv2.warpAffine(bgr[:, :, ch], m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return out


def ink_spread(bgr: np.ndarray, amount: float) -> np.ndarray:
    """Dot gain: dark ink spreads a little into the paper (a 3x3 minimum blended ``amount``), so lines and index
    strokes print a little bolder and darker than drawn."""
    eroded = cv2.erode(bgr, np.ones((3, 3), np.uint8))
    out: np.ndarray = bgr + amount * (eroded - bgr)
    return out


def paper_fibre(rng: np.random.Generator, bgr: np.ndarray, amount: float) -> np.ndarray:
    """Paper's texture: fine fibres (noise stretched one way) and a faint blotchy mottle, multiplying the print by
    about 1 +/- ``amount``: white card stock is never a flat 255."""
    h, w = bgr.shape[:2]
    fibres = _noise(rng, (h, w))
    across, down = (1.6, 0.5) if rng.random() < 0.5 else (0.5, 1.6)
    fibres = np.asarray(cv2.GaussianBlur(fibres, (0, 0), sigmaX=across, sigmaY=down), np.float32)
    fibres /= max(float(fibres.std()), 1e-6)
    mottle = _smooth(rng, h, w, max(4.0, w / 12)) - 0.5
    factor = 1.0 + amount * (0.6 * fibres + 1.2 * mottle)
    out: np.ndarray = bgr * factor[:, :, None]
    return out


def worn_edges(rng: np.random.Generator, bgr: np.ndarray, alpha: np.ndarray, amount: float) -> np.ndarray:
    """A handled card's outline: a grimy band a few pixels wide inside the edge and, here and there, chips where the
    white paper core shows through the ink; ``amount`` (0-1) how worn."""
    h, w = bgr.shape[:2]
    inside = cv2.copyMakeBorder((alpha > 127).astype(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    dist = cv2.distanceTransform(inside, cv2.DIST_L2, 3)[1:-1, 1:-1]  # the image's border is the card's edge too
    band_px = max(1.5, w * float(rng.uniform(0.01, 0.03)))
    band = np.clip(1.0 - dist / band_px, 0.0, 1.0) * (dist > 0)
    patches = _smooth(rng, h, w, max(3.0, w / 25))
    grime = band * np.clip((patches - 0.3) * 2.0, 0.0, 1.0) * amount
    dirt = np.array([70, 85, 100], np.float32)  # greyish brown
    out = bgr + (0.55 * grime)[:, :, None] * (dirt - bgr)
    chips = band * (_smooth(rng, h, w, max(2.0, w / 60)) > 1.0 - 0.25 * amount)
    paper = np.array([225, 232, 236], np.float32)
    out = out + (0.8 * chips)[:, :, None] * (paper - out)
    return np.asarray(out, np.float32)


def bend(rng: np.random.Generator, bgra: np.ndarray, curl: float) -> np.ndarray:
    """A card that is not flat: bent round a cylinder along its length or its width (``curl`` radians of turn from
    one edge to the other). The light falls on it at a slant, so one side is darker than the other, and two of its
    edges bow a little (the corners stay where they were, so the card's outline truth holds)."""
    h, w = bgra.shape[:2]
    along_width = bool(rng.random() < 0.5)
    n = w if along_width else h
    t = np.linspace(-1.0, 1.0, n, dtype=np.float32)
    slant = float(rng.uniform(0.25, 0.7)) * (1 if rng.random() < 0.5 else -1)
    shade = np.cos(curl / 2 * t - slant) / math.cos(slant)
    shade /= float(shade.mean())
    bow = float(rng.uniform(0.3, 1.0)) * 0.012 * (h if along_width else w) * (1 if rng.random() < 0.5 else -1)
    x, y = np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32)
    if along_width:
        map_x, map_y = np.broadcast_to(x, (h, w)), np.add.outer(y, bow * (1.0 - t**2))
        factor = shade[None, :, None]
    else:
        map_x, map_y = np.add.outer(bow * (1.0 - t**2), x), np.broadcast_to(y[:, None], (h, w))
        factor = shade[:, None, None]
    out = bgra.astype(np.float32)
    out[:, :, :3] *= factor
    map_x, map_y = np.ascontiguousarray(map_x, np.float32), np.ascontiguousarray(map_y, np.float32)
    warped = cv2.remap(out, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    return np.asarray(warped, np.float32)


def sheen(rng: np.random.Generator, bgr: np.ndarray, strength: float) -> np.ndarray:
    """The soft specular band of a plastic-coated card under a lamp: a straight blurred stripe across the card that
    washes the print towards white by up to ``strength`` (0-1)."""
    h, w = bgr.shape[:2]
    a = float(rng.uniform(0, math.pi))
    cx, cy = float(rng.uniform(0.2, 0.8)) * w, float(rng.uniform(0.2, 0.8)) * h
    x = (np.arange(w, dtype=np.float32) - cx) * math.cos(a)
    d = np.add.outer((np.arange(h, dtype=np.float32) - cy) * math.sin(a), x)
    width = float(rng.uniform(0.06, 0.2)) * w
    band = strength * np.exp(-0.5 * (d / width) ** 2)
    out: np.ndarray = bgr + band[:, :, None] * (255.0 - bgr)
    return out


def card_look(rng: np.random.Generator, card: np.ndarray) -> np.ndarray:
    """The BGRA ``card`` as a real printed, handled card looks: each effect above drawn with its own chance and
    strength; a new array (decks cache their faces)."""
    w = card.shape[1]
    bgr = card[:, :, :3].astype(np.float32)
    alpha = card[:, :, 3]
    if rng.random() < 0.7:
        bgr = halftone(rng, bgr, float(rng.uniform(0.25, 0.6)))
    if rng.random() < 0.5:
        bgr = misregister(rng, bgr, float(rng.uniform(0.3, 1.0)) * w / 200)
    if rng.random() < 0.4:
        bgr = ink_spread(bgr, float(rng.uniform(0.15, 0.5)))
    bgr = paper_fibre(rng, bgr, float(rng.uniform(0.01, 0.04)))
    if rng.random() < 0.5:
        bgr = worn_edges(rng, bgr, alpha, float(rng.uniform(0.3, 1.0)))
    if rng.random() < 0.35:
        bgr = sheen(rng, bgr, float(rng.uniform(0.1, 0.4)))
    out = np.dstack([bgr, alpha.astype(np.float32)])
    if rng.random() < 0.6:
        out = bend(rng, out, float(rng.uniform(0.2, 0.8)))
    return _u8(out)


# --- whole frames: optics -------------------------------------------------------------------------------------------


def vignette(img: np.ndarray, strength: float) -> np.ndarray:
    """Lens fall-off: the frame's corners ``strength`` (0-1) darker than its centre, smoothly (quadratic in the
    distance from the centre). ``img`` float32."""
    h, w = img.shape[:2]
    y = (np.arange(h, dtype=np.float32) - (h - 1) / 2) ** 2
    x = (np.arange(w, dtype=np.float32) - (w - 1) / 2) ** 2
    r2 = np.add.outer(y, x) * (4.0 / (w * w + h * h))
    out: np.ndarray = img * (1.0 - strength * r2)[:, :, None]
    return out


def chromatic_aberration(img: np.ndarray, scale: float) -> np.ndarray:
    """Lateral chromatic aberration: the red channel scaled by 1 + ``scale`` and the blue by 1 - ``scale`` about the
    frame's centre, so edges far from the centre get red and blue fringes as through a cheap lens."""
    h, w = img.shape[:2]
    out = img.copy()
    for ch, s in ((2, 1.0 + scale), (0, 1.0 - scale)):
        m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), 0.0, s)
        out[:, :, ch] = cv2.warpAffine(img[:, :, ch], m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return out


def arm_mask(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A forearm and hand (fingers spread a little, a thumb) reaching in from one side of a ``w`` x ``h`` frame, as
    float32 0/1: for a hand on the table and for a hand's shadow."""
    mask = np.zeros((h, w), np.uint8)
    s = min(w, h)
    side = int(rng.integers(4))
    along = float(rng.uniform(0.15, 0.85))
    start = [(along * w, h + 0.05 * s), (along * w, -0.05 * s), (-0.05 * s, along * h), (w + 0.05 * s, along * h)][side]
    inward = [(0.0, -1.0), (0.0, 1.0), (1.0, 0.0), (-1.0, 0.0)][side]
    ang = math.atan2(inward[1], inward[0]) + float(rng.uniform(-0.6, 0.6))
    reach = float(rng.uniform(0.25, 0.6)) * s
    wrist = (start[0] + reach * math.cos(ang), start[1] + reach * math.sin(ang))
    arm_w = max(3, round(float(rng.uniform(0.11, 0.16)) * s))
    cv2.line(mask, (round(start[0]), round(start[1])), (round(wrist[0]), round(wrist[1])), 1, arm_w, cv2.LINE_AA)
    palm_len = 0.75 * arm_w
    palm = (wrist[0] + palm_len * math.cos(ang), wrist[1] + palm_len * math.sin(ang))
    cv2.ellipse(
        mask,
        (round(palm[0]), round(palm[1])),
        (round(0.7 * arm_w), round(0.6 * arm_w)),
        math.degrees(ang),
        0,
        360,
        1,
        -1,
        cv2.LINE_AA,
    )
    finger_w = max(2, round(0.2 * arm_w))
    spread = float(rng.uniform(0.08, 0.2))
    for k, length in zip((-1.5, -0.5, 0.5, 1.5), (0.8, 0.95, 0.9, 0.7), strict=True):
        a = ang + k * spread
        base = (palm[0] + 0.5 * arm_w * math.cos(a), palm[1] + 0.5 * arm_w * math.sin(a))
        tip = (base[0] + length * arm_w * math.cos(a), base[1] + length * arm_w * math.sin(a))
        cv2.line(mask, (round(base[0]), round(base[1])), (round(tip[0]), round(tip[1])), 1, finger_w, cv2.LINE_AA)
    thumb_side = 1 if rng.random() < 0.5 else -1
    a = ang + thumb_side * float(rng.uniform(0.7, 1.1))
    tip = (palm[0] + 1.1 * arm_w * math.cos(a), palm[1] + 1.1 * arm_w * math.sin(a))
    cv2.line(mask, (round(palm[0]), round(palm[1])), (round(tip[0]), round(tip[1])), 1, finger_w + 1, cv2.LINE_AA)
    return mask.astype(np.float32)


def hand_shadow(rng: np.random.Generator, img: np.ndarray, depth: float) -> np.ndarray:
    """The soft shadow of a player's hand and arm held above the table (out of the frame's view), ``depth`` (0-1)
    of the light taken. ``img`` float32."""
    h, w = img.shape[:2]
    mask = arm_mask(rng, w // 4, h // 4)  # soft masks are drawn at quarter size
    mask = cv2.resize(cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(2.0, 6.0))), (w, h))
    out: np.ndarray = img * (1.0 - depth * mask)[:, :, None]
    return out


def optics(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """What reaches the sensor from the lit table ``img`` (BGR uint8): a hand's shadow now and then, vignetting and
    lateral chromatic aberration. The lens blur follows (``synth``), then ``sensor``."""
    h, w = img.shape[:2]
    light = np.ones((h, w, 1), np.float32)  # the shadow and the fall-off multiply the frame once
    if rng.random() < 0.25:
        light = hand_shadow(rng, light, float(rng.uniform(0.2, 0.5)))
    light = vignette(light, float(rng.uniform(0.1, 0.45)))
    out = np.asarray(cv2.multiply(img, cv2.merge([light, light, light]), dtype=cv2.CV_8U))
    if rng.random() < 0.7:
        out = chromatic_aberration(out, float(rng.uniform(0.0005, 0.002)))
    return out


# --- whole frames: the sensor and the camera's processing ------------------------------------------------------------

_TO_LINEAR = ((np.arange(256, dtype=np.float32) / 255.0) ** 2.2).astype(np.float32)
RAW_MAX = 65535


def mosaic(linear: np.ndarray) -> np.ndarray:
    """A Bayer sensor's view of ``linear`` (BGR): one colour a pixel, blue at even rows and columns, red at odd ones,
    green between (one channel, of ``linear``'s type)."""
    raw = np.empty(linear.shape[:2], linear.dtype)
    raw[0::2, 0::2] = linear[0::2, 0::2, 0]
    raw[0::2, 1::2] = linear[0::2, 1::2, 1]
    raw[1::2, 0::2] = linear[1::2, 0::2, 1]
    raw[1::2, 1::2] = linear[1::2, 1::2, 2]
    return raw


def shot_and_read_noise(rng: np.random.Generator, raw: np.ndarray, shot: float, read: float) -> np.ndarray:
    """A sensor's noise on ``raw`` (linear, 0-1): photon shot noise whose variance is ``shot`` times the signal
    (bright pixels are noisier in absolute terms) plus read noise of standard deviation ``read``."""
    h, w = raw.shape
    out: np.ndarray = raw + np.sqrt(np.maximum(raw, 0.0) * shot) * _noise(rng, (h, w)) + _noise(rng, (h, w), read)
    return out


def demosaic(raw: np.ndarray, edge_aware: bool = False) -> np.ndarray:
    """``mosaic``'s raw (float32 0-1) back to BGR uint16 (0-``RAW_MAX``) by OpenCV's demosaicing: bilinear, or
    edge-aware."""
    raw16 = np.clip(raw * RAW_MAX + 0.5, 0, RAW_MAX).astype(np.uint16)
    code = cv2.COLOR_BayerRG2BGR_EA if edge_aware else cv2.COLOR_BayerRG2BGR  # OpenCV names the pattern this way
    return np.asarray(cv2.cvtColor(raw16, code))


def demosaic8(raw: np.ndarray, edge_aware: bool = False) -> np.ndarray:
    """``demosaic`` for an 8-bit mosaic (already through the tone curve): BGR uint8."""
    code = cv2.COLOR_BayerRG2BGR_EA if edge_aware else cv2.COLOR_BayerRG2BGR
    return np.asarray(cv2.cvtColor(raw, code))


def tone_curve(gamma: float, contrast: float) -> np.ndarray:
    """A camera's tone curve as a lookup table from raw (0-``RAW_MAX``) to 8-bit: gamma ``gamma`` and an S-curve
    blended ``contrast`` (0-1)."""
    x = np.linspace(0.0, 1.0, RAW_MAX + 1, dtype=np.float32) ** (1.0 / gamma)
    y = (1.0 - contrast) * x + contrast * (3 * x * x - 2 * x * x * x)
    return _u8(y * 255.0)


def white_balance(linear: np.ndarray, warmth: float, tint: float) -> np.ndarray:
    """Auto white balance that misjudged the light: ``warmth`` (-1 cool .. 1 warm) trades blue for red, ``tint``
    (-1 .. 1) moves green against magenta, on linear BGR."""
    gains = np.array([1.0 - 0.15 * warmth, 1.0 + 0.06 * tint, 1.0 + 0.15 * warmth], np.float32)
    out: np.ndarray = linear * gains
    return out


def chroma_noise(rng: np.random.Generator, img: np.ndarray, sigma: float) -> np.ndarray:
    """Blotchy colour noise (what a phone's noise reduction leaves of the sensor's noise): blue and red wander
    against green in patches a few pixels across, ``sigma`` levels."""
    h, w = img.shape[:2]
    small = _noise(rng, (max(2, h // 4), max(2, w // 4), 2), sigma)
    blotches = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    out = img.astype(np.float32)
    out[:, :, 0] += blotches[:, :, 0]
    out[:, :, 2] += blotches[:, :, 1]
    return _u8(out)


def oversharpen(img: np.ndarray, radius: float, amount: float) -> np.ndarray:
    """A phone's unsharp mask: ``img`` + ``amount`` x (``img`` - its blur of ``radius``): crisper edges with the
    light and dark halos beside them."""
    blurred = cv2.GaussianBlur(img, (0, 0), radius)
    return np.asarray(cv2.addWeighted(img, 1.0 + amount, blurred, -amount, 0))


JPEG_SAMPLING = (
    cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420,
    cv2.IMWRITE_JPEG_SAMPLING_FACTOR_422,
    cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444,
)


def jpeg(img: np.ndarray, quality: int, sampling: int = cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420) -> np.ndarray:
    """``img`` through JPEG at ``quality`` with its colour subsampled as ``sampling`` says (``JPEG_SAMPLING``)."""
    ok, buf = cv2.imencode(
        ".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality), cv2.IMWRITE_JPEG_SAMPLING_FACTOR, int(sampling)]
    )
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return img if decoded is None else np.asarray(decoded)


def sensor(rng: np.random.Generator, img: np.ndarray, hard: bool = False) -> np.ndarray:
    """The frame ``img`` (BGR uint8, as the light reaches the lens) as a phone or Pi camera saves it: back to
    linear light, white balance off, a Bayer mosaic with shot and read noise, demosaicing, a tone curve, colour
    noise, oversharpening and JPEG at quality 40-95 (``hard``: noisier, 30-90)."""
    raw = _TO_LINEAR[mosaic(img)]  # the mosaic first: a third of the pixels to bring back to linear light
    gains = white_balance(np.ones((1, 1, 3), np.float32), float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1)))[0, 0]
    exposure = float(rng.uniform(0.8, 1.05))
    raw *= np.tile(
        mosaic(np.broadcast_to(gains * exposure, (2, 2, 3))), (raw.shape[0] // 2 + 1, raw.shape[1] // 2 + 1)
    )[: raw.shape[0], : raw.shape[1]]
    shot = float(rng.uniform(0.0003, 0.004 if hard else 0.002))
    read = float(rng.uniform(0.001, 0.006 if hard else 0.004))
    raw = shot_and_read_noise(rng, raw, shot, read)
    curve = tone_curve(float(rng.uniform(1.9, 2.5)) / exposure**0.3, float(rng.uniform(0.0, 0.35)))
    # The tone curve goes on the mosaic, before demosaicing (a third of the pixels; the difference does not show).
    toned = curve[np.clip(raw * RAW_MAX + 0.5, 0, RAW_MAX).astype(np.uint16)]
    out = demosaic8(toned, edge_aware=bool(rng.random() < 0.5))
    if rng.random() < 0.6:
        out = chroma_noise(rng, out, float(rng.uniform(0.5, 3.0)))
    if rng.random() < 0.7:
        out = oversharpen(out, float(rng.uniform(0.8, 2.0)), float(rng.uniform(0.2, 1.0)))
    quality = int(rng.integers(30 if hard else 40, 91 if hard else 96))
    return jpeg(out, quality, JPEG_SAMPLING[int(rng.integers(len(JPEG_SAMPLING)))])


# --- tables ---------------------------------------------------------------------------------------------------------


def _weave(rng: np.random.Generator, h: int, w: int, amount: float) -> np.ndarray:
    """A cloth's fine texture: threads at right angles and noise, as a multiplier about 1."""
    pitch = float(rng.uniform(2.5, 4.5))
    wave = np.sin(np.arange(max(h, w), dtype=np.float32) * (2 * math.pi / pitch))
    threads = 0.5 * np.outer(wave[:h], wave[:w]) + _noise(rng, (h, w), 0.5)
    out: np.ndarray = 1.0 + amount * threads
    return out


def _colour(rng: np.random.Generator, lo: int = 30, hi: int = 230) -> np.ndarray:
    return rng.integers(lo, hi, 3).astype(np.float32)


def tartan(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A plaid tablecloth: bands of a few colours across and down, woven (a twill: warp and weft alternate along
    diagonals)."""
    palette = [_colour(rng) for _ in range(int(rng.integers(3, 5)))]
    sett = int(rng.integers(60, 200))
    bands = np.zeros((sett, 3), np.float32)
    at = 0
    while at < sett:
        width = int(rng.integers(3, 30))
        bands[at : at + width] = palette[int(rng.integers(len(palette)))]
        at += width
    warp = bands[np.arange(w) % sett]
    weft = bands[np.arange(h) % sett]
    twill = ((np.add.outer(np.arange(h), np.arange(w)) // 2) % 2).astype(np.float32)[:, :, None]
    img = twill * warp[None, :, :] + (1 - twill) * weft[:, None, :]
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    img *= _weave(rng, h, w, 0.05)[:, :, None]
    return _u8(img)


def polka(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A polka-dot cloth: round dots of one colour on another, rows offset by half a step."""
    ground, dot = _colour(rng), _colour(rng)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = ground.astype(np.uint8)
    step = int(rng.integers(25, 90))
    r = max(3, round(step * float(rng.uniform(0.15, 0.35))))
    colour = [int(v) for v in dot]
    for row, y in enumerate(range(-step, h + step, step)):
        for x in range(-step + (step // 2) * (row % 2), w + step, step):
            cv2.circle(img, (x, y), r, colour, -1, cv2.LINE_AA)
    return _u8(img.astype(np.float32) * _weave(rng, h, w, 0.04)[:, :, None])


def floral(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A printed floral or paisley-like cloth: a tile of petalled flowers, teardrop blobs and leaves in a few
    colours, repeated across the table."""
    tile = int(rng.integers(120, 260))
    ground = _colour(rng, 40, 240)
    img = np.empty((tile, tile, 3), np.uint8)
    img[:] = ground.astype(np.uint8)
    palette = [[int(v) for v in _colour(rng)] for _ in range(3)]
    for _ in range(int(rng.integers(3, 7))):
        c = (int(rng.integers(tile)), int(rng.integers(tile)))
        size = int(rng.integers(10, 35))
        colour = palette[int(rng.integers(3))]
        if rng.random() < 0.5:  # a flower: petals round a centre
            petals = int(rng.integers(5, 9))
            for k in range(petals):
                a = 2 * math.pi * k / petals
                p = (round(c[0] + size * 0.6 * math.cos(a)), round(c[1] + size * 0.6 * math.sin(a)))
                cv2.ellipse(img, p, (size // 2, max(2, size // 4)), math.degrees(a), 0, 360, colour, -1, cv2.LINE_AA)
            cv2.circle(img, c, max(2, size // 4), palette[(int(rng.integers(3)) + 1) % 3], -1, cv2.LINE_AA)
        else:  # a paisley teardrop: a circle and a tail, with a ring inside
            a = float(rng.uniform(0, 2 * math.pi))
            tail = (round(c[0] + 1.6 * size * math.cos(a)), round(c[1] + 1.6 * size * math.sin(a)))
            cv2.circle(img, c, size, colour, -1, cv2.LINE_AA)
            cv2.fillConvexPoly(
                img,
                np.array(
                    [
                        [c[0] + size * math.cos(a + math.pi / 2), c[1] + size * math.sin(a + math.pi / 2)],
                        tail,
                        [c[0] + size * math.cos(a - math.pi / 2), c[1] + size * math.sin(a - math.pi / 2)],
                    ],
                    np.int32,
                ),
                colour,
                cv2.LINE_AA,
            )
            cv2.circle(img, c, max(2, size // 2), palette[(int(rng.integers(3)) + 2) % 3], 2, cv2.LINE_AA)
    reps = (h // tile + 2, w // tile + 2, 1)
    big = np.tile(img, reps)
    oy, ox = int(rng.integers(tile)), int(rng.integers(tile))
    out = big[oy : oy + h, ox : ox + w].astype(np.float32) * _weave(rng, h, w, 0.04)[:, :, None]
    return _u8(out)


def paper(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Newspaper or printed paper on the table: a light, slightly yellow sheet with columns of faint grey
    text-like strokes (words of random length on lines) and the odd bolder headline."""
    base = np.array([rng.uniform(200, 235), rng.uniform(215, 245), rng.uniform(220, 250)], np.float32)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = base.astype(np.uint8)
    ink = int(rng.uniform(60, 150))
    line = int(rng.integers(7, 14))
    cols = int(rng.integers(3, 7))
    col_w = w // cols
    for c in range(cols):
        x0, x1 = c * col_w + 8, (c + 1) * col_w - 8
        y = int(rng.integers(0, line))
        while y < h:
            if rng.random() < 0.04:  # a headline
                thick = int(rng.integers(4, 8))
                x = x0
                while x < x1 - 20:
                    word = int(rng.integers(20, 70))
                    cv2.line(img, (x, y), (min(x + word, x1), y), (ink - 30,) * 3, thick)
                    x += word + thick * 2
                y += line * 3
                continue
            x = x0
            while x < x1:
                word = int(rng.integers(5, 35))
                cv2.line(img, (x, y), (min(x + word, x1), y), (ink,) * 3, 1)
                x += word + int(rng.integers(3, 7))
            y += line
    f = cv2.GaussianBlur(img, (0, 0), 0.6).astype(np.float32)
    f *= (1 + 0.05 * (_smooth(rng, h, w, 150) - 0.5))[:, :, None]
    return _u8(f)


def _half_size(
    draw: Callable[[np.random.Generator, int, int], np.ndarray],
) -> Callable[[np.random.Generator, int, int], np.ndarray]:
    """``draw`` at half the size, enlarged: for the smooth tables, whose detail the camera blurs anyway."""

    def drawn(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
        return np.asarray(cv2.resize(draw(rng, (w + 1) // 2, (h + 1) // 2), (w, h), interpolation=cv2.INTER_LINEAR))

    return drawn


def marble(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A marble table: a pale (or dark) stone with thin dark veins that wander (turbulent stripes)."""
    dark = rng.random() < 0.3
    base = _colour(rng, 20, 60) if dark else np.array([rng.uniform(205, 240)] * 3, np.float32) + rng.uniform(-8, 8, 3)
    vein = np.array([200, 200, 200], np.float32) if dark else _colour(rng, 60, 140)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    a = float(rng.uniform(0, math.pi))
    t = (x * math.cos(a) + y * math.sin(a)) / float(rng.uniform(75, 200))
    flow = 4.0 * _turbulence(rng, h, w, 125, octaves=5)
    s = np.abs(np.sin(math.pi * (t + flow)))
    veins = (1.0 - s) ** float(rng.uniform(6, 14)) * _smooth(rng, h, w, 100) ** 2 * 1.5  # veins fade in and out
    cloud = _turbulence(rng, h, w, 60)
    img = base * (0.92 + 0.12 * cloud)[:, :, None]
    img = img + veins[:, :, None] * (vein - img) * 0.8
    return _u8(img + _noise(rng, (h, w), 2.0)[:, :, None])


def dark_wood(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A dark wooden table: long grain in planks, with knots the grain flows round (rings about each knot)."""
    base = np.array([25, 45, 75], np.float32) * float(rng.uniform(0.6, 1.2))
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    vertical = rng.random() < 0.5
    across = x if vertical else y
    t = across + 6.0 * _turbulence(rng, h, w, 100)
    for _ in range(int(rng.integers(1, 4))):
        kx, ky = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        r2 = ((x - kx) ** 2 + (y - ky) ** 2) / float(rng.uniform(8, 20)) ** 2
        t += float(rng.uniform(10, 22)) * np.exp(-r2)  # the grain swells round the knot
        knot = np.exp(-r2 * 4)
        t += 8 * knot * np.sin(np.sqrt(r2) * 6)
    grain = 0.5 + 0.5 * np.sin(t / float(rng.uniform(1.25, 3)))
    plank = float(rng.uniform(45, 100))
    seams = (np.abs((across % plank) - plank / 2) > plank / 2 - 1.5).astype(np.float32)
    fine = _noise(rng, (h, w), 1.0)
    fine = cv2.GaussianBlur(fine, (0, 0), sigmaX=1.5 if not vertical else 0.3, sigmaY=0.3 if not vertical else 1.5)
    tex = 0.75 + 0.35 * grain + 0.08 * fine - 0.4 * seams
    return _u8(base[None, None, :] * tex[:, :, None])


BACKGROUNDS: dict[str, Callable[[np.random.Generator, int, int], np.ndarray]] = {
    "tartan": tartan,
    "polka": polka,
    "floral": floral,
    "paper": paper,
    "marble": _half_size(marble),
    "dark_wood": _half_size(dark_wood),
}
"""The tables ``synth.make_background`` does not draw, by name."""

SKIN = ((120, 160, 220), (100, 145, 205), (80, 120, 175), (60, 90, 140), (40, 60, 95))
"""Skin tones (BGR), light to dark."""


def draw_arm(rng: np.random.Generator, img: np.ndarray) -> None:
    """A player's forearm and hand resting on the table ``img`` (in place), shaded round (darker at its sides) and
    casting a soft shadow on the table beside it: the cards drawn later lie beside it or partly on it."""
    h, w = img.shape[:2]
    hw, hh = (w + 1) // 2, (h + 1) // 2  # the maps are drawn at half size
    mask = arm_mask(rng, hw, hh)
    skin = np.array(SKIN[int(rng.integers(len(SKIN)))], np.float32) * float(rng.uniform(0.85, 1.1))
    dx, dy = rng.normal(0, 6, 2)
    shadow = cv2.GaussianBlur(cv2.warpAffine(mask, np.array([[1, 0, dx], [0, 1, dy]], np.float32), (hw, hh)), (0, 0), 5)
    depth = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    roundness = np.clip(depth / max(1.0, float(depth.max()) * 0.6), 0.0, 1.0)
    shade = (0.65 + 0.35 * np.sqrt(roundness)) * (1.0 + 0.05 * (_smooth(rng, hh, hw, 20) - 0.5))
    soft = cv2.GaussianBlur(mask, (0, 0), 0.7)
    light = (1.0 - float(rng.uniform(0.3, 0.55)) * shadow) * (1.0 - soft)
    light, soft, shade = (cv2.resize(m, (w, h), interpolation=cv2.INTER_LINEAR) for m in (light, soft, shade))
    img[:] = _u8(img * light[:, :, None] + (soft * shade)[:, :, None] * skin)
