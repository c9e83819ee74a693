#!/usr/bin/env bash
# Installs the Food Alley Companion kiosk on 64-bit Raspberry Pi OS (Bookworm or Trixie), once,
# as a user with sudo. Safe to run again: every step looks first and leaves alone what is
# already right. deploy/README.md says what it changes; --help how to run it.
set -euo pipefail

PROG=install-pi.sh
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")

usage() {
    cat <<'EOF'
Usage: sudo deploy/install-pi.sh [--start] [--with-training] [--release bookworm|trixie]

Installs the Food Alley Companion kiosk on 64-bit Raspberry Pi OS, Bookworm (Debian 12) or
Trixie (Debian 13):
  1. apt packages: python3-picamera2 and libcamera (never from pip), python3-venv, apt's numpy,
     and the EGL/GLES/DRM/GBM and touch (mtdev) libraries Kivy's wheels load without a desktop
  2. the system user food-alley (no login shell), in the groups video, render and input
  3. its data directory /var/lib/food-alley (the unit's StateDirectory)
  4. a venv with --system-site-packages (picamera2 and apt's numpy stay visible) where the unit's
     ExecStart expects it, /opt/food-alley-companion/.venv
  5. the project into it, without the train extra unless asked, pinned by
     deploy/constraints-RELEASE.txt
  6. systemd/food-alley-kiosk.service into /etc/systemd/system, enabled at boot
Each step checks first; what is already right is left alone and said so ("already there").

Options:
  --start           start the kiosk now (restart it when this run changed anything)
  --with-training   the train extra too (torch, onnx): companion enroll can then learn a box's
                    art on this Pi, not only on a PC. 122 MB to download, 530 MB in the venv;
                    an estimated 40-50 minutes to learn a box on a Pi 4 (deploy/README.md)
  --release NAME    bookworm or trixie, instead of reading /etc/os-release
  -h, --help        this help

Environment (for tests and for staging; the defaults install on this machine):
  ROOT   prefix of every file path read or written (/etc/os-release, the venv, the data
         directory, the unit); commands (apt-get, useradd, systemctl, ...) are still the ones
         found on PATH and act on this machine
  SRC    the project checkout to install (default: the folder above this script)
EOF
}

say() { printf '%s\n' "$*"; }
die() {
    printf '%s: error: %s\n' "$PROG" "$*" >&2
    exit 1
}
# a failure nobody caught names the command and the line
trap 'rc=$?; printf "%s: error: \"%s\" failed (exit %d, line %d); nothing after it was done. Fix the cause and run %s again (it resumes where it stopped).\n" "$PROG" "$BASH_COMMAND" "$rc" "$LINENO" "$PROG" >&2' ERR

# run COMMAND...: shows it, runs it, and on failure says what failed and what to do ($HINT)
HINT=""
run() {
    say "  + $*"
    local rc=0
    "$@" || rc=$?
    if [[ $rc -ne 0 ]]; then
        die "'$*' failed (exit $rc). ${HINT:-Fix the cause and run $PROG again.}"
    fi
}

# ---- arguments --------------------------------------------------------------------------------
START=0
WITH_TRAINING=0
RELEASE=""
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --start) START=1 ;;
        --with-training) WITH_TRAINING=1 ;;
        --release)
            [[ $# -ge 2 ]] || die "--release needs a name: bookworm or trixie"
            RELEASE=$2; shift ;;
        --release=*) RELEASE=${1#--release=} ;;
        *) printf '%s: unknown option %s (see --help)\n' "$PROG" "$1" >&2; exit 2 ;;
    esac
    shift
done
case $RELEASE in
    ""|bookworm|trixie) ;;
    *) die "--release $RELEASE: this script knows bookworm and trixie" ;;
esac

ROOT=${ROOT:-}
ROOT=${ROOT%/}
SRC=${SRC:-$(cd "$(dirname "$SELF")/.." && pwd)}
UNIT_SRC=$SRC/systemd/food-alley-kiosk.service
UNIT=$(basename "$UNIT_SRC")
[[ -f $UNIT_SRC ]] || die "no unit at $UNIT_SRC: run this script from the project's checkout"

# ---- root -------------------------------------------------------------------------------------
if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null || die "this needs root, and there is no sudo: run it as root"
    say "$PROG: not root, going on under sudo"
    args=()
    [[ $START -eq 1 ]] && args+=(--start)
    [[ $WITH_TRAINING -eq 1 ]] && args+=(--with-training)
    [[ -n $RELEASE ]] && args+=(--release "$RELEASE")
    exec sudo -- bash "$SELF" "${args[@]}"
fi

