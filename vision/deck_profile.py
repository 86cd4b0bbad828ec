"""Deck profiles: what one physical deck's index corners look like under this table's light, so that its cards are
looked up rather than guessed (``vision.deck_match`` reads with a profile, ``vision.enrol`` makes one).

A profile holds, for each of the 52 faces (and the back, when a photo of one was given), a few *ink maps* of its
index corners as ``vision.rectify.corner_crops`` cuts them: each colour channel divided by its 98th percentile (the
card's paper, which cancels the light's brightness and colour) and turned to ink (1 - that, clipped to 0-1), stored
as bytes. Each enrolled card gives both its corners, sharp and blurred as a camera may see them later. Beside them:
the cards' height over width and their width in the enrolment photos.

File format (``<name>.deck``: a NumPy ``.npz`` archive, no pickles), format 1:

* ``meta``: a JSON string ``{"format": 1, "name", "labels": [53 labels], "aspect", "card_width_px",
  "created" (ISO time), "sources": [photo names], "crop": [height, width]}``;
* ``templates``: uint8 (53, K, 48, 32, 3) ink maps (255 = full ink), K per label; a label the deck was not
  enrolled with (the back, without ``--back``) has all K zero.

At most ``MAX_BYTES`` (2 MiB) a file.

    store = DeckStore()                   # $CARDTABLE_DECKS, else $XDG_DATA_HOME/cardtable/decks (beside the journal)
    store.save(profile); store.load("home"); store.names(); store.remove("home")
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.errors import VisionError
from vision.events import BACK
from vision.recognizer import LABELS
from vision.rectify import CORNER_H, CORNER_W

FORMAT = 1
SUFFIX = ".deck"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_BYTES = 2 * 1024 * 1024


class DeckError(VisionError, ValueError):
    """A deck profile that cannot be made, found, read or used."""


def default_decks_dir() -> Path:
    """``$CARDTABLE_DECKS``, else ``$XDG_DATA_HOME/cardtable/decks`` (``~/.local/share``): the journal's folder."""
    env = os.environ.get("CARDTABLE_DECKS")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "cardtable" / "decks"


def check_name(name: str) -> str:
    """``name`` when it can name a deck (it becomes a file name); a DeckError saying what one is otherwise."""
    if not NAME.match(name):
        raise DeckError(
            f"a deck name is 1-64 letters, digits, '.', '_' or '-' and starts with a letter or digit: {name!r}"
        )
    return name


@dataclass(frozen=True, eq=False)
class DeckProfile:
    """One enrolled deck (see the module's docstring)."""

    name: str
    templates: np.ndarray  # (53, K, CORNER_H, CORNER_W, 3) uint8 ink maps over LABELS
    aspect: float  # the cards' height over width
    card_width_px: float  # median card width in the enrolment photos (pixels)
    created: str = ""
    sources: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        t = self.templates
        if t.dtype != np.uint8 or t.ndim != 5 or t.shape[0] != len(LABELS) or t.shape[2:] != (CORNER_H, CORNER_W, 3):
            raise DeckError(
                f"deck templates must be uint8 ({len(LABELS)}, K, {CORNER_H}, {CORNER_W}, 3), got {t.dtype} {t.shape}"
            )
        check_name(self.name)

    @property
    def present(self) -> np.ndarray:
        """(53,) bool: the labels the profile holds."""
        held: np.ndarray = np.asarray(self.templates.reshape(len(LABELS), -1).any(axis=1))
        return held

    def has(self, label: str) -> bool:
        return bool(self.present[LABELS.index(label)])

    @property
    def has_back(self) -> bool:
        return self.has(BACK)

    def meta(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "name": self.name,
            "labels": list(LABELS),
            "aspect": round(self.aspect, 4),
            "card_width_px": round(self.card_width_px, 1),
            "created": self.created,
            "sources": list(self.sources),
            "crop": [CORNER_H, CORNER_W],
        }


def write_profile(profile: DeckProfile, path: Path) -> None:
    """Write ``profile`` to ``path`` atomically (a temporary file renamed over it: a crash leaves the old file or the
    new one, never half of one). A profile over ``MAX_BYTES`` is a DeckError and nothing is written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, meta=np.array(json.dumps(profile.meta())), templates=profile.templates)
            f.flush()
            os.fsync(f.fileno())
        size = os.path.getsize(tmp)
        if size > MAX_BYTES:
            raise DeckError(f"{path}: the profile would be {size / 2**20:.1f} MiB, over {MAX_BYTES // 2**20} MiB")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_profile(path: Path) -> DeckProfile:
    """The profile in ``path``; a DeckError saying what is wrong for anything that is not one."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise DeckError(f"{path}: too large for a deck profile ({path.stat().st_size / 2**20:.1f} MiB)")
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            templates = np.asarray(data["templates"])
    except FileNotFoundError:
        raise DeckError(f"{path}: no such deck profile") from None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise DeckError(f"{path}: not a readable deck profile ({type(exc).__name__}: {exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else "?"
        raise DeckError(f"{path}: deck profile format {found}, this cardtable reads format {FORMAT}")
    if meta.get("labels") != list(LABELS) or meta.get("crop") != [CORNER_H, CORNER_W]:
        raise DeckError(f"{path}: the profile's labels or crop size are not this cardtable's")
    try:
        return DeckProfile(
            name=str(meta["name"]),
            templates=templates,
            aspect=float(meta["aspect"]),
            card_width_px=float(meta["card_width_px"]),
            created=str(meta.get("created", "")),
            sources=tuple(str(s) for s in meta.get("sources", [])),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DeckError(f"{path}: the profile's description is incomplete or wrong ({exc})") from None


class DeckStore:
    """The folder deck profiles live in (``default_decks_dir`` unless given)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or default_decks_dir()

    def path(self, name: str) -> Path:
        return self.folder / f"{check_name(name)}{SUFFIX}"

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob(f"*{SUFFIX}") if NAME.match(p.stem))

    def load(self, name: str) -> DeckProfile:
        path = self.path(name)
        if not path.exists():
            known = ", ".join(self.names()) or "none"
            raise DeckError(
                f"no deck named {name!r} in {self.folder} (known: {known}); enrol it with "
                f"`cardtable deck learn {name} PHOTO...`"
            )
        return read_profile(path)

    def save(self, profile: DeckProfile) -> Path:
        path = self.path(profile.name)
        write_profile(profile, path)
        return path

    def remove(self, name: str) -> None:
        path = self.path(name)
        if not path.exists():
            raise DeckError(f"no deck named {name!r} in {self.folder}")
        path.unlink()
