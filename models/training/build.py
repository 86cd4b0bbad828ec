"""Rebuild the shipped models from nothing: one command per model, one for all.

    python -m models.training.build cardnet|covered|pipnet|outline|all [--work .cache/build] [--models models]
        [--dry-run]

Each model's recipe (``RECIPES``) is the list of the steps that made the shipped files, each a command of a module
of ``models/training/`` run in its own process; ``--dry-run`` prints them. Intermediate files go to ``--work``, the
model files to ``--models`` (the shipped ones by default: write elsewhere to compare first). A step whose output is
there already is skipped (``--again`` runs it anyway), so a stopped build goes on where it stopped.

Needs the ``train`` extra (torch, onnx, Pillow: ``pip install -e '.[train]'``), and for ``cardnet`` and ``pipnet``
and the outline networks' synthetic scenes the Debian card designs and fonts (``models/training/fonts.txt`` names
the packages). The networks train for a number of epochs (``cardnet``, ``pipnet``) or minutes of the clock
(``outline``: a slower or busier machine trains fewer steps), from seeded scenes, so a rebuild gives networks like
the shipped ones, not the same bytes.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Step:
    """One command of a recipe: ``python -m models.training.<module> <args>``, which writes ``out``. ``{work}`` and
    ``{models}`` in them stand for the build's folders."""

    module: str
    args: tuple[str, ...]
    out: str

    def argv(self, work: Path, models: Path) -> list[str]:
        return [arg.format(work=work, models=models) for arg in self.args]

    def output(self, work: Path, models: Path) -> Path:
        return Path(self.out.format(work=work, models=models))

    def command(self, work: Path, models: Path) -> str:
        return shlex.join(["python", "-m", f"models.training.{self.module}", *self.argv(work, models)])


@dataclass(frozen=True)
class Recipe:
    """How one shipped model is made: what it is, about how long it takes on two cores, its steps in order."""

    name: str
    what: str
    hours: float
    steps: tuple[Step, ...]


def _step(module: str, *args: str) -> Step:
    """A step whose output is its ``--out`` argument."""
    return Step(module, args, args[args.index("--out") + 1])


def _crops(seed: int, scenes: int, *options: str, name: str = "") -> Step:
    return _step(
        "build_crops",
        *options,
        "--scenes",
        str(scenes),
        "--seed",
        str(seed),
        "--out",
        f"{{work}}/crops_{name}{seed}.npz",
    )


_FONTS_0_479 = ("--decks", "all", "--font-share", "0.3", "--font-styles", "0-479", "--hard-share", "0.6")
CARDNET_CROPS = (
    # crop batches: scenes of the training designs (and font-drawn decks) cut by the project's own detector
    _crops(11, 2500),
    _crops(23, 1500),
    _crops(37, 2000, "--hard-share", "0.6"),
    _crops(41, 1500, "--decks", "fonts", "--hard-share", "0.45", name="f"),
    _crops(43, 1500, "--decks", "fonts", "--hard-share", "0.45", name="f"),
    _crops(51, 1500, "--decks", "fonts", "--font-styles", "240-479", "--hard-share", "0.45", name="j"),
    _crops(53, 1500, "--decks", "fonts", "--font-styles", "240-479", "--hard-share", "0.45", name="j"),
    _crops(71, 1500, *_FONTS_0_479, name="k"),
    _crops(73, 1500, *_FONTS_0_479, name="k"),
)
CARDNET = Recipe(
    "cardnet",
    "the card classifier (models/cardnet.onnx, int8): crop batches, 6 epochs from scratch, quantised, evaluated",
    3.0,
    (
        *CARDNET_CROPS,
        _step(
            "train",
            "--crops",
            *(f"{{work}}/crops_{n}.npz" for n in ("k71", "k73", "j51", "j53", "f41", "f43", "37", "23", "11")),
            "--epochs",
            "6",
            "--threads",
            "2",
            "--seed",
            "13",
            "--eval-scenes",
            "20",
            "--out",
            "{models}/cardnet.onnx",
        ),
    ),
)
PIPNET = Recipe(
    "pipnet",
    "the pip model (models/pipnet.onnx): four crop batches of whole cards, 16 epochs",
    0.6,
    (_step("pip_look", "--threads", "2", "--work", "{work}", "--out", "{models}/pipnet.onnx"),),
)


def _scenes(out: str, scenes: int, first_seed: int, source: str = "synth") -> Step:
    return _step(
        "outline_scenes", "--source", source, "--scenes", str(scenes), "--first-seed", str(first_seed), "--out", out
    )


