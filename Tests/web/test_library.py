"""The client library in a browser, loaded from the daemon by a page of
another origin: a small page served by Python's http.server on its own
127.0.0.1 port imports http://127.0.0.1:DAEMONPORT/lib/foldsync.js (the
daemon serves clients/js at /lib/, with CORS for the origins it is told
of: --allow-origin), subscribes, and shows the board in the DOM; a change
made over HTTP shows up; an action from the page goes through. Then the
page connects through a relay that cuts every WebSocket upgrade while it
passes plain HTTP, as a proxy that breaks WebSockets does: transport
"auto" falls back to the event stream and keeps syncing.

The module starts its own daemon (it needs --allow-origin for the page's
origin, known only once the page's server listens)."""
import functools
import http.server
import json
import os
import re
import socket
import tempfile
import threading
import unittest
import urllib.request

import harness
from harness import wait
from selenium.webdriver.common.by import By

PAGE_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>foldsync library page</title>
<script type="module" src="/page.js"></script></head>
<body>
<p>transport <span id="transport"></span>, <span id="state">loading</span>, rev <span id="rev"></span></p>
<ul id="sections"></ul>
<p id="error"></p>
</body></html>
"""

# The page: the library imported across origins, a board shown as text.
PAGE_JS = """import { connect } from "http://127.0.0.1:%(port)d/lib/foldsync.js";

