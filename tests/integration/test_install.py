"""mnemo install / uninstall / doctor on fake Linux, macOS and Windows layouts.

Every test runs in a throwaway HOME with XDG_CONFIG_HOME and MNEMOSYNE_HOME inside
it; the OS is chosen by monkeypatching locations.current_os, and Windows gets a
fake winreg module. The last tests run the real `mnemo` in a subprocess.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import stat
import subprocess
import sys
import types
from pathlib import Path

import pytest

from mnemosyne import doctor, tokens
from mnemosyne.cli.main import main
from mnemosyne.extension_ids import (
    CHROMIUM_EXTENSION_ID,
    CHROMIUM_PUBLIC_KEY,
    FIREFOX_ADDON_ID,
    chromium_id_from_key,
)
from mnemosyne.install import launcher, locations
from support.cli import mnemo

REPO = Path(__file__).resolve().parents[2]
NAME = "org.mnemosyne.host.json"
ORIGIN = f"chrome-extension://{CHROMIUM_EXTENSION_ID}/"


class FakeWinreg(types.ModuleType):
    """The part of winreg the installer uses, keys case-insensitive like the real registry."""

    HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE = "HKCU", "HKLM"
    KEY_READ, KEY_WRITE, REG_SZ = 0x20019, 0x20006, 1

    class Key:
        def __init__(self, root, path):
            self.root, self.path = root, path.lower()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def __init__(self):
        super().__init__("winreg")
        self.values: dict[tuple[str, str], str] = {}

    def CreateKeyEx(self, root, sub, reserved=0, access=0):
        return self.Key(root, sub)

    def OpenKey(self, root, sub, reserved=0, access=0):
        if (root, sub.lower()) not in self.values:
            raise FileNotFoundError(sub)
        return self.Key(root, sub)

    def SetValueEx(self, key, name, reserved, kind, value):
        assert name == "" and kind == self.REG_SZ
        self.values[(key.root, key.path)] = value

    def QueryValueEx(self, key, name):
        return self.values[(key.root, key.path)], self.REG_SZ

    def DeleteKey(self, root, sub):
        if self.values.pop((root, sub.lower()), None) is None:
            raise FileNotFoundError(sub)


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("MNEMOSYNE_HOME", str(tmp_path / "mnemo-data"))
    monkeypatch.setenv("MNEMOSYNE_KEY_FILE", str(tmp_path / "archive.key"))
    monkeypatch.setenv("LOCALAPPDATA", str(home / "AppData" / "Local"))
    monkeypatch.setenv("APPDATA", str(home / "AppData" / "Roaming"))
    monkeypatch.setattr(locations, "current_os", lambda: locations.LINUX)
    # Machine-wide folders move into the test folder, so a real /etc never leaks into a result.
    system_root = tmp_path / "system"
    monkeypatch.setattr(
        locations,
        "BROWSERS",
        {
            name: dataclasses.replace(
                b,
                linux_system=tuple(str(system_root) + p for p in b.linux_system),
                macos_system=str(system_root) + b.macos_system if b.macos_system else None,
            )
            for name, b in locations.BROWSERS.items()
        },
    )
    monkeypatch.setattr(
        locations,
        "SYSTEM_LAUNCHER_DIRS",
        {k: str(system_root) + v for k, v in locations.SYSTEM_LAUNCHER_DIRS.items()},
    )
    # Copying the 5 MB tokenizer files is tested once, in the subprocess test.
    monkeypatch.setattr(tokens, "ensure_files", lambda: tmp_path / "mnemo-data" / "cache")
    return home


def use_os(monkeypatch, name):
    monkeypatch.setattr(locations, "current_os", lambda: name)


def launcher_file(system=locations.LINUX, system_scope=False) -> Path:
    return launcher.launcher_path(system, system_scope)


def all_files(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def assert_manifest(path: Path, family: str, system=locations.LINUX, system_scope=False) -> dict:
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    data = json.loads(path.read_text("utf-8"))
    assert data["name"] == "org.mnemosyne.host" and data["type"] == "stdio"
    assert os.path.isabs(data["path"]) and data["path"] == str(launcher_file(system, system_scope))
    if system != locations.WINDOWS:
        assert os.access(data["path"], os.X_OK)
    if family == "chromium":
        assert data["allowed_origins"] == [ORIGIN] and all(o.endswith("/") for o in data["allowed_origins"])
        assert "allowed_extensions" not in data
    else:
        assert data["allowed_extensions"] == [FIREFOX_ADDON_ID]
        assert "allowed_origins" not in data
    return data


# --- ids and templates -----------------------------------------------------------------


def test_chromium_extension_id_is_computed_from_the_pinned_key():
    der = base64.b64decode(CHROMIUM_PUBLIC_KEY)
    assert len(der) == 294  # an RSA 2048 SubjectPublicKeyInfo
    digest = hashlib.sha256(der).hexdigest()[:32]
    expected = digest.translate(str.maketrans("0123456789abcdef", "abcdefghijklmnop"))
    assert CHROMIUM_EXTENSION_ID == expected == chromium_id_from_key(CHROMIUM_PUBLIC_KEY)
    assert len(CHROMIUM_EXTENSION_ID) == 32 and set(CHROMIUM_EXTENSION_ID) <= set("abcdefghijklmnop")


def test_extension_manifest_key_matches_the_host_allow_list():
    manifest = REPO / "extension" / "manifest.json"
    data = json.loads(manifest.read_text("utf-8"))
    assert data["key"] == CHROMIUM_PUBLIC_KEY
    assert data["browser_specific_settings"]["gecko"]["id"] == FIREFOX_ADDON_ID


# --- install per OS --------------------------------------------------------------------


def test_linux_install_all_writes_one_manifest_per_present_browser(home, capsys):
    for folder in (
        ".config/google-chrome",
        ".config/chromium",
        ".config/BraveSoftware/Brave-Browser",
        ".mozilla",
        ".librewolf",
    ):
        (home / folder).mkdir(parents=True)
    assert main(["install"]) == 0
    chromium = [
        home / ".config/google-chrome/NativeMessagingHosts" / NAME,
        home / ".config/chromium/NativeMessagingHosts" / NAME,
        home / ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts" / NAME,
    ]
    firefox = [
        home / ".mozilla/native-messaging-hosts" / NAME,
        home / ".librewolf/native-messaging-hosts" / NAME,
    ]
    for path in chromium:
        assert_manifest(path, "chromium")
    for path in firefox:
        assert_manifest(path, "firefox")
    written = [Path(p) for p in all_files(home)]
    assert sorted(written) == sorted(chromium + firefox)  # nothing for Edge or Vivaldi, which are absent
    script = launcher_file().read_text()
    assert stat.S_IMODE(launcher_file().stat().st_mode) == 0o755
    assert launcher.parse(script) == (
        os.path.abspath(sys.executable),
        {
            "MNEMOSYNE_HOME": os.environ["MNEMOSYNE_HOME"],
            "MNEMOSYNE_KEY_FILE": os.environ["MNEMOSYNE_KEY_FILE"],
        },
    )
    out = capsys.readouterr().out
    assert "Google Chrome" in out and "LibreWolf" in out and "tokenizer files: ready" in out


def test_macos_install_uses_application_support(home, monkeypatch):
    use_os(monkeypatch, locations.MACOS)
    support = home / "Library" / "Application Support"
    (support / "Google" / "Chrome").mkdir(parents=True)
    (support / "Firefox").mkdir(parents=True)  # Firefox's profiles; its hosts go under Mozilla/
    assert main(["install"]) == 0
    assert_manifest(support / "Google/Chrome/NativeMessagingHosts" / NAME, "chromium")
    assert_manifest(support / "Mozilla/NativeMessagingHosts" / NAME, "firefox")
    assert not (support / "Chromium").exists() and not (home / ".config").exists()


def test_windows_install_registers_manifests_in_hkcu(home, monkeypatch):
    use_os(monkeypatch, locations.WINDOWS)
    reg = FakeWinreg()
    monkeypatch.setitem(sys.modules, "winreg", reg)
    (home / "AppData/Local/Google/Chrome/User Data").mkdir(parents=True)
    (home / "AppData/Local/Microsoft/Edge/User Data").mkdir(parents=True)
    (home / "AppData/Roaming/Mozilla/Firefox").mkdir(parents=True)
    assert main(["install"]) == 0
    data_dir = Path(os.environ["MNEMOSYNE_HOME"])
    chromium_manifest = data_dir / "native-messaging/chromium" / NAME
    firefox_manifest = data_dir / "native-messaging/firefox" / NAME
    assert reg.values == {
        ("HKCU", r"software\google\chrome\nativemessaginghosts\org.mnemosyne.host"): str(chromium_manifest),
        ("HKCU", r"software\microsoft\edge\nativemessaginghosts\org.mnemosyne.host"): str(chromium_manifest),
        ("HKCU", r"software\mozilla\nativemessaginghosts\org.mnemosyne.host"): str(firefox_manifest),
    }
    assert_manifest(chromium_manifest, "chromium", locations.WINDOWS)
    assert_manifest(firefox_manifest, "firefox", locations.WINDOWS)
    bat = launcher_file(locations.WINDOWS)
    assert (
        bat.name == "mnemo-host.bat"
        and f'"{os.path.abspath(sys.executable)}" -m mnemosyne.nativehost %*' in bat.read_text()
    )
    checks = {c.name: c for c in doctor.check_manifests(locations.WINDOWS)}
    assert [c.status for c in checks.values()] == ["ok", "ok", "ok"]

    # Edge goes; Chrome still names the shared Chromium manifest, so the file stays.
    assert main(["uninstall", "--browser", "edge"]) == 0
    assert ("HKCU", r"software\microsoft\edge\nativemessaginghosts\org.mnemosyne.host") not in reg.values
    assert chromium_manifest.exists()
    assert main(["uninstall"]) == 0
    assert reg.values == {} and not chromium_manifest.exists() and not firefox_manifest.exists()
    assert not bat.exists()


def test_system_folders_are_the_documented_ones():
    linux = {
        name: locations.manifest_dirs(b, locations.LINUX, system_scope=True)
        for name, b in locations.BROWSERS.items()
    }
    assert linux["chrome"] == [Path("/etc/opt/chrome/native-messaging-hosts")]
    assert linux["chromium"] == [Path("/etc/chromium/native-messaging-hosts")]
    assert linux["firefox"] == [
        Path("/usr/lib/mozilla/native-messaging-hosts"),
        Path("/usr/lib64/mozilla/native-messaging-hosts"),
    ]
    macos = locations.manifest_dirs(locations.BROWSERS["chrome"], locations.MACOS, system_scope=True)
    assert macos == [Path("/Library/Google/Chrome/NativeMessagingHosts")]
    assert locations.registry_location(locations.BROWSERS["firefox"], system_scope=True) == (
        "HKLM",
        r"Software\Mozilla\NativeMessagingHosts",
    )


def test_system_scope_writes_the_machine_folders(home, tmp_path, capsys):
    assert main(["install", "--browser", "firefox", "--system", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert '"allowed_extensions"' in out and "allowed_origins" not in out
    assert not (tmp_path / "system").exists()
    assert main(["install", "--browser", "firefox", "--system"]) == 0
    for lib in ("lib", "lib64"):
        assert_manifest(
            tmp_path / f"system/usr/{lib}/mozilla/native-messaging-hosts" / NAME, "firefox", system_scope=True
        )
    assert not (home / ".mozilla").exists()
    assert main(["install", "--browser", "firefox"]) == 0
    assert main(["uninstall"]) == 0  # user scope only: the machine-wide manifests and launcher stay
    assert not (home / ".mozilla/native-messaging-hosts" / NAME).exists() and not launcher_file().exists()
    assert len(list((tmp_path / "system").rglob("*.json"))) == 2 and launcher_file(system_scope=True).exists()
    assert main(["uninstall", "--system"]) == 0
    assert not list((tmp_path / "system").rglob("*.json")) and not launcher_file(system_scope=True).exists()


def test_unwritable_location_is_a_typed_error(home, tmp_path, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    assert main(["install", "--user-data-dir", str(blocker / "profile")]) == 2
    err = capsys.readouterr().err
    assert "[INSTALL_FAILED]" in err and "Traceback" not in err


def test_dry_run_writes_nothing(home, tmp_path, capsys):
    (home / ".config/chromium").mkdir(parents=True)
    before = all_files(tmp_path)
    assert main(["install", "--dry-run"]) == 0
    assert all_files(tmp_path) == before
    assert not launcher_file().exists()
    out = capsys.readouterr().out
    assert str(home / ".config/chromium/NativeMessagingHosts" / NAME) in out and ORIGIN in out


def test_user_data_dir_targets_one_profile_only(home, tmp_path):
    (home / ".config/google-chrome").mkdir(parents=True)
    profile = tmp_path / "profile"
    assert main(["install", "--user-data-dir", str(profile)]) == 0
    assert_manifest(profile / "NativeMessagingHosts" / NAME, "chromium")
    assert not (home / ".config/google-chrome/NativeMessagingHosts").exists()
    assert main(["uninstall", "--user-data-dir", str(profile)]) == 0
    assert not (profile / "NativeMessagingHosts" / NAME).exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["install", "--browser", "firefox", "--user-data-dir", "x"], "Chromium-family"),
        (["install", "--system", "--user-data-dir", "x"], "--system"),
        (["install"], "no supported browser"),
        (["install", "--browser", "chrome", "--user-data-dir", "x", "--system"], "--system"),
    ],
)
def test_bad_combinations_are_typed_errors(home, capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_uninstall_removes_what_install_wrote(home, tmp_path):
    (home / ".config/chromium").mkdir(parents=True)
    (home / ".mozilla").mkdir()
    assert main(["install"]) == 0
    assert main(["uninstall", "--browser", "firefox"]) == 0
    assert not (home / ".mozilla/native-messaging-hosts" / NAME).exists()
    assert (home / ".config/chromium/NativeMessagingHosts" / NAME).exists() and launcher_file().exists()
    assert main(["uninstall"]) == 0
    assert not (home / ".config/chromium/NativeMessagingHosts" / NAME).exists()
    assert not launcher_file().exists() and not (Path(os.environ["MNEMOSYNE_HOME"]) / "install.json").exists()


def test_tokenizer_failure_is_reported_but_manifests_stay(home, monkeypatch, capsys):
    (home / ".config/chromium").mkdir(parents=True)

    def offline():
        raise OSError("network is unreachable")

    monkeypatch.setattr(tokens, "ensure_files", offline)
    assert main(["install"]) == 0
    captured = capsys.readouterr()
    assert "tokenizer files not ready (OSError: network is unreachable)" in captured.err
    assert "NOT ready" in captured.out
    assert (home / ".config/chromium/NativeMessagingHosts" / NAME).exists()


# --- launcher ----------------------------------------------------------------------------


def test_launcher_quotes_odd_paths_and_passes_arguments(tmp_path):
    odd = tmp_path / "it's a $dir"
    odd.mkdir()
    fake_python = odd / "python"
    fake_python.write_text('#!/bin/sh\nprintf "%s|" "$MNEMOSYNE_HOME" "$@"\n')
    fake_python.chmod(0o755)
    script = tmp_path / "mnemo-host"
    launcher.write(script, launcher.render(locations.LINUX, str(fake_python), {"MNEMOSYNE_HOME": str(odd)}))
    done = subprocess.run(
        [str(script), "chrome-extension://abc/"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        timeout=10,
    )
    assert done.stdout == f"{odd}|-m|mnemosyne.nativehost|chrome-extension://abc/|"
    assert launcher.parse(script.read_text()) == (str(fake_python), {"MNEMOSYNE_HOME": str(odd)})


# --- doctor --------------------------------------------------------------------------------


def test_doctor_passes_after_install_and_fails_a_tampered_manifest(home, capsys):
    (home / ".config/chromium").mkdir(parents=True)
    (home / ".mozilla").mkdir()
    assert main(["install"]) == 0
    report = doctor.report()
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["manifest: Chromium"]["status"] == "ok" and by_name["manifest: Firefox"]["status"] == "ok"
    assert by_name["launcher"]["status"] == "ok", by_name["launcher"]
    assert by_name["keyring"]["status"] == "ok" and "MNEMOSYNE_KEY_FILE" in by_name["keyring"]["detail"]
    assert by_name["archive"]["status"] == "ok"

    chromium = home / ".config/chromium/NativeMessagingHosts" / NAME
    data = json.loads(chromium.read_text())
    data["path"] = "/tmp/logger.py"  # nativemessaging-mitm: repoint the host
    chromium.write_text(json.dumps(data))
    firefox = home / ".mozilla/native-messaging-hosts" / NAME
    data = json.loads(firefox.read_text())
    data["allowed_origins"] = [ORIGIN]
    firefox.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["doctor", "--json"]) == 1
    by_name = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert by_name["manifest: Chromium"]["status"] == "fail"
    assert (
        "/tmp/logger.py" in by_name["manifest: Chromium"]["detail"]
        and "mnemo install" in by_name["manifest: Chromium"]["fix"]
    )
    assert (
        by_name["manifest: Firefox"]["status"] == "fail"
        and "allowed_origins" in by_name["manifest: Firefox"]["detail"]
    )


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda d: d.update(allowed_origins=[ORIGIN.rstrip("/")]), "trailing '/'"),
        (
            lambda d: d.update(
                allowed_origins=[ORIGIN, "chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/"]
            ),
            "other extensions",
        ),
        (lambda d: d.update(name="org.other.host"), "name is"),
        (lambda d: d.update(path="relative/mnemo-host"), "not absolute"),
    ],
)
def test_doctor_names_each_manifest_defect(home, change, problem):
    (home / ".config/chromium").mkdir(parents=True)
    assert main(["install", "--browser", "chromium"]) == 0
    path = home / ".config/chromium/NativeMessagingHosts" / NAME
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    [check] = [c for c in doctor.check_manifests(locations.LINUX) if c.name == "manifest: Chromium"]
    assert check.status == "fail" and problem in check.detail


def test_doctor_without_install_fails_and_says_what_to_run(home, capsys):
    (home / ".config/google-chrome").mkdir(parents=True)
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] manifests: no Mnemosyne host manifest" in out
    assert "[warn] manifest: Google Chrome" in out and "mnemo install --browser chrome" in out
    assert "[FAIL] launcher" in out


def test_doctor_reports_a_non_executable_launcher(home):
    (home / ".config/chromium").mkdir(parents=True)
    assert main(["install"]) == 0
    launcher_file().chmod(0o644)
    assert doctor.check_launcher(locations.LINUX).status == "fail"
    [check] = [c for c in doctor.check_manifests(locations.LINUX) if c.name == "manifest: Chromium"]
    assert check.status == "fail" and "not executable" in check.detail


def test_doctor_keyring_without_desktop_session_points_to_key_file(home, monkeypatch):
    import keyring
    from keyring.backends import fail

    from mnemosyne.doctor import environment as doctor_env

    monkeypatch.delenv("MNEMOSYNE_KEY_FILE")
    monkeypatch.setattr(keyring, "get_keyring", lambda: fail.Keyring())
    check = doctor_env.check_keyring()
    assert check.status == "fail" and "keyring.backends.fail.Keyring" in check.detail
    assert "MNEMOSYNE_KEY_FILE" in check.fix


def test_doctor_archive_without_its_key_fails_with_the_code(home, monkeypatch):
    from mnemosyne.doctor import environment as doctor_env
    from mnemosyne.paths import archive_path

    archive_path().parent.mkdir(parents=True)
    archive_path().write_bytes(os.urandom(4096))  # an archive whose key file is gone
    check = doctor_env.check_archive()
    assert check.status == "fail" and "ARCHIVE_KEY_MISSING" in check.detail
    assert archive_path().stat().st_size == 4096  # never replaced


# --- the real command in a subprocess -------------------------------------------------------


def test_mnemo_install_for_one_profile_in_a_subprocess(tmp_path):
    profile = tmp_path / "chromium-profile"
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "home/.config"),
        "MNEMOSYNE_HOME": str(tmp_path / "data"),
    }
    env.pop("MNEMOSYNE_KEY_FILE", None)
    done = mnemo(
        env, "install", "--browser", "chromium", "--user-data-dir", profile, timeout=120
    )  # a real process
    manifest = profile / "NativeMessagingHosts" / NAME
    data = json.loads(manifest.read_text())
    assert data["path"] == str(tmp_path / "data/bin/mnemo-host") and data["allowed_origins"] == [ORIGIN]
    assert os.access(data["path"], os.X_OK)
    assert f"MNEMOSYNE_HOME={tmp_path / 'data'}" in Path(data["path"]).read_text()
    assert "tokenizer files: ready" in done.stdout, done.stderr
    assert sorted(p.name for p in (tmp_path / "data/cache").rglob("*") if p.is_file()) == sorted(
        tokens.cache_file_name(n) for n in ("o200k_base", "cl100k_base")
    )
    assert not (tmp_path / "home").exists()  # only the profile folder and the data folder were touched


# --- machine-wide install and tampering ---------------------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")
def test_system_launcher_is_root_owned_and_serves_each_user_their_own_archive(home, tmp_path):
    """It used to be the installing user's launcher, exporting that user's MNEMOSYNE_HOME to everyone."""
    assert main(["install", "--browser", "firefox", "--system"]) == 0
    system_launcher = launcher_file(system_scope=True)
    info = system_launcher.stat()
    assert info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o755
    assert stat.S_IMODE(system_launcher.parent.stat().st_mode) == 0o755
    text = system_launcher.read_text()
    assert (
        "MNEMOSYNE_HOME" not in text.replace("# Machine-wide", "")
        and str(tmp_path / "mnemo-data") not in text
    )
    for user in ("alice", "bob"):
        user_home = tmp_path / "users" / user
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE", "XDG_DATA_HOME")
        }
        env.update(HOME=str(user_home), MNEMOSYNE_KEY_FILE=str(user_home / "key"))
        body = json.dumps({"id": 1, "action": "hello"}).encode()
        done = subprocess.run(
            [str(system_launcher)],
            input=len(body).to_bytes(4, sys.byteorder) + body,
            capture_output=True,
            env=env,
            timeout=60,
        )
        reply = json.loads(done.stdout[4:])
        assert reply["ok"] and reply["data"]["archive"]["state"] == "ready", (reply, done.stderr[-500:])
        assert (user_home / ".local/share/mnemosyne/archive.db").exists()  # the user's own data folder
    assert not (tmp_path / "mnemo-data" / "archive.db").exists()  # never the installer's


def test_system_install_refuses_without_root(home, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["install", "--browser", "firefox", "--system"]) == 2
    assert "run it as root" in capsys.readouterr().err
    assert not launcher_file(system_scope=True).exists()


@pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")
def test_system_install_refuses_a_python_other_users_can_change(home, tmp_path, monkeypatch, capsys):
    shared = tmp_path / "shared-venv" / "bin"
    shared.mkdir(parents=True)
    os.chmod(shared, 0o777)  # anyone could swap the interpreter every user's browser would start
    (shared / "python").symlink_to(sys.executable)
    monkeypatch.setattr(launcher, "current_interpreter", lambda: str(shared / "python"))
    assert main(["install", "--browser", "firefox", "--system"]) == 2
    err = capsys.readouterr().err
    assert "root-owned Python" in err and "writable by" in err
    assert not list((tmp_path / "system").rglob("*.json"))


@pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")
@pytest.mark.parametrize(
    "tamper, expected",
    [
        (lambda m, lf: os.chmod(m, 0o666), "writable by its group and every user"),
        (lambda m, lf: os.chmod(m, 0o664), "writable by its group"),
        (lambda m, lf: os.chown(m, 65534, -1), "owned by"),
        (lambda m, lf: os.chmod(m.parent, 0o777), "writable by"),
        (lambda m, lf: os.chmod(lf, 0o777), "writable by"),
        (lambda m, lf: os.chown(lf, 65534, -1), "owned by"),
    ],
    ids=[
        "manifest-world",
        "manifest-group",
        "manifest-owner",
        "manifest-folder",
        "launcher-world",
        "launcher-owner",
    ],
)
def test_doctor_fails_manifests_and_launchers_others_can_rewrite(home, capsys, tamper, expected):
    (home / ".config/chromium").mkdir(parents=True)
    assert main(["install", "--browser", "chromium"]) == 0
    manifest = home / ".config/chromium/NativeMessagingHosts" / NAME
    before = [*doctor.check_manifests(locations.LINUX), doctor.check_launcher(locations.LINUX)]
    assert all(c.status == "ok" for c in before), before
    tamper(manifest, launcher_file())
    capsys.readouterr()
    assert main(["doctor", "--json"]) == 1
    checks = json.loads(capsys.readouterr().out)["checks"]
    failed = [c for c in checks if c["status"] == "fail" and c["name"] in ("manifest: Chromium", "launcher")]
    assert failed and any(expected in c["detail"] for c in failed), checks


@pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")
def test_doctor_checks_the_machine_wide_launcher(home):
    assert main(["install", "--browser", "firefox", "--system"]) == 0
    checks = {c["name"]: c for c in doctor.report()["checks"]}
    assert checks["machine-wide launcher"]["status"] == "ok", checks["machine-wide launcher"]
    assert all(c["status"] == "ok" for n, c in checks.items() if n.startswith("manifest: Firefox"))
    os.chmod(launcher_file(system_scope=True), 0o775)
    checks = {c["name"]: c for c in doctor.report()["checks"]}
    assert checks["machine-wide launcher"]["status"] == "fail"
    assert any(c["status"] == "fail" for n, c in checks.items() if n.startswith("manifest: Firefox"))