def _first(out: str, minutes: int, *data: str, init: str = "", rate: str = "") -> Step:
    more = ("--init", init, "--rate", rate) if init else ()
    return _step("outline_first", "--data", *data, *more, "--minutes", str(minutes), "--out", out)


def _patch_net(module: str, out: str, minutes: int, *patches: str, init: str = "") -> Step:
    more = ("--init", init, "--rate", "1e-3") if init else ()
    return _step(module, "train", "--patches", *patches, *more, "--minutes", str(minutes), "--out", out)


def _mine(module: str, out: str, model: str, scenes: int, first_seed: int, *options: str) -> Step:
    return _step(
        module,
        "patches",
        "--model",
        model,
        *options,
        "--scenes",
        str(scenes),
        "--first-seed",
        str(first_seed),
        "--out",
        out,
    )


W = "{work}"
SYNTH = (f"{W}/scenes_a.npz", f"{W}/scenes_b.npz")
SIM = f"{W}/scenes_sim.npz"
OUTLINE = Recipe(
    "outline",
    "the learned outline finder's three networks (models/outline_*.onnx and outline_nets.json)",
    3.5,
    (
        # the first stage on synthetic scenes, then the checker and the verifier on its outlines
        _scenes(SYNTH[0], 4000, 0),
        _first(f"{W}/first_1.pt", 35, SYNTH[0]),
        _first(f"{W}/first_2.pt", 20, SYNTH[0], init=f"{W}/first_1.pt", rate="1e-3"),
        _scenes(SYNTH[1], 4000, 160),
        _first(f"{W}/first_3.pt", 18, *SYNTH, init=f"{W}/first_2.pt", rate="1e-3"),
        _mine("outline_checker", f"{W}/checker_lessons.npz", f"{W}/first_3.pt", 3000, 400),
        _patch_net("outline_checker", f"{W}/checker_1.pt", 12, f"{W}/checker_lessons.npz"),
        _mine(
            "outline_verifier",
            f"{W}/verifier_lessons.npz",
            f"{W}/first_3.pt",
            2000,
            600,
            "--checker",
            f"{W}/checker_1.pt",
        ),
        _patch_net("outline_verifier", f"{W}/verifier_1.pt", 8, f"{W}/verifier_lessons.npz"),
        # then the simulated table's frames too (each file of them named twice: learned from twice as often)
        _scenes(SIM, 2000, 5000, "sim"),
        _first(f"{W}/first_sim.pt", 15, *SYNTH, SIM, SIM, init=f"{W}/first_3.pt", rate="1e-3"),
        _mine("outline_checker", f"{W}/checker_sim.npz", f"{W}/first_sim.pt", 1000, 6000, "--source", "sim"),
        _patch_net(
            "outline_checker",
            f"{W}/checker_2.pt",
            6,
            f"{W}/checker_lessons.npz",
            f"{W}/checker_sim.npz",
            f"{W}/checker_sim.npz",
            init=f"{W}/checker_1.pt",
        ),
        _mine(
            "outline_verifier",
            f"{W}/verifier_sim.npz",
            f"{W}/first_sim.pt",
            1000,
            7000,
            "--source",
            "sim",
            "--checker",
            f"{W}/checker_2.pt",
        ),
        _patch_net(
            "outline_verifier",
            f"{W}/verifier_2.pt",
            5,
            f"{W}/verifier_lessons.npz",
            f"{W}/verifier_sim.npz",
            f"{W}/verifier_sim.npz",
            init=f"{W}/verifier_1.pt",
        ),
        # the shipped first stage goes on from the third (not the one that mined the table's lessons), more gently
        _first(f"{W}/first_4.pt", 15, *SYNTH, SIM, init=f"{W}/first_3.pt", rate="3e-4"),
        Step(
            "outline_nets",
            (
                "--first",
                f"{W}/first_4.pt",
                "--checker",
                f"{W}/checker_2.pt",
                "--verifier",
                f"{W}/verifier_2.pt",
                "--out",
                "{models}",
            ),
            "{models}/outline_nets.json",
        ),
    ),
)
OVERLAP_CROPS = (f"{W}/overlap_71.npz", f"{W}/overlap_72.npz", f"{W}/overlap_4c75.npz")
COVERED = Recipe(
    "covered",
    "the covered-card pass's classifier (models/covered_cardnet.onnx, int8): the shipped cardnet fine-tuned on index "
    "corners cut as that pass cuts them (overlap_crops; a third batch mostly of decks painted four-colour) beside "
    "whole cards' crops, quantised",
    1.5,
    (
        _step("overlap_crops", "--scenes", "2000", "--seed", "71", "--width-error", "0.06", "--out", OVERLAP_CROPS[0]),
        _step("overlap_crops", "--scenes", "2000", "--seed", "72", "--realism", "0.5", "--out", OVERLAP_CROPS[1]),
        _step(
            "overlap_crops",
            "--scenes",
            "1000",
            "--seed",
            "75",
            "--four-colour",
            "0.8",
            "--realism",
            "0.5",
            "--width-error",
            "0.06",
            "--out",
            OVERLAP_CROPS[2],
        ),
        _crops(61, 1200, "--decks", "all"),
        _crops(63, 1200, "--decks", "all", "--hard-share", "0.4", "--realism", "0.5"),
        _step(
            "finetune",
            "--base",
            "{models}/cardnet.onnx",
            "--crops",
            *OVERLAP_CROPS,
            f"{W}/crops_61.npz",
            f"{W}/crops_63.npz",
            "--per-file",
            "30000",
            "--epochs",
            "2",
            "--lr",
            "4e-4",
            "--out",
            f"{W}/covered_float.onnx",
        ),
        _step(
            "quantize",
            "--model",
            f"{W}/covered_float.onnx",
            "--crops",
            f"{W}/crops_61.npz",
            "--out",
            "{models}/covered_cardnet.onnx",
        ),
    ),
)
INDEX_SCENES = (f"{W}/index_81.npz", f"{W}/index_82.npz")
CORNERS = Recipe(
    "corners",
    "the index-corner finder (models/index_corners.onnx and index_corners.json): overlap scenes at half size with "
    "their index corners, the network trained by the clock, exported",
    1.0,
    (
        *(
            _step("index_corners", "scenes", "--scenes", "1500", "--seed", seed, "--realism", "0.5", "--out", out)
            for seed, out in zip(("81", "82"), INDEX_SCENES, strict=True)
        ),
        _step("index_corners", "train", "--data", *INDEX_SCENES, "--minutes", "40", "--out", f"{W}/index_1.pt"),
        # then on from it at a third of the rate
        _step(
            "index_corners",
            "train",
            "--data",
            *INDEX_SCENES,
            "--init",
            f"{W}/index_1.pt",
            "--rate",
            "1e-3",
            "--minutes",
            "20",
            "--out",
            f"{W}/index_2.pt",
        ),
        Step(
            "index_corners", ("export", "--net", f"{W}/index_2.pt", "--out", "{models}"), "{models}/index_corners.json"
        ),
    ),
)
RECIPES = {recipe.name: recipe for recipe in (CARDNET, COVERED, PIPNET, OUTLINE, CORNERS)}
"""Every shipped model's recipe, by the name ``build`` takes."""


