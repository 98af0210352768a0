"""The dashboard in a real browser (headless Chromium via Selenium) against the real daemon."""
import itertools
import json
import os
import queue
import shutil
import subprocess
import threading
import time
import unittest
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import harness

DAEMON = None
_names = itertools.count()


def setUpModule():
    global DAEMON
    DAEMON = harness.shared()
    os.makedirs(harness.ARTIFACTS, exist_ok=True)


def new_board(state, prefix="t"):
    name = f"{prefix}{os.getpid()}-{next(_names)}"
    DAEMON.put_board(name, state)
    return name


def three(mode="single"):
    return {"mode": mode, "sections": [
        {"id": "a", "title": "Alpha", "items": ["one", {"label": "two (object)", "n": 2}], "expanded": False},
        {"id": "b", "title": "分组 Beta", "items": ["中文条目", "three"], "expanded": False},
        {"id": "c", "title": "Gamma", "items": [], "expanded": False}]}


def expanded(d, sid):
    return d.find_element(By.ID, f"h-{sid}").get_attribute("aria-expanded") == "true"


def open_count(d):
    return len(d.find_elements(By.CSS_SELECTOR, '.sec-btn[aria-expanded="true"]'))


wait = harness.wait


def wait_viewers(d, n):
    """Waits for the status strip to show n viewers (presence is coalesced to
    at most one message per board per second)."""
    text = f"{n} viewer{'' if n == 1 else 's'}"
    wait(d, lambda d: d.find_element(By.ID, "st-viewers").text == text, 10, f"status strip never showed {text!r}")


