"""Camera motion blur: how long and which way, from the frame's cepstrum, and a Wiener deconvolution for it.

A camera or a table that moves while the shutter is open smears the frame along a line: the frame's spectrum is
multiplied by that line's, whose zeros repeat every 1/L along its direction. In the cepstrum (the spectrum of the
log spectrum) such a pattern is one deep negative peak at the offset (L, angle) from the origin, as a checked
cloth's period is a peak at its own. ``estimate_motion`` looks for the deepest one 3-10 px out; on the held-out
hard frames' 6-8 px blurs its median error is 0.25 px and 2.5 degrees (``benchmarks/blur_look.py``, six seeds;
docs/performance.md).
``deblur`` then undoes the line for a patch of the frame (a card the recogniser is unsure of).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import cv2
import numpy as np

from vision.errors import ImageError

MOTION_DEPTH = 0.02
"""The least depth of the cepstrum's peak that is a motion blur. On the held-out hard frames of six seeds
(``benchmarks/blur_look.py``) 95% of the 6-8 px motion blurs are deeper than 0.024, 95% of the sharp and defocused
frames shallower than 0.020 and 0.016. A sharp frame taken for blurred has its unsure cards read from patches
deconvolved for a blur it does not have (hence the recogniser's ``BLUR_LOOK_LENGTH``)."""
MOTION_ISOLATION = 1.5
"""... and the least isolation. The cepstrum of a frame with little texture (a card on plain felt) has deep values
in every direction, one of them over MOTION_DEPTH; a blur's peak is alone in its direction. On the validation
set's frames (styles 960-1199, seed 5; a scratch measurement) the isolation's 5th percentile is 1.98 for 6-8 px
blurs and its 95th 1.59-1.76 for sharp frames; with 1.5 the share of sharp realistic frames taken for a 5.5 px blur
or longer fell 8.4% -> 1.4%, and of 6-8 px blurs 100% -> 97.7% (docs/performance.md)."""
DEBLUR_BALANCE = 0.01
"""The Wiener filter's noise-to-signal term: 0.005-0.02 changed at most two cards on the validation set."""
_LENGTHS = np.arange(3.0, 10.01, 0.25)  # px: shorter blurs the model reads through; longer ones are not seen
_ANGLES = np.arange(0.0, 180.0, 1.0)  # degrees; a line's two directions are one
_REACH = 11  # the cepstrum's neighbourhood of the origin searched, px
_ISOLATION_APART = 20.0  # degrees from the peak's direction where the isolation's other values lie
_POOL = 4  # frequencies averaged per block, each way, before the cosine sums
# the polar grid's points in the neighbourhood (lengths down, angles across; y down), built once
_GRID_X = (_REACH + _LENGTHS[:, None] * np.cos(np.deg2rad(_ANGLES))[None]).astype(np.float32)
_GRID_Y = (_REACH - _LENGTHS[:, None] * np.sin(np.deg2rad(_ANGLES))[None]).astype(np.float32)


class Motion(NamedTuple):
    """A straight motion blur: ``length`` px, ``angle`` degrees counter-clockwise from the image's x axis as
    seen (y down), the ``depth`` of its cepstral peak (how clearly the frame shows it) and its ``isolation``: that
    depth over the deepest value 20 degrees or more from its direction (a blur has one direction)."""

    length: float
    angle: float
    depth: float
    isolation: float = 1.0


def cepstral_peak(grey: np.ndarray) -> Motion:
    """The deepest negative peak of ``grey``'s cepstrum 3-10 px from the origin, whatever its depth."""
    if grey.ndim != 2 or min(grey.shape) < 2 * _REACH + 1:
        raise ImageError(f"expected a grey image at least {2 * _REACH + 1} px a side, got shape {grey.shape}")
    return _deepest(_cepstrum_near_origin(grey))


def estimate_motion(grey: np.ndarray, min_length: float = 0.0) -> Motion | None:
    """The frame's motion blur, or None where its cepstral peak is not a clear one (``is_clear``)."""
    peak = cepstral_peak(grey)
    return peak if is_clear(peak, min_length) else None


def is_clear(peak: Motion, min_length: float = 0.0) -> bool:
    """Whether a cepstral peak is a motion blur: ``MOTION_DEPTH`` deep, ``MOTION_ISOLATION`` isolated, and (for a
    caller that has no use for short blurs) at least ``min_length`` px long."""
    return peak.depth >= MOTION_DEPTH and peak.isolation >= MOTION_ISOLATION and peak.length >= min_length


def motion_kernel(motion: Motion) -> np.ndarray:
    """The blur's point-spread function: a line ``length`` px long at ``angle``, anti-aliased, summing to 1
    (odd square size)."""
    size = (int(np.ceil(motion.length)) | 1) + 2
    fine = 4  # drawn 4x finer, then shrunk by area: a sub-pixel length and any angle
    big = np.zeros((size * fine, size * fine), np.float32)
    centre = (size * fine - 1) / 2
    t = np.deg2rad(motion.angle)
    half = np.array([np.cos(t), -np.sin(t)]) * (motion.length - 1) / 2 * fine
    shift = 4  # cv2.line's fractional bits
    ends = [tuple(int(round((centre + sign * d) * (1 << shift))) for d in half) for sign in (-1, 1)]
    cv2.line(big, ends[0], ends[1], 1.0, fine, cv2.LINE_AA, shift)
    kernel = cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA)
    return kernel / float(kernel.sum())


