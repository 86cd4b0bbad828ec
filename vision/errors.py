"""The one error root of the ``vision`` package; every error is also a builtin."""

from __future__ import annotations


class VisionError(Exception):
    """Root of every error raised by :mod:`vision`."""


class ModelError(VisionError, ValueError):
    """A model file or its metadata is missing or invalid."""


class ImageError(VisionError, ValueError):
    """An unreadable image or frame."""


class CameraError(VisionError, OSError):
    """A camera source that cannot be opened or has stopped."""


class CalibrationError(VisionError, ValueError):
    """Not enough markers, or a layout file that does not describe a mat."""


class SettingError(VisionError, ValueError):
    """A recognizer setting outside the range it is defined for."""
