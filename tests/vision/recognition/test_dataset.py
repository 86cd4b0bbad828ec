"""models.training.dataset: training crops from the project's own detector and warp."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from models.training.dataset import NONE, build
from models.training.synth import Deck, faces_deck
from vision.rectify import CORNER_H, CORNER_W


def _counting(deck: Deck, calls: dict[str, int], name: str) -> Deck:
    def wrapped(label: str) -> np.ndarray:
        calls[name] += 1
        return deck(label)

    return wrapped


@pytest.mark.parametrize(("font_share", "used"), [(0.0, {"faces:1"}), (1.0, {"fonts:0"})])
def test_font_share_picks_the_deck_kind(font_share: float, used: set[str]) -> None:
    calls = {"faces:1": 0, "fonts:0": 0}
    decks = {
        "faces:1": _counting(faces_deck(1), calls, "faces:1"),
        "fonts:0": _counting(faces_deck(2), calls, "fonts:0"),
    }  # a stand-in named like a font deck
    crops, labels, stats = build(decks, 4, seed=3, log_every=0, font_share=font_share)
    assert {k for k, n in calls.items() if n} == used
    assert crops.shape[1:] == (2, CORNER_H, CORNER_W, 3) and len(crops) == len(labels)
    assert stats["cards"] > 0 and (labels < NONE).sum() >= stats["cards"]  # every card cut at least once


def test_training_design_names_fold_each_unbroken_run_of_font_styles_into_a_range() -> None:
    """A range entry claims every style in it, so only unbroken runs fold (styles 0, 7, 12 and 239 used
    to be written "fonts:0-239")."""
    from models.training.train import training_design_names

    decks = {"gnome:anglo": None, "faces:3": None, **{f"fonts:{k}": None for k in range(240)}}
    assert training_design_names(decks) == ["faces:3", "gnome:anglo", "fonts:0-239"]
    gaps = {f"fonts:{k}": None for k in (7, 0, 239, 12, 8, 9)}
    assert training_design_names(gaps) == ["fonts:0", "fonts:7-9", "fonts:12", "fonts:239"]
    assert training_design_names({"kde:standard": None}) == ["kde:standard"]


def test_evaluate_measures_clutter_only_tables_on_their_own(capsys: pytest.CaptureFixture[str]) -> None:
    """`evaluate --clutter-frames N --seed S`: only the clutter-only tables (the false-card target), N
    frames dealt from S, the same frames `clutter_only` deals; it refuses to --write a partial model card."""
    from models.training.evaluate import clutter_only, main
    from vision.recognizer import Recognizer

    result = main(["--clutter-frames", "3", "--seed", "555"])
    assert set(result) == {"command", "clutter_only"}
    assert result["clutter_only"] == clutter_only(Recognizer(), 3, 555).rates()
    assert result["command"] == "python -m models.training.evaluate --clutter-frames 3 --seed 555"
    with pytest.raises(SystemExit):
        main(["--clutter-frames", "3", "--write"])
    assert "cannot --write" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # it used to ignore --scenes silently
        main(["--clutter-frames", "3", "--scenes", "5"])
    assert "--scenes sets the card scenes" in capsys.readouterr().err


def test_a_scenes_table_plane_maps_its_cards_to_rectangles() -> None:
    """`Scene.plane` (what `evaluate --calibrated` hands the recogniser) is the scene's own camera tilt
    undone: every card of a strongly tilted scene maps to a rectangle of the generator's card shape
    (1.38-1.45 long to wide), though in the image it is a trapezium."""
    import cv2

    from models.training.synth import HARD, faces_deck, make_scene

    rng = np.random.default_rng(8)
    image_aspects = []
    for _ in range(4):
        scene = make_scene(rng, faces_deck(0), HARD)
        assert scene.plane is not None
        for _, quad in scene.cards:
            on_table = cv2.perspectiveTransform(quad[None].astype(np.float64), scene.plane)[0]
            sides = np.linalg.norm(np.roll(on_table, -1, axis=0) - on_table, axis=1)
            assert abs(sides[0] - sides[2]) < 0.01 * sides[0] and abs(sides[1] - sides[3]) < 0.01 * sides[1]
            edges = np.roll(on_table, -1, axis=0) - on_table
            corner_cos = abs(float(edges[0] @ edges[1])) / (sides[0] * sides[1])
            assert corner_cos < 0.01 and 1.37 < max(sides[:2]) / min(sides[:2]) < 1.46
            img = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
            image_aspects.append(max(img[0] + img[2], img[1] + img[3]) / min(img[0] + img[2], img[1] + img[3]))
    assert max(image_aspects) - min(image_aspects) > 0.15  # in the image they are not all one shape


def test_evaluate_calibrated_says_so_in_its_command() -> None:
    from models.training.evaluate import clutter_only, main
    from vision.recognizer import Recognizer

    result = main(["--clutter-frames", "2", "--seed", "7", "--calibrated"])
    assert result["command"] == "python -m models.training.evaluate --clutter-frames 2 --seed 7 --calibrated"
    assert result["clutter_only"] == clutter_only(Recognizer(), 2, 7, calibrated=True).rates()


def test_evaluate_names_every_setting_other_than_the_shipped_ones_in_its_command() -> None:
    """The record's command says each non-shipped setting, in the order of evaluate's table, so it reruns as it
    was measured."""
    from models.training.evaluate import main

    result = main(
        [
            "--clutter-frames",
            "1",
            "--seed",
            "7",
            "--no-blur-look",
            "--zooms",
            "1.15",
            "--pip-look-below",
            "0.8",
            "--detector",
            "size_angles=6",
            "--second-look-below",
            "0.6",
            "--both-corners",
        ]
    )
    assert result["command"] == (
        "python -m models.training.evaluate --clutter-frames 1 --seed 7 --detector size_angles=6"
        " --zooms 1.15 --both-corners --pip-look-below 0.8 --second-look-below 0.6"
        " --no-blur-look"
    )


def test_train_widths_take_four_positive_channel_counts() -> None:
    """`train --widths A,B,C,D` sets the channels of the four convolution blocks (a wider network trained
    from scratch); anything else is refused with a message that says what was expected."""
    import argparse

    from models.training.train import WIDTHS, _widths

    assert _widths("24,40,72,96") == (24, 40, 72, 96)
    assert WIDTHS == (24, 40, 72, 96)  # the shipped network (v8, v9)
    for bad in ("24,40,72", "24,40,x,96", "24,40,0,96"):
        with pytest.raises(argparse.ArgumentTypeError, match="channel counts"):
            _widths(bad)


def test_a_model_trained_on_crop_batches_lists_the_decks_they_were_dealt_from(tmp_path: Path) -> None:
    """`train --crops` took its training designs from the decks it would deal itself, not from the batches:
    a network trained on font-drawn crops listed no font styles. The batches' stored decks count now, and an
    older batch without them counts as dealt from the training designs; build commands are kept in order."""
    from models.training.train import crop_batch_designs

    new = tmp_path / "new.npz"
    np.savez(
        new,
        labels=np.zeros(1),
        decks=np.array(["fonts:0", "fonts:1", "gnome:anglo"]),
        command=np.array("python -m models.training.build_crops --seed 1"),
    )
    old = tmp_path / "old.npz"
    np.savez(old, labels=np.zeros(1))
    names, commands = crop_batch_designs([np.load(new), np.load(old)], ["kde:standard", "gnome:anglo"])
    assert names == ["gnome:anglo", "kde:standard", "fonts:0-1"]
    assert commands == ["python -m models.training.build_crops --seed 1"]


def test_storing_figures_waits_for_the_other_writer_and_keeps_both(tmp_path: Path) -> None:
    """`evaluate --write` (image) and `--write --calibrated` each rewrite the metadata: the second waits for
    the first's lock and reads what it wrote, so neither figure is lost; the file is never left partial."""
    import fcntl
    import json
    import threading

    from models.training.evaluate import store_accuracy

    meta = tmp_path / "cardnet.json"
    meta.write_text(json.dumps({"labels": ["AC"]}))
    lock = open(tmp_path / "cardnet.json.lock", "w")  # another run, between its read and its write
    fcntl.flock(lock, fcntl.LOCK_EX)
    writer = threading.Thread(target=store_accuracy, args=(meta, "accuracy_calibrated", {"found": 0.97}))
    writer.start()
    writer.join(0.3)
    assert writer.is_alive()  # waiting for the lock, nothing written yet
    assert json.loads(meta.read_text()) == {"labels": ["AC"]}
    meta.write_text(json.dumps({"labels": ["AC"], "accuracy": {"found": 0.99}}))  # the other run's write
    lock.close()  # releases the lock
    writer.join(5)
    assert not writer.is_alive()
    assert json.loads(meta.read_text()) == {
        "labels": ["AC"],
        "accuracy": {"found": 0.99},
        "accuracy_calibrated": {"found": 0.97},
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cardnet.json", "cardnet.json.lock"]


def test_scenes_record_their_camera_blur_and_evaluate_splits_its_tallies_by_it() -> None:
    """`Scene.blur` is the blur the generator gave the frame (drawing it changes no random draw: the frames
    are those of earlier sessions); `evaluate_decks(by_blur=)` splits the same tallies by its class."""
    from dataclasses import replace

    from models.training.evaluate import BLUR_CLASSES, Tally, blur_class, evaluate_decks
    from models.training.synth import HARD, Blur, make_scene
    from vision.recognizer import Recognizer

    rng = np.random.default_rng(3)
    assert make_scene(rng, faces_deck(0), replace(HARD, blur=0.0)).blur == Blur("none", 0.0)
    blurred = [make_scene(rng, faces_deck(0), replace(HARD, blur=1.0, n_cards=2)).blur for _ in range(8)]
    assert {b.kind for b in blurred} == {"defocus", "motion"}
    assert all(0.5 <= b.amount <= 1.8 if b.kind == "defocus" else 3 <= b.amount <= 8 for b in blurred)
    assert [blur_class(Blur(*b)) for b in [("none", 0), ("defocus", 1.7), ("motion", 5), ("motion", 6)]] == list(
        BLUR_CLASSES
    )

    by_blur: dict[str, Tally] = {}
    total, _ = evaluate_decks(
        Recognizer(), {"faces:0": faces_deck(0)}, replace(HARD, n_cards=4), 6, 11, by_blur=by_blur
    )
    assert len(by_blur) >= 2 and set(by_blur) <= set(BLUR_CLASSES)
    for field in ("cards", "found", "named", "frames", "classifier_named"):
        assert sum(getattr(t, field) for t in by_blur.values()) == getattr(total, field)


def test_evaluate_measures_other_detector_settings_but_never_writes_them() -> None:
    """``evaluate --detector FIELD=VALUE``: the shipped detector with fields changed, typed as they are;
    unknown fields and values are refused; with ``--write`` it is an error (the model card holds the
    shipped settings only)."""
    from models.training.evaluate import main
    from vision.detect import DEFAULT_CONFIG
    from vision.detector_settings import detector_config

    cfg = detector_config(["size_pass_image=false", "size_level=0.7", "gap_close=5"])
    assert cfg.size_pass_image is False and cfg.size_level == 0.7 and cfg.gap_close == 5
    assert isinstance(cfg.gap_close, int) and cfg.hue_pass == DEFAULT_CONFIG.hue_pass
    assert detector_config([]) == DEFAULT_CONFIG
    for bad in (
        ["nope=1"],
        ["size_pass=maybe"],
        ["size_level=high"],
        ["size_level"],
        ["plane=1"],
        ["size_angles=0"],
        ["size_grow=-1"],
        ["scale=0"],
        ["deck_fit_turn=inf"],
        ["max_aspect=1.1"],
    ):
        with pytest.raises(ValueError, match="--detector"):
            detector_config(bad)
    # in range once the settings are taken together; a share past 1 turns its test off (docs/performance.md)
    both = detector_config(["min_width=500", "max_width=600", "size_cloth_share=2.0", "gap_close=0"])
    assert (both.min_width, both.max_width, both.size_cloth_share, both.gap_close) == (500.0, 600.0, 2.0, 0)
    with pytest.raises(SystemExit):
        main(["--detector", "size_pass=false", "--write", "--scenes", "1"])


def test_evaluate_keeps_every_repeated_detector_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--detector A=1 --detector B=2`` and ``--detector A=1 B=2`` set both fields (argparse's ``extend``;
    a second flag used to replace the first, and A/B runs measured the wrong detector)."""
    import models.training.evaluate as evaluate

    seen: list[list[str]] = []

    def stop(settings: list[str]) -> None:
        seen.append(list(settings))
        raise SystemExit(0)

    monkeypatch.setattr(evaluate, "detector_config", stop)
    for argv in (
        ["--detector", "snap_early=false", "--detector", "size_grow=3"],
        ["--detector", "snap_early=false", "size_grow=3"],
    ):
        with pytest.raises(SystemExit):
            evaluate.main([*argv, "--scenes", "1"])
    assert seen == [["snap_early=false", "size_grow=3"]] * 2


def test_match_index_names_the_first_outline_within_twelve_percent_and_match_returns_that_outline() -> None:
    """``match_index``: a card 100 px wide matches an outline whose corners are 5 px off (under 12 px), not one
    20 px off nor one elsewhere; of two that match, the first is taken. ``match`` returns the same outline."""
    from models.training.dataset import match, match_index

    card = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
    near, far, elsewhere = card + 5, card + 20, card + 400
    assert match_index(card, [elsewhere, far, near]) == 2
    assert match_index(card, [elsewhere, far]) is None
    assert match_index(card, [near, card]) == 0
    found = [elsewhere, card, near]
    assert match(card, found) is found[1] and match(card, [far]) is None


def test_detected_scenes_leave_out_the_card_less_ones_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """``detected_scenes``: every dealt scene with the outlines the detector finds in it, numbered from 0;
    ``empty=False`` (pip_look's crops) leaves out those dealt no cards and keeps the others' numbers."""
    from models.training import dataset
    from models.training.synth import SceneSpec

    real = dataset.random_spec
    calls = iter(range(100))

    def every_other_empty(rng: np.random.Generator, hard_share: float = 0.3) -> SceneSpec:
        spec = real(rng, hard_share)
        return SceneSpec(n_cards=0, clutter=1) if next(calls) % 2 else replace(spec, n_cards=max(spec.n_cards, 5))

    monkeypatch.setattr(dataset, "random_spec", every_other_empty)
    decks = {"faces:1": faces_deck(1)}
    rng = np.random.default_rng(3)
    dealt = list(dataset.detected_scenes(rng, decks, 4, hard_share=0.0, font_share=0.0))
    assert [i for i, _, _ in dealt] == [0, 1, 2, 3]
    assert [len(scene.cards) > 0 for _, scene, _ in dealt] == [True, False, True, False]
    assert all(len(found) >= 3 for i, _, found in dealt if i % 2 == 0)  # most of 5+ cards are outlined
    assert all(q.shape == (4, 2) for _, _, found in dealt for q in found)
    calls = iter(range(100))
    kept = list(
        dataset.detected_scenes(np.random.default_rng(3), decks, 4, hard_share=0.0, font_share=0.0, empty=False)
    )
    assert [i for i, _, _ in kept] == [0, 2] and all(scene.cards for _, scene, _ in kept)


def test_card_outline_is_the_detected_outline_or_else_the_true_one_jittered() -> None:
    """``card_outline``: the outline ``match`` pairs with the card (found); a card no outline matches is cut
    through its true outline moved by about ``amount`` of its width (not found)."""
    from models.training.dataset import card_outline

    card = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
    near = card + 5
    q, found = card_outline(np.random.default_rng(0), card, [card + 400, near])
    assert found and q is near
    q, found = card_outline(np.random.default_rng(0), card, [card + 400], amount=0.02)
    assert not found and q.dtype == np.float32
    moved = np.abs(q - card)
    assert 0 < moved.max() < 5 * 0.02 * 100 and moved.mean() < 2 * 0.02 * 100


def test_clutter_lies_under_the_cards_with_no_band_of_bare_table_round_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """``make_scene``: the table's clutter (hands, chips, coins, phones) lies under the cards, right up to each card's
    edge. The older generator (``make_pinned_scene``, ``clear_band`` 7) kept the clutter 7 px clear of
    every card, a band of bare table that no real table shows; its cards are placed by the same random draws."""
    import cv2

    from models.training import synth

    # the camera's blur, noise and JPEG mix pixels across the cards' edges: left out, to compare the drawing itself
    monkeypatch.setattr(synth, "_camera", lambda rng, img, spec: (img, synth.Blur("none", 0.0)))
    spec = replace(synth.HARD, glare=0.0, shadow=0.0)

    def draw(seed: int, make: Callable[..., synth.Scene] = synth.make_scene) -> synth.Scene:
        return make(np.random.default_rng(seed), faces_deck(0), spec)

    banded = 0
    for seed in range(4):
        scene, old = draw(seed), draw(seed, synth.make_pinned_scene)
        with monkeypatch.context() as m:  # the same draws, no card drawn: the table and its clutter alone
            m.setattr(synth, "composite", lambda img, card, quad: None)
            table = draw(seed)
        assert [(label, q.tolist()) for label, q in scene.cards] == [(label, q.tolist()) for label, q in old.cards]
        covered = np.zeros(scene.image.shape[:2], np.uint8)
        for _, quad in scene.cards:
            cv2.fillConvexPoly(covered, cv2.convexHull(np.round(quad).astype(np.int32)), 255)
        outside = cv2.dilate(covered, np.ones((5, 5), np.uint8)) == 0
        assert np.array_equal(scene.image[outside], table.image[outside])  # the clutter up to every card
        ring = outside & (cv2.dilate(covered, np.ones((13, 13), np.uint8)) > 0)
        banded += int((old.image[ring] != table.image[ring]).any(axis=1).sum())
    assert banded > 500  # the old drawing's band of bare table, where the clutter runs under a card


def test_evaluate_clear_band_deals_the_frames_drawn_with_a_clear_band_and_never_writes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``evaluate --clear-band 7``: both kinds of card scene drawn as the older generator drew them
    (``SceneSpec.clear_band``),
    said in the record's command; by default 0 (clutter under the cards); with ``--write`` or below 0 an error."""
    from models.training import designs, evaluate
    from models.training.synth import SceneSpec

    dealt: list[SceneSpec] = []

    def deal(
        rec: object, decks: dict[str, Deck], spec: SceneSpec, *args: object, **kwargs: object
    ) -> tuple[evaluate.Tally, dict[str, evaluate.Tally]]:
        dealt.append(spec)
        return evaluate.Tally(), {name: evaluate.Tally() for name in decks}

    monkeypatch.setattr(evaluate, "evaluate_decks", deal)
    monkeypatch.setattr(designs, "held_out_decks", lambda: {"a": faces_deck(0)})
    monkeypatch.setattr(evaluate, "clutter_only", lambda *args, **kwargs: evaluate.Tally())
    result = evaluate.main(["--scenes", "1", "--seed", "7", "--clear-band", "7"])
    assert result["command"] == "python -m models.training.evaluate --scenes 1 --seed 7 --clear-band 7"
    assert [s.clear_band for s in dealt] == [7, 7] and [s.hard for s in dealt] == [False, True]
    dealt.clear()
    evaluate.main(["--scenes", "1", "--seed", "7"])
    assert [s.clear_band for s in dealt] == [0, 0]
    for argv in (["--clear-band", "7", "--write"], ["--clear-band", "-1"]):
        with pytest.raises(SystemExit):
            evaluate.main(["--scenes", "1", *argv])


def test_evaluate_s_validation_fonts_are_none_a_model_trained_on_and_never_write_the_model_card(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from models.training.designs import FONT_STYLES
    from models.training.evaluate import VALIDATION_FONT_STYLES, main

    assert VALIDATION_FONT_STYLES and not set(VALIDATION_FONT_STYLES) & set(FONT_STYLES)
    with pytest.raises(SystemExit):
        main(["--validation-fonts", "--write"])
    assert "--validation-fonts measures other settings" in capsys.readouterr().err
