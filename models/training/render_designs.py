"""Render the Debian card designs (gnome-cards-data, kdegames-card-data-kf5) to PNG with rsvg-convert.

Nothing third-party is committed: this runs at training or test time and caches under ``.cache/designs``.

* aisleriot sheets (``/usr/share/aisleriot/cards/*.svgz``) are a 13 x 5 grid (clubs, diamonds, hearts,
  spades; the fifth row holds the jokers and the back at column 2), so one render per sheet is cut into
  cells. Per-element export gives wrong bounds for many of them (clip paths, stray ink).
* KDE decks (``/usr/share/carddecks/*/*.svgz``) have no common layout: each card is exported by id.

Each card is trimmed to its opaque pixels and checked (portrait, card aspect ratio, mostly opaque);
a design with any failing card is dropped with a message rather than silently teaching bad crops.

    python -m models.training.render_designs [--width 200] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import gzip
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "designs"
AISLERIOT = Path("/usr/share/aisleriot/cards")
CARDDECKS = Path("/usr/share/carddecks")
RANKS = "A23456789TJQK"
SUITS = "CDHS"
LABELS = tuple(r + s for s in SUITS for r in RANKS) + ("back",)

# Not French-suited (hearts/bells/leaves/acorns) or not cards at all: never used.
EXCLUDED = {"kde:xskat-german", "kde:future"}

_GN_RANK = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_GN_SUIT = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}


def design_sources() -> dict[str, Path]:
    """Installed designs by name: ``gnome:<sheet>`` and ``kde:<folder without svg->``."""
    found: dict[str, Path] = {}
    if AISLERIOT.is_dir():
        for f in sorted(AISLERIOT.glob("*.svgz")):
            if f.stem.isascii():  # "Атласные" is the same art as atlasnye
                found[f"gnome:{f.stem}"] = f
    if CARDDECKS.is_dir():
        for d in sorted(CARDDECKS.glob("svg-*")):
            files = sorted(d.glob("*.svgz"))
            if files:
                found[f"kde:{d.name[4:]}"] = files[0]
    return {k: v for k, v in found.items() if k not in EXCLUDED}


def _trim(rgba: np.ndarray) -> np.ndarray | None:
    alpha = rgba[:, :, 3]
    ys, xs = np.nonzero(alpha > 128)
    if len(xs) == 0:
        return None
    return rgba[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _check(card: np.ndarray | None, label: str) -> str | None:
    """Why ``card`` is not a usable card image, or None when it is."""
    if card is None:
        return f"{label}: empty render"
    h, w = card.shape[:2]
    aspect = h / w
    if not 1.25 <= aspect <= 1.7:
        return f"{label}: aspect {aspect:.2f} ({w}x{h}) is not a card's"
    if (card[:, :, 3] > 128).mean() < 0.9:
        return f"{label}: only {(card[:, :, 3] > 128).mean():.0%} opaque"
    return None


def _render(args: list[str]) -> np.ndarray:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.png"
        subprocess.run(["rsvg-convert", *args, "-o", str(out)], check=True, capture_output=True, timeout=120)
        img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise RuntimeError(f"rsvg-convert gave no RGBA image for {args}")
    return img


def render_gnome(path: Path, width: int) -> dict[str, np.ndarray | None]:
    sheet = _render(["-w", str(13 * width), "-b", "none", str(path)])
    ch, cw = sheet.shape[0] / 5, sheet.shape[1] / 13
    cells: dict[str, np.ndarray | None] = {}
    for i, label in enumerate(LABELS):
        row, col = (4, 2) if label == "back" else divmod(i, 13)
        cell = sheet[round(row * ch) : round((row + 1) * ch), round(col * cw) : round((col + 1) * cw)]
        cells[label] = _trim(cell)
    return cells


def render_kde(path: Path, width: int) -> dict[str, np.ndarray | None]:
    ids = set(re.findall(r'id="([^"]+)"', gzip.open(path, "rt", errors="replace").read()))
    cards: dict[str, np.ndarray | None] = {}
    for label in LABELS:
        if label == "back":
            elem = "back"
        else:
            elem = f"{_GN_RANK.get(label[0], label[0])}_{_GN_SUIT[label[1]]}"
        if elem not in ids:
            cards[label] = None
            continue
        try:
            cards[label] = _trim(_render([f"--export-id={elem}", "-w", str(width), str(path)]))
        except (subprocess.CalledProcessError, RuntimeError):
            cards[label] = None
    return cards


def render_design(name: str, path: Path, width: int = 200, *, cache: Path = CACHE) -> Path | None:
    """Render one design into ``cache/<name>/`` (PNG with alpha, one per label); None if rejected.

    The cards are written into a temporary folder beside it that is then renamed into place, so a reader
    (a parallel test worker rendering the same design) sees a whole design or none: written in place, one
    worker read a PNG that another was still rewriting."""
    folder = cache / name.replace(":", "_")
    if (folder / "ok").exists():
        return folder
    rejected = cache / f"{folder.name}.rejected"
    if rejected.exists():
        return None
    cards = render_gnome(path, width) if name.startswith("gnome:") else render_kde(path, width)
    problems = [p for label, img in cards.items() if (p := _check(img, label))]
    cache.mkdir(parents=True, exist_ok=True)
    if problems:
        print(f"{name}: rejected ({len(problems)} bad cards, e.g. {problems[0]})", file=sys.stderr)
        rejected.write_text("\n".join(problems) + "\n")
        return None
    if folder.exists() and not (folder / "ok").exists():  # left unfinished by a render before they were atomic
        shutil.rmtree(folder, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=cache))
    for label, img in cards.items():
        assert img is not None
        if img.shape[1] != width:  # uniform size keeps later scene scaling simple
            img = cv2.resize(img, (width, round(img.shape[0] * width / img.shape[1])), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(staging / f"{label}.png"), img)
    (staging / "ok").write_text("ok\n")
    try:
        staging.rename(folder)
    except OSError as exc:  # another process put the same design in place first
        shutil.rmtree(staging)
        if not (folder / "ok").exists():
            raise OSError(f"{folder}: cannot put the rendered design in place ({exc})") from exc
    return folder


def load_design(folder: Path) -> dict[str, np.ndarray]:
    """The rendered cards of a design as BGRA arrays keyed by label."""
    cards = {}
    for label in LABELS:
        img = cv2.imread(str(folder / f"{label}.png"), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise FileNotFoundError(f"{folder / label}.png: missing or unreadable (render the design again)")
        cards[label] = np.asarray(img)
    return cards


def render_all(width: int = 200, only: list[str] | None = None, *, cache: Path = CACHE) -> dict[str, Path]:
    done: dict[str, Path] = {}
    for name, path in design_sources().items():
        if only and name not in only:
            continue
        folder = render_design(name, path, width, cache=cache)
        if folder is not None:
            done[name] = folder
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--width", type=int, default=200)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    done = render_all(args.width, args.only)
    print(f"{len(done)} designs ready in {CACHE}: {', '.join(done)}")


if __name__ == "__main__":
    main()
