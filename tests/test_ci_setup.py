"""The CI set-up (.ci/): the pinned versions must cover what pyproject.toml declares and satisfy its floors, or
CI installs either an unpinned release or fails to resolve at all."""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for number, line in enumerate((ROOT / ".ci" / "constraints.txt").read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep, f".ci/constraints.txt:{number}: {line!r} is not NAME==VERSION"
        pins[canonicalize_name(name)] = Version(version)
    return pins


def test_ci_pins_every_declared_dependency_to_a_version_its_floor_allows() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]]
    pins = _pins()
    unpinned = [str(r) for r in declared if canonicalize_name(r.name) not in pins]
    assert not unpinned, f"not in .ci/constraints.txt: {unpinned}"
    refused = [
        f"{r} vs =={pins[canonicalize_name(r.name)]}"
        for r in declared
        if pins[canonicalize_name(r.name)] not in r.specifier
    ]
    assert not refused, refused


def test_ci_run_installs_with_the_pins() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert 'export PIP_CONSTRAINT="$PWD/.ci/constraints.txt"' in script
    assert script.index("PIP_CONSTRAINT") < script.rindex("make test")
