"""Food Alley Companion: a camera-assisted referee for Food Alley."""

__version__ = "0.1.0"
