"""The dashboard's history panel in headless Chromium against the real daemon:
recent changes live with who, when and what, and Undo where the token allows it."""
import itertools
import os
import unittest

from selenium.webdriver.common.by import By

import harness
from test_dashboard import wait, expanded, three

DAEMON = None
T = None
_names = itertools.count()


def setUpModule():
    global DAEMON, T
    DAEMON = harness.Daemon()
    T = harness.TokenDaemon()


def entries(d):
    # Read in one script: the panel re-renders whole on each change, so reading
    # element by element from Python can race with a re-render.
    return [tuple(e) for e in d.execute_script("""
        return Array.from(document.querySelectorAll('#history-list .hist')).map(li => [
            li.getAttribute('data-rev'),
            li.querySelector('.hist-what').innerText,
            li.querySelector('.hist-meta').innerText]);""")]


def click_undo(d, rev):
    # The button may be replaced by a re-render between finding and clicking it.
    wait(d, lambda d: d.find_element(By.CSS_SELECTOR, f'.hist-undo[data-rev="{rev}"]').click() or True,
         5, f"no undo button for rev {rev}")


def undo_shown(d, rev):
    return harness.shown(d, f'.hist-undo[data-rev="{rev}"]')


class HistoryPanel(harness.OneBrowser):

    def open_board(self, daemon, name):
        self.d.get(f"{daemon.base}/b/{name}")
        wait(self.d, lambda d: d.find_element(By.ID, "st-conn").text == "connected"
             and d.find_elements(By.CSS_SELECTOR, ".sec-btn"), 10, "board did not load")

    def test_changes_appear_live_and_undo_reverts_one(self):
        name = f"h{os.getpid()}-{next(_names)}"
        DAEMON.put_board(name, three("single"))
        self.open_board(DAEMON, name)
        DAEMON.action(name, {"type": "toggle", "section": "a"})
        self.d.find_element(By.ID, "h-c").click()   # from this browser: closes a, opens c
        wait(self.d, lambda d: len(entries(d)) == 2, 5, "the panel never showed both changes")
        (rev2, what2, meta2), (rev1, what1, meta1) = entries(self.d)
        self.assertEqual((rev1, rev2), ("1", "2"))
        self.assertEqual(what1, "toggle a → expanded 'Alpha'")
        self.assertEqual(what2, "toggle c → expanded 'Gamma'")
        self.assertIn("anonymous · HTTP", meta1)
        self.assertRegex(meta2, r"rev 2 · .*\d\d.* · anonymous · c\d+")
        # Undo the browser's own change: c closes, and a, which the accordion closed, opens again.
        click_undo(self.d, 2)
        wait(self.d, lambda d: len(entries(d)) == 3 and not expanded(d, "c"), 5, "the undo did not land")
        self.assertEqual(entries(self.d)[0][1], "undo rev 2 (toggle c → expanded 'Gamma')")
        self.assertEqual(DAEMON.board(name)["state"]["sections"][0]["expanded"], True)
        # An undo that no longer applies says why, naming the later rev.
        click_undo(self.d, 2)
        wait(self.d, lambda d: d.find_element(By.ID, "toast").is_displayed(), 5, "no message for a conflicting undo")
        self.assertIn("rev 3", self.d.find_element(By.ID, "toast").text)

    def test_undo_is_offered_only_where_the_token_allows_it(self):
        name = f"ht{os.getpid()}-{next(_names)}"
        T.put_board(name, three("multi"), token=T.secrets["admin"])
        T.request("POST", f"/api/boards/{name}/actions", {"type": "toggle", "section": "a"}, token=T.secrets["editor"])
        T.request("POST", f"/api/boards/{name}/actions", {"type": "setTitle", "section": "b", "title": "B"}, token=T.secrets["editor"])
        self.d.get(f"{T.base}/healthz")
        self.d.execute_script("sessionStorage.clear()")
        self.d.execute_script("sessionStorage.setItem('foldsync.token', arguments[0])", T.secrets["viewer"])
        self.open_board(T, name)
        wait(self.d, lambda d: len(entries(d)) == 2, 5, "the panel did not load for the viewer")
        self.assertIn("editor · HTTP", entries(self.d)[0][2])
        self.assertTrue(undo_shown(self.d, 1), "a viewer may undo a fold")
        self.assertFalse(undo_shown(self.d, 2), "a viewer may not undo an edit")
        self.d.execute_script("sessionStorage.clear()")


if __name__ == "__main__":
    unittest.main()
