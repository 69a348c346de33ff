"""The library, the rendered view and the branch switcher in Firefox ESR (WebDriver BiDi), with the real host."""

from __future__ import annotations

import json

import pytest
from test_firefox import FIREFOX, firefox
from test_view_render import EDITS, FIXTURES, FORKED, tide_with_extras

from support.cli import mnemo

pytestmark = pytest.mark.browser


def import_api(tmp_path, env, api: dict, name: str) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(api), encoding="utf-8")
    mnemo(env, "import", str(path))
    listed = json.loads(mnemo(env, "list", "--json").stdout)
    return next(item["id"] for item in listed if item["title"] == api["title"])


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_library_view_rendering_and_branch_switch(tmp_path, env):
    with firefox(tmp_path, env) as (bidi, internal, ff_env):
        tide = import_api(tmp_path, ff_env, tide_with_extras(), "tide.json")
        forked_api = json.loads((FIXTURES / "chatgpt_api" / "elinvoss" / FORKED).read_text(encoding="utf-8"))
        forked = import_api(tmp_path, ff_env, forked_api, "forked.json")
        context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        base = f"moz-extension://{internal}"

        # the library lists both; the site filter and a search narrow them
        bidi.call(
            "browsingContext.navigate",
            {"context": context, "url": f"{base}/library/library.html", "wait": "complete"},
        )
        rows = "document.querySelectorAll('[data-mnemosyne=conversation]')"
        assert bidi.wait_for(context, f"{rows}.length === 2 ? 'yes' : ''") == "yes"
        bidi.evaluate(
            context,
            "(() => { const s = document.querySelector('[data-mnemosyne=filter-site]'); s.value = 'claude';"
            " s.dispatchEvent(new Event('change', {bubbles: true})); })()",
        )
        assert bidi.wait_for(context, "document.querySelector('[data-mnemosyne=empty]')?.textContent || ''")
        bidi.evaluate(
            context,
            "(() => { const s = document.querySelector('[data-mnemosyne=filter-site]'); s.value = '';"
            " s.dispatchEvent(new Event('change', {bubbles: true})); const q = document.getElementById('search');"
            " q.value = 'anneal'; q.dispatchEvent(new Event('input')); })()",
        )
        hit = bidi.wait_for(  # search results are the rows with snippets
            context,
            f"document.querySelector('.row-snippet') ? [...{rows}].map((r) => r.dataset.conversationId).join(',') : ''",
        )
        assert hit == tide
        assert bidi.evaluate(context, "document.querySelector('.row-snippet mark')?.textContent")["value"]

        # the view renders Markdown, code and math
        bidi.call(
            "browsingContext.navigate",
            {"context": context, "url": f"{base}/view/view.html?id={tide}", "wait": "complete"},
        )
        ready = "document.querySelector('[data-mnemosyne=transcript][data-state=ready]') ? 'yes' : ''"
        assert bidi.wait_for(context, ready) == "yes"
        found = json.loads(
            bidi.evaluate(
                context,
                "JSON.stringify({h: document.querySelectorAll('.markdown h1, .markdown h2, .markdown h3').length,"
                " td: [...document.querySelectorAll('.markdown td')].map((e) => e.textContent),"
                " kw: document.querySelector('.markdown code.language-python .hljs-keyword')?.textContent,"
                " math: document.querySelectorAll('.markdown math').length,"
                " rel: document.querySelector('.markdown a[href]')?.rel})",
            )["value"]
        )
        assert found == {
            "h": found["h"],
            "td": ["anneal", "450 °C"],
            "kw": "def",
            "math": 2,
            "rel": "noopener noreferrer",
        }
        assert found["h"] >= 2

        # the branch switcher shows the other edit
        bidi.call(
            "browsingContext.navigate",
            {"context": context, "url": f"{base}/view/view.html?id={forked}", "wait": "complete"},
        )
        assert bidi.wait_for(context, ready) == "yes"
        users = "[...document.querySelectorAll('.message.role-user')].map((m) => m.textContent).join('\\n')"
        before = bidi.evaluate(context, users)["value"]
        shown = [edit for edit in EDITS if edit in before]
        assert len(shown) == 1
        other = EDITS[1 - EDITS.index(shown[0])]
        bidi.evaluate(
            context,
            "[...document.querySelectorAll('.message.role-user')].find((m) => m.textContent.includes("
            + json.dumps(shown[0])
            + ")).querySelector('[data-mnemosyne=branch-switch] .branch-next').click()",
        )
        after = bidi.wait_for(
            context, f"(() => {{ const t = {users}; return t.includes({json.dumps(other)}) ? t : ''; }})()"
        )
        assert other in after


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_filters_and_sorts_over_ten_thousand_conversations(tmp_path, env):
    """10,000 conversations imported with `mnemo import`; in Firefox the title sort over all of them,
    then site + project + has code (and project alone, longest first, paged to its end) show exactly the
    conversations worked out from the generated data, in order."""
    import library_archive
    from library_archive import expected

    convs = library_archive.build(env)
    with firefox(tmp_path, env) as (bidi, internal, _):
        context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        bidi.call(
            "browsingContext.navigate",
            {
                "context": context,
                "url": f"moz-extension://{internal}/library/library.html",
                "wait": "complete",
            },
        )
        # the project choices come from the host's facets with the first page
        assert bidi.wait_for(context, "document.querySelector('#project option[value=Alpha]') ? 'yes' : ''")

        def choose(sort: str, site: str = "", project: str = "", code: bool = False) -> None:
            bidi.evaluate(
                context,
                "(() => { const $ = (id) => document.getElementById(id);"
                f" $('sort').value = {json.dumps(sort)}; $('site').value = {json.dumps(site)};"
                f" $('project').value = {json.dumps(project)}; $('has-code').checked = {json.dumps(code)};"
                " $('filters').dispatchEvent(new Event('change')); })()",
            )

        def shown(count: int, whole: bool) -> list[str]:
            """The first `count` row ids; with `whole`, once they are all there is and the status says so."""
            ready = (
                f"rs.length === {count} && document.getElementById('status').textContent === '{count} conversations'"
                if whole
                else f"rs.length >= {count}"
            )
            ids = bidi.wait_for(
                context,
                "(() => { scrollTo(0, document.body.scrollHeight);"
                " const rs = [...document.querySelectorAll('[data-mnemosyne=conversation]')];"
                f" return {ready} ? rs.slice(0, {count}).map((r) => r.dataset.conversationId).join(',') : ''; }})()",
                timeout=60,
            )
            return ids.split(",")

        choose("title")
        assert shown(200, whole=False) == expected(convs, "title")[:200]

        want = expected(convs, "title", lambda c: c.site == "claude" and c.project == "Alpha" and c.has_code)
        assert len(want) == 10
        choose("title", site="claude", project="Alpha", code=True)
        assert shown(len(want), whole=True) == want

        want = expected(convs, "length", lambda c: c.project == "Alpha")
        choose("length", project="Alpha")
        assert shown(len(want), whole=True) == want
