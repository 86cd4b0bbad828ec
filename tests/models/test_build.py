"""models/training/build.py: every shipped model has a recipe whose steps are commands the training modules accept,
each reading only what an earlier step wrote, and ending in the shipped files."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from models.training import build
from models.training.build import RECIPES, BuildError, Recipe, Step

WORK, MODELS = Path("/w"), Path("/m")


def test_every_shipped_model_has_a_recipe_that_ends_in_its_files() -> None:
    shipped = {p.name for p in (build.ROOT / "models").glob("*.onnx")}
    assert shipped == {
        "cardnet.onnx",
        "covered_cardnet.onnx",
        "pipnet.onnx",
        "outline_first.onnx",
        "outline_checker.onnx",
        "outline_verifier.onnx",
        "index_corners.onnx",
    }
    assert sorted(RECIPES) == ["cardnet", "corners", "covered", "outline", "pipnet"]
    assert RECIPES["cardnet"].steps[-1].output(WORK, MODELS) == MODELS / "cardnet.onnx"
    assert RECIPES["covered"].steps[-1].output(WORK, MODELS) == MODELS / "covered_cardnet.onnx"
    assert RECIPES["pipnet"].steps[-1].output(WORK, MODELS) == MODELS / "pipnet.onnx"
    last = RECIPES["outline"].steps[-1]
    assert last.module == "outline_nets" and last.output(WORK, MODELS) == MODELS / "outline_nets.json"
    assert "--out" in last.argv(WORK, MODELS) and str(MODELS) in last.argv(WORK, MODELS)
    last = RECIPES["corners"].steps[-1]
    assert last.argv(WORK, MODELS)[0] == "export" and last.output(WORK, MODELS) == MODELS / "index_corners.json"


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_step_is_a_command_its_module_accepts(name: str) -> None:
    for step in RECIPES[name].steps:
        module = importlib.import_module(f"models.training.{step.module}")
        args = module.parser().parse_args(step.argv(WORK, MODELS))  # exits (SystemExit) on a wrong option
        # the networks' export steps write several files into the models folder
        assert Path(args.out) in (step.output(WORK, MODELS), step.output(WORK, MODELS).parent)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_step_reads_only_files_an_earlier_step_wrote(name: str) -> None:
    written: set[str] = set()
    for step in RECIPES[name].steps:
        argv = step.argv(WORK, MODELS)
        read = {a for a in argv if a.startswith(f"{WORK}/")} - {str(step.output(WORK, MODELS))}
        assert read <= written, f"{step.command(WORK, MODELS)} reads {sorted(read - written)} that nothing wrote"
        written.add(str(step.output(WORK, MODELS)))
    assert len(written) == len(RECIPES[name].steps)  # no step overwrites another's output


def test_the_outline_recipe_trains_on_the_simulated_tables_frames_too() -> None:
    commands = [s.command(WORK, MODELS) for s in RECIPES["outline"].steps]
    assert sum("--source sim" in c for c in commands) == 3  # scenes, checker lessons, verifier lessons
    assert all(re.search(r"--minutes \d+", c) for c in commands if " train " in c or "outline_first" in c)


def test_a_dry_run_prints_every_command_and_runs_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert build.main(["all", "--dry-run", "--work", str(tmp_path), "--models", str(tmp_path / "m")]) == 0
    out = capsys.readouterr().out
    assert out.count("python -m models.training.") == sum(len(r.steps) for r in RECIPES.values())
    assert "# outline:" in out and "# cardnet:" in out and "# pipnet:" in out and "# covered:" in out
    assert list(tmp_path.iterdir()) == []


def test_a_failing_step_stops_the_build_and_a_done_one_is_skipped(tmp_path: Path) -> None:
    done = Step("outline_scenes", ("--out", "{work}/done.npz"), "{work}/done.npz")
    failing = Step("outline_scenes", ("--scenes", "many", "--out", "{work}/x.npz"), "{work}/x.npz")
    after = Step("outline_scenes", ("--out", "{work}/after.npz"), "{work}/after.npz")
    (tmp_path / "done.npz").write_bytes(b"")
    with pytest.raises(BuildError, match="step 2 failed: python -m models.training.outline_scenes --scenes many"):
        build.run(Recipe("t", "test", 0.0, (done, failing, after)), tmp_path, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["done.npz"]  # the first skipped, the third never run


def test_the_covered_readers_recipe_starts_from_the_shipped_classifier_after_it_is_built() -> None:
    names = list(RECIPES)
    assert names.index("cardnet") < names.index("covered")  # "all" builds the base first
    tune = next(s for s in RECIPES["covered"].steps if s.module == "finetune")
    argv = tune.argv(WORK, MODELS)
    assert argv[argv.index("--base") + 1] == str(MODELS / "cardnet.onnx")
