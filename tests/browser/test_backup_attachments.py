"""A backup's attachments, in real Chromium with the real host and archive, offline: uploaded files and
generated images are downloaded as the sites serve them and end up encrypted in the archive, where `mnemo export`
writes them beside the Markdown with the bytes and SHA-256 they were served with. ChatGPT: the files API answers a
signed `download_url` on another origin (files.oaiusercontent.com for uploads, sdmntpr*.oaiusercontent.com for
generated images), which the fake site serves too; Claude: same-origin `/api/{org}/files/{uuid}/...` assets. A file
over the user's size cap is not saved and is listed with its reason, never dropped silently. ChatGPT's file hosts
are an optional host permission the backup-all click asks for: not granted, every file on them is listed."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import uuid
from pathlib import Path

import pytest
from ext_fakesite import (
    CLAUDE_ORG,
    chatgpt_api_fixture,
    claude_api_from_export,
    claude_export_conversation,
    shell,
)
from test_backup import ChatgptAccount, archive_ids, claude_routes, ids, open_popup, open_site, wait_state

pytestmark = pytest.mark.browser
ICONS = Path(__file__).resolve().parents[2] / "extension" / "icons"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MB = 1_000_000

UPLOADED = "0073"  # a user's photo
GENERATED = "pionxzh_image-generation.json"  # a sketch, then 4 generated images
DOCUMENT = "0001"  # an uploaded .docx
DECLARED_BIG = "0054"  # declares 15.8 MB
UNDERSTATED = "0198"
SAME_ORIGIN = "0210"  # an uploaded layout.png, whose download URL is on chatgpt.com itself  # declares 345 kB


def conversation_json(number: str) -> dict:
    if number.endswith(".json"):  # a synthetic one (tests/fixtures/chatgpt_synthetic)
        return json.loads((FIXTURES / "chatgpt_synthetic" / number).read_text(encoding="utf-8"))
    return chatgpt_api_fixture(fixture_name(number))


def fixture_name(number: str) -> str:
    """The chatgpt_api fixture numbered `number` (tests/fixtures/chatgpt_api/elinvoss/<number>-<title>-<id>.json)."""
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "chatgpt_api" / "elinvoss"
    (found,) = [p.name for p in folder.iterdir() if p.name.startswith(number + "-")]
    return found


def file_ids(conversation: dict) -> list[str]:
    """The files a conversation refers to: image parts' asset pointers and messages' attachments, once each."""
    found: list[str] = []
    for node in conversation["mapping"].values():
        message = node.get("message") or {}
        for part in (message.get("content") or {}).get("parts") or []:
            if isinstance(part, dict) and "asset_pointer" in part:
                found.append(re.search(r"file[-_][A-Za-z0-9]+", part["asset_pointer"]).group(0))
        found += [a["id"] for a in (message.get("metadata") or {}).get("attachments") or []]
    return list(dict.fromkeys(found))


def exported_files(mnemo_cli, folder: Path) -> dict[str, bytes]:
    """`mnemo export` of the whole archive: every file written beside the Markdown, by name."""
    mnemo_cli("export", str(folder))
    return {p.name: p.read_bytes() for p in folder.glob("*.files/*") if p.is_file()}


def assert_linked_from_markdown(folder: Path, written: dict[str, bytes]) -> None:
    """Each written file is linked, relatively, from the Markdown beside it."""
    for path in folder.glob("*.files/*"):
        markdown = (folder / (path.parent.name.removesuffix(".files") + ".md")).read_text(encoding="utf-8")
        assert f"{path.parent.name}/{path.name}" in markdown, (path.name, markdown[:1500])
    assert len(list(folder.glob("*.files/*"))) == len(written)


HAS_FILE_HOSTS = "chrome.permissions.contains({origins: ['https://files.oaiusercontent.com/*']})"


def click_without_user_activation(page, selector: str) -> str:
    """Click `selector` as a script would, with no user activation, so `permissions.request` is refused. Playwright's
    own evaluate and click carry a user gesture (the request would then prompt, and nobody answers in headless), so
    the page is loaded afresh and clicked through a CDP evaluate without `userGesture`."""
    cdp = page.context.new_cdp_session(page)
    page.reload()
    script = (
        "new Promise((resolve) => { const tick = () => { const b = document.querySelector(%s);"
        " if (!b) return setTimeout(tick, 20);"
        " if (navigator.userActivation.isActive) return resolve('user activation is active');"
        " b.click(); resolve('clicked'); }; tick(); })"
    ) % json.dumps(selector)
    answer = cdp.send("Runtime.evaluate", {"expression": script, "awaitPromise": True, "returnByValue": True})
    return answer["result"]["value"]


def signed_file_urls(served: dict[str, bytes], generated: list[str], same_origin: set[str]) -> dict[str, str]:
    """file id -> its download URL: generated images on sdmntpr*, uploads on files.oaiusercontent.com."""
    sign = "?se=2026-12-02T10%3A00%3A00Z&sp=r&sv=2024-08-04&sr=b&sig=c2lnbmVk"
    urls = {}
    for fid in served:
        if fid in same_origin:
            continue
        host, path = (
            ("sdmntprwestus.oaiusercontent.com", f"/files/00000000-{fid[-12:]}/raw{sign}")
            if fid in generated
            else ("files.oaiusercontent.com", f"/{fid}{sign}")
        )
        urls[fid] = f"https://{host}{path}"
    return urls


def held_attachments(mnemo_cli) -> dict[str, dict]:
    """Every attachment object of the archive's portable documents that the archive holds, by SHA-256."""
    out: dict[str, dict] = {}
    for item in json.loads(mnemo_cli("list", "--limit", "0", "--json").stdout):
        portable = json.loads(mnemo_cli("show", item["id"], "--json").stdout)
        for part in re.findall(r'\{[^{}]*"sha256"[^{}]*\}', json.dumps(portable)):
            attachment = json.loads(part)
            out[attachment["sha256"]] = attachment
    return out


