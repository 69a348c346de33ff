"""The popup, the library and the view in Firefox ESR, light and dark: body text at 14-16 px (the page sets it on
<body>, as Chromium needs), the dark theme applied, the popup within 600 px with search first."""

from __future__ import annotations

import json

import pytest
from test_firefox import FIREFOX, firefox
from test_firefox_library import import_api
from test_view_render import tide_with_extras

pytestmark = pytest.mark.browser

LOOK = (
    "JSON.stringify({font: parseFloat(getComputedStyle(document.body).fontSize),"
    " background: getComputedStyle(document.body).backgroundColor,"
    " body: document.body.getBoundingClientRect().height})"
)


# the top of the focused branch switch at each of the next 12 frames
TOPS_OVER_FRAMES = (
    "new Promise((done) => { const tops = []; const frame = () => { tops.push(document.activeElement"
    ".closest('[data-mnemosyne=branch-switch]').getBoundingClientRect().top);"
    " if (tops.length < 12) requestAnimationFrame(frame); else done(JSON.stringify(tops)); };"
    " requestAnimationFrame(frame); })"
)


def look_of(bidi, context: str, url: str, ready: str) -> dict:
    bidi.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
    assert bidi.wait_for(context, f"document.querySelector({json.dumps(ready)}) ? 'yes' : ''") == "yes"
    return json.loads(bidi.evaluate(context, LOOK)["value"])


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_firefox_pages_read_at_body_size(tmp_path, env, scheme):
    with firefox(tmp_path, env, dark=scheme == "dark") as (bidi, internal, ff_env):
        tide = import_api(tmp_path, ff_env, tide_with_extras(), "tide.json")
        context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        base = f"moz-extension://{internal}"
        looks = {
            "popup": look_of(bidi, context, f"{base}/popup/popup.html", "[data-mnemosyne=conversation]"),
            "library": look_of(
                bidi, context, f"{base}/library/library.html", "[data-mnemosyne=conversation]"
            ),
            "view": look_of(
                bidi,
                context,
                f"{base}/view/view.html?id={tide}",
                "[data-mnemosyne=transcript][data-state=ready]",
            ),
        }
        dark = scheme == "dark"
        for name, look in looks.items():
            assert 14 <= look["font"] <= 16, (name, look)
            assert (look["background"] != "rgb(255, 255, 255)") == dark, (name, look)
        assert looks["popup"]["body"] <= 600


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_branch_switch_keeps_the_place_and_the_focus(tmp_path, env):
    from test_view_render import EDITS, FIXTURES, FORKED

    with firefox(tmp_path, env) as (bidi, internal, ff_env):
        api = json.loads((FIXTURES / "chatgpt_api" / "elinvoss" / FORKED).read_text(encoding="utf-8"))
        forked = import_api(tmp_path, ff_env, api, "forked.json")
        context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        bidi.call(
            "browsingContext.setViewport", {"context": context, "viewport": {"width": 1280, "height": 500}}
        )
        url = f"moz-extension://{internal}/view/view.html?id={forked}"
        look_of(bidi, context, url, "[data-mnemosyne=transcript][data-state=ready]")
        fork = (
            "[...document.querySelectorAll('.message.role-user')].find((m) => m.textContent.includes("
            + json.dumps(EDITS[1])
            + "))"
        )
        before = json.loads(
            bidi.evaluate(
                context,
                f"(() => {{ const s = {fork}.querySelector('[data-mnemosyne=branch-switch]');"
                " s.scrollIntoView({block: 'center'}); const next = s.querySelector('.branch-next');"
                " next.focus(); const box = next.getBoundingClientRect(); const top = s.getBoundingClientRect().top;"
                " next.click(); return JSON.stringify({y: scrollY, w: box.width, h: box.height, top}); })()",
            )["value"]
        )
        assert before["y"] > 100 and before["w"] >= 24 and before["h"] >= 24, before
        after = json.loads(
            bidi.wait_for(
                context,
                "(() => { const a = document.activeElement; const s = a?.closest('[data-mnemosyne=branch-switch]');"
                " return s && s.querySelector('.branch-position').textContent.startsWith('1 of')"
                " ? JSON.stringify({y: scrollY, cls: a.className, top: s.getBoundingClientRect().top}) : ''; })()",
            )
        )
        assert after["cls"] == "branch-next" and after["y"] > 100, (before, after)
        # the messages above settle their size over the next frames (content-visibility, one frame at a time in
        # Firefox): through all of them the switched message stays where its sibling was
        tops = json.loads(bidi.evaluate(context, TOPS_OVER_FRAMES)["value"])
        assert all(abs(top - before["top"]) <= 4 for top in [after["top"], *tops]), (before, after, tops)


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_untitled_titles_and_the_named_account(tmp_path, env):
    """In Firefox too: the library sorts untitled conversations by the plain words of their first message, the
    view reads them as its heading, and the backup sentence names the account the chatgpt.com tab is signed in to."""
    import time

    from ext_fakesite import ACCESS_TOKEN, FakeSites, shell
    from test_firefox import serve_intercepts

    from support.cli import mnemo
    from test_derived_titles import expected_titles, write_export

    with firefox(tmp_path, env) as (bidi, internal, ff_env):
        export = tmp_path / "untitled" / "conversations.json"
        export.parent.mkdir()
        write_export(export)
        mnemo(ff_env, "import", str(export))
        sites = FakeSites()
        sites.pages["https://chatgpt.com/"] = shell("<p>home</p>", "ChatGPT")
        expires = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 3600))
        user = {"id": "user-jane", "email": "jane@example.com"}
        sites.json_routes["https://chatgpt.com/api/auth/session$"] = (
            200,
            {"accessToken": ACCESS_TOKEN, "expires": expires, "user": user},
        )
        serve_intercepts(bidi, sites)
        site_tab = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        bidi.call(
            "browsingContext.navigate",
            {"context": site_tab, "url": "https://chatgpt.com/", "wait": "complete"},
        )
        library = bidi.call("browsingContext.create", {"type": "tab"})["context"]
        bidi.call(
            "browsingContext.navigate",
            {
                "context": library,
                "url": f"moz-extension://{internal}/library/library.html",
                "wait": "complete",
            },
        )
        count = len(expected_titles())
        rows = "[...document.querySelectorAll('[data-mnemosyne=conversation] .row-title')]"
        assert bidi.wait_for(library, f"{rows}.length === {count} ? 'yes' : ''") == "yes"
        bidi.evaluate(
            library,
            "(() => { const s = document.querySelector('[data-mnemosyne=sort]'); s.value = 'title';"
            " s.dispatchEvent(new Event('change', {bubbles: true})); })()",
        )
        first = json.dumps(expected_titles()[0])
        shown = bidi.wait_for(
            library,
            f"(() => {{ const t = {rows}.map((n) => n.textContent);"
            f" return t.length === {count} && t[0] === {first} ? JSON.stringify(t) : ''; }})()",
        )
        assert json.loads(shown) == expected_titles()
        guide = bidi.wait_for(
            library,
            "(() => { const g = document.querySelector('[data-mnemosyne=backup-guide]')?.textContent || '';"
            " return g.includes('jane@example.com') ? g : ''; })()",
        )
        assert guide == "Backs up your ChatGPT account jane@example.com, signed in on your ChatGPT tab."
        listed = json.loads(mnemo(ff_env, "list", "--json", "--limit", "0").stdout)
        zebra = next(i["id"] for i in listed if (i.get("first_words") or "").startswith("Zebra"))
        bidi.call(
            "browsingContext.navigate",
            {
                "context": library,
                "url": f"moz-extension://{internal}/view/view.html?id={zebra}",
                "wait": "complete",
            },
        )
        heading = bidi.wait_for(
            library,
            "document.querySelector('[data-mnemosyne=transcript][data-state=ready]')"
            " ? document.getElementById('title').textContent : ''",
        )
        assert heading == "Zebra crossings in Lisbon, why so many?"
