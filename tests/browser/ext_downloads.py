"""The extension's downloads as the browser recorded them (every export is saved by the worker's downloads
API), read back through chrome.downloads on an extension page."""

from __future__ import annotations

from pathlib import Path


def extension_downloads(browser, ext_url) -> list[dict]:
    """The extension's finished downloads, newest first, with the file's text."""
    page = browser.new_page()
    page.goto(ext_url("options/options.html"))
    items = page.evaluate(
        """() => new Promise((resolve, reject) => {
          const deadline = Date.now() + 30000;
          const poll = async () => {
            const items = await chrome.downloads.search({orderBy: ['-startTime']});
            if (items.length && items.every((item) => item.state !== 'in_progress')) resolve(items);
            else if (Date.now() > deadline) reject(new Error('no finished download'));
            else setTimeout(() => poll().catch(reject), 50);
          };
          poll().catch(reject);
        })"""
    )
    page.close()
    for item in items:
        item["text"] = (
            Path(item["filename"]).read_text(encoding="utf-8") if item["state"] == "complete" else None
        )
    return items
