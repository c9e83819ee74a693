"""Food Alley Companion: a camera-assisted referee for Food Alley."""

import os

__version__ = "0.1.0"

# The referee works offline and sends nothing anywhere. onnxruntime's wheels for Linux upload
# usage events to Microsoft from a thread of their own, and keep a device identifier on disk,
# unless this is set before onnxruntime starts (it reads it once a process): so it is set here,
# before any part of the companion can import onnxruntime.
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
