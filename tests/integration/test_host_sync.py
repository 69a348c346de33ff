"""Sync actions over the real host: save's never-worse rule, sync-state, sync-log."""

from __future__ import annotations

import json

import pytest

from support.data import load

CHATGPT_DIR = "chatgpt_api/elinvoss/"
TIDE = CHATGPT_DIR + "0119-Tide_anneal_crucible_explanation-6925e174-6714-832f-8946-84bdb22f6d2e.json"
TIDE_ID = "6925e174-6714-832f-8946-84bdb22f6d2e"


def capture_of(site_id, complete, turns=2, site="chatgpt"):
    return {
        "format": "mnemosyne.capture",
        "version": 1,
        "site": site,
        "url": f"https://chatgpt.com/c/{site_id}",
        "conversation_id": site_id,
        "title": "From the page",
        "captured_at": "2026-11-30T10:00:00Z",
        "complete": complete,
        "turns": [
            {
                "key": f"dom-{n}",
                "order": n,
                "role": "user" if n % 2 == 0 else "assistant",
                "model": None,
                "markdown": f"turn {n} as the page showed it",
                "attachments": [],
            }
            for n in range(turns)
        ],
    }


def portable(host, conv_id):
    return json.loads(host.paged("get", conversation_id=conv_id)[0])


def test_partial_capture_after_complete_is_kept_and_nothing_is_lost(host, fixtures):
    full = host.data("save", payload=load(fixtures, TIDE), kind="chatgpt_api", list_updated="1764093781.117")
    before = portable(host, full["conversation_id"])
    kept = host.data(
        "save", payload=capture_of(TIDE_ID, complete=False), kind="capture", origin="keep-current"
    )
    assert kept["status"] == "kept" and kept["partial"] is True and kept["reason"]
    assert kept["conversation_id"] == full["conversation_id"]
    after = portable(host, full["conversation_id"])
    assert after == before  # every message, the title, the provenance: untouched
    assert len(after["messages"]) == full["messages"] and after["provenance"]["partial"] is False
    state = host.data("sync-state", site="chatgpt", ids=[TIDE_ID])["known"][TIDE_ID]
    assert state == {
        "list_updated": "1764093781.117",
        "complete": True,
        "conversation_id": kept["conversation_id"],
    }


def test_plural_endpoint_window_after_complete_is_kept(host, fixtures):
    payload = load(fixtures, TIDE)
    full = host.data("save", payload=payload, kind="chatgpt_api")
    nodes = [n["message"] for n in payload["mapping"].values() if n.get("message")]
    window = {"conversation_id": TIDE_ID, "title": payload["title"], "messages": nodes[-2:]}
    kept = host.data("save", payload=window, kind="chatgpt_api")
    assert kept["status"] == "kept" and kept["messages"] == full["messages"]


def test_complete_after_partial_updates_and_marks_complete(host, fixtures):
    partial = host.data("save", payload=capture_of(TIDE_ID, complete=False), kind="capture", list_updated="1")
    assert partial["status"] == "created" and partial["partial"] is True
    state = host.data("sync-state", site="chatgpt", ids=[TIDE_ID])["known"][TIDE_ID]
    assert state["complete"] is False and state["list_updated"] == "1"
    full = host.data(
        "save", payload=load(fixtures, TIDE), kind="chatgpt_api", list_updated="2", origin="backup"
    )
    assert full["status"] == "updated" and full["partial"] is False
    assert full["conversation_id"] == partial["conversation_id"]
    state = host.data("sync-state", site="chatgpt", ids=[TIDE_ID])["known"][TIDE_ID]
    assert state == {"list_updated": "2", "complete": True, "conversation_id": full["conversation_id"]}
    # a save without a marker (a user's click) keeps the marker the list gave
    host.data("save", payload=load(fixtures, TIDE), kind="chatgpt_api")
    assert host.data("sync-state", site="chatgpt", ids=[TIDE_ID])["known"][TIDE_ID]["list_updated"] == "2"


def test_sync_log_upserts_runs_and_refuses_bad_ones(host):
    run = {
        "id": "run-1",
        "site": "chatgpt",
        "started_at": "2026-12-01T20:00:00Z",
        "finished_at": None,
        "state": "running",
        "counts": {"done": 0, "skipped": 0, "failed": 0, "left": 1000},
        "failures": [],
    }
    assert host.data("sync-log", run=run) == {"recorded": True}
    done = dict(
        run,
        state="done",
        finished_at="2026-12-01T21:00:00Z",
        counts={"done": 990, "skipped": 5, "failed": 5, "left": 0},
        failures=[{"id": "abc", "title": "Broken", "reason": "HTTP 500"}],
    )
    assert host.data("sync-log", run=done) == {"recorded": True}
    bad = [
        None,
        dict(run, site="example"),
        dict(run, state="exploded"),
        dict(run, counts={"done": -1}),
        dict(run, counts={"done": "5"}),
        dict(run, started_at="yesterday"),
        dict(run, failures=[{"id": 5}]),
        dict(run, id=None),
    ]
    for b in bad:
        assert host.call("sync-log", run=b)["error"]["code"] == "BAD_REQUEST", b


@pytest.mark.parametrize(
    "params",
    [
        {"site": "example", "ids": ["a"]},
        {"site": "chatgpt", "ids": []},
        {"site": "chatgpt", "ids": [5]},
        {"site": "chatgpt", "ids": ["a"] * 501},
        {"ids": ["a"]},
    ],
    ids=["site", "empty", "type", "501", "no-site"],
)
def test_sync_state_refuses_bad_requests(host, params):
    assert host.call("sync-state", **params)["error"]["code"] == "BAD_REQUEST"


def test_deleted_conversation_is_not_known(host, fixtures):
    saved = host.data("save", payload=load(fixtures, TIDE), kind="chatgpt_api", list_updated="x")
    host.data("delete", conversation_id=saved["conversation_id"])
    assert host.data("sync-state", site="chatgpt", ids=[TIDE_ID])["known"] == {}
