"""Every refused WebSocket upgrade, as Python's `websockets` client reports
it: the status it read (`InvalidStatus.response.status_code`) and the JSON
error body. Before the refusals were HTTP/1.1 answers, this client could only
say "did not receive a valid HTTP response"."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

DAEMON = os.environ["FOLDSYNC_DAEMON"]
SECRET = "reader-secret-strict"


class Daemon:
    """One foldsyncd on a free loopback port, stopped by `stop()`."""

    def __init__(self, *args):
        self.tmp = tempfile.mkdtemp(prefix="foldsync-strict-")
        self.log = os.path.join(self.tmp, "daemon.log")
        with open(self.log, "wb") as logf:
            self.proc = subprocess.Popen(
                [DAEMON, "--listen", "127.0.0.1:0", "--db", os.path.join(self.tmp, "d.db"), *args],
                stdout=logf, stderr=subprocess.STDOUT)
        deadline = time.time() + 15
        while time.time() < deadline:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", f.read())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise AssertionError("foldsyncd did not start")

    def url(self, path="/ws"):
        return f"ws://127.0.0.1:{self.port}{path}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def hash_token(secret):
    return subprocess.run([DAEMON, "hash-token"], input=secret.encode(), capture_output=True, check=True).stdout.decode().strip()


class Refusals(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.open = Daemon()
        cls.tokens = Daemon("--token", f"reader read {hash_token(SECRET)}")
        cls.full = Daemon("--max-connections", "1")

    @classmethod
    def tearDownClass(cls):
        for d in (cls.open, cls.tokens, cls.full):
            d.stop()

    def refused(self, url, **kwargs):
        with self.assertRaises(InvalidStatus) as caught:
            with connect(url, open_timeout=10, **kwargs):
                pass
        response = caught.exception.response
        body = json.loads(response.body)
        self.assertTrue(body.get("message"), body)
        return response.status_code, body["code"], response

    def test_a_foreign_origin_is_403(self):
        self.assertEqual(self.refused(self.open.url(), origin="http://evil.example")[:2], (403, "forbidden"))

    def test_a_wrong_token_in_the_authorization_header_is_401(self):
        status, code, response = self.refused(self.tokens.url(), additional_headers={"Authorization": "Bearer nope"})
        self.assertEqual((status, code), (401, "forbidden"))
        self.assertEqual(response.headers.get("WWW-Authenticate"), "Bearer")
        with connect(self.tokens.url(), additional_headers={"Authorization": f"Bearer {SECRET}"}, open_timeout=10) as ws:
            self.assertEqual(json.loads(ws.recv(timeout=10))["type"], "hello")
            self.assertEqual(json.loads(ws.recv(timeout=10))["type"], "authenticated")

    def test_a_wrong_token_as_a_subprotocol_keeps_the_upgrade_and_is_answered_forbidden(self):
        with connect(self.tokens.url(), subprotocols=["foldsync.v1", "token.nope"], open_timeout=10) as ws:
            self.assertEqual(ws.subprotocol, "foldsync.v1")
            ws.send(json.dumps({"type": "subscribe", "board": "default"}))
            seen = []
            while not any(m.get("type") == "error" for m in seen):
                seen.append(json.loads(ws.recv(timeout=10)))
            self.assertEqual([m["code"] for m in seen if m.get("type") == "error"], ["forbidden"])

    def test_a_wrong_path_is_404(self):
        self.assertEqual(self.refused(self.open.url("/elsewhere"))[:2], (404, "not_found"))

    def test_a_full_daemon_is_503(self):
        with connect(self.full.url(), open_timeout=10):
            self.assertEqual(self.refused(self.full.url())[:2], (503, "unavailable"))


if __name__ == "__main__":
    unittest.main()