class Dashboard(harness.TwoBrowsers):
    # ---- 1. JSON Patch conformance, run inside the browser ----
    def test_patch_apply_passes_conformance_suite(self):
        d = self.a
        d.get(f"{DAEMON.base}/")
        folder = harness.conformance_dir()
        records = []
        for fname in ("tests.json", "spec_tests.json"):
            with open(os.path.join(folder, fname), encoding="utf-8") as f:
                for i, r in enumerate(json.load(f)):
                    if r.get("disabled") or "patch" not in r or "doc" not in r:
                        continue
                    records.append({"where": f"{fname}#{i} {r.get('comment', '')}", **r})
        self.assertGreater(len(records), 100)
        failures = d.execute_async_script("""
            const [records, done] = arguments;
            import('/lib/patch.js').then(({ applyPatch, deepEqual }) => {
              const failures = [];
              for (const r of records) {
                const before = JSON.stringify(r.doc);
                let got, err = null;
                try { got = applyPatch(r.doc, r.patch); } catch (e) { err = e; }
                if (JSON.stringify(r.doc) !== before) failures.push(r.where + ': input document was modified');
                if ('error' in r) { if (!err) failures.push(r.where + ': applied, expected error ' + r.error); }
                else if (err) failures.push(r.where + ': ' + err.message);
                else if ('expected' in r && !deepEqual(got, r.expected)) failures.push(r.where + ': got ' + JSON.stringify(got));
              }
              done(failures);
            }, (e) => done(['import failed: ' + e]));
        """, records)
        self.assertEqual(failures, [])

    def test_backoff_is_capped_with_jitter_and_url_follows_page(self):
        d = self.a
        d.get(f"{DAEMON.base}/")
        r = d.execute_async_script("""
            const done = arguments[0];
            import('/socket.js').then((m) => done({
              delays: [0, 1, 2, 3, 5, 8, 20, 60].map((n) => [m.backoffDelay(n, () => 0), m.backoffDelay(n, () => 0.999)]),
              cap: m.BACKOFF_CAP_MS,
              random: Array.from({ length: 50 }, () => m.backoffDelay(3)),
              ws: m.socketURL({ protocol: 'http:', host: 'h:1' }), wss: m.socketURL({ protocol: 'https:', host: 'h' }),
              here: m.socketURL(),
            }), (e) => done({ error: String(e) }));
        """)
        self.assertNotIn("error", r)
        lows = [lo for lo, _ in r["delays"]]
        self.assertEqual(lows, sorted(lows), "backoff does not grow")
        self.assertTrue(all(hi <= r["cap"] for _, hi in r["delays"]), "backoff not capped")
        self.assertEqual(r["delays"][-1][0], r["cap"] // 2)
        self.assertGreater(len(set(r["random"])), 5, "no jitter")
        self.assertEqual((r["ws"], r["wss"], r["here"]), ("ws://h:1/ws", "wss://h/ws", f"ws://127.0.0.1:{DAEMON.port}/ws"))

    # ---- 2. Two browsers: a click in one shows in the other, accordion on both ----
    def test_click_in_one_browser_expands_in_the_other(self):
        name = new_board(three("single"))
        self.open_board(self.a, name)
        self.open_board(self.b, name)
        self.a.find_element(By.ID, "h-b").click()
        # How fast it shows is bench_patch.py's figure; here only that it does.
        wait(self.b, lambda d: expanded(d, "b"), 10, "the other browser did not expand")
        wait(self.a, lambda d: expanded(d, "b"), 10)
        # The items of the expanded section show; an object item shows its label.
        # (visible text: wait for the expand animation to uncover both)
        items = lambda d: [li.text for li in d.find_elements(By.CSS_SELECTOR, "#r-b li")]
        wait(self.b, lambda d: items(d) == ["中文条目", "three"], 2, f"items shown: {items(self.b)}")
        # Accordion: opening another in B closes the first, on both.
        self.b.find_element(By.ID, "h-a").click()
        for d in (self.a, self.b):
            wait(d, lambda d: expanded(d, "a") and not expanded(d, "b"), 1.0, "accordion rule")
            self.assertEqual(open_count(d), 1)
        wait(self.a, lambda d: d.find_element(By.ID, "r-a").is_displayed())
        items_a = lambda d: [li.text for li in d.find_elements(By.CSS_SELECTOR, "#r-a li")]
        wait(self.a, lambda d: items_a(d) == ["one", "two (object)"], 2, f"items shown: {items_a(self.a)}")
        # Toggling the open one closes it: none open.
        self.a.find_element(By.ID, "h-a").click()
        for d in (self.a, self.b):
            wait(d, lambda d: open_count(d) == 0, 1.0)
        self.assertFalse(any(s["expanded"] for s in DAEMON.board(name)["state"]["sections"]))
        for d in (self.a, self.b):
            wait_viewers(d, 2)
            self.assert_no_console_errors(d)

    # ---- 3. A change through the HTTP API appears in both ----
    def test_http_change_appears_in_both(self):
        name = new_board(three("multi"))
        self.open_board(self.a, name)
        self.open_board(self.b, name)
        wait_viewers(self.a, 2)
        DAEMON.action(name, {"type": "setTitle", "section": "c", "title": "Γάμμα 改名"})
        DAEMON.action(name, {"type": "addSection", "section": {"id": "d", "title": "Delta", "items": ["x"], "expanded": True}})
        DAEMON.action(name, {"type": "expand", "section": "a"})
        rev = DAEMON.board(name)["rev"]
        for d in (self.a, self.b):
            wait(d, lambda d: d.find_elements(By.ID, "h-d") and expanded(d, "d") and expanded(d, "a"), 2)
            self.assertEqual(d.find_element(By.CSS_SELECTOR, '[data-id="c"] .sec-title').text, "Γάμμα 改名")
            self.assertIn(f"rev {rev}", d.find_element(By.ID, "status").text)
            self.assertIn("via HTTP", d.find_element(By.ID, "st-last").text)
            self.assertEqual([n.get_attribute("data-id") for n in d.find_elements(By.CSS_SELECTOR, ".section")],
                             ["a", "b", "c", "d"])
            self.assertEqual(d.execute_script("return window.foldsync.page.doc"), DAEMON.board(name)["state"])

    # ---- Only touched sections re-render; focus stays ----
    def test_patch_rerenders_only_touched_sections(self):
        name = new_board(three("multi"))
        d = self.a
        self.open_board(d, name)
        d.execute_script("document.querySelector('[data-id=c] .sec-title').__mark = 1")
        d.find_element(By.ID, "h-b").send_keys(Keys.SPACE)   # focus stays on b's header
        wait(d, lambda d: expanded(d, "b"), 2)
        before = d.execute_script("return Object.fromEntries(window.foldsync.renders)")
        DAEMON.action(name, {"type": "setItems", "section": "a", "items": ["new"]})
        wait(d, lambda d: d.find_element(By.CSS_SELECTOR, '[data-id="a"] .sec-count').text == "1", 2)
        after = d.execute_script("return Object.fromEntries(window.foldsync.renders)")
        self.assertEqual(after["a"], before["a"] + 1)
        self.assertEqual((after["b"], after["c"]), (before["b"], before["c"]), "untouched sections were re-rendered")
        self.assertEqual(d.execute_script("return document.querySelector('[data-id=c] .sec-title').__mark"), 1)
        self.assertEqual(d.switch_to.active_element.get_attribute("id"), "h-b")
        # A move reorders nodes without rebuilding them, and keeps the focus.
        DAEMON.action(name, {"type": "moveSection", "section": "b", "to": 2})
        wait(d, lambda d: [n.get_attribute("data-id") for n in d.find_elements(By.CSS_SELECTOR, ".section")] == ["a", "c", "b"], 2)
        self.assertEqual(d.execute_script("return document.querySelector('[data-id=c] .sec-title').__mark"), 1)
        self.assertEqual(d.switch_to.active_element.get_attribute("id"), "h-b")

    # ---- 4. The terminal client's watch sees the browser's toggle ----
    def test_terminal_watch_sees_browser_toggle(self):
        name = new_board(three("single"))
        if not os.access(harness.CLIENT, os.X_OK):
            self.fail(f"{harness.CLIENT} is missing: build it with `swift build --product foldsync` "
                      "(the terminal client's `watch` is needed for this test)")
        proc = subprocess.Popen([harness.CLIENT, "watch", "--url", f"ws://127.0.0.1:{DAEMON.port}/ws", "--board", name],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
        lines = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True)
        reader.start()
        seen = []

        def next_message(timeout):
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                try:
                    line = lines.get(timeout=0.05)
                except queue.Empty:
                    if proc.poll() is not None and lines.empty():
                        break
                    continue
                seen.append(line.rstrip("\n"))
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if isinstance(msg, dict):
                    return msg
            return None

        try:
            msg = next_message(5)
            while msg is not None and msg.get("type") != "snapshot":
                msg = next_message(5)
            if msg is None:
                proc.kill()
                err = proc.stderr.read() if proc.poll() is not None else ""
                self.fail("`foldsync watch` did not print a snapshot line: it does not support `watch` yet "
                          f"(exit status {proc.poll()}).\nstdout: {seen[-5:]}\nstderr: {err[-500:]}")
            self.open_board(self.a, name)
            self.a.find_element(By.ID, "h-c").click()
            patch = next_message(3)
            while patch is not None and patch.get("type") != "patch":
                patch = next_message(3)
            self.assertIsNotNone(patch, f"`foldsync watch` printed no patch line after the browser's toggle: {seen[-5:]}")
            self.assertEqual(patch["board"], name)
            self.assertIn({"op": "replace", "path": "/sections/2/expanded", "value": True}, patch["ops"])
            self.assertEqual(patch.get("by"), self.a.execute_script("return window.foldsync.page.session"))
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            reader.join(timeout=5)   # EOF once the client has exited
            proc.stdout.close()
            proc.stderr.close()

    # ---- 5. Reconnect after the daemon restarts, offline banner in between ----
    def test_reconnects_after_daemon_restart(self):
        name = new_board(three("multi"))
        d = self.a
        self.open_board(d, name)
        d.find_element(By.ID, "h-a").click()
        wait(d, lambda d: expanded(d, "a"), 2)
        harness.wait_answered(d)
        DAEMON.stop()
        try:
            wait(d, lambda d: d.find_element(By.ID, "banner").is_displayed(), 5, "no offline banner")
            self.assertIn("Offline", d.find_element(By.ID, "banner").text)
            wait(d, lambda d: d.find_element(By.ID, "st-conn").text.startswith("reconnecting in "), 5)
            self.assertFalse(d.find_element(By.ID, "h-a").is_enabled(), "controls stay enabled while offline")
            self.assertFalse(d.find_element(By.ID, "collapse-all").is_enabled())
            d.save_screenshot(os.path.join(harness.ARTIFACTS, "offline.png"))
            # While it is down, a change lands in the store (seen after restart, via resume).
        finally:
            DAEMON.start()
        DAEMON.action(name, {"type": "expand", "section": "c"})
        wait(d, lambda d: d.find_element(By.ID, "st-conn").text == "connected", 20, "did not reconnect")
        wait(d, lambda d: not d.find_element(By.ID, "banner").is_displayed(), 2)
        wait(d, lambda d: expanded(d, "c"), 3, "missed change after reconnect")
        self.assertTrue(expanded(d, "a"))
        self.assertTrue(d.find_element(By.ID, "h-a").is_enabled())
        self.assertEqual(d.execute_script("return window.foldsync.page.rev"), DAEMON.board(name)["rev"])
        # It resumed with `since` (the restarted daemon counts resumes), not a fresh snapshot.
        with urllib.request.urlopen(DAEMON.base + "/metrics", timeout=5) as r:
            metrics = r.read().decode()
        resumes = [float(l.split()[-1]) for l in metrics.splitlines() if l.startswith("foldsync_resumes_total")]
        self.assertTrue(resumes and resumes[0] >= 1, "the page did not resume with since")
        d.find_element(By.ID, "h-b").click()
        wait(d, lambda d: expanded(d, "b"), 2, "toggling after reconnect")

    # ---- Keyboard only ----
    def test_keyboard_only(self):
        name = new_board(three("single"))
        d = self.b
        self.open_board(d, name)
        d.execute_script("document.activeElement && document.activeElement.blur(); window.focus()")
        body = d.find_element(By.TAG_NAME, "body")
        for _ in range(30):
            ActionChains(d).send_keys(Keys.TAB).perform()
            if d.switch_to.active_element.get_attribute("id") == "h-a":
                break
        self.assertEqual(d.switch_to.active_element.get_attribute("id"), "h-a", "Tab never reached the first header")
        keys = ActionChains(d)
        keys.send_keys(Keys.DOWN).perform()
        self.assertEqual(d.switch_to.active_element.get_attribute("id"), "h-b")
        ActionChains(d).send_keys(Keys.DOWN).perform()
        ActionChains(d).send_keys(Keys.DOWN).perform()   # stays on the last
        self.assertEqual(d.switch_to.active_element.get_attribute("id"), "h-c")
        ActionChains(d).send_keys(Keys.UP).perform()
        self.assertEqual(d.switch_to.active_element.get_attribute("id"), "h-b")
        ActionChains(d).send_keys(Keys.ENTER).perform()
        wait(d, lambda d: expanded(d, "b"), 2, "Enter did not expand")
        ActionChains(d).send_keys(Keys.UP).perform()
        ActionChains(d).send_keys(Keys.SPACE).perform()
        wait(d, lambda d: expanded(d, "a") and not expanded(d, "b"), 2, "Space did not expand (accordion)")
        self.assertEqual(d.switch_to.active_element.get_attribute("id"), "h-a", "focus lost after the patch")
        ActionChains(d).send_keys(Keys.SPACE).perform()
        wait(d, lambda d: open_count(d) == 0, 2, "Space did not collapse")
        self.assertEqual(d.switch_to.active_element.get_attribute("aria-controls"), "r-a")
        del body

    # ---- Editing ----
    def test_editing_controls(self):
        name = new_board(three("multi"))
        d = self.a
        self.open_board(d, name)
        for n in d.find_elements(By.CSS_SELECTOR, "[data-perm]"):
            self.assertNotIn("no-perm", n.get_attribute("class"))
        # No tokens on this daemon: nothing about signing in shows.
        self.assertFalse(d.find_element(By.ID, "signin-open").is_displayed())
        self.assertFalse(d.find_element(By.ID, "signin").is_displayed())
        self.assertFalse(d.find_element(By.ID, "st-user").is_displayed())
        # add
        d.find_element(By.ID, "add-title").send_keys("新しい section")
        d.find_element(By.CSS_SELECTOR, "#add-form button[type=submit]").click()
        wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".section")) == 4, 2)
        new = d.find_elements(By.CSS_SELECTOR, ".section")[3]
        new_id = new.get_attribute("data-id")
        self.assertEqual(new.find_element(By.CSS_SELECTOR, ".sec-title").text, "新しい section")
        # rename and edit items (a JSON object line becomes an object item)
        new.find_element(By.CSS_SELECTOR, '[data-act="edit"]').click()
        form = new.find_element(By.CSS_SELECTOR, ".sec-edit")
        title = form.find_element(By.NAME, "title")
        title.clear()
        title.send_keys("Renamed")
        form.find_element(By.NAME, "items").send_keys('plain\n{"label": "labelled", "k": 1}')
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait(d, lambda d: d.find_element(By.CSS_SELECTOR, f'[data-id="{new_id}"] .sec-title').text == "Renamed", 2)
        wait(d, lambda d: d.find_element(By.CSS_SELECTOR, f'[data-id="{new_id}"] .sec-count').text == "2", 2)
        harness.wait_answered(d)
        sec = [s for s in DAEMON.board(name)["state"]["sections"] if s["id"] == new_id][0]
        self.assertEqual(sec["items"], ["plain", {"label": "labelled", "k": 1}])
        d.find_element(By.ID, f"h-{new_id}").click()
        wait(d, lambda d: [li.text for li in d.find_elements(By.CSS_SELECTOR, f'#r-{new_id} li')] == ["plain", "labelled"], 2)
        # reorder
        d.find_element(By.CSS_SELECTOR, f'[data-id="{new_id}"] [data-act="up"]').click()
        ids = lambda d: [n.get_attribute("data-id") for n in d.find_elements(By.CSS_SELECTOR, ".section")]
        wait(d, lambda d: ids(d) == ["a", "b", new_id, "c"], 2)
        d.find_element(By.CSS_SELECTOR, '[data-id="a"] [data-act="down"]').click()
        wait(d, lambda d: ids(d) == ["b", "a", new_id, "c"], 2)
        # remove (asks once more)
        rm = d.find_element(By.CSS_SELECTOR, '[data-id="c"] [data-act="remove"]')
        rm.click()
        self.assertEqual(rm.text, "Really remove?")
        rm.click()
        wait(d, lambda d: ids(d) == ["b", "a", new_id], 2)
        # mode
        from selenium.webdriver.support.ui import Select
        Select(d.find_element(By.ID, "mode")).select_by_value("single")
        wait(d, lambda d: not d.find_element(By.ID, "expand-all").is_enabled(), 2)
        harness.wait_answered(d)
        self.assertEqual(DAEMON.board(name)["state"]["mode"], "single")
        # replace from pasted JSON
        d.find_element(By.ID, "show-json").click()
        box = d.find_element(By.ID, "json-text")
        box.clear()
        box.send_keys(json.dumps({"mode": "multi", "sections": [{"id": "z", "title": "Only", "items": [], "expanded": True}]}))
        d.find_element(By.ID, "json-submit").click()
        wait(d, lambda d: ids(d) == ["z"] and expanded(d, "z"), 2)
        harness.wait_answered(d)
        self.assertEqual(d.execute_script("return window.foldsync.page.doc"), DAEMON.board(name)["state"])
        self.assert_no_console_errors(d)

    def test_error_is_shown_briefly(self):
        name = new_board(three("single"))
        d = self.b
        self.open_board(d, name)
        d.find_element(By.ID, "show-json").click()
        box = d.find_element(By.ID, "json-text")
        box.clear()
        box.send_keys('{"mode": "sideways", "sections": []}')
        d.find_element(By.ID, "json-submit").click()
        wait(d, lambda d: d.find_element(By.ID, "toast").is_displayed(), 2, "error not shown")
        self.assertIn("replace board", d.find_element(By.ID, "toast").text)
        wait(d, lambda d: not d.find_element(By.ID, "toast").is_displayed(), 8, "error never went away")

    # ---- The list of boards; create from pasted JSON; a missing board ----
    def test_board_list_and_create_from_json(self):
        named = new_board(three(), prefix="listed")
        d = self.a
        d.get(f"{DAEMON.base}/")
        wait(d, lambda d: d.find_elements(By.LINK_TEXT, named), 5)
        self.assertEqual(d.find_element(By.LINK_TEXT, named).get_attribute("href"), f"{DAEMON.base}/b/{named}")
        fresh = f"made{os.getpid()}-{next(_names)}"
        d.find_element(By.ID, "create-name").send_keys(fresh)
        box = d.find_element(By.ID, "create-json")
        box.clear()
        box.send_keys(json.dumps({"mode": "multi", "sections": [{"id": "x", "title": "Ünïcødé ✓", "items": ["i"], "expanded": True}]}))
        d.find_element(By.CSS_SELECTOR, "#create-form button[type=submit]").click()
        wait(d, lambda d: d.current_url.endswith(f"/b/{fresh}"), 5)
        wait(d, lambda d: d.find_elements(By.ID, "h-x") and expanded(d, "x"), 5)
        self.assertEqual(DAEMON.board(fresh)["state"]["sections"][0]["title"], "Ünïcødé ✓")
        # A board that does not exist: say so, offer to create it (the `replace` action).
        ghost = f"ghost{os.getpid()}-{next(_names)}"
        d.get(f"{DAEMON.base}/b/{ghost}")
        wait(d, lambda d: d.find_element(By.ID, "missing").is_displayed(), 5)
        d.find_element(By.ID, "create-missing").click()
        d.find_element(By.ID, "json-submit").click()
        wait(d, lambda d: d.find_elements(By.ID, "h-todo"), 5, "board was not created and shown")
        self.assertFalse(d.find_element(By.ID, "missing").is_displayed())
        # Deleted under our feet: the page says so.
        self.assertEqual(DAEMON.request("DELETE", f"/api/boards/{ghost}")[0], 204)
        wait(d, lambda d: d.find_element(By.ID, "missing").is_displayed() and not d.find_elements(By.ID, "h-todo"), 5)
        self.assert_no_console_errors(d)

    # ---- Serving: types, caching, CSP ----
    def test_files_served_with_types_etag_and_csp(self):
        modules = sorted(f for f in os.listdir(os.path.join(harness.ROOT, "clients", "web")) if f.endswith(".js"))
        self.assertIn("app.js", modules)
        for path, ctype in [("/", "text/html"), ("/b/default", "text/html"), ("/style.css", "text/css")] + [
                (f"/{m}", "text/javascript") for m in modules]:
            status, _, headers = _get(path)
            self.assertEqual(status, 200, path)
            self.assertTrue(headers["content-type"].startswith(ctype), (path, headers["content-type"]))
            self.assertIn("script-src 'self'", headers["content-security-policy"])
            self.assertTrue(headers.get("etag"), path)
        with open(os.path.join(harness.ROOT, "clients", "web", "index.html"), encoding="utf-8") as f:
            html = f.read()
        self.assertNotIn("style=", html)
        self.assertNotRegex(html, r"<script(?![^>]*\bsrc=)")
        self.assertNotRegex(html, r"\son[a-z]+=")

    # ---- Motion, schemes, phone width; the screenshots ----
    def test_reduced_motion_schemes_and_phone_width(self):
        name = new_board(three("multi"))
        d = self.b
        self.open_board(d, name)
        dur = lambda d: d.execute_script("return getComputedStyle(document.getElementById('r-a')).transitionDuration")
        self.assertNotIn(dur(d).split(",")[0].strip(), ("0s", ""))
        harness.emulate_media(d, prefers_reduced_motion="reduce")
        self.assertTrue(all(x.strip() == "0s" for x in dur(d).split(",")), dur(d))
        bg = lambda d: d.execute_script("return getComputedStyle(document.body).backgroundColor")
        light = bg(d)
        harness.emulate_media(d, prefers_color_scheme="dark")
        self.assertNotEqual(bg(d), light)
        DAEMON.action(name, {"type": "expand", "section": "b"})
        wait(d, lambda d: expanded(d, "b"), 2)
        time.sleep(0.4)   # the expand animation
        d.save_screenshot(os.path.join(harness.ARTIFACTS, "dark.png"))
        harness.emulate_media(d)
        harness.set_viewport(d, 375, 740, mobile=True)
        try:
            wait(d, lambda d: d.execute_script("return window.innerWidth") == 375, 2)
            self.assertLessEqual(d.execute_script("return document.documentElement.scrollWidth"), 375,
                                 "horizontal scrolling at phone width")
            self.assertGreater(d.find_element(By.CSS_SELECTOR, '[data-id="b"] .sec-title').size["width"], 200,
                               "titles squeezed at phone width")
            d.save_screenshot(os.path.join(harness.ARTIFACTS, "phone.png"))
        finally:
            harness.set_viewport(d, 1024, 700)

    def test_screenshot_for_readme(self):
        name = "team-standup"
        DAEMON.put_board(name, {"mode": "multi", "sections": [
            {"id": "today", "title": "Today", "items": ["Ship the dashboard", {"label": "Review the daemon's resume path", "owner": "ana"}, "Write the release notes"], "expanded": True},
            {"id": "blocked", "title": "阻塞 · Blocked", "items": ["等待设计评审 (waiting for design review)", "CI runner disk is full"], "expanded": True},
            {"id": "later", "title": "Later", "items": ["Tokens and permissions", "Board history view"], "expanded": False},
            {"id": "done", "title": "Done this week", "items": ["SQLite group commit", "sd_notify"], "expanded": False}]})
        d = self.a
        harness.set_viewport(d, 1024, 700)
        self.open_board(d, name)
        self.open_board(self.b, name)   # a second viewer, for the status strip
        wait_viewers(d, 2)
        self.b.find_element(By.ID, "h-later").click()
        self.b.find_element(By.ID, "h-later").click()
        wait(d, lambda d: "by another viewer" in d.find_element(By.ID, "st-last").text and not expanded(d, "later"), 3)
        # In the daemon's words, the history's: one change summary.
        wait(d, lambda d: "toggle later → collapsed 'Later' by another viewer" in d.find_element(By.ID, "st-last").text, 3)
        time.sleep(0.4)   # let the expand animation finish
        png = os.path.join(harness.ARTIFACTS, "dashboard.png")
        self.assertTrue(d.save_screenshot(png))
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        # The README's screenshot: copied into docs/ only on request
        # (FOLDSYNC_UPDATE_SCREENSHOT=1); a test run writes only under .build.
        if os.environ.get("FOLDSYNC_UPDATE_SCREENSHOT") == "1":
            shutil.copyfile(png, os.path.join(harness.ROOT, "docs", "dashboard.png"))


def _get(path):
    with urllib.request.urlopen(DAEMON.base + path, timeout=5) as r:
        return r.status, r.read(), {k.lower(): v for k, v in r.headers.items()}


if __name__ == "__main__":
    unittest.main(verbosity=2)
