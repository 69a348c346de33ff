"""Signals for browser tests that must show something did NOT happen: wait until the page has finished
what could make it happen, instead of waiting a fixed time."""

from __future__ import annotations

# Resolves once every image (in the document and in shadow roots) has loaded or failed, and no audio or
# video is still fetching, then lets two more task turns pass. An <img onerror> fires in the same task that
# marks the image complete, so by then any live handler (what hostile markup would use) has run.
SETTLED = """() => new Promise((resolve) => {
  const elements = () => {
    const all = [];
    const walk = (root) => { for (const e of root.querySelectorAll('*')) { all.push(e); if (e.shadowRoot) walk(e.shadowRoot); } };
    walk(document);
    return all;
  };
  const busy = () => elements().some((e) =>
    (e.localName === 'img' && !e.complete) ||
    ((e.localName === 'video' || e.localName === 'audio') && e.networkState === HTMLMediaElement.NETWORK_LOADING));
  const poll = () => (busy() ? setTimeout(poll, 10) : setTimeout(() => setTimeout(resolve, 0), 0));
  poll();
})"""


def settle(page) -> None:
    """Wait until the page's images and media have loaded or failed and their handlers have run."""
    page.evaluate(SETTLED)
