"""The extension's injected UI as the user meets it, in Chromium: it lives in CLOSED shadow roots that no page
script (and no Playwright locator) can enter, so tests find it through the DevTools protocol, which pierces
closed roots, and press it with the real mouse (a trusted click, as a user's)."""

from __future__ import annotations

import time

HOSTS = "mnemosyne-ui"
TOAST_DONE = "[data-mnemosyne='toast'][data-state='success'], [data-mnemosyne='toast'][data-state='error']"


class ClosedUi:
    def __init__(self, page):
        self.page = page
        self.cdp = page.context.new_cdp_session(page)

    def _shadow_roots(self) -> list[int]:
        """Node ids of the shadow roots of our hosts (valid until the next DOM.getDocument)."""
        root = self.cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        found: list[int] = []
        stack = [root]
        while stack:
            node = stack.pop()
            if node.get("localName") == HOSTS:
                found.extend(shadow["nodeId"] for shadow in node.get("shadowRoots", []))
            stack.extend(node.get("children", []))
            stack.extend(node.get("shadowRoots", []))
            if "contentDocument" in node:
                stack.append(node["contentDocument"])
        return found

    def modes(self) -> list[str]:
        """The mode of every shadow root our hosts carry."""
        root = self.cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        modes, stack = [], [root]
        while stack:
            node = stack.pop()
            if node.get("localName") == HOSTS:
                modes.extend(shadow.get("shadowRootType") for shadow in node.get("shadowRoots", []))
            stack.extend(node.get("children", []) + node.get("shadowRoots", []))
        return modes

    def _find(self, selector: str) -> int | None:
        for shadow in self._shadow_roots():
            node = self.cdp.send("DOM.querySelector", {"nodeId": shadow, "selector": selector})["nodeId"]
            if node:
                return node
        return None

    def _read(self, node: int) -> dict:
        remote = self.cdp.send("DOM.resolveNode", {"nodeId": node})["object"]
        result = self.cdp.send(
            "Runtime.callFunctionOn",
            {
                "objectId": remote["objectId"],
                "functionDeclaration": "function () { return {text: this.innerText, data: {...this.dataset},"
                " disabled: Boolean(this.disabled)}; }",
                "returnByValue": True,
            },
        )
        self.cdp.send("Runtime.releaseObject", {"objectId": remote["objectId"]})
        return result["result"]["value"]

    def get(self, selector: str) -> dict | None:
        """{text, data, disabled, element} of the first match, or None; `element` tells elements apart."""
        node = self._find(selector)
        if not node:
            return None
        element = self.cdp.send("DOM.describeNode", {"nodeId": node})["node"]["backendNodeId"]
        return {**self._read(node), "element": element}

    def wait(self, selector: str, timeout: float = 30, *, other_than: int | None = None) -> dict:
        """The first match; with `other_than`, a match that is not that element (a new toast, not the last)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.get(selector)
            if found is not None and found["element"] != other_than:
                return found
            self.page.wait_for_timeout(100)  # a polling interval while the UI appears, not a proof of absence
        raise TimeoutError(f"no {selector} in the extension's UI")

    def click(self, selector: str, timeout: float = 30) -> None:
        """A real mouse click in the middle of the element (a trusted event, as a user's)."""
        self.wait(selector, timeout)
        node = self._find(selector)
        self.cdp.send("DOM.scrollIntoViewIfNeeded", {"nodeId": node})
        quad = self.cdp.send("DOM.getBoxModel", {"nodeId": node})["model"]["border"]
        x = (quad[0] + quad[2] + quad[4] + quad[6]) / 4
        y = (quad[1] + quad[3] + quad[5] + quad[7]) / 4
        self.page.mouse.click(x, y)

    def export(self) -> dict:
        """Click Export and return the final toast: {state, text, id, path, code}."""
        before = self.get("[data-mnemosyne='toast']")
        self.click("[data-mnemosyne='export']")
        toast = self.wait(TOAST_DONE, other_than=before and before["element"])
        data = toast["data"]
        return {
            "state": data.get("state"),
            "text": toast["text"],
            "id": data.get("conversationId"),
            "path": data.get("path"),
            "code": data.get("code"),
        }
