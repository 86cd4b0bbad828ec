"""cardtable's eyes: camera sources, card detection, classification, calibration, tracking."""