class BuildError(RuntimeError):
    """A step of a recipe failed."""


def run(recipe: Recipe, work: Path, models: Path, *, again: bool = False, dry_run: bool = False) -> list[str]:
    """Runs ``recipe``'s steps in order (each in its own process, from the repository's root), skipping those whose
    output exists unless ``again``; the commands run (all of them with ``dry_run``, which runs none)."""
    done = []
    for k, step in enumerate(recipe.steps, 1):
        command = step.command(work, models)
        if dry_run:
            done.append(command)
            continue
        if step.output(work, models).exists() and not again:
            print(f"[{recipe.name} {k}/{len(recipe.steps)}] done already: {command}", flush=True)
            continue
        print(f"[{recipe.name} {k}/{len(recipe.steps)}] {command}", flush=True)
        argv = [sys.executable, "-m", f"models.training.{step.module}", *step.argv(work, models)]
        if subprocess.run(argv, cwd=ROOT).returncode != 0:
            raise BuildError(f"{recipe.name}: step {k} failed: {command}")
        done.append(command)
    return done


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m models.training.build", description="Rebuild the shipped models.")
    p.add_argument("model", choices=[*RECIPES, "all"], help="the model to rebuild, or all of them")
    p.add_argument("--work", type=Path, default=ROOT / ".cache" / "build", help="where intermediate files go")
    p.add_argument("--models", type=Path, default=ROOT / "models", help="where the model files go")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    p.add_argument("--again", action="store_true", help="run every step, even where its output is there")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    chosen = list(RECIPES.values()) if args.model == "all" else [RECIPES[args.model]]
    for recipe in chosen:
        work = (args.work / recipe.name).resolve()
        if args.dry_run:
            print(f"# {recipe.name}: {recipe.what} (about {recipe.hours:g} hours on two cores)")
        try:
            for command in run(recipe, work, args.models.resolve(), again=args.again, dry_run=args.dry_run):
                if args.dry_run:
                    print(command)
        except BuildError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
