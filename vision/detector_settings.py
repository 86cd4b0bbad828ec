"""The shipped detector with named fields changed: ``FIELD=VALUE`` settings and the ``--fast`` preset.

Shared by ``cardtable recognize --detector``, ``models.training.evaluate --detector`` and the benchmarks,
so a setting measured in a benchmark is typed the same way a user types it.
"""

from __future__ import annotations

import math
from dataclasses import fields, replace

from vision.detect import DEFAULT_CONFIG, DetectorConfig
from vision.errors import VisionError

FAST_SETTINGS: tuple[str, ...] = ("size_pass_estimated=false", "size_pass_image=false", "replan=false")
"""``--fast``: no size pass on the plane estimated from the cards nor on the image (the pass still runs on a
calibrated table), and no second detection on that plane (``replan``). The pass is the largest share of image-mode
detection on pale tables; what leaving it out costs and saves is measured in docs/performance.md ("The fast
image mode"); the second detection doubles image-mode detection."""


class DetectorSettingError(VisionError, ValueError):
    """A ``FIELD=VALUE`` detector setting that names no field, gives a value of the wrong kind, or one outside
    the field's range."""


_LEAST = {
    "size_angles": 1,
    "size_grow": 1,
    "texture_box": 1,
    "texture_open": 1,
    "local_block": 1,
    "gap_close": 0,
    "plane_drop": 0,
}
"""Counts and kernel sizes: at least this (``gap_close`` 0 turns the gap pass off; ``size_angles`` 0 would
search no direction, which ``size_pass=false`` says plainly)."""

_ORDERED = (
    ("min_width", "max_width"),
    ("min_aspect", "max_aspect"),
    ("plane_min_aspect", "plane_max_aspect"),
    ("grey_low", "grey_high"),
    ("chroma_low", "chroma_high"),
    ("hue_low", "hue_high"),
    ("faint_chroma_low", "faint_chroma_high"),
    ("faint_low", "faint_high"),
)
"""Pairs whose first may not exceed the second: a range, or Canny's two thresholds."""


def _out_of_range(config: DetectorConfig, name: str) -> str | None:
    """What is wrong with ``config``'s field ``name`` (a number), or None."""
    value = getattr(config, name)
    if not math.isfinite(value):
        return f"{name} must be a finite number"
    if name == "scale" and not 0.0 < value <= 1.0:
        return "scale must be over 0 and at most 1 (detection at most at the frame's resolution)"
    if name in _LEAST and value < _LEAST[name]:
        return f"{name} must be at least {_LEAST[name]}"
    for low, high in _ORDERED:
        if name in (low, high) and getattr(config, low) > getattr(config, high):
            return f"{low} ({getattr(config, low)}) may not exceed {high} ({getattr(config, high)})"
    return None


def detector_config(settings: list[str], base: DetectorConfig = DEFAULT_CONFIG) -> DetectorConfig:
    """``base`` with ``FIELD=VALUE`` settings changed (bools as true/false, numbers as numbers, finite and in
    the field's range: ``_LEAST``, ``_ORDERED``; a share may be set past 0 or 1 to turn its test
    off, as ``size_cloth_share=2.0``). Raises DetectorSettingError naming the setting
    and what is wrong with it."""
    known = {f.name for f in fields(DetectorConfig)}
    changes: dict[str, object] = {}
    for item in settings:
        name, sep, text = item.partition("=")
        if not sep or name not in known:
            raise DetectorSettingError(f"--detector {item!r}: expected FIELD=VALUE with FIELD one of DetectorConfig's")
        current = getattr(base, name)
        if isinstance(current, bool):
            if text.lower() not in ("true", "false"):
                raise DetectorSettingError(f"--detector {item!r}: {name} is true or false")
            changes[name] = text.lower() == "true"
        elif isinstance(current, (int, float)):
            try:
                changes[name] = type(current)(text)
            except ValueError:
                raise DetectorSettingError(f"--detector {item!r}: {name} is a number") from None
        else:
            raise DetectorSettingError(f"--detector {item!r}: {name} cannot be set here")
    config = replace(base, **changes)  # type: ignore[arg-type]
    for item in settings:  # a value of the right kind can still be one the detector cannot use
        name = item.partition("=")[0]
        if not isinstance(changes[name], bool) and (problem := _out_of_range(config, name)):
            raise DetectorSettingError(f"--detector {item!r}: {problem}")
    return config
