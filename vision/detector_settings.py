"""The shipped detector with named fields changed: ``FIELD=VALUE`` settings and the ``--fast`` preset.

Shared by ``cardtable recognize --detector``, ``models.training.evaluate --detector`` and the benchmarks,
so a setting measured in a benchmark is typed the same way a user types it.
"""

from __future__ import annotations

from dataclasses import fields, replace

from vision.detect import DEFAULT_CONFIG, DetectorConfig
from vision.errors import VisionError

FAST_SETTINGS: tuple[str, ...] = ("size_pass_estimated=false",)
"""``--fast``: no size pass on the plane estimated from the cards (the pass still runs on a calibrated
table). The pass is the largest share of image-mode detection on pale tables; what leaving it out costs
and saves is measured in docs/performance.md ("The fast image mode")."""


class DetectorSettingError(VisionError, ValueError):
    """A ``FIELD=VALUE`` detector setting that names no field or gives a value of the wrong kind."""


def detector_config(settings: list[str], base: DetectorConfig = DEFAULT_CONFIG) -> DetectorConfig:
    """``base`` with ``FIELD=VALUE`` settings changed (bools as true/false, numbers as numbers).
    Raises DetectorSettingError naming the setting and what is wrong with it."""
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
    return replace(base, **changes)  # type: ignore[arg-type]
