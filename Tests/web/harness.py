"""Shared pieces of the dashboard tests: the daemon under test, browsers, HTTP.

Tests/web/run.sh starts the daemon ($FOLDSYNCD, else .build/debug/foldsyncd)
and passes it in through the environment:
FOLDSYNC_WEB_PORT, FOLDSYNC_WEB_PIDFILE (the daemon's pid; rewritten when a
test restarts the daemon, so run.sh always stops the current one),
FOLDSYNC_WEB_DB, FOLDSYNC_WEB_LOG. Without them (running one file by hand)
the harness starts its own daemon and stops it at exit. A daemon the harness
starts serves FOLDSYNC_WEB_ROOT when set (bench_patch.py times an older
page that way), else clients/web.

TokenDaemon is a second daemon whose configuration file holds tokens
(FOLDSYNC_WEB_TOKEN_PORT, _PIDFILE, _DB, _LOG, _CONFIG, and the secrets in
FOLDSYNC_WEB_SECRET_VIEWER, _EDITOR, _ADMIN, _OPSONLY); standalone, it writes
that file itself.
"""
import atexit
import hashlib
import json
import os
import re
import secrets
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import warnings

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DAEMON = os.environ.get("FOLDSYNCD") or os.path.join(ROOT, ".build", "debug", "foldsyncd")
CLIENT = os.environ.get("FOLDSYNC_CLIENT", os.path.join(ROOT, ".build", "debug", "foldsync"))
ARTIFACTS = os.path.join(ROOT, ".build", "web-artifacts")
# A daemon restarted by a test outlives the test process on purpose (run.sh stops it).
warnings.filterwarnings("ignore", category=ResourceWarning, message="subprocess .* is still running")
CHROMIUM = os.environ.get("FOLDSYNC_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("FOLDSYNC_CHROMEDRIVER", "/usr/bin/chromedriver")
# The dashboard's files; another folder (say, an older commit's) for a benchmark's "before".
WEB_ROOT = os.environ.get("FOLDSYNC_WEB_ROOT", os.path.join(ROOT, "clients", "web"))


def conformance_dir():
    """The JSON Patch suite: $FOLDSYNC_CONFORMANCE_DIR (the suite or its
    parent) when set, else shared/conformance/json-patch-tests found walking
    up from the repository. Never copied into the project."""
    env = os.environ.get("FOLDSYNC_CONFORMANCE_DIR")
    if env:
        for d in (env, os.path.join(env, "json-patch-tests")):
            if os.path.isfile(os.path.join(d, "tests.json")):
                return d
        raise AssertionError(f"FOLDSYNC_CONFORMANCE_DIR={env} holds no tests.json")
    d = ROOT
    while True:
        cand = os.path.join(d, "shared", "conformance", "json-patch-tests")
        if os.path.isfile(os.path.join(cand, "tests.json")):
            return cand
        if os.path.dirname(d) == d:
            raise AssertionError("JSON Patch conformance suite not found; set FOLDSYNC_CONFORMANCE_DIR")
        d = os.path.dirname(d)


class Daemon:
    """The foldsyncd under test, which a test may stop and start again on the same port."""

    ENV = "FOLDSYNC_WEB_"
    config = None

    def __init__(self):
        self.proc = None
        env = self.ENV
        if os.environ.get(env + "PORT"):
            self.port = int(os.environ[env + "PORT"])
            self.pidfile = os.environ[env + "PIDFILE"]
            self.db = os.environ[env + "DB"]
            self.log = os.environ[env + "LOG"]
            self.config = os.environ.get(env + "CONFIG")
        else:
            if not os.access(DAEMON, os.X_OK):
                raise AssertionError(f"{DAEMON} is missing: run `swift build --product foldsyncd` first")
            tmp = tempfile.mkdtemp(prefix="foldsync-web-")
            self.db = os.path.join(tmp, "web.db")
            self.log = os.path.join(tmp, "daemon.log")
            self.pidfile = os.path.join(tmp, "daemon.pid")
            self.port = 0
            self.prepare(tmp)
            self.start()
            atexit.register(self.stop)

    def prepare(self, tmp):
        """Standalone only: anything to write before the first start."""

    @property
    def pid(self):
        with open(self.pidfile) as f:
            return int(f.read().strip())

    def start(self):
        """Starts the daemon (on self.port; 0 picks one) and waits until it answers."""
        mark = os.path.getsize(self.log) if os.path.exists(self.log) else 0
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [DAEMON, "--listen", f"127.0.0.1:{self.port}", "--db", self.db,
             "--web-root", WEB_ROOT] + (["--config", self.config] if self.config else []),
            cwd=ROOT, stdout=logf, stderr=subprocess.STDOUT, start_new_session=True)
        logf.close()
        with open(self.pidfile, "w") as f:
            f.write(str(self.proc.pid))
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"foldsyncd exited with {self.proc.returncode}:\n{self.log_text()}")
            if self.port == 0:
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log_text(mark))
                if m:
                    self.port = int(m.group(1))
            if self.port and self.healthy():
                return
            time.sleep(0.05)
        raise AssertionError(f"foldsyncd did not come up:\n{self.log_text()}")

    def log_text(self, offset=0):
        with open(self.log, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")

    def healthy(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1) as r:
                return r.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def stop(self):
        """SIGTERM and wait for exit (the daemon closes clients with 1001 and exits 0)."""
        try:
            pid = self.pid
        except (OSError, ValueError):
            return
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        if self.proc is not None and self.proc.pid == pid:
            self.proc.wait(timeout=15)
        else:
            deadline = time.time() + 15
            while time.time() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    return
                time.sleep(0.05)
            raise AssertionError(f"foldsyncd {pid} did not stop")

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    # ---- HTTP API ----
    def request(self, method, path, body=None, token=None):
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"}
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                raw = r.read()
                return r.status, (json.loads(raw) if raw else None), dict(r.headers)
        except urllib.error.HTTPError as e:
            raw = e.read()
            return e.code, (json.loads(raw) if raw else None), dict(e.headers)

    def put_board(self, name, state, token=None):
        status, body, _ = self.request("PUT", f"/api/boards/{name}", state, token=token)
        assert status == 200, (status, body)
        return body

    def board(self, name, token=None):
        status, body, _ = self.request("GET", f"/api/boards/{name}", token=token)
        assert status == 200, (status, body)
        return body

    def action(self, name, action):
        status, body, _ = self.request("POST", f"/api/boards/{name}/actions", action)
        assert status == 200, (status, body)
        return body


_shared = {}


def shared(cls=Daemon):
    """One object per daemon for every test module of a run: a module that
    stops and starts the daemon leaves the others a handle that knows the
    process it started (and can wait for it), not a stale one."""
    if cls not in _shared:
        _shared[cls] = cls()
    return _shared[cls]


class TokenDaemon(Daemon):
    """A second foldsyncd whose configuration holds tokens (see run.sh):
    viewer (read,fold), editor (read,fold,edit; its secret holds a space and
    a slash, so no subprotocol can carry it), admin (everything), opsonly
    (read,fold,edit on ops-* only) and reader (read only). auth-timeout is 2 s."""

    ENV = "FOLDSYNC_WEB_TOKEN_"
    NAMES = ("viewer", "editor", "admin", "opsonly", "reader")

    def __init__(self):
        self.secrets = {n: os.environ.get(f"FOLDSYNC_WEB_SECRET_{n.upper()}") for n in self.NAMES}
        super().__init__()

    def prepare(self, tmp):
        self.secrets = {"viewer": "v-" + secrets.token_urlsafe(18), "editor": f"e {secrets.token_urlsafe(18)}/x",
                        "admin": "a-" + secrets.token_urlsafe(18), "opsonly": "o-" + secrets.token_urlsafe(18),
                        "reader": "r-" + secrets.token_urlsafe(18)}
        h = lambda n: hashlib.sha256(self.secrets[n].encode()).hexdigest()
        self.config = os.path.join(tmp, "tokens.conf")
        with open(os.open(self.config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write("auth-timeout = 2\n"
                    f"token = viewer read,fold {h('viewer')}\n"
                    f"token = editor read,fold,edit {h('editor')}\n"
                    f"token = admin read,fold,edit,admin {h('admin')}\n"
                    f"token = opsonly read,fold,edit {h('opsonly')} ops-*\n"
                    f"token = reader read {h('reader')}\n")


def browser(width=1024, height=700):
    """Headless Chromium from Debian. If it cannot start, this raises: the tests fail, never skip."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              f"--window-size={width},{height}", "--lang=en-US"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    set_viewport(d, width, height)
    return d


def set_viewport(d, width, height, mobile=False):
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def emulate_media(d, **features):
    """e.g. emulate_media(d, prefers_color_scheme="dark"); no arguments resets."""
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": k.replace("_", "-"), "value": v} for k, v in features.items()]})


class OneBrowser(unittest.TestCase):
    """A test class sharing one headless Chromium (`self.d`) between its tests."""

    @classmethod
    def setUpClass(cls):
        cls.d = browser()

    @classmethod
    def tearDownClass(cls):
        cls.d.quit()


def shown(d, css):
    """Whether any element matching css is displayed, read in one script so a
    re-render between finding and reading cannot make it stale."""
    return d.execute_script("""
        return Array.from(document.querySelectorAll(arguments[0]))
            .some(n => n.getClientRects().length > 0 && getComputedStyle(n).visibility !== 'hidden');""", css)


def wait(d, cond, timeout=5, msg=""):
    """Waits for a behaviour, not a speed: no wait is shorter than 5 s, since
    a loaded CI machine may hold a durable commit (fsync) that long. On a
    timeout the failure says what the page showed: its toast, its connection
    status and its console."""
    # A re-render may replace an element between finding and reading it: try again.
    try:
        return WebDriverWait(d, max(timeout, 5), poll_frequency=0.02,
                             ignored_exceptions=(StaleElementReferenceException,)).until(lambda drv: cond(drv), msg)
    except TimeoutException as e:
        raise TimeoutException(f"{msg or 'condition not met'}; the page: {page_state(d)}") from e


def wait_answered(d, timeout=5):
    """Waits until the daemon has answered every action the page sent. The
    page shows an action at once (optimistic state), so what a click did to
    the page says nothing yet of the daemon's board."""
    wait(d, lambda d: d.execute_script("return window.foldsync.page.optimistic.size") == 0, timeout,
         "the daemon never answered the page's actions")


def page_state(d):
    """What a page showed at a failure, for the test's message."""
    try:
        shown = d.execute_script("""
            const text = id => { const n = document.getElementById(id); return n ? n.textContent.trim() : null; };
            return { toast: text('toast'), status: text('status'),
                     sections: Array.from(document.querySelectorAll('.section')).map(n => n.dataset.id) };""")
        console = [l["message"] for l in d.get_log("browser")][-10:]
        return f"{shown}; console: {console}"
    except Exception as e:   # a page that cannot answer is itself the clue
        return f"unreadable ({e!r})"


class TwoBrowsers(unittest.TestCase):
    """A test class with two headless Chromiums (`self.a`, `self.b`) on the
    shared daemon, e.g. a presenter and a viewer."""

    @classmethod
    def setUpClass(cls):
        cls.a = browser()
        try:
            cls.b = browser()
        except Exception:
            cls.a.quit()
            raise

    @classmethod
    def tearDownClass(cls):
        for d in (cls.a, cls.b):
            d.quit()

    def open_board(self, d, name):
        d.get(f"{shared().base}/b/{name}")
        wait(d, lambda d: d.find_element(By.ID, "st-conn").text == "connected"
             and d.find_elements(By.CSS_SELECTOR, ".sec-btn:not(:disabled)"), 10, "board did not load")

    def assert_no_console_errors(self, d):
        bad = [l for l in d.get_log("browser") if l["level"] == "SEVERE"
               and "ERR_CONNECTION_REFUSED" not in l["message"] and "/ws" not in l["message"]]
        self.assertEqual(bad, [], "console errors (CSP violations show up here)")
