#!/usr/bin/env bash
# The kiosk's tests open a real offscreen window (SDL2 offscreen), which needs Mesa's OpenGL.
# Install it where it is missing and we may (root with apt); otherwise say what to install.
set -euo pipefail
if ldconfig -p 2>/dev/null | grep -q 'libGL.so.1' && ldconfig -p | grep -q 'libEGL.so.1'; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Mesa's OpenGL for the kiosk's offscreen window tests"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends libgl1 libegl1 libgl1-mesa-dri >/dev/null
else
    echo "the kiosk's tests need OpenGL (Debian: sudo apt install libgl1 libegl1 libgl1-mesa-dri)" >&2
    exit 1
fi
