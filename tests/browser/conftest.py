"""Fixtures for driving the real extension and the real native host in headless Chromium, offline.

Each test gets a fresh profile, XDG folders and archive under tmp_path; the host is registered for that
profile with `mnemo install --browser chromium --user-data-dir <profile>` and the browser (and so the host
it launches) runs with MNEMOSYNE_HOME / MNEMOSYNE_KEY_FILE pointing into tmp_path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from ext_fakesite import FakeSites

from support.cli import mnemo

REPO = Path(__file__).resolve().parents[2]
EXTENSION_DIR = REPO / "extension"
SCREENSHOTS = REPO / "tests" / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"


def _extension_id() -> str:
    from mnemosyne.extension_ids import CHROMIUM_EXTENSION_ID, CHROMIUM_PUBLIC_KEY, chromium_id_from_key

    manifest = json.loads((EXTENSION_DIR / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["key"] == CHROMIUM_PUBLIC_KEY, "manifest key differs from mnemosyne.extension_ids"
    assert chromium_id_from_key(CHROMIUM_PUBLIC_KEY) == CHROMIUM_EXTENSION_ID
    return CHROMIUM_EXTENSION_ID


@pytest.fixture(scope="session")
def extension_id() -> str:
    return _extension_id()


@pytest.fixture(scope="session")
def extension_dir() -> Path:
    return EXTENSION_DIR


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """Environment of the browser, the host it starts, and the `mnemo` commands of the test."""
    values = dict(os.environ)
    values.update(
        {
            "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
            "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
            "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
            "MNEMOSYNE_HOME": str(tmp_path / "mnemosyne-home"),
            "MNEMOSYNE_KEY_FILE": str(tmp_path / "archive.key"),
        }
    )
    return values


@pytest.fixture
def mnemo_cli(env):
    return lambda *args, check=True: mnemo(env, *args, check=check)


@pytest.fixture
def profile_dir(tmp_path) -> Path:
    path = tmp_path / "profile"
    path.mkdir()
    return path


@pytest.fixture
def installed_host(profile_dir, env, extension_id) -> Path:
    """Register the real host for this profile and return its manifest."""
    mnemo(env, "install", "--browser", "chromium", "--user-data-dir", str(profile_dir))
    manifest = profile_dir / "NativeMessagingHosts" / "org.mnemosyne.host.json"
    assert manifest.is_file(), f"install wrote no {manifest}"
    allowed = json.loads(manifest.read_text(encoding="utf-8"))["allowed_origins"]
    assert f"chrome-extension://{extension_id}/" in allowed
    return manifest


@pytest.fixture(scope="session")
def playwright_instance():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture
def sites() -> FakeSites:
    return FakeSites()


def launch(
    playwright_instance,
    profile_dir: Path,
    env: dict[str, str],
    sites: FakeSites,
    *,
    locale: str = "en-US",
    extra_args: tuple[str, ...] = (),
    **options,
):
    """`extra_args` and `options` (Playwright's) for a test that needs more of Chromium (a real local server)."""
    ctx = playwright_instance.chromium.launch_persistent_context(
        str(profile_dir),
        executable_path=CHROMIUM,
        headless=True,
        env=env,
        locale=locale,
        viewport={"width": 1280, "height": 860},
        args=[
            f"--disable-extensions-except={EXTENSION_DIR}",
            f"--load-extension={EXTENSION_DIR}",
            "--disable-gpu",
            "--disable-quic",
            f"--lang={locale}",
            # MNEMOSYNE_CHROMIUM_LOG=/path/file.log keeps Chromium's own log when a browser test misbehaves
            *(
                ["--enable-logging", f"--log-file={os.environ['MNEMOSYNE_CHROMIUM_LOG']}", "--v=0"]
                if os.environ.get("MNEMOSYNE_CHROMIUM_LOG")
                else []
            ),
            *extra_args,
        ],
        **options,
    )
    sites.install(ctx)
    return ctx


def _with_extension_worker(ctx, extension_id: str):
    """`ctx` once the extension's service worker runs (its id proves the pinned key was used)."""
    worker = (
        ctx.service_workers[0] if ctx.service_workers else ctx.wait_for_event("serviceworker", timeout=15_000)
    )
    assert worker.url.startswith(f"chrome-extension://{extension_id}/"), worker.url
    return ctx


@pytest.fixture
def browser(playwright_instance, profile_dir, env, sites, installed_host, extension_id):
    """Chromium with the extension loaded and the real host registered for its profile."""
    ctx = _with_extension_worker(launch(playwright_instance, profile_dir, env, sites), extension_id)
    yield ctx
    ctx.close()


@pytest.fixture
def browser_without_host(playwright_instance, profile_dir, env, sites, extension_id):
    """Chromium with the extension but no native host registered (the "not installed" case)."""
    ctx = _with_extension_worker(launch(playwright_instance, profile_dir, env, sites), extension_id)
    yield ctx
    ctx.close()


@pytest.fixture
def ext_url(extension_id):
    return lambda path: f"chrome-extension://{extension_id}/{path}"


@pytest.fixture
def screenshot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(target, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        target.screenshot(path=str(path))
        assert path.stat().st_size > 1000, f"empty screenshot {path}"
        return path

    return take
