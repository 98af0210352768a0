"""The dashboard folds at once: a click opens its section in the page before
the daemon has answered, and an action the daemon refuses is taken back out
and the page says so. The browser reaches the daemon through a relay that
adds 300 ms each way (relay.py), so every answer is at least 600 ms away."""
import itertools
import os
import unittest

from selenium.webdriver.common.by import By

import harness
from relay import Relay

DAEMON = None
RELAY = None
DELAY = 0.3
_names = itertools.count()
wait = harness.wait


def setUpModule():
    global DAEMON, RELAY
    DAEMON = harness.shared()
    RELAY = Relay(DAEMON.port, DELAY).start()


def tearDownModule():
    RELAY.stop()


def three():
    return {"mode": "multi", "sections": [
        {"id": "a", "title": "Alpha", "items": ["one"], "expanded": False},
        {"id": "b", "title": "Beta", "items": ["two"], "expanded": False},
        {"id": "c", "title": "Gamma", "items": [], "expanded": False}]}


def new_board():
    name = f"opt{os.getpid()}-{next(_names)}"
    DAEMON.put_board(name, three())
    return name


# Clicks a header from inside the page and reads, in the same script (so
# before any message of the daemon could be handled), what the page shows.
CLICK_AND_READ = """
const [id] = arguments;
const page = window.foldsync.page;
document.getElementById(`h-${id}`).click();
const node = document.querySelector(`[data-id="${id}"]`);
return {
  expanded: document.getElementById(`h-${id}`).getAttribute('aria-expanded'),
  open: node.querySelector('.sec-region').classList.contains('open'),
  rev: page.rev,
  // The mirror is the daemon's board (page.confirmed).
  confirmed: page.mirror.state.sections.find((s) => s.id === id).expanded,
  pending: page.optimistic ? page.optimistic.size : 0,
};"""


class Optimistic(harness.OneBrowser):
    def open_board(self, name):
        d = self.d
        d.get(f"http://127.0.0.1:{RELAY.port}/b/{name}")
        wait(d, lambda d: d.find_element(By.ID, "st-conn").text == "connected"
             and d.find_elements(By.CSS_SELECTOR, ".sec-btn:not(:disabled)"), 30, "board did not load through the relay")
        # Every value the header's aria-expanded took, from now on.
        d.execute_script("""
            window.__flips = {};
            new MutationObserver((records) => {
              for (const r of records) {
                const id = r.target.id.slice(2);
                (window.__flips[id] ||= []).push(r.target.getAttribute('aria-expanded'));
              }
            }).observe(document.getElementById('sections'), { subtree: true, attributes: true, attributeFilter: ['aria-expanded'] });
            window.__clickAt = null;
            document.addEventListener('click', () => { window.__clickAt = performance.now(); }, true);""")
        return d.execute_script("return window.foldsync.page.rev")

    def test_click_folds_before_the_ack(self):
        name = new_board()
        d = self.d
        rev = self.open_board(name)

        got = d.execute_script(CLICK_AND_READ, "b")
        self.assertEqual(got["expanded"], "true", f"not shown open at once: {got}")
        self.assertTrue(got["open"], got)
        self.assertEqual((got["rev"], got["confirmed"], got["pending"]), (rev, False, 1), "the daemon had already answered")
        wait(d, lambda d: d.execute_script("return window.foldsync.page.rev") == rev + 1
             and d.execute_script("return window.foldsync.page.optimistic.size") == 0, 10, "the ack never came")

        # A real click (Selenium's), read as soon as the driver can: well within one way of the relay.
        d.find_element(By.ID, "h-c").click()
        got = d.execute_script("""
            const page = window.foldsync.page;
            return { expanded: document.getElementById('h-c').getAttribute('aria-expanded'), rev: page.rev,
                     confirmed: page.mirror.state.sections.find((s) => s.id === 'c').expanded,
                     since: performance.now() - window.__clickAt };""")
        self.assertEqual(got["expanded"], "true", f"not shown open after the click: {got}")
        self.assertEqual((got["rev"], got["confirmed"]), (rev + 1, False), f"the ack had come: {got}")
        self.assertLess(got["since"], DELAY * 1000, got)

        wait(d, lambda d: d.execute_script("return window.foldsync.page.rev") == rev + 2
             and d.execute_script("return window.foldsync.page.optimistic.size") == 0, 10, "the second ack never came")
        self.assertEqual(d.execute_script("return window.foldsync.page.doc"), DAEMON.board(name)["state"])
        self.assertEqual(d.execute_script("return window.foldsync.page.doc === window.foldsync.page.mirror.state"), True)
        # Opened once each, never shut again between the patch and the ack.
        self.assertEqual(d.execute_script("return window.__flips"), {"b": ["true"], "c": ["true"]})

    def test_refused_click_is_rolled_back_and_said(self):
        name = new_board()
        d = self.d
        rev = self.open_board(name)

        got = d.execute_script(CLICK_AND_READ, "c")
        self.assertEqual((got["expanded"], got["rev"], got["pending"]), ("true", rev, 1), got)
        # Another client removes the section while the toggle crosses the relay: the daemon refuses it.
        DAEMON.action(name, {"type": "removeSection", "section": "c"})

        toast = lambda d: d.find_element(By.ID, "toast")
        wait(d, lambda d: toast(d).is_displayed() and "not_found" in toast(d).text, 10, "the refusal was not said")
        self.assertIn("undone", toast(d).text)
        self.assertIn("fold sections", toast(d).text)
        self.assertEqual(d.execute_script("return window.foldsync.page.optimistic.size"), 0)
        self.assertEqual(d.find_elements(By.ID, "h-c"), [])
        self.assertEqual(d.execute_script("return window.foldsync.page.doc"), DAEMON.board(name)["state"])
        self.assertEqual([n.get_attribute("data-id") for n in d.find_elements(By.CSS_SELECTOR, ".section")], ["a", "b"])

    def test_refused_while_queued_behind_another(self):
        """Two clicks in flight; the second's section goes first: the first stays, the second is undone."""
        name = new_board()
        d = self.d
        rev = self.open_board(name)
        d.execute_script(CLICK_AND_READ, "a")
        got = d.execute_script(CLICK_AND_READ, "c")
        self.assertEqual((got["expanded"], got["rev"], got["pending"]), ("true", rev, 2), got)
        DAEMON.action(name, {"type": "removeSection", "section": "c"})
        wait(d, lambda d: "not_found" in d.find_element(By.ID, "toast").text, 10, "the refusal was not said")
        wait(d, lambda d: d.execute_script("return window.foldsync.page.optimistic.size") == 0, 10)
        state = DAEMON.board(name)["state"]
        self.assertEqual(d.execute_script("return window.foldsync.page.doc"), state)
        self.assertTrue(state["sections"][0]["expanded"])
        self.assertEqual(d.execute_script("return window.__flips.a"), ["true"], "a was shown shut again on the way")


if __name__ == "__main__":
    unittest.main()