def test_chatgpt_uploads_and_generated_images_come_from_the_file_host_into_the_archive(
    browser, sites, ext_url, mnemo_cli, env, tmp_path
):
    numbers = (UPLOADED, GENERATED, DOCUMENT, DECLARED_BIG, UNDERSTATED, SAME_ORIGIN)
    conversations = [conversation_json(n) for n in numbers]
    account = ChatgptAccount(main=ids(len(numbers), "attachments"))
    big, lie = account.main[3:5]
    account.fixtures = dict(zip(account.main, conversations, strict=True))
    (photo,) = file_ids(conversations[0])
    user_image, *generated = file_ids(conversations[1])  # the user's sketch, then the images the tool made
    (docx,) = file_ids(conversations[2])
    (too_big,) = file_ids(conversations[3])
    (understated,) = file_ids(conversations[4])
    (layout,) = file_ids(conversations[5])
    assert len(generated) == 4 and docx.startswith("file-")
    served = {
        photo: (ICONS / "icon128.png").read_bytes(),
        user_image: (ICONS / "icon16.png").read_bytes(),
        # four different images (the same icon would be stored once, by SHA-256)
        **{fid: (ICONS / "icon48.png").read_bytes() + bytes([i]) for i, fid in enumerate(generated)},
        docx: b"PK\x03\x04" + hashlib.sha256(b"docx").digest() * 300,
        too_big: b"\0" * 10,  # declared over the cap: never asked for
        understated: b"\x89PNG" + b"\1" * (2 * MB + 100),  # served over the cap despite its declared size
        layout: (ICONS / "icon32.png").read_bytes(),  # served by chatgpt.com itself (estuary/content)
    }
    account.files = served
    docx_type = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    account.file_urls = signed_file_urls(served, generated, {layout})
    account.file_types = {docx: docx_type}
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url)
    popup.evaluate("() => chrome.storage.sync.set({attachmentCapMb: 2})")
    assert popup.evaluate(HAS_FILE_HOSTS) is False  # optional: not the extension's until it asks
    popup.click("[data-mnemosyne='backup-all']")
    done = wait_state(popup, "done", 90_000)
    assert popup.evaluate(HAS_FILE_HOSTS) is True  # the click asked for it

    assert (done["done"], done["failed"]) == (str(len(numbers)), "0"), done
    assert "files: 8 saved, 2 not saved" in done["text"], (done["text"], account.file_host_asks)
    # the file hosts were asked for every file on them but the one declared over the cap, without cookie or token
    asked = [a["url"] for a in account.file_host_asks]
    assert sorted(asked) == sorted(url for fid, url in account.file_urls.items() if fid != too_big)
    assert {url.split("/")[2] for url in asked} == {
        "files.oaiusercontent.com",
        "sdmntprwestus.oaiusercontent.com",
    }
    assert all(
        "cookie" not in a["headers"] and "authorization" not in a["headers"] for a in account.file_host_asks
    )
    assert account.file_gets == [layout]
    warnings = popup.locator("[data-mnemosyne='backup-file-warnings'] li")
    assert warnings.count() == 2
    listed = {warnings.nth(i).get_attribute("data-id"): warnings.nth(i).text_content() for i in range(2)}
    assert set(listed) == {big, lie} and all("over the size cap" in text for text in listed.values()), listed
    assert "15.8 MB" in listed[big]

    wanted = {fid: served[fid] for fid in (photo, user_image, *generated, docx, layout)}
    held = held_attachments(mnemo_cli)
    assert {hashlib.sha256(data).hexdigest() for data in wanted.values()} <= set(held), held
    assert all(held[hashlib.sha256(data).hexdigest()]["bytes"] == len(data) for data in wanted.values())

    # encrypted at rest: the file's bytes appear nowhere in the data folder (archive, WAL, logs)
    marker = hashlib.sha256(b"docx").digest()
    stored = [p for p in Path(env["MNEMOSYNE_HOME"]).rglob("*") if p.is_file()]
    assert stored and not [p.name for p in stored if marker in p.read_bytes()]

    written = exported_files(mnemo_cli, tmp_path / "export")
    sha = {name: hashlib.sha256(data).hexdigest() for name, data in written.items()}
    assert set(sha.values()) == {hashlib.sha256(data).hexdigest() for data in wanted.values()} == set(held)
    assert written["finally.docx"] == served[docx] and written["layout.png"] == served[layout]
    assert (
        written["img-f5daf224-905a-4e58-8bc3-29080a6d8f22.jpeg"] == served[photo]
    )  # its name, made file-safe
    assert_linked_from_markdown(tmp_path / "export", written)


