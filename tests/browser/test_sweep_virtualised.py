"""The DOM fallback on virtualised threads in a real browser (real layout, real scroll events): the Sept-2026
ChatGPT timeline (a column-reverse scroller whose scrollTop runs from 0 at the bottom to negative values, older
turns loading only when the top is reached) and claude.ai's partial mounting (rows keyed by data-index, only
those in view mounted). A small script in the served page plays the site's virtualiser; the extension exports
through the real host and the archive must hold every message once, in order, not partial."""

from __future__ import annotations

import json

import pytest
from closed_ui import TOAST_DONE, ClosedUi
from ext_fakesite import FIXTURES, FakeSites, shell, strip_scripts
from test_firefox import FIREFOX, firefox, open_and_export, serve_intercepts, shown_json

pytestmark = pytest.mark.browser


# Mounts only the rows in view (plus a margin) and, when the top is reached, loads `batch` older rows after a
# short delay, as the sites do. `reversed`: the scroller is flex column-reverse (distance from the top is
# scrollTop + range); otherwise a plain scroller (rows are prepended and the view is kept in place).
VIRTUALISER = """
<script>
(() => {
  const { rootSelector, rowSelector, rowHeight, loadedAtFirst, batch, reversed } = %s;
  const root = document.querySelector(rootSelector);
  const list = root.firstElementChild;
  const rows = [...list.querySelectorAll(rowSelector)].filter((row) => row.parentElement === list);
  let loaded = Math.min(rows.length, loadedAtFirst);
  let pending = null;
  list.style.position = "relative";
  list.style.flex = "none";
  const range = () => Math.max(0, root.scrollHeight - root.clientHeight);
  const fromTop = () => (reversed ? root.scrollTop + range() : root.scrollTop);
  function render() {
    list.style.height = loaded * rowHeight + "px";
    const top = fromTop();
    const first = rows.length - loaded;
    const mounted = [];
    for (let i = 0; i < loaded; i += 1) {
      if ((i + 1) * rowHeight > top - 50 && i * rowHeight < top + root.clientHeight + 50) {
        const row = rows[first + i];
        Object.assign(row.style, { position: "absolute", top: i * rowHeight + "px", height: rowHeight + "px",
          overflow: "hidden", width: "100%%" });
        mounted.push(row);
      }
    }
    list.replaceChildren(...mounted);
    if (top <= 1 && loaded < rows.length && !pending) {
      pending = setTimeout(() => {
        pending = null;
        const before = root.scrollTop;
        loaded = Math.min(rows.length, loaded + batch);
        list.style.height = loaded * rowHeight + "px";
        if (!reversed) root.scrollTop = before + batch * rowHeight; // keep the view where it was
        render();
      }, 120);
    }
  }
  root.addEventListener("scroll", render);
  list.style.height = loaded * rowHeight + "px";
  if (!reversed) root.scrollTop = root.scrollHeight;
  render();
  document.documentElement.dataset.virtualised = String(rows.length);
})();
</script>
"""


def with_virtualiser(html: str, **options) -> str:
    return html.replace("</body>", VIRTUALISER % json.dumps(options) + "</body>")


def export(page) -> dict:
    """Export through the closed-shadow UI with a real click; the sweep of a virtualised thread takes a while."""
    ui = ClosedUi(page)
    before = ui.get("[data-mnemosyne='toast']")
    ui.click("[data-mnemosyne='export']", timeout=15)
    toast = ui.wait(TOAST_DONE, timeout=60, other_than=before and before["element"])
    return {"state": toast["data"].get("state"), "text": toast["text"], "path": toast["data"].get("path")}


def saved_conversation(mnemo_cli) -> dict:
    (item,) = json.loads(mnemo_cli("list", "--json").stdout)
    return json.loads(mnemo_cli("show", item["id"], "--json").stdout)


def texts(message: dict) -> str:
    return "\n".join(p.get("text") or p.get("code") or p.get("name") or "" for p in message["parts"])