def deblur(image: np.ndarray, motion: Motion, balance: float = DEBLUR_BALANCE) -> np.ndarray:
    """``image`` (BGR uint8) with ``motion`` undone by a Wiener filter; the border is mirrored first (to sizes the
    transform is fast at), so a patch cut from a frame rings little at its edges."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ImageError(f"expected a BGR uint8 image, got shape {image.shape} {image.dtype}")
    kernel = motion_kernel(motion)
    k = kernel.shape[0]
    pad = 2 * k
    h0, w0 = image.shape[:2]
    h, w = cv2.getOptimalDFTSize(h0 + 2 * pad), cv2.getOptimalDFTSize(w0 + 2 * pad)
    src = cv2.copyMakeBorder(image, pad, h - h0 - pad, pad, w - w0 - pad, cv2.BORDER_REFLECT).astype(np.float32)
    psf = np.zeros((h, w), np.float32)
    psf[:k, :k] = kernel
    psf = np.roll(psf, (-(k // 2), -(k // 2)), axis=(0, 1))  # centred on the origin: no shift
    transfer = cv2.dft(psf, flags=cv2.DFT_COMPLEX_OUTPUT)
    re, im = transfer[..., 0], transfer[..., 1]
    power = re * re + im * im + balance
    wiener = np.dstack([re / power, -im / power])  # conj(H) / (|H|^2 + balance)
    blue, green, red = cv2.split(src)
    # blue + i green as one complex signal: the filter is real in space, so the two stay apart (one transform
    # pair for two channels)
    pair = cv2.idft(cv2.mulSpectrums(cv2.dft(cv2.merge([blue, green])), wiener, 0), flags=cv2.DFT_SCALE)
    alone = cv2.idft(
        cv2.mulSpectrums(cv2.dft(red, flags=cv2.DFT_COMPLEX_OUTPUT), wiener, 0),
        flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT,
    )
    out = cv2.merge([pair[..., 0], pair[..., 1], alone])[pad : pad + h0, pad : pad + w0]
    return np.clip(out, 0, 255).astype(np.uint8)


def _cepstrum_near_origin(grey: np.ndarray) -> np.ndarray:
    """(2 * _REACH + 1) square of the cepstrum about its origin, centred. The spectrum is OpenCV's packed one of a
    real image (half the work of a complex one); its log magnitude is real and even, so the cepstrum is twice the
    cosine sum over the half plane, taken on the half plane averaged over blocks of _POOL x _POOL frequencies (a
    small offset's cosine hardly changes across a block) as two small matrix products: 3 ms for a 1280 x 720 frame
    against 8 ms for two full transforms, with the same peaks."""
    h, w = grey.shape
    g = grey.astype(np.float32)
    g = (g - np.float32(g.mean())) * _window(h, w)  # no frame border in the spectrum
    packed = cv2.dft(g)  # columns 1 .. 2 * half: (re, im) of column frequencies 1 .. half, every row
    half = (w - 1) // 2
    log_magnitude = cv2.log(cv2.magnitude(packed[:, 1 : 2 * half : 2], packed[:, 2 : 2 * half + 1 : 2]) + 1.0)
    rows, cols = h // _POOL, half // _POOL
    pooled = np.asarray(
        cv2.resize(log_magnitude[: rows * _POOL, : cols * _POOL], (cols, rows), interpolation=cv2.INTER_AREA),
        np.float64,
    )
    pooled -= pooled.mean()  # a constant is the origin's alone
    offsets = np.arange(-_REACH, _REACH + 1)
    centre = (_POOL - 1) / 2  # of a block, in frequencies
    down = np.exp(2j * np.pi * np.outer(offsets, np.arange(rows) * _POOL + centre) / h)
    across = np.exp(2j * np.pi * np.outer(offsets, np.arange(cols) * _POOL + centre + 1) / w)
    near: np.ndarray = (np.real(down @ pooled @ across.T) * (2 * _POOL * _POOL) / (h * w)).astype(np.float32)
    return near


def _deepest(near: np.ndarray) -> Motion:
    """The lowest value of the centred neighbourhood ``near`` on the polar grid, as a blur."""
    values = cv2.remap(near, _GRID_X, _GRID_Y, cv2.INTER_LINEAR)
    i, j = np.unravel_index(int(np.argmin(values)), values.shape)
    depth = -float(values[i, j])
    apart = np.abs((_ANGLES - _ANGLES[j] + 90.0) % 180.0 - 90.0) >= _ISOLATION_APART
    elsewhere = -float(values[:, apart].min())
    return Motion(float(_LENGTHS[i]), float(_ANGLES[j]), depth, depth / elsewhere if elsewhere > 0 else np.inf)


@lru_cache(maxsize=4)
def _window(h: int, w: int) -> np.ndarray:
    window = cv2.createHanningWindow((w, h), cv2.CV_32F)
    window.flags.writeable = False
    return window