# ---- the release ------------------------------------------------------------------------------
if [[ -z $RELEASE ]]; then
    os_release=$ROOT/etc/os-release
    [[ -r $os_release ]] || die "cannot read $os_release to tell the release; give --release bookworm|trixie"
    # shellcheck disable=SC1090
    IFS=$'\t' read -r os_id os_codename os_name < <(
        . "$os_release"; printf '%s\t%s\t%s\n' "${ID:-}" "${VERSION_CODENAME:-}" "${PRETTY_NAME:-${NAME:-unknown}}")
    case "$os_id:$os_codename" in
        debian:bookworm|raspbian:bookworm) RELEASE=bookworm ;;
        debian:trixie|raspbian:trixie) RELEASE=trixie ;;
        *) die "this system is '$os_name' ($os_id $os_codename): $PROG installs on 64-bit Raspberry Pi OS Bookworm (Debian 12) or Trixie (Debian 13) only. On a close relative of those, --release bookworm|trixie forces one, at your own risk." ;;
    esac
fi
case $RELEASE in
    bookworm) PYVER=3.11 ;;
    trixie) PYVER=3.13 ;;
esac
CONSTRAINTS=$SRC/deploy/constraints-$RELEASE.txt
[[ -f $CONSTRAINTS ]] || die "no constraints file $CONSTRAINTS"