def timeline_page() -> str:
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "chatgpt_2026_09_timeline.html").read_text(encoding="utf-8")
    )
    return with_virtualiser(
        html,
        rootSelector="[data-app-action-timeline-scroll]",
        rowSelector="[data-turn-key]",
        rowHeight=450,
        loadedAtFirst=4,
        batch=3,
        reversed=True,
    )


def assert_whole_timeline(conversation: dict) -> None:
    messages = conversation["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"] * 12
    assert texts(messages[0]).startswith("How do I keep a sourdough starter alive")
    assert texts(messages[-2]) == "Thanks!"
    assert "Generated image 1" in texts(messages[9])
    assert conversation["provenance"]["partial"] is False


def test_chatgpt_sept_2026_timeline_is_read_whole_from_newest_to_oldest(browser, sites, mnemo_cli):
    html = timeline_page()
    url = sites.chatgpt_conversation("6f1c0000-aaaa-4000-8000-00000000a001", html, None, api_status=500)
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("html[data-virtualised='12']")
    # the real scroller runs the reversed way: pinned at the newest turn, scrollTop is 0, negative upwards
    assert page.evaluate("document.querySelector('[data-app-action-timeline-scroll]').scrollTop") == 0
    assert page.locator("[data-turn-key]").count() < 12
    result = export(page)
    assert result["state"] == "success", result["text"]
    assert result["path"] == "dom"
    assert_whole_timeline(saved_conversation(mnemo_cli))


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_reads_the_sept_2026_timeline_whole(tmp_path, env):
    # Firefox runs column-reverse scrollers the same way (scrollTop 0 at the bottom, negative upwards)
    sites = FakeSites()
    url = sites.chatgpt_conversation(
        "6f1c0000-bbbb-4000-8000-00000000b001", timeline_page(), None, api_status=403
    )
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        detail = open_and_export(bidi, url)
        assert detail["path"] == "dom" and detail["status"] == "created", detail
    assert_whole_timeline(shown_json(ff_env, detail["conversationId"]))


def test_claude_partial_mounting_is_read_whole(browser, sites, mnemo_cli):
    body = strip_scripts((FIXTURES / "dom_claude" / "ys_edges_claude_001.html").read_text(encoding="utf-8"))
    # 20 rows cloned in the page from the real page's two (question, answer), each marked so order can be checked
    html = shell(body, "Long research - Claude")
    html = html.replace(
        "</body>",
        """<script>
(() => {
  const [user, answer] = [0, 1].map((i) => document.querySelector(`[data-index="${i}"]`));
  const list = user.parentElement;
  const rows = Array.from({ length: 20 }, (_, i) => {
    const row = (i % 2 ? answer : user).cloneNode(true);
    row.setAttribute("data-index", String(i));
    row.removeAttribute("data-last-message");
    const article = row.querySelector("[aria-setsize]");  // "Message i of 20", as claude.ai labels its rows
    article.setAttribute("aria-setsize", "20");
    article.setAttribute("aria-posinset", String(i + 1));
    const body = row.querySelector("[data-testid='user-message']") || row.querySelector(".standard-markdown");
    const p = document.createElement("p");
    p.textContent = `row marker ${i}`;
    body.prepend(p);
    return row;
  });
  list.replaceChildren(...rows);
  const root = document.querySelector("[data-scroll-root]");
  root.replaceChildren(list);
})();
</script></body>""",
    )
    html = with_virtualiser(
        html,
        rootSelector="[data-scroll-root]",
        rowSelector="[data-index]",
        rowHeight=500,
        loadedAtFirst=8,
        batch=6,
        reversed=False,
    )
    url = sites.claude_conversation(html, None, api_status=500)
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("html[data-virtualised='20']")
    assert page.locator("[data-index]").count() < 20
    result = export(page)
    assert result["state"] == "success", result["text"]
    assert result["path"] == "dom"
    conversation = saved_conversation(mnemo_cli)
    messages = conversation["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"] * 10
    for i, message in enumerate(messages):
        assert f"row marker {i}" in texts(message)
    assert conversation["provenance"]["partial"] is False
