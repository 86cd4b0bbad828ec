"""models.training.font_faces: training faces drawn with the installed fonts (Pillow, any TTF/OTF font)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from models.training import font_faces
from models.training.font_faces import FontFacesError, font_deck, font_style, rank_fonts, render_font_face
from table.cards import CARD_CODES


@pytest.fixture(autouse=True)
def _few_fonts_are_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    # CI machines may have only DejaVu; the drawing itself is what these tests check.
    monkeypatch.setattr(font_faces, "MIN_FONTS", 1)


def test_installed_text_fonts_are_found_and_symbol_fonts_are_not() -> None:
    fonts = rank_fonts()
    assert fonts, "no installed font draws A, 2-10, J, Q, K (fonts-dejavu-core is in every Debian image)"
    assert not [p for p in fonts if any(w in p.name for w in font_faces.NOT_TEXT)]


def test_a_font_without_the_glyphs_is_rejected(tmp_path: Path) -> None:
    junk = tmp_path / "junk.ttf"
    junk.write_bytes(b"not a font")
    assert not font_faces._has_glyphs(junk, font_faces.RANK_GLYPHS)
    # A real text font has letters but no private-use glyph, so that "glyph" is the missing-glyph box.
    assert not font_faces._has_glyphs(rank_fonts()[0], "A\ue001")


def test_every_card_renders_in_several_styles() -> None:
    for style in (0, 5, 17):
        h = round(120 * font_style(style).aspect)
        for card in CARD_CODES:
            img = render_font_face(card, style, width=120)
            assert img.shape == (h, 120, 3) and img.dtype == np.uint8


def test_index_corners_are_turned_180_degrees() -> None:
    for style in range(6):
        img = render_font_face("7H", style, width=200)
        top_left = img[:80, :50].astype(int)
        bottom_right = img[-80:, -50:][::-1, ::-1].astype(int)
        assert np.abs(top_left - bottom_right).mean() < 8, style


def test_the_index_corner_has_ink_in_the_suit_colour() -> None:
    for style in range(8):
        for card, red in (("QH", True), ("9D", True), ("9S", False), ("KC", False)):
            corner = render_font_face(card, style, width=200)[:70, :50].reshape(-1, 3).astype(int)
            ink = corner[corner.sum(axis=1) < 450]
            assert len(ink) > 40, (style, card)  # the index is there
            redness = (ink[:, 2] - ink[:, :2].mean(axis=1)).mean()
            assert (redness > 60) == red, (style, card, redness)


def test_styles_differ_and_are_deterministic() -> None:
    assert np.array_equal(render_font_face("TS", 3), render_font_face("TS", 3))
    assert len({render_font_face("TS", s).tobytes() for s in range(6)}) == 6


def test_deck_gives_faces_and_backs_with_rounded_alpha() -> None:
    deck = font_deck(4, width=150)
    face, back = deck("JD"), deck("back")
    assert face.shape[2] == 4 and back.shape == face.shape
    assert face[0, 0, 3] == 0 and face[face.shape[0] // 2, 75, 3] == 255


def test_too_few_fonts_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(font_faces, "MIN_FONTS", 10_000)
    with pytest.raises(FontFacesError, match="install the font packages"):
        font_style(0)


def test_faces_are_the_same_in_every_process() -> None:
    """Court pictures once took their seed from hash(), which Python salts per process."""
    code = (
        "import hashlib; from models.training import font_faces as f; f.MIN_FONTS = 1; "
        "print(hashlib.sha256(b''.join(f.render_font_face(c, s).tobytes() "
        "for s in range(4) for c in ('JH', 'QS', 'KD'))).hexdigest())"
    )
    root = Path(__file__).resolve().parents[3]
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


def test_listing_names_the_fonts_and_the_packages() -> None:
    text = font_faces.listing()
    assert "apt-get install" in text and rank_fonts()[0].name in text
    assert f"{len(rank_fonts())} font files" in text


def test_ci_installs_every_font_package_the_training_faces_were_drawn_with() -> None:
    """The validation styles and the test scenes are drawn in the installed fonts: CI must have the same ones
    as ``models/training/fonts.txt`` lists, or its faces (and the tests' counts) are other ones. ``.ci/system-deps``
    reads them from that file's package line, which must be ``APT_LINE``'s."""
    root = Path(__file__).resolve().parents[3]
    packages = font_faces.APT_LINE.removeprefix("apt-get install ").split()
    assert packages and all(p.startswith("fonts-") for p in packages)
    assert f"# Debian packages (bookworm): {font_faces.APT_LINE}\n" in (root / "models/training/fonts.txt").read_text()
    listed = subprocess.run(
        ["bash", str(root / ".ci" / "system-deps"), "--list"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert set(packages) <= set(listed), sorted(set(packages) - set(listed))
    assert {"gnome-cards-data", "kdegames-card-data-kf5", "librsvg2-bin"} <= set(listed)


def test_styles_from_240_vary_the_pip_field_and_some_have_jumbo_indices() -> None:
    assert {font_style(s).pips for s in range(0, 240, 7)} == {font_faces.FIXED_PIPS}  # v5's styles as drawn
    varied = [font_style(s) for s in range(240, 300)]
    assert len({st.pips for st in varied}) == len(varied)
    jumbo = [s for s, st in zip(range(240, 300), varied, strict=True) if st.rank_height >= 0.2]
    assert 5 <= len(jumbo) <= 30, jumbo
    for style in jumbo[:3]:  # the big rank is in the corner, in the suit's colour
        corner = render_font_face("9D", style, width=200)[:90, :70].reshape(-1, 3).astype(int)
        ink = corner[corner.sum(axis=1) < 450]
        assert len(ink) > 150 and (ink[:, 2] - ink[:, :2].mean(axis=1)).mean() > 60, style


def test_build_crops_reads_a_style_range() -> None:
    import argparse

    from models.training.build_crops import style_range

    assert style_range("240-243") == (240, 241, 242, 243) and style_range("7") == (7,)
    for bad in ("x-3", "9-2", "-1"):
        with pytest.raises(argparse.ArgumentTypeError):
            style_range(bad)