# ---- what the unit says: one place for the user, its groups, the data directory and the venv -----
unit_value() {  # the value of KEY= in the unit, the first one
    sed -n "s/^$1=//p" "$UNIT_SRC" | head -n 1
}
SVC_USER=$(unit_value User)
SVC_GROUP=$(unit_value Group)
read -r -a SVC_GROUPS <<<"$(unit_value SupplementaryGroups)"
STATE_DIR=/var/lib/$(unit_value StateDirectory)
STATE_MODE=$(unit_value StateDirectoryMode)
STATE_MODE=${STATE_MODE:-0755}
EXEC=$(unit_value ExecStart)
EXEC=${EXEC%% *}                    # /opt/food-alley-companion/.venv/bin/companion
VENV=${EXEC%/bin/*}                 # /opt/food-alley-companion/.venv
[[ -n $SVC_USER && -n $SVC_GROUP && $STATE_DIR != /var/lib/ && $VENV != "$EXEC" ]] ||
    die "$UNIT_SRC lacks User=, Group=, StateDirectory= or an ExecStart= in a venv's bin/"
STAMP=$ROOT$VENV/.food-alley-installed
APT_PYTHON_DIR=/usr/lib/python3/dist-packages

say "$PROG: Raspberry Pi OS $RELEASE (Python $PYVER), from $SRC${ROOT:+, under ROOT=$ROOT}"
CHANGED=0
changed() { CHANGED=$((CHANGED + 1)); }

# ---- checks before changing anything ------------------------------------------------------------
arch=$(dpkg --print-architecture) || die "dpkg --print-architecture failed: is this Debian?"
[[ $arch == arm64 ]] ||
    die "this machine is $arch: the pinned wheels are for 64-bit Raspberry Pi OS (arm64). PyPI has no onnxruntime wheels for the 32-bit OS (armhf): install the 64-bit Raspberry Pi OS."

# ---- 1. apt packages ------------------------------------------------------------------------------
# An entry "a|b" takes the first name apt knows (Trixie renamed libmtdev1 to libmtdev1t64). Kivy's
# wheels carry their own SDL2, which loads EGL, GLES, DRM, GBM and udev for the kmsdrm video
# driver; Kivy opens libmtdev for the touchscreen and its cgl_gl backend links libGL. Its fonts
# (Roboto) ship inside the wheel.
APT_PACKAGES=(python3-venv python3-numpy python3-picamera2 python3-libcamera
              libgl1 libegl1 libgles2 libgbm1 libdrm2 libudev1 "libmtdev1t64|libmtdev1")

installed() {  # is any of the alternatives a|b installed?
    local alt alts
    IFS='|' read -r -a alts <<<"$1"
    for alt in "${alts[@]}"; do
        [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$alt" 2>/dev/null) == ii* ]] && return 0
    done
    return 1
}
available() {  # the first of the alternatives a|b that apt can install
    local alt alts
    IFS='|' read -r -a alts <<<"$1"
    for alt in "${alts[@]}"; do
        if apt-cache show --no-all-versions "$alt" >/dev/null 2>&1; then
            printf '%s\n' "$alt"
            return 0
        fi
    done
    return 1
}

say "apt packages"
missing=()
for entry in "${APT_PACKAGES[@]}"; do
    installed "$entry" || missing+=("$entry")
done
if [[ ${#missing[@]} -eq 0 ]]; then
    say "  apt packages: already installed (${APT_PACKAGES[*]})"
else
    export DEBIAN_FRONTEND=noninteractive
    HINT="Is the network up, and apt not busy (another apt or unattended-upgrades)? Then run $PROG again."
    run apt-get update
    names=()
    for entry in "${missing[@]}"; do
        name=$(available "$entry") || {
            [[ $entry == python3-picamera2 || $entry == python3-libcamera ]] &&
                die "apt has no $entry: it comes from the Raspberry Pi archive (archive.raspberrypi.com), which Raspberry Pi OS lists in its apt sources; is this Raspberry Pi OS?"
            die "apt has no package ${entry//|/ or }: check /etc/apt/sources.list(.d) and run $PROG again"
        }
        names+=("$name")
    done
    run apt-get install -y --no-install-recommends "${names[@]}"
    changed
fi
HINT=""

# ---- the Python and the numpy that the constraints were resolved for -------------------------------
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])') ||
    die "python3 does not run: sudo apt-get install --reinstall python3"
[[ $pyver == "$PYVER" ]] ||
    die "python3 is $pyver, but $RELEASE and $(basename "$CONSTRAINTS") mean Python $PYVER: is --release right?"
apt_numpy=$(dpkg-query -W -f='${Version}' python3-numpy 2>/dev/null) ||
    die "python3-numpy is not installed: sudo apt-get install python3-numpy, then run $PROG again"
apt_numpy=${apt_numpy#*:}           # 1:1.24.2-1+deb12u1 -> 1.24.2
apt_numpy=${apt_numpy%%-*}
apt_numpy=${apt_numpy%%+*}
pin_numpy=$(sed -n 's/^numpy==\([^ ;#]*\).*/\1/p' "$CONSTRAINTS")
[[ $apt_numpy == "$pin_numpy" ]] ||
    die "apt's python3-numpy is $apt_numpy but $CONSTRAINTS pins numpy==$pin_numpy. pip would put a second numpy in the venv and shadow apt's, which picamera2's modules are built for. Set the pin to numpy==$apt_numpy, check it with deploy/check-constraints.sh $RELEASE (and the tests), then run $PROG again."

# ---- 2. the service user -----------------------------------------------------------------------------
say "user $SVC_USER"
want_groups=()
for group in "${SVC_GROUPS[@]}"; do
    if ! getent group "$group" >/dev/null; then
        HINT="" run groupadd --system "$group"
        changed
    fi
done
if getent passwd "$SVC_USER" >/dev/null; then
    read -r -a have_groups <<<"$(id -nG "$SVC_USER")"
    for group in "${SVC_GROUPS[@]}"; do
        [[ " ${have_groups[*]} " == *" $group "* ]] || want_groups+=("$group")
    done
    if [[ ${#want_groups[@]} -eq 0 ]]; then
        say "  user $SVC_USER: already there (groups ${SVC_GROUPS[*]})"
    else
        run usermod --append --groups "$(IFS=,; echo "${want_groups[*]}")" "$SVC_USER"
        say "  user $SVC_USER: added to ${want_groups[*]}"
        changed
    fi
else
    if getent group "$SVC_GROUP" >/dev/null; then
        primary=(--gid "$SVC_GROUP")
    else
        primary=(--user-group)
    fi
    run useradd --system "${primary[@]}" --groups "$(IFS=,; echo "${SVC_GROUPS[*]}")" \
        --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin \
        --comment "Food Alley Companion kiosk" "$SVC_USER"
    say "  user $SVC_USER: created (system user, no login, groups ${SVC_GROUPS[*]})"
    changed
fi

# ---- 3. the data directory ----------------------------------------------------------------------------
say "data directory $ROOT$STATE_DIR"
want="$SVC_USER:$SVC_GROUP ${STATE_MODE#0}"
have=$(stat -c '%U:%G %a' "$ROOT$STATE_DIR" 2>/dev/null || true)
if [[ $have == "$want" ]]; then
    say "  $ROOT$STATE_DIR: already there ($want)"
else
    run install -d -o "$SVC_USER" -g "$SVC_GROUP" -m "$STATE_MODE" "$ROOT$STATE_DIR"
    changed
fi

# ---- 4. the venv ------------------------------------------------------------------------------------------
say "venv $ROOT$VENV"
cfg=$ROOT$VENV/pyvenv.cfg
if [[ -x $ROOT$VENV/bin/python && -f $cfg ]] &&
        grep -Eqi '^include-system-site-packages *= *true' "$cfg" &&
        grep -Eq "^version(_info)? *= *$PYVER\." "$cfg"; then
    say "  venv: already there (Python $PYVER, with the system's site-packages)"
else
    [[ -e $ROOT$VENV ]] && say "  venv: not right for Python $PYVER with the system's site-packages: made anew"
    HINT="python3-venv is installed by step 1; is the disk full?"
    run python3 -m venv --clear --system-site-packages "$ROOT$VENV"
    HINT=""
    rm -f "$STAMP"
    changed
fi

# ---- 5. the project -----------------------------------------------------------------------------------
# The stamp holds a hash of what was installed: the release, the constraints, and the project's
# build files (pyproject.toml, README.md, companion/, models/), and whether the train extra was
# asked for. Same hash: nothing to do.
if [[ $WITH_TRAINING -eq 1 ]]; then
    EXTRA="[train]"
    say "project (with the train extra, $(basename "$CONSTRAINTS"))"
else
    EXTRA=""
    say "project (no train extra, $(basename "$CONSTRAINTS"))"
fi
BUILD_FILES=(pyproject.toml README.md companion models)
for path in "${BUILD_FILES[@]}"; do
    [[ -e $SRC/$path ]] || die "$SRC/$path is missing: is $SRC the project's checkout?"
done
project_hash() {
    {
        printf '%s %s %s\n' "$RELEASE" "$PYVER" "$EXTRA"
        cat "$CONSTRAINTS"
        (cd "$SRC" && find "${BUILD_FILES[@]}" -type f ! -name '*.pyc' ! -path '*/__pycache__/*' \
            -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    } | sha256sum | cut -d' ' -f1
}
hash=$(project_hash)
if [[ -f $STAMP && $(cat "$STAMP") == "$hash" && -x $ROOT$EXEC ]]; then
    say "  project: already installed (stamp $STAMP matches)"
else
    # pip builds in a copy, so that root writes nothing into the checkout
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    (cd "$SRC" && cp -R "${BUILD_FILES[@]}" "$stage/")
    HINT="Is the network up (pip reaches PyPI)? A pin without a wheel for this Pi shows in deploy/check-constraints.sh $RELEASE."
    run "$ROOT$VENV/bin/python" -m pip install --no-input --disable-pip-version-check \
        --constraint "$CONSTRAINTS" "$stage$EXTRA"
    HINT=""
    if [[ -n $EXTRA ]]; then
        "$ROOT$VENV/bin/python" -c 'import torch, onnx' ||
            die "pip installed the train extra but the venv cannot import torch and onnx (above); remove $ROOT$VENV and run $PROG --with-training again"
    fi
    # apt's numpy must be the one the venv imports, and the compiled wheels must load with it
    seen=$("$ROOT$VENV/bin/python" -c 'import numpy, cv2, onnxruntime, yaml
print(numpy.__version__, numpy.__file__)') ||
        die "the venv cannot import numpy, cv2, onnxruntime and yaml together (above); remove $ROOT$VENV and run $PROG again"
    read -r seen_version seen_file <<<"$seen"
    [[ $seen_version == "$apt_numpy" && $seen_file == "$APT_PYTHON_DIR"/* ]] ||
        die "the venv imports numpy $seen_version from $seen_file, not apt's $apt_numpy from $APT_PYTHON_DIR: something installed a numpy into the venv. Remove $ROOT$VENV and run $PROG again."
    [[ -x $ROOT$EXEC ]] || die "pip installed the project but $ROOT$EXEC, the unit's ExecStart, is not there"
    printf '%s\n' "$hash" >"$STAMP"
    say "  project: installed (numpy $seen_version from apt)"
    PROJECT_CHANGED=1
    changed
fi

# ---- 6. the unit ----------------------------------------------------------------------------------------
say "unit $UNIT"
unit_dst=$ROOT/etc/systemd/system/$UNIT
if [[ -f $unit_dst ]] && cmp -s "$UNIT_SRC" "$unit_dst"; then
    say "  $unit_dst: already installed"
else
    run install -D -m 0644 "$UNIT_SRC" "$unit_dst"
    run systemctl daemon-reload
    UNIT_CHANGED=1
    changed
fi
if systemctl is-enabled --quiet "$UNIT" 2>/dev/null; then
    say "  $UNIT: already enabled"
else
    run systemctl enable "$UNIT"
    changed
fi

if [[ $START -eq 1 ]]; then
    if systemctl is-active --quiet "$UNIT" 2>/dev/null; then
        if [[ -n ${PROJECT_CHANGED:-}${UNIT_CHANGED:-} ]]; then
            run systemctl restart "$UNIT"
        else
            say "  $UNIT: already running"
        fi
    else
        HINT="See why: journalctl -u $UNIT -b"
        run systemctl start "$UNIT"
    fi
elif [[ -n ${PROJECT_CHANGED:-}${UNIT_CHANGED:-} ]] && systemctl is-active --quiet "$UNIT" 2>/dev/null; then
    say "  $UNIT runs the previous version until: sudo systemctl restart $UNIT"
fi

if [[ $CHANGED -eq 0 ]]; then
    say "$PROG: nothing to change, everything was already in place"
else
    say "$PROG: done, $CHANGED step(s) changed something. The kiosk starts at boot on tty1 (or now: sudo systemctl start $UNIT); logs: journalctl -u $UNIT"
fi
