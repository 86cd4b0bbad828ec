"""How the packages lean on each other: product modules find simulators by scheme (as pyserial's URL
handlers and gpiozero's pin factories are found), never by importing them."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

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