def test_chatgpt_files_on_the_file_hosts_are_listed_when_the_permission_is_not_granted(
    browser, sites, ext_url, mnemo_cli
):
    """The backup-all click's permission request fails (a click without a user gesture; a user's "no" takes the same
    path): the conversations are saved, the same-origin file too, and every file on the file hosts is listed with
    the reason; the file hosts are never asked."""
    numbers = (UPLOADED, GENERATED, SAME_ORIGIN)
    conversations = [conversation_json(n) for n in numbers]
    account = ChatgptAccount(main=ids(len(numbers), "no-file-hosts"))
    account.fixtures = dict(zip(account.main, conversations, strict=True))
    (photo,) = file_ids(conversations[0])
    user_image, *generated = file_ids(conversations[1])
    (layout,) = file_ids(conversations[2])
    served = {
        photo: (ICONS / "icon128.png").read_bytes(),
        user_image: (ICONS / "icon16.png").read_bytes(),
        **{fid: (ICONS / "icon48.png").read_bytes() + bytes([i]) for i, fid in enumerate(generated)},
        layout: (ICONS / "icon32.png").read_bytes(),
    }
    account.files = served
    account.file_urls = signed_file_urls(served, generated, {layout})
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url, file_hosts=False)
    assert click_without_user_activation(popup, "[data-mnemosyne='backup-all']") == "clicked"
    done = wait_state(popup, "done", 90_000)

    assert popup.evaluate(HAS_FILE_HOSTS) is False
    assert (done["done"], done["failed"]) == (str(len(numbers)), "0"), done
    assert archive_ids(mnemo_cli, "chatgpt") == set(account.main)
    assert "files: 1 saved, 6 not saved" in done["text"], done["text"]
    assert account.file_host_asks == [] and account.file_gets == [layout]
    warnings = popup.locator("[data-mnemosyne='backup-file-warnings'] li")
    listed = [
        (warnings.nth(i).get_attribute("data-reason"), warnings.nth(i).text_content())
        for i in range(warnings.count())
    ]
    assert len(listed) == 6 and {reason for reason, _ in listed} == {"NO_PERMISSION"}, listed
    texts = [text for _, text in listed]
    assert sum("permission to download from files.oaiusercontent.com not granted" in t for t in texts) == 2, (
        texts
    )
    assert (
        sum("permission to download from sdmntprwestus.oaiusercontent.com not granted" in t for t in texts)
        == 4
    )
    assert set(held_attachments(mnemo_cli)) == {hashlib.sha256(served[layout]).hexdigest()}