const params = new URLSearchParams(location.search);
const client = connect(params.get("ws"), { websocketRetryMs: 600000 });
window.client = client;
window.transports = [];
const $ = (id) => document.getElementById(id);
const showConnection = () => { $("transport").textContent = client.transport; $("state").textContent = client.state; };
client.on("state", showConnection);
client.on("transport", (t) => { window.transports.push(t.transport); showConnection(); });
function render(board) {
  $("rev").textContent = String(board.rev);
  const list = $("sections");
  list.replaceChildren(...board.state.sections.map((s) => {
    const li = document.createElement("li");
    li.dataset.id = s.id;
    li.textContent = `${s.id} ${s.expanded ? "open" : "closed"} ${s.title}`;
    return li;
  }));
}
try {
  const board = await client.subscribe(params.get("board"));
  window.board = board;
  render(board);
  board.on("change", () => render(board));
  showConnection();
} catch (e) {
  $("error").textContent = `${e.code}: ${e.message}`;
}
"""


class Relay:
    """A TCP relay to the daemon on 127.0.0.1; with refuse_upgrades set, a
    connection whose request asks for a WebSocket upgrade is cut before the
    daemon sees it, and every other request passes."""

    UPGRADE = re.compile(rb"\r\nupgrade:[ \t]*websocket", re.I)

    def __init__(self, target_port):
        self.target = target_port
        self.refuse_upgrades = False
        self.refused = 0
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1]
        self.closed = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.closed:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            threading.Thread(target=self.inbound, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self.pipe, args=(upstream, client), daemon=True).start()

    def inbound(self, src, dst):
        tail = b""
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                seen = tail + data
                tail = seen[-64:]
                if self.refuse_upgrades and self.UPGRADE.search(seen):
                    self.refused += 1
                    break
                dst.sendall(data)
        except OSError:
            pass
        self.hang_up(src, dst)

    def pipe(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        self.hang_up(src, dst)

    @staticmethod
    def hang_up(*socks):
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.closed = True
        self.server.close()


class LibDaemon(harness.Daemon):
    """A daemon of this module's own, allowing the page's origin."""

    ENV = "FOLDSYNC_WEB_LIB_UNUSED_"   # never set: always standalone
    origin = None

    def prepare(self, tmp):
        self.config = os.path.join(tmp, "lib.conf")
        with open(self.config, "w") as f:
            f.write(f"allow-origin = {self.origin}\n")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


PAGE = DAEMON = RELAY = None
_served = None


def setUpModule():
    global PAGE, DAEMON, RELAY, _served
    folder = tempfile.mkdtemp(prefix="foldsync-lib-page-")
    handler = functools.partial(QuietHandler, directory=folder)
    _served = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=_served.serve_forever, daemon=True).start()
    PAGE = f"http://127.0.0.1:{_served.server_address[1]}"
    LibDaemon.origin = PAGE
    DAEMON = LibDaemon()
    with open(os.path.join(folder, "index.html"), "w") as f:
        f.write(PAGE_HTML)
    with open(os.path.join(folder, "page.js"), "w") as f:
        f.write(PAGE_JS % {"port": DAEMON.port})
    RELAY = Relay(DAEMON.port)


def tearDownModule():
    RELAY.close()
    _served.shutdown()
    DAEMON.stop()


def sections(ids):
    return {"mode": "multi", "sections": [{"id": i, "title": i.upper(), "items": ["x"], "expanded": False} for i in ids]}


class Library(harness.OneBrowser):

    def open_page(self, board, ws):
        d = self.d
        d.get_log("browser")   # drained: what an earlier page logged is not this one's
        d.get(f"{PAGE}/?board={board}&ws={ws}")
        wait(d, lambda d: d.find_element(By.ID, "state").text == "connected"
             and d.find_elements(By.CSS_SELECTOR, "#sections li"), 15,
             lambda: f"the page never showed the board: {d.find_element(By.TAG_NAME, 'body').text}")

    def shown(self):
        return [li.text for li in self.d.find_elements(By.CSS_SELECTOR, "#sections li")]

    def expected(self, name):
        state = DAEMON.board(name)["state"]
        return [f"{s['id']} {'open' if s['expanded'] else 'closed'} {s['title']}" for s in state["sections"]]

    def wait_shown(self, name, what):
        want = self.expected(name)
        rev = DAEMON.board(name)["rev"]
        wait(self.d, lambda d: self.shown() == want and d.find_element(By.ID, "rev").text == str(rev), 10,
             lambda: f"{what}: the page shows {self.shown()}, the daemon {want}")

    def assert_mirror(self, name):
        got = DAEMON.board(name)
        mine = self.d.execute_script("return JSON.stringify({rev: board.rev, epoch: board.epoch, state: board.state})")
        self.assertEqual(json.loads(mine), {"rev": got["rev"], "epoch": got["epoch"], "state": got["state"]})

    def page_toggle(self, section):
        return self.d.execute_async_script("""
            const [section, done] = arguments;
            window.board.toggle(section).then((rev) => done(rev), (e) => done(`${e.code}: ${e.message}`));""", section)

    def test_page_of_another_origin_imports_the_library_and_syncs(self):
        name = f"lib{os.getpid()}"
        DAEMON.put_board(name, sections(["a", "b", "c"]))
        # CORS as the page's origin sees it, on the library's files.
        req = urllib.request.Request(f"{DAEMON.base}/lib/foldsync.js", headers={"Origin": PAGE})
        with urllib.request.urlopen(req, timeout=5) as r:
            self.assertEqual(r.status, 200)
            self.assertEqual(r.headers.get("access-control-allow-origin"), PAGE)
        self.open_page(name, f"ws://127.0.0.1:{DAEMON.port}/ws")
        d = self.d
        self.assertEqual(d.execute_script("return location.origin"), PAGE)
        self.assertEqual(d.execute_script("return client.transport"), "websocket")
        self.wait_shown(name, "the first snapshot")
        # A change over HTTP reaches the page.
        DAEMON.action(name, {"type": "expand", "section": "b"})
        self.wait_shown(name, "a change made over HTTP")
        DAEMON.action(name, {"type": "setTitle", "section": "c", "title": "renamed"})
        self.wait_shown(name, "a second change")
        # An action from the page resolves with its rev.
        rev = self.page_toggle("a")
        self.assertEqual(rev, DAEMON.board(name)["rev"])
        self.wait_shown(name, "the page's own action")
        self.assert_mirror(name)
        bad = [l for l in d.get_log("browser") if l["level"] == "SEVERE"]
        self.assertEqual(bad, [], "console errors (CORS refusals show up here)")

    def test_auto_falls_back_to_the_stream_when_websockets_are_cut(self):
        name = f"libstream{os.getpid()}"
        DAEMON.put_board(name, sections(["a", "b"]))
        RELAY.refuse_upgrades = True
        refused = RELAY.refused
        self.open_page(name, f"ws://127.0.0.1:{RELAY.port}/ws")
        d = self.d
        wait(d, lambda d: d.execute_script("return client.transport") == "stream", 15, "no fallback to the stream")
        self.assertEqual(d.execute_script("return window.transports"), ["stream"])
        self.assertGreaterEqual(RELAY.refused - refused, 2, "two WebSocket upgrades were cut first")
        self.assertEqual(d.find_element(By.ID, "transport").text, "stream")
        self.wait_shown(name, "the snapshot over the stream")
        # Later changes keep arriving over the stream.
        DAEMON.action(name, {"type": "expand", "section": "a"})
        self.wait_shown(name, "a change over the stream")
        DAEMON.action(name, {"type": "setTitle", "section": "b", "title": "still syncing"})
        self.wait_shown(name, "a second change over the stream")
        # The page's actions go as POST (through the relay, across origins).
        rev = self.page_toggle("b")
        self.assertEqual(rev, DAEMON.board(name)["rev"])
        self.wait_shown(name, "the page's own action over POST")
        self.assertEqual(d.execute_script("return [client.transport, client.state]"), ["stream", "connected"])
        self.assert_mirror(name)


if __name__ == "__main__":
    unittest.main()
