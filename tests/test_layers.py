"""How the packages lean on each other: product modules find simulators by scheme (as pyserial's URL
handlers and gpiozero's pin factories are found), never by importing them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import firmware_bridge
from firmware_bridge import errors as bridge_errors
from firmware_bridge.backends import Backend, backend_factory, register_backend
from firmware_bridge.dealer import Dealer
from firmware_bridge.errors import LinkError
from vision.camera import CameraSource, SimSource, camera_for, register_scheme
from vision.errors import CameraError


def _modules_after(imports: str) -> set[str]:
    code = f"import sys\n{imports}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_opening_cameras_and_dealers_imports_no_simulator() -> None:
    loaded = _modules_after("import vision.camera, firmware_bridge.backends, firmware_bridge.dealer")
    assert "vision.simtable" not in loaded
    assert "firmware_bridge.simulator" not in loaded
    assert "firmware_bridge.sim_backends" not in loaded


def test_the_simulated_camera_is_found_by_its_scheme() -> None:
    source = camera_for("sim:frog,3?seed=2&frames=1&script=none")
    assert isinstance(source, SimSource) and source.sim.layout.game == "frog"


def test_a_scheme_registered_at_run_time_opens_its_specs() -> None:
    seen: list[tuple[str, str, dict[str, str]]] = []

    def opener(spec: str, rest: str, opts: dict[str, str]) -> CameraSource:
        seen.append((spec, rest, opts))
        return camera_for("sim:chinese-ten,2?frames=1")

    with pytest.raises(CameraError, match="unknown camera scheme 'lab'"):
        camera_for("lab:front?fps=5")
    register_scheme("lab", opener)
    assert isinstance(camera_for("lab:front?fps=5"), SimSource)
    assert seen == [("lab:front?fps=5", "front", {"fps": "5"})]


def test_the_simulated_dealer_is_found_by_name() -> None:
    with Dealer.open(backend="mock", seats=2) as dealer:
        assert dealer.backend.name == "mock" and dealer.simulator is not None
        assert dealer.hello().seats == 2


def test_a_backend_registered_at_run_time_is_used_and_an_unknown_one_is_a_clear_error() -> None:
    made: list[dict[str, Any]] = []
    mock = backend_factory("mock")
    assert mock is not None

    def factory(**options: Any) -> Backend:
        made.append(options)
        return mock(**options)

    with pytest.raises(LinkError, match="no dealer backend 'bench'"):
        Dealer.open(backend="bench")
    register_backend("bench", factory)
    with Dealer.open(backend="bench", seats=3) as dealer:
        assert dealer.hello().seats == 3
    assert made == [{"seats": 3}]


def _table_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "table" or name.startswith("table.")}


def test_the_bridge_takes_only_the_card_vocabulary_from_the_table() -> None:
    bridge = Path(firmware_bridge.__file__).parent
    used = {str(p.relative_to(bridge)): _table_imports(p) for p in sorted(bridge.rglob("*.py"))}
    assert {name for names in used.values() for name in names} == {"table.cards"}, used


def test_every_bridge_error_is_a_bridge_error() -> None:
    for name in dir(bridge_errors):
        value = getattr(bridge_errors, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, bridge_errors.BridgeError), name
    raised = set()
    bridge = Path(firmware_bridge.__file__).parent
    for path in bridge.rglob("*.py"):
        if path.parent.name == "firmware":  # the device's own code, not the host's package
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name):
                raised.add(node.exc.func.id)
    assert not raised & {"ValueError", "RuntimeError", "TypeError", "KeyError", "OSError", "ConfigError"}, raised
