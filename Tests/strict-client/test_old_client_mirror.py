"""An old client, written against the contract with a third-party RFC 6902
library (PyPI `jsonpatch`), that knows nothing of typed items, the shared
focus or `view`: its mirror must still equal `GET` after every change those
extensions make (the contract's mirror guarantee)."""
import json
import os
import time
import unittest
import urllib.request

import jsonpatch
from websockets.sync.client import connect

from test_refusals import Daemon


class OldClientMirror(unittest.TestCase):
    def setUp(self):
        self.d = Daemon()
        self.addCleanup(self.d.stop)

    def http(self, method, path, body=None):
        req = urllib.request.Request(f"http://127.0.0.1:{self.d.port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read() or b"null")

    def test_mirror_with_jsonpatch_equals_get_through_every_focus_edit(self):
        items = ["plain", {"label": "Docs", "detail": "d", "href": "https://example.com", "badge": "new", "id": "docs"},
                 {"label": "Other", "id": "other", "mine": [1, 2]}]
        actions = [
            {"type": "setItems", "section": "s1", "items": items},
            {"type": "toggle", "section": "s0"},
            {"type": "focus", "section": "s1", "item": 1},              # expands s1, collapses s0, adds /focus
            {"type": "setItems", "section": "s1", "items": [items[2], items[1]]},   # the focus follows "docs"
            {"type": "moveSection", "section": "s1", "to": 0},
            {"type": "focus", "section": "s2", "item": 0},
            {"type": "setItems", "section": "s2", "items": []},         # no longer reaches: removed
            {"type": "focus", "section": "s1", "item": 0},
            {"type": "removeSection", "section": "s1"},                 # its section goes: removed
            {"type": "focus", "section": "s0", "item": 1},
            {"type": "clearFocus"},
            {"type": "replace", "state": {"mode": "multi", "sections": [
                {"id": "n", "title": "N", "items": ["a", {"label": "b"}], "expanded": False}], "focus": {"section": "n", "item": 1}}},
        ]
        with connect(self.d.url(), open_timeout=10) as ws:
            hello = json.loads(ws.recv(timeout=10))
            self.assertEqual(hello["type"], "hello")
            ws.send(json.dumps({"type": "subscribe", "board": "default"}))
            state, rev = None, None
            deadline = time.time() + 30
            for action in actions:
                target = self.http("POST", "/api/boards/default/actions", action)["rev"]
                while rev is None or rev < target:
                    self.assertLess(time.time(), deadline, "patches did not arrive")
                    m = json.loads(ws.recv(timeout=10))
                    if m["type"] == "snapshot":
                        state, rev = m["state"], m["rev"]
                    elif m["type"] == "patch":
                        self.assertEqual(m["rev"], rev + 1)
                        state = jsonpatch.apply_patch(state, m["ops"])
                        rev = m["rev"]
                got = self.http("GET", "/api/boards/default")
                self.assertEqual((got["rev"], got["state"]), (rev, state), action)
        self.assertEqual(state["focus"], {"section": "n", "item": 1})


if __name__ == "__main__":
    unittest.main(verbosity=2)
