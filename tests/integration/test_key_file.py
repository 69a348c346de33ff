"""The archive key file (MNEMOSYNE_KEY_FILE): created privately, refused when others could read or swap it."""

from __future__ import annotations

import os
import stat

import pytest

from mnemosyne.archive import keys, open_archive
from mnemosyne.errors import UnsafeKeyFileError

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX modes and owners")


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@posix_only
def test_a_new_archive_makes_a_0600_key_and_a_0700_data_folder(tmp_path, monkeypatch):
    home = tmp_path / "fresh" / "mnemosyne"  # nothing exists yet: the data folder is created as a parent
    monkeypatch.setenv("MNEMOSYNE_HOME", str(home))
    monkeypatch.setenv("MNEMOSYNE_KEY_FILE", str(home / "archive.key"))
    old = os.umask(0o022)
    try:
        with open_archive():
            pass
    finally:
        os.umask(old)
    assert mode(home / "archive.key") == 0o600
    assert mode(home) == 0o700
    assert [p.name for p in home.iterdir() if p.name.endswith(".tmp")] == []


@posix_only
def test_an_existing_open_data_folder_is_made_private(mnemo_home):
    os.chmod(mnemo_home, 0o755)
    with open_archive():
        pass
    assert mode(mnemo_home) == 0o700


@posix_only
def test_creating_the_key_never_writes_through_a_planted_symlink(mnemo_home):
    """The temporary copy used to be named .archive.key.<pid>.tmp and opened without O_EXCL|O_NOFOLLOW."""
    victim = mnemo_home.parent / "victim.txt"
    victim.write_text("precious\n")
    planted = mnemo_home / f".archive.key.{os.getpid()}.tmp"
    planted.symlink_to(victim)
    key = keys.load_key(create=True)
    assert len(key) == 32
    assert victim.read_text() == "precious\n"
    assert mode(mnemo_home / "archive.key") == 0o600


@posix_only
@pytest.mark.parametrize("bits", [0o640, 0o604, 0o644, 0o660])
def test_a_key_file_others_can_read_is_refused_with_a_typed_error(mnemo_home, bits):
    path = mnemo_home / "archive.key"
    path.write_text("ab" * 32 + "\n")
    os.chmod(path, bits)
    with pytest.raises(UnsafeKeyFileError) as err:
        keys.load_key(create=False)
    assert err.value.code == "ARCHIVE_KEY_UNSAFE" and "chmod 600" in err.value.message
    os.chmod(path, 0o600)
    assert keys.load_key(create=False) == bytes.fromhex("ab" * 32)


@posix_only
@pytest.mark.parametrize("dangling", [False, True])
def test_a_symlinked_key_file_is_refused(mnemo_home, dangling):
    target = mnemo_home.parent / "elsewhere.key"
    if not dangling:
        target.write_text("ab" * 32 + "\n")
        os.chmod(target, 0o600)
    (mnemo_home / "archive.key").symlink_to(target)
    with pytest.raises(UnsafeKeyFileError) as err:
        keys.load_key(create=True)
    assert "symbolic link" in err.value.message
    assert dangling is not target.exists()  # a dangling link is not followed to create a key there


@posix_only
def test_the_host_reports_an_unsafe_key_file_as_a_defined_state(tmp_path):
    from support.hostproc import HostProcess, host_env

    home = tmp_path / "home"
    home.mkdir()
    (home / "archive.key").write_text("ab" * 32 + "\n")
    os.chmod(home / "archive.key", 0o644)
    host = HostProcess(host_env(home))
    try:
        archive = host.data("hello")["archive"]
        assert archive["code"] == "ARCHIVE_KEY_UNSAFE" and archive["state"] == "error"
        reply = host.call("list")
        assert reply["ok"] is False and reply["error"]["code"] == "ARCHIVE_KEY_UNSAFE"
    finally:
        host.kill()
