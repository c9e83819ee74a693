"""deploy/install-pi.sh, run offline against a temporary root with stub commands on PATH (apt,
dpkg, users, systemd, python and pip), for both releases; and the constraints files it installs
with. The PATH holds the stubs and a short list of harmless real tools, nothing else: a command
the script calls without a stub fails here instead of touching this machine."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "deploy" / "install-pi.sh"
UNIT = ROOT / "systemd" / "food-alley-kiosk.service"
VENV = "/opt/food-alley-companion/.venv"  # the unit's ExecStart
DATA = "/var/lib/food-alley"  # the unit's StateDirectory
# Debian's python3-numpy in each release, which the constraints must pin
RELEASES = {
    "bookworm": {"python": "3.11", "numpy": "1:1.24.2-1+deb12u1", "mtdev": "libmtdev1",
                 "os": 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n'
                       "VERSION_CODENAME=bookworm\n"},
    "trixie": {"python": "3.13", "numpy": "1:2.2.4+ds-1", "mtdev": "libmtdev1t64",
               "os": 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\n'
                     "VERSION_CODENAME=trixie\n"},
}
# the real tools the script may use; everything else it calls must be a stub
REAL_TOOLS = ("bash", "basename", "cat", "cmp", "cp", "cut", "dirname", "find", "grep", "head",
              "mkdir", "mktemp", "rm", "sed", "sha256sum", "sort", "tail", "xargs")
STUBS = ("apt-get", "apt-cache", "dpkg", "dpkg-query", "id", "getent", "useradd", "usermod",
         "groupadd", "install", "stat", "systemctl", "python3", "sudo")

STUB = r'''
"""One stub for every command: logs its arguments to $STUB_LOG and keeps the state it changes
(packages, users, groups, owners, units) in $STUB_STATE, a JSON file."""
import json, os, shutil, stat as st, sys

name = os.environ.get("STUB_AS") or os.path.basename(sys.argv[0])
args = sys.argv[1:]
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps([name, *args]) + "\n")
path = os.environ["STUB_STATE"]
state = json.load(open(path))


def save():
    json.dump(state, open(path, "w"))


def done(code=0, out=""):
    if out:
        print(out)
    save()
    sys.exit(code)


if name == "id":
    if args == ["-u"]:
        done(out="0")
    if args[:1] == ["-nG"]:
        user = state["users"].get(args[1])
        done(1) if user is None else done(out=" ".join([user["group"], *user["groups"]]))
    done(0 if args and args[-1] in state["users"] else 1)
if name == "getent":
    table, key = args
    if table == "passwd":
        done(0 if key in state["users"] else 2)
    done(0 if key in state["groups"] else 2)
if name == "groupadd":
    state["groups"].append(args[-1])
    done()
if name == "useradd":
    user, groups, group = args[-1], [], None
    for i, a in enumerate(args):
        if a == "--groups":
            groups = args[i + 1].split(",")
        if a == "--gid":
            group = args[i + 1]
    if user in state["users"]:
        print(f"useradd: user '{user}' already exists", file=sys.stderr)
        done(9)
    state["users"][user] = {"group": group or user, "groups": groups, "args": args}
    if group is None:
        state["groups"].append(user)
    done()
if name == "usermod":
    user = state["users"][args[-1]]
    user["groups"] += [g for g in args[args.index("--groups") + 1].split(",")
                       if g not in user["groups"]]
    done()
if name == "dpkg":
    done(out=os.environ.get("STUB_ARCH", "arm64"))
if name == "dpkg-query":
    fmt, package = args[1], args[2]
    if "Version" in fmt:
        done(out=os.environ["STUB_NUMPY"]) if package in state["packages"] else done(1)
    done(0, "ii " if package in state["packages"] else "")
if name == "apt-cache":
    done(0 if args[-1] in os.environ["STUB_APT"].split() else 100)
if name == "apt-get":
    if args[0] == "install":
        state["packages"] += [a for a in args[1:] if not a.startswith("-")]
    done()
if name == "install":
    owner = group = mode = None
    directory = parents = False
    rest = []
    it = iter(args)
    for a in it:
        if a == "-d":
            directory = True
        elif a == "-D":
            parents = True
        elif a == "-o":
            owner = next(it)
        elif a == "-g":
            group = next(it)
        elif a == "-m":
            mode = int(next(it), 8)
        else:
            rest.append(a)
    target = rest[-1]
    if directory:
        os.makedirs(target, exist_ok=True)
    else:
        if parents:
            os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(rest[0], target)
    if mode is not None:
        os.chmod(target, mode)
    if owner:
        state["owners"][os.path.realpath(target)] = [owner, group or owner]
    done()
if name == "stat":
    target = os.path.realpath(args[-1])
    if target in state["owners"] and os.path.exists(target):
        owner, group = state["owners"][target]
        done(out=f"{owner}:{group} {st.S_IMODE(os.stat(target).st_mode):o}")
    save()
    os.execv(os.environ["STUB_REAL_STAT"], ["stat", *args])
if name == "systemctl":
    unit = args[-1]
    if args[0] == "is-enabled":
        done(0 if unit in state["enabled"] else 1)
    if args[0] == "is-active":
        done(0 if unit in state["active"] else 3)
    if args[0] == "enable":
        state["enabled"].append(unit)
    if args[0] in ("start", "restart"):
        state["active"].append(unit)
    done()
if name == "python3":
    if args[:1] == ["-c"]:
        done(out=os.environ["STUB_PYTHON"])
    if args[:2] == ["-m", "venv"]:
        venv = args[-1]
        if "--clear" in args and os.path.isdir(venv):
            shutil.rmtree(venv)
        os.makedirs(venv + "/bin")
        with open(venv + "/pyvenv.cfg", "w") as cfg:
            system = "true" if "--system-site-packages" in args else "false"
            cfg.write(f"home = /usr/bin\ninclude-system-site-packages = {system}\n"
                      f"version = {os.environ['STUB_PYTHON']}.2\n")
        with open(venv + "/bin/python", "w") as py:
            py.write(f"#!/bin/sh\nSTUB_AS=venv-python STUB_VENV={venv} "
                     f"exec {sys.executable} -IS {__file__} \"$@\"\n")
        os.chmod(venv + "/bin/python", 0o755)
        done()
    done(2)
if name == "venv-python":
    if args[:3] == ["-m", "pip", "install"]:
        source = args[-1].removesuffix("[train]")
        assert os.path.isfile(os.path.join(source, "pyproject.toml")), source
        state["extras"] = args[-1][len(source):]
        companion = os.environ["STUB_VENV"] + "/bin/companion"
        open(companion, "w").write("#!/bin/sh\n")
        os.chmod(companion, 0o755)
        state["pip_installs"] += 1
        done()
    if args[:1] == ["-c"] and "torch" in args[1]:
        done(1 if os.environ.get("STUB_NO_TORCH") else 0)
    if args[:1] == ["-c"]:
        version = os.environ["STUB_NUMPY"].split(":")[-1].split("-")[0].split("+")[0]
        where = os.environ.get("STUB_NUMPY_FILE",
                               "/usr/lib/python3/dist-packages/numpy/__init__.py")
        done(out=f"{version} {where}")
    done(2)
print(f"stub {name}: not simulated: {args}", file=sys.stderr)
done(97)
'''


class Pi:
    """A fake Raspberry Pi: a root folder, stub commands and their state."""

    def __init__(self, tmp_path: Path, release: str, **state) -> None:
        self.release = release
        self.root = tmp_path / "root"
        (self.root / "etc").mkdir(parents=True)
        (self.root / "etc" / "os-release").write_text(RELEASES[release]["os"])
        self.state_file = tmp_path / "state.json"
        self.log_file = tmp_path / "calls.log"
        self.log_file.write_text("")
        self.state_file.write_text(json.dumps({
            "packages": [], "users": {}, "groups": ["video", "render", "input"],
            "owners": {}, "enabled": [], "active": [], "pip_installs": 0, **state}))
        bin_ = tmp_path / "bin"
        bin_.mkdir()
        stub = tmp_path / "stub.py"
        stub.write_text(f"#!{sys.executable} -IS\n{STUB}")
        stub.chmod(0o755)
        for name in STUBS:
            (bin_ / name).symlink_to(stub)
        for tool in REAL_TOOLS:
            found = shutil.which(tool)
            assert found, tool
            (bin_ / tool).symlink_to(found)
        # the packages this Pi's apt offers
        available = [name for name in _apt_names() if name != {"bookworm": "libmtdev1t64",
                                                                 "trixie": "libmtdev1"}[release]]
        self.env = {"PATH": str(bin_), "ROOT": str(self.root), "HOME": str(tmp_path),
                    "STUB_LOG": str(self.log_file), "STUB_STATE": str(self.state_file),
                    "STUB_ARCH": "arm64", "STUB_APT": " ".join(available),
                    "STUB_PYTHON": RELEASES[release]["python"],
                    "STUB_NUMPY": RELEASES[release]["numpy"],
                    "STUB_REAL_STAT": shutil.which("stat"), "LC_ALL": "C"}

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        self.log_file.write_text("")
        return subprocess.run(["bash", str(SCRIPT), *args], env={**self.env, **env},
                              capture_output=True, text=True, timeout=60)

    @property
    def calls(self) -> list[list[str]]:
        return [json.loads(line) for line in self.log_file.read_text().splitlines()]

    @property
    def state(self) -> dict:
        return json.loads(self.state_file.read_text())

    def changes(self) -> list[list[str]]:
        """The calls that change something (not the ones that only look)."""
        looks = {("id",), ("getent",), ("dpkg",), ("dpkg-query",), ("apt-cache",), ("stat",),
                 ("systemctl", "is-enabled"), ("systemctl", "is-active"), ("python3", "-c"),
                 ("venv-python", "-c")}
        return [c for c in self.calls if (c[0],) not in looks and tuple(c[:2]) not in looks]


def _apt_names() -> list[str]:
    return ["python3-venv", "python3-numpy", "python3-picamera2", "python3-libcamera", "libgl1",
            "libegl1", "libgles2", "libgbm1", "libdrm2", "libudev1", "libmtdev1", "libmtdev1t64"]


def index(calls: list[list[str]], *prefix: str) -> int:
    for i, call in enumerate(calls):
        if call[:len(prefix)] == list(prefix):
            return i
    raise AssertionError(f"no call {prefix} in {calls}")


@pytest.fixture(params=sorted(RELEASES))
def pi(request, tmp_path) -> Pi:
    return Pi(tmp_path, request.param)


def test_the_first_run_does_every_step_in_order(pi):
    out = pi.run()
    assert out.returncode == 0, out.stdout + out.stderr
    calls = pi.calls
    apt = calls[index(calls, "apt-get", "install")]
    assert index(calls, "apt-get", "update") < index(calls, "apt-get", "install")
    assert "--no-install-recommends" in apt
    for package in ("python3-picamera2", "python3-libcamera", "python3-venv", "python3-numpy",
                    "libegl1", "libgles2", "libgbm1", "libdrm2", RELEASES[pi.release]["mtdev"]):
        assert package in apt, package

    user = calls[index(calls, "useradd")]
    assert user[-1] == "food-alley" and "--system" in user
    assert user[user.index("--groups") + 1] == "video,render,input"
    assert user[user.index("--shell") + 1] == "/usr/sbin/nologin"
    assert user[user.index("--home-dir") + 1] == DATA

    data = calls[index(calls, "install", "-d")]
    assert data == ["install", "-d", "-o", "food-alley", "-g", "food-alley", "-m", "0700",
                    f"{pi.root}{DATA}"]

    venv = calls[index(calls, "python3", "-m", "venv")]
    assert "--system-site-packages" in venv and venv[-1] == f"{pi.root}{VENV}"

    pip = calls[index(calls, "venv-python", "-m", "pip", "install")]
    constraints = pip[pip.index("--constraint") + 1]
    assert constraints == str(ROOT / "deploy" / f"constraints-{pi.release}.txt")
    assert not any("[" in arg or "torch" in arg for arg in pip), pip  # no extra: no [train]
    assert pip[-1] != str(ROOT), "pip builds in a copy, not in the checkout"

    unit = pi.root / "etc" / "systemd" / "system" / UNIT.name
    assert unit.read_text() == UNIT.read_text()
    order = [index(calls, "apt-get", "install"), index(calls, "useradd"),
             index(calls, "install", "-d"), index(calls, "python3", "-m", "venv"),
             index(calls, "venv-python", "-m", "pip"), index(calls, "install", "-D"),
             index(calls, "systemctl", "daemon-reload"),
             index(calls, "systemctl", "enable", UNIT.name)]
    assert order == sorted(order), calls
    assert not [c for c in calls if c[:2] in (["systemctl", "start"], ["systemctl", "restart"])]
    assert not [c for c in calls if c[0] == "sudo"]
    state = pi.state
    assert state["users"]["food-alley"]["groups"] == ["video", "render", "input"]
    assert state["enabled"] == [UNIT.name]
    assert (pi.root / VENV.lstrip("/") / ".food-alley-installed").is_file()
    assert "done" in out.stdout


def test_a_second_run_changes_nothing_and_says_so(pi):
    first = pi.run()
    assert first.returncode == 0, first.stdout + first.stderr
    unit = pi.root / "etc" / "systemd" / "system" / UNIT.name
    before = unit.stat().st_mtime_ns
    second = pi.run()
    assert second.returncode == 0, second.stdout + second.stderr
    assert pi.changes() == [], pi.changes()
    assert unit.stat().st_mtime_ns == before
    assert pi.state["pip_installs"] == 1
    for line in ("apt packages: already installed", "user food-alley: already there",
                 f"{pi.root}{DATA}: already there", "venv: already there",
                 "project: already installed", "already installed", "already enabled",
                 "nothing to change"):
        assert line in second.stdout, (line, second.stdout)


def test_a_changed_project_is_installed_again_and_nothing_else(pi):
    assert pi.run().returncode == 0
    (pi.root / VENV.lstrip("/") / ".food-alley-installed").write_text("an older install\n")
    out = pi.run()
    assert out.returncode == 0, out.stdout + out.stderr
    assert [c[0] for c in pi.changes()] == ["venv-python"]
    assert pi.state["pip_installs"] == 2


def test_with_training_installs_the_train_extra_and_a_second_run_leaves_it(pi):
    out = pi.run("--with-training")
    assert out.returncode == 0, out.stdout + out.stderr
    pip = pi.calls[index(pi.calls, "venv-python", "-m", "pip", "install")]
    assert pip[-1].endswith("[train]") and pip[pip.index("--constraint") + 1].endswith(
        f"constraints-{pi.release}.txt")
    assert ["venv-python", "-c", "import torch, onnx"] in pi.calls
    assert "with the train extra" in out.stdout and pi.state["extras"] == "[train]"
    again = pi.run("--with-training")
    assert again.returncode == 0 and pi.changes() == [] and pi.state["pip_installs"] == 1
    # asked without it, the project is installed again, as asked (torch stays until the venv
    # is made anew)
    without = pi.run()
    assert without.returncode == 0 and pi.state["pip_installs"] == 2
    assert pi.state["extras"] == "" and "no train extra" in without.stdout


def test_with_training_that_cannot_import_torch_says_what_to_do(tmp_path):
    pi = Pi(tmp_path, "bookworm")
    out = pi.run("--with-training", STUB_NO_TORCH="1")
    assert out.returncode == 1
    assert "cannot import torch and onnx" in out.stderr and "--with-training again" in out.stderr
    assert not (pi.root / VENV.lstrip("/") / ".food-alley-installed").exists()


def test_start_starts_once_and_then_leaves_it_running(pi):
    out = pi.run("--start")
    assert out.returncode == 0, out.stdout + out.stderr
    assert ["systemctl", "start", UNIT.name] in pi.calls
    out = pi.run("--start")
    assert out.returncode == 0 and pi.changes() == []
    assert "already running" in out.stdout


def test_a_user_missing_a_group_gets_it_added(tmp_path):
    pi = Pi(tmp_path, "bookworm", users={"food-alley": {"group": "food-alley",
                                                        "groups": ["video"]}},
            groups=["video", "render", "input", "food-alley"])
    out = pi.run()
    assert out.returncode == 0, out.stdout + out.stderr
    assert ["usermod", "--append", "--groups", "render,input", "food-alley"] in pi.calls
    assert not [c for c in pi.calls if c[0] == "useradd"]
    assert "added to render input" in out.stdout


def test_a_venv_without_system_site_packages_is_made_anew(tmp_path):
    pi = Pi(tmp_path, "trixie")
    venv = pi.root / VENV.lstrip("/")
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("#!/bin/sh\n")
    (venv / "bin" / "python").chmod(0o755)
    (venv / "pyvenv.cfg").write_text("include-system-site-packages = false\nversion = 3.13.5\n")
    out = pi.run()
    assert out.returncode == 0, out.stdout + out.stderr
    venv_call = pi.calls[index(pi.calls, "python3", "-m", "venv")]
    assert "--clear" in venv_call and "--system-site-packages" in venv_call
    assert "made anew" in out.stdout


@pytest.mark.parametrize("os_release, named", [
    ('PRETTY_NAME="Ubuntu 24.04 LTS"\nID=ubuntu\nVERSION_CODENAME=noble\n', "Ubuntu 24.04 LTS"),
    ('PRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\nID=debian\nVERSION_CODENAME=bullseye\n',
     "bullseye"),
])
def test_another_os_is_refused_before_anything_changes(tmp_path, os_release, named):
    pi = Pi(tmp_path, "bookworm")
    (pi.root / "etc" / "os-release").write_text(os_release)
    out = pi.run()
    assert out.returncode == 1
    assert named in out.stderr and "Bookworm" in out.stderr and "Trixie" in out.stderr
    assert "--release" in out.stderr
    assert pi.changes() == []


def test_release_overrides_os_release(tmp_path):
    pi = Pi(tmp_path, "trixie")
    (pi.root / "etc" / "os-release").write_text('PRETTY_NAME="Something"\nID=other\n')
    out = pi.run("--release", "trixie")
    assert out.returncode == 0, out.stdout + out.stderr
    pip = pi.calls[index(pi.calls, "venv-python", "-m", "pip", "install")]
    assert pip[pip.index("--constraint") + 1].endswith("constraints-trixie.txt")


def test_a_32_bit_os_is_refused(tmp_path):
    pi = Pi(tmp_path, "bookworm")
    out = pi.run(STUB_ARCH="armhf")
    assert out.returncode == 1 and "armhf" in out.stderr and "64-bit" in out.stderr
    assert pi.changes() == []


def test_apt_numpy_other_than_the_pin_stops_before_pip(tmp_path):
    pi = Pi(tmp_path, "bookworm")
    out = pi.run(STUB_NUMPY="1:1.26.4-1")
    assert out.returncode == 1
    assert "1.26.4" in out.stderr and "numpy==1.24.2" in out.stderr
    assert "constraints-bookworm.txt" in out.stderr
    assert not [c for c in pi.calls if c[0] in ("venv-python", "useradd")]


def test_a_numpy_shadowing_apt_s_is_refused(tmp_path):
    pi = Pi(tmp_path, "bookworm")
    out = pi.run(STUB_NUMPY_FILE=f"{VENV}/lib/python3.11/site-packages/numpy/__init__.py")
    assert out.returncode == 1 and "not apt's" in out.stderr
    assert not (pi.root / VENV.lstrip("/") / ".food-alley-installed").exists()


def test_no_picamera2_in_apt_says_it_is_not_raspberry_pi_os(tmp_path):
    pi = Pi(tmp_path, "bookworm")
    apt = " ".join(n for n in _apt_names() if n != "python3-picamera2")
    out = pi.run(STUB_APT=apt)
    assert out.returncode == 1 and "Raspberry Pi OS" in out.stderr
    assert not [c for c in pi.calls if c[:2] == ["apt-get", "install"]]


def test_help_and_a_wrong_option(tmp_path):
    pi = Pi(tmp_path, "bookworm")
    out = pi.run("--help")
    assert out.returncode == 0 and "Usage:" in out.stdout and "--release" in out.stdout
    assert pi.calls == []
    out = pi.run("--bogus")
    assert out.returncode == 2 and "--bogus" in out.stderr


def test_the_script_uses_strict_mode_and_parses():
    text = SCRIPT.read_text()
    assert "set -euo pipefail" in text
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0
    if shutil.which("shellcheck"):
        out = subprocess.run(["shellcheck", str(SCRIPT), str(SCRIPT.with_name(
            "check-constraints.sh"))], capture_output=True, text=True)
        assert out.returncode == 0, out.stdout


# ---- the constraints files -----------------------------------------------------------------------

def pins(release: str) -> dict[str, str]:
    out = {}
    for line in (ROOT / "deploy" / f"constraints-{release}.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep and re.fullmatch(r"[0-9][0-9A-Za-z.+-]*", version.strip()), line
            out[normal(name)] = version.strip()
    return out


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower().strip()


def runtime_dependencies() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(d) for d in project["dependencies"]]


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_constraints_pin_numpy_to_the_release_s_apt_numpy(release):
    apt = RELEASES[release]["numpy"].split(":")[-1].split("-")[0].split("+")[0]
    assert pins(release)["numpy"] == apt


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_every_runtime_dependency_is_pinned_within_its_range(release):
    pinned = pins(release)
    for requirement in runtime_dependencies():
        name = normal(requirement.name)
        assert name in pinned, f"{name} is not pinned in constraints-{release}.txt"
        assert requirement.specifier.contains(pinned[name]), (name, pinned[name])



@pytest.mark.parametrize("release", sorted(RELEASES))
def test_the_train_extra_for_the_pi_is_pinned_within_its_range(release):
    """install-pi.sh --with-training: each of the extra's requirements, as a Pi (aarch64) sees
    its markers, pinned by the release's constraints; torch a build for the CPU alone."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pi = {"platform_machine": "aarch64", "python_version": RELEASES[release]["python"],
          "sys_platform": "linux", "platform_system": "Linux", "extra": "train"}
    wanted = [r for r in map(Requirement, project["optional-dependencies"]["train"])
              if r.marker is None or r.marker.evaluate(pi)]
    pinned = pins(release)
    assert {normal(r.name) for r in wanted} == {"torch", "onnx"}
    for requirement in wanted:
        name = normal(requirement.name)
        assert name in pinned, f"{name} is not pinned in constraints-{release}.txt"
        assert requirement.specifier.contains(pinned[name]), (name, pinned[name])
    assert pinned["torch"] == "2.9.1"  # PyPI's later aarch64 builds pull CUDA libraries
