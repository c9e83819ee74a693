#!/usr/bin/env bash
# Resolves the project's runtime dependencies (no train extra) against each release's constraints
# file, for the Pi's platform (CPython on 64-bit ARM, wheels only), with pip's own resolver and
# without installing anything. Prints the resolved set of each release; exits non-zero when a
# release does not resolve (a conflict, or a pin without an aarch64 wheel for that Python), or
# when it resolves to a package that its constraints file does not pin.
#
#   deploy/check-constraints.sh                 # both releases
#   deploy/check-constraints.sh bookworm        # one
#
# Needs the network (PyPI) and pip >= 22.2. pip runs with --isolated: no local index, no pip
# configuration, so what resolves here is what a Pi gets from PyPI. Nothing is written in the
# checkout: the project is copied to a temporary folder first. With uv on PATH (pip install uv)
# it resolves the train extra too (install-pi.sh --with-training): pip evaluates environment
# markers for the machine it runs on, not the Pi, and torch's depend on the machine.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
PYTHON=${PYTHON:-python3}

declare -A PYVER=([bookworm]=3.11 [trixie]=3.13)

usage() {
    sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

releases=()
for arg in "$@"; do
    case $arg in
        -h|--help) usage; exit 0 ;;
        bookworm|trixie) releases+=("$arg") ;;
        *) echo "check-constraints.sh: unknown release '$arg' (bookworm or trixie)" >&2; exit 2 ;;
    esac
done
[[ ${#releases[@]} -gt 0 ]] || releases=(bookworm trixie)

if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
    echo "check-constraints.sh: $PYTHON has no pip; set PYTHON to a Python with pip >= 22.2" >&2
    exit 2
fi
if ! "$PYTHON" -c 'import sys
from pip import __version__ as v
sys.exit(tuple(int(p) for p in v.split(".")[:2]) < (22, 2))'; then
    echo "check-constraints.sh: pip >= 22.2 is needed (for --dry-run --report):" \
         "$PYTHON -m pip install --upgrade pip" >&2
    exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/project"
cp -R "$SRC/pyproject.toml" "$SRC/README.md" "$SRC/companion" "$SRC/models" "$tmp/project/"

status=0
for release in "${releases[@]}"; do
    constraints="$HERE/constraints-$release.txt"
    echo "== $release: CPython ${PYVER[$release]}, aarch64, $(basename "$constraints")"
    if ! "$PYTHON" -m pip install --isolated --disable-pip-version-check --progress-bar off --dry-run --ignore-installed \
            --target "$tmp/target" --report "$tmp/$release.json" \
            --only-binary=:all: --implementation cp --python-version "${PYVER[$release]}" \
            --platform manylinux2014_aarch64 --platform manylinux_2_17_aarch64 \
            --platform manylinux_2_28_aarch64 \
            --constraint "$constraints" "$tmp/project" >"$tmp/$release.log" 2>&1; then
        grep -v -e '^WARNING: Location' -e '^Collecting' -e '^  Downloading' -e '^Processing' \
            -e '^  Installing' -e '^  Getting' -e '^  Preparing' -e '^Using cached' \
            "$tmp/$release.log" | tail -n 25 | sed 's/^/   /' || true
        echo "$release: CONFLICT: the project's dependencies do not resolve with $constraints"
        status=1
        continue
    fi
    if ! "$PYTHON" - "$tmp/$release.json" "$constraints" <<'EOF'
import json
import re
import sys


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


report, constraints = sys.argv[1], sys.argv[2]
pins = {}
for line in open(constraints):
    line = line.split("#", 1)[0].strip()
    if line:
        name, _, version = line.partition("==")
        pins[norm(name)] = version.strip()
bad = 0
for item in sorted(json.load(open(report))["install"], key=lambda i: norm(i["metadata"]["name"])):
    name, version = norm(item["metadata"]["name"]), item["metadata"]["version"]
    if name == "food-alley-companion":
        continue
    wheel = item["download_info"]["url"].rsplit("/", 1)[-1]
    note = "" if pins.get(name) == version else "   <- NOT PINNED in the constraints file"
    bad += bool(note)
    print(f"   {name}=={version}  ({wheel}){note}")
sys.exit(1 if bad else 0)
EOF
    then
        echo "$release: resolves to packages the constraints file does not pin: pin them"
        status=1
    else
        echo "$release: OK"
    fi
    if ! command -v uv >/dev/null; then
        echo "$release: the train extra not checked: that needs uv (pip install uv)"
        continue
    fi
    if ! uv pip compile --quiet --no-header --no-annotate --python-platform aarch64-manylinux_2_28 \
            --python-version "${PYVER[$release]}" --only-binary :all: --constraint "$constraints" \
            "$tmp/project/pyproject.toml" --extra train -o "$tmp/$release-train.txt" \
            >"$tmp/$release-train.log" 2>&1; then
        grep -v -e 'managed Python' -e '^  cause:' "$tmp/$release-train.log" | tail -n 15 | sed 's/^/   /' || true
        echo "$release: CONFLICT: the train extra does not resolve with $constraints"
        status=1
        continue
    fi
    # names compared as pip compares them: lower case, runs of - _ . as one -
    normal='{ sub(/#.*/, ""); gsub(/[[:space:]]/, ""); if ($0 == "") next
        n = tolower($1); gsub(/[-_.]+/, "-", n); print n "==" $2 }'
    unpinned=$(grep -v -x -F -f <(awk -F== "$normal" "$constraints") \
        <(awk -F== "$normal" "$tmp/$release-train.txt") || true)
    if [[ -n $unpinned ]]; then
        sed 's/^/   NOT PINNED in the constraints file: /' <<<"$unpinned"
        echo "$release: the train extra resolves to packages the constraints file does not pin: pin them"
        status=1
    else
        echo "$release: the train extra OK ($(grep -c . "$tmp/$release-train.txt") packages, torch $(grep '^torch==' "$tmp/$release-train.txt" | cut -d= -f3))"
    fi
done
exit $status
