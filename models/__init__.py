"""Model files (cardnet.onnx + cardnet.json) and, under training/, the pipeline that makes them."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def shipped(name: str) -> Path:
    """A shipped model file (``cardnet.onnx``, ``pipnet.json``, ...), found through importlib.resources.

    The package is installed as plain files (ONNX Runtime opens a model by its path), so the resource
    is a path on disk; a zipped install is refused by name rather than read wrongly."""
    resource = files(__name__) / name
    if not isinstance(resource, Path):
        raise FileNotFoundError(f"models/{name}: the models package is not installed as files ({resource!r})")
    return resource