def test_claude_uploads_and_documents_come_from_the_sites_file_api_into_the_archive(
    browser, sites, ext_url, mnemo_cli, tmp_path
):
    image = (ICONS / "icon128.png").read_bytes()
    pdf = b"%PDF-1.7\n" + hashlib.sha256(b"pdf").digest() * 200
    oversized = b"\x89PNG" + b"\2" * (MB + 10)
    base = claude_api_from_export(claude_export_conversation())
    uuids = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"claude-file/{i}")) for i in range(3)]
    assets = {
        f"/api/{CLAUDE_ORG}/files/{uuids[0]}/preview": ("image/webp", image),
        f"/api/{CLAUDE_ORG}/files/{uuids[1]}/document_pdf": ("application/pdf", pdf),
        f"/api/{CLAUDE_ORG}/files/{uuids[2]}/preview": ("image/webp", oversized),
    }
    conv = copy.deepcopy(base)
    cid = str(uuid.uuid5(uuid.NAMESPACE_URL, "claude-files"))
    conv.update(uuid=cid, name="Files chat", updated_at="2026-11-20T10:00:00Z")
    first_user = next(m for m in conv["chat_messages"] if m.get("sender") == "human")
    first_user["files_v2"] = [
        {
            "file_kind": "image",
            "file_uuid": uuids[0],
            "file_name": "whiteboard.png",
            "preview_asset": {
                "url": f"/api/{CLAUDE_ORG}/files/{uuids[0]}/preview",
                "file_variant": "preview",
            },
        },
        {
            "file_kind": "document",
            "file_uuid": uuids[1],
            "file_name": "paper.pdf",
            "document_asset": {"url": f"/api/{CLAUDE_ORG}/files/{uuids[1]}/document_pdf", "page_count": 1},
        },
        {
            "file_kind": "image",
            "file_uuid": uuids[2],
            "file_name": "huge.png",
            "preview_asset": {
                "url": f"/api/{CLAUDE_ORG}/files/{uuids[2]}/preview",
                "file_variant": "preview",
            },
        },
    ]
    project = {"uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "no-project")), "name": "P", "prompt_template": ""}
    asked = claude_routes(browser, [conv], project)
    file_asks: list[dict] = []

    def asset(route):
        path = route.request.url.removeprefix("https://claude.ai").partition("?")[0]
        file_asks.append({"path": path, "headers": dict(route.request.headers)})
        mime, body = assets[path]
        route.fulfill(status=200, content_type=mime, body=body)

    browser.route(re.compile(rf"^https://claude\.ai/api/{CLAUDE_ORG}/files/"), asset)
    sites.pages["https://claude.ai/"] = shell("<p>home</p>", "Claude")
    browser.new_page().goto("https://claude.ai/")
    popup = open_popup(browser, ext_url)
    popup.evaluate("() => chrome.storage.sync.set({attachmentCapMb: 1})")
    popup.click("[data-mnemosyne='backup-all']")
    done = wait_state(popup, "done", 60_000)

    assert (done["done"], done["failed"]) == ("1", "0"), (done, asked)
    assert "files: 2 saved, 1 not saved" in done["text"], done["text"]
    assert sorted(a["path"] for a in file_asks) == sorted(assets)  # same-origin, through the site tab
    warning = popup.locator("[data-mnemosyne='backup-file-warnings'] li")
    assert warning.count() == 1 and "huge.png" in warning.text_content(), warning.all_text_contents()

    held = held_attachments(mnemo_cli)
    assert set(held) == {hashlib.sha256(image).hexdigest(), hashlib.sha256(pdf).hexdigest()}
    written = exported_files(mnemo_cli, tmp_path / "export")
    assert written.get("paper.pdf") == pdf and written.get("whiteboard.png") == image, sorted(written)
    assert_linked_from_markdown(tmp_path / "export", written)
