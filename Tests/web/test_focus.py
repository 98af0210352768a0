"""The shared focus, typed items and follow/browse (extensions) in real
browsers (headless Chromium via Selenium) against the real daemon."""
import itertools
import json
import os
import shutil
import sqlite3
import time
import unittest

from selenium.webdriver.common.by import By

import harness

_names = itertools.count()


wait = harness.wait


def expanded(d, sid):
    return d.find_element(By.ID, f"h-{sid}").get_attribute("aria-expanded") == "true"


def focused(d):
    """(section id, item index) of the item marked aria-current, or None."""
    return d.execute_script("""
        const li = document.querySelector('#sections li[aria-current="true"]');
        if (!li) return null;
        const items = [...li.parentNode.querySelectorAll(':scope > li.item')];
        return [li.closest('.section').dataset.id, items.indexOf(li)];""")


def page_rev(d):
    """The rev the page has applied."""
    return d.execute_script("return window.foldsync.page.rev")


# Inserted after the page has drawn the board: an image that fails to load,
# with its own handler. Markup from the board (an <img src=x onerror=...>)
# would have been inserted before it and fail first, so once this one's error
# fired, any such handler has run.
PROBE_FAILED_IMAGE = """
  const done = arguments[0], img = document.createElement('img');
  img.onerror = () => { img.remove(); done(true); };
  img.src = 'x';
  document.body.appendChild(img);"""


def in_view(d, css):
    return d.execute_script("""
        const e = document.querySelector(arguments[0]);
        if (!e) return false;
        const r = e.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;""", css)


def tall_board():
    """Twenty open sections of three items: the last ones are far below the fold."""
    return {"mode": "multi", "sections": [
        {"id": f"s{i}", "title": f"Section {i}", "expanded": True, "items": [
            f"item {i}.0",
            {"label": f"Docs {i}", "detail": "the second line", "href": f"https://example.com/{i}", "badge": "new", "id": f"docs{i}"},
            f"item {i}.2"]}
        for i in range(20)]}


class FocusAndBrowse(harness.TwoBrowsers):
    def new_board(self, state):
        name = f"f{os.getpid()}-{next(_names)}"
        harness.shared().put_board(name, state)
        return name

    def test_a_click_on_an_item_highlights_it_in_the_other_and_scrolls_it_into_view(self):
        name = self.new_board(tall_board())
        self.open_board(self.a, name)
        self.open_board(self.b, name)
        target = '#r-s18 li.item:nth-child(2) .item-btn'
        self.assertFalse(in_view(self.b, target), "the item starts out of view")
        # Every field is shown: label, badge, detail, and a link that opens a new tab.
        li = self.a.find_element(By.CSS_SELECTOR, "#r-s3 li.item:nth-child(2)")
        self.assertEqual(li.find_element(By.CSS_SELECTOR, ".item-label").text, "Docs 3")
        self.assertEqual(li.find_element(By.CSS_SELECTOR, ".badge").text, "new")
        self.assertEqual(li.find_element(By.CSS_SELECTOR, ".item-detail").text, "the second line")
        link = li.find_element(By.CSS_SELECTOR, "a.item-link")
        self.assertEqual((link.get_attribute("href"), link.get_attribute("target"), link.get_attribute("rel")),
                         ("https://example.com/3", "_blank", "noopener noreferrer"))
        # A clicks the item (scrolled to it first); B highlights it and scrolls to it.
        self.a.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", target)
        self.a.find_element(By.CSS_SELECTOR, target).click()
        wait(self.b, lambda d: focused(d) == ["s18", 1], 3, "the other browser did not mark the focus")
        wait(self.b, lambda d: in_view(d, target), 3, "the focused item was not scrolled into view")
        wait(self.a, lambda d: focused(d) == ["s18", 1], 3)
        self.assertEqual(harness.shared().board(name)["state"]["focus"], {"section": "s18", "item": 1})
        # Clear focus: the mark goes everywhere.
        self.b.find_element(By.ID, "clear-focus").click()
        for d in (self.a, self.b):
            wait(d, lambda d: focused(d) is None, 3, "the focus mark stayed")
        for d in (self.a, self.b):
            self.assert_no_console_errors(d)

    def test_a_browsing_page_folds_locally_only_and_snaps_back(self):
        name = self.new_board({"mode": "single", "sections": [
            {"id": "intro", "title": "Intro", "expanded": True, "items": [
                "Welcome", {"label": "Roadmap", "detail": "what comes next", "badge": "v2", "href": "https://example.com/roadmap", "id": "roadmap"}]},
            {"id": "later", "title": "Later", "expanded": False, "items": ["Tokens", {
                "label": "History", "detail": "revert a board to an earlier rev", "badge": "soon",
                "href": "https://example.com/history", "id": "history"}]},
            {"id": "done", "title": "Done", "expanded": False, "items": ["Accordion"]}]})
        self.open_board(self.a, name)
        self.open_board(self.b, name)
        for d in (self.a, self.b):
            wait(d, lambda d: d.find_element(By.ID, "st-following").text == "2 following", 10, "presence following")
        switch = self.b.find_element(By.ID, "follow")
        self.assertEqual((switch.text, switch.get_attribute("role"), switch.get_attribute("aria-checked")),
                         ("Follow the board", "switch", "true"))
        switch.click()
        wait(self.b, lambda d: d.find_element(By.ID, "follow").get_attribute("aria-checked") == "false", 2)
        self.assertIn("browsing", self.b.find_element(By.ID, "st-view").text)
        wait(self.a, lambda d: d.find_element(By.ID, "st-following").text == "1 following", 10, "the presenter sees one follower")
        # B opens Later for itself: the accordion closes Intro on B only; nothing reaches A or the daemon.
        rev = harness.shared().board(name)["rev"]
        self.b.find_element(By.ID, "h-later").click()
        wait(self.b, lambda d: expanded(d, "later") and not expanded(d, "intro"), 2, "the local fold")
        # The board's edits still arrive on the browsing page, its folds stay.
        # No sleep before "nothing reached A": this edit comes after the fold,
        # and once both pages have applied it, the edit is the only change
        # since (a fold B had sent would be a rev before it); the end of the
        # test checks the rev again, after a later message of B's own.
        title = harness.shared().action(name, {"type": "setTitle", "section": "done", "title": "Done ✓"})
        self.assertEqual(title["rev"], rev + 1, "a browsing fold sends nothing")
        for d in (self.a, self.b):
            wait(d, lambda d: page_rev(d) == rev + 1, 3, "the edit after the local fold")
        self.assertEqual(self.b.find_element(By.CSS_SELECTOR, '[data-id="done"] .sec-title').text, "Done ✓")
        self.assertTrue(expanded(self.a, "intro") and not expanded(self.a, "later"), "B's local fold reached A")
        self.assertTrue(expanded(self.b, "later") and not expanded(self.b, "intro"))
        # The presenter points at Done's item: the board opens Done, the browsing page does not.
        pointed = harness.shared().action(name, {"type": "focus", "section": "done", "item": 0})["rev"]
        wait(self.a, lambda d: focused(d) == ["done", 0] and expanded(d, "done"), 3)
        # Once B has applied the focus's patch (its rev), it would have unfolded Done.
        wait(self.b, lambda d: page_rev(d) == pointed, 3, "the browsing page got the focus")
        self.assertFalse(expanded(self.b, "done"), "a browsing page is not unfolded by the focus")
        # Then at an item of Later, open on the browsing page: marked there too.
        self.a.find_element(By.ID, "h-later").click()
        history = '#r-later li.item:nth-child(2) .item-btn'
        wait(self.a, lambda d: expanded(d, "later") and d.find_element(By.CSS_SELECTOR, history).is_displayed(), 3)
        time.sleep(0.3)   # the opening animation
        self.a.find_element(By.CSS_SELECTOR, history).click()
        wait(self.b, lambda d: focused(d) == ["later", 1], 3, "the browsing page shows the focus")
        time.sleep(0.4)
        # The docs' screenshot: the browsing page, with the presenter's focus on it.
        self.shoot(self.b)
        # Back to following: B snaps to the board's folds and focus.
        self.b.find_element(By.ID, "follow").click()
        board = harness.shared().board(name)["state"]
        want = [s["expanded"] for s in board["sections"]]
        wait(self.b, lambda d: [expanded(d, s["id"]) for s in board["sections"]] == want, 2, "snapped back")
        self.assertEqual(focused(self.b), ["later", 1])
        self.assertIn("following", self.b.find_element(By.ID, "st-view").text)
        wait(self.a, lambda d: d.find_element(By.ID, "st-following").text == "2 following", 10)
        # B's follow went over the same socket as any fold it might have sent,
        # and the daemon has counted it: by now the board holds only the four
        # changes made here (edit, focus, A's fold, A's focus), nothing of B's.
        self.assertEqual(harness.shared().board(name)["rev"], rev + 4, "a browsing fold reached the board")
        for d in (self.a, self.b):
            self.assert_no_console_errors(d)

    def shoot(self, d):
        os.makedirs(harness.ARTIFACTS, exist_ok=True)
        harness.set_viewport(d, 1024, 560)
        png = os.path.join(harness.ARTIFACTS, "dashboard-focus.png")
        self.assertTrue(d.save_screenshot(png))
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        harness.set_viewport(d, 1024, 700)

    def test_hostile_labels_and_links_from_the_store_never_run_script(self):
        name = f"hostile{os.getpid()}"
        payload = {"mode": "multi", "sections": [
            {"id": "x", "title": '<img src=x onerror="window.__pwned=1">', "expanded": True, "items": [
                {"label": '<img src=x onerror="window.__pwned=2">', "href": "javascript:window.__pwned=3",
                 "detail": "<script>window.__pwned=4</script>", "badge": "<b onmouseover=window.__pwned=5>b</b>"},
                {"label": "data link", "href": "data:text/html,<script>parent.__pwned=6</script>"},
                {"label": "tab link", "href": "java\tscript:window.__pwned=7"},
                '<svg onload="window.__pwned=8">',
                {"label": "fine", "href": "https://example.com/ok"}]}]}
        # The store's back door: written into SQLite while the daemon is down.
        harness.shared().stop()
        try:
            db = sqlite3.connect(harness.shared().db)
            db.execute("INSERT INTO boards(name, epoch, rev, state) VALUES(?, 'hostile-epoch', 0, ?)",
                       (name, json.dumps(payload).encode()))
            db.commit()
            db.close()
        finally:
            harness.shared().start()
        self.assertEqual(harness.shared().board(name)["state"]["sections"][0]["items"][0]["href"], "javascript:window.__pwned=3")
        d = self.a
        self.open_board(d, name)
        wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#r-x li.item")) == 5, 3)
        self.assertTrue(d.execute_async_script(PROBE_FAILED_IMAGE))
        # The text, as text.
        self.assertEqual(d.find_element(By.CSS_SELECTOR, '[data-id="x"] .sec-title').text, '<img src=x onerror="window.__pwned=1">')
        labels = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#r-x .item-label")]
        self.assertEqual(labels, ['<img src=x onerror="window.__pwned=2">', "data link", "tab link",
                                  '<svg onload="window.__pwned=8">', "fine"])
        self.assertEqual(d.find_element(By.CSS_SELECTOR, "#r-x .item-detail").text, "<script>window.__pwned=4</script>")
        self.assertEqual(d.find_element(By.CSS_SELECTOR, "#r-x .badge").text, "<b onmouseover=window.__pwned=5>b</b>")
        # No markup from the board, and only the one safe link.
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, "#sections img, #sections script, #sections svg, #sections b"), [])
        hrefs = [a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "#sections a")]
        self.assertEqual(hrefs, ["https://example.com/ok"])
        # Clicking every item (they set the focus) and hovering runs nothing either.
        for btn in d.find_elements(By.CSS_SELECTOR, "#r-x .item-btn"):
            btn.click()
        wait(d, lambda d: focused(d) == ["x", 4], 3)
        self.assertTrue(d.execute_async_script(PROBE_FAILED_IMAGE))
        self.assertIsNone(d.execute_script("return window.__pwned === undefined ? null : window.__pwned"))
        self.assert_no_console_errors(d)


class ReadOnlyBrowsing(harness.OneBrowser):
    """A token with `read` only cannot fold for everyone, but may browse."""

    def test_a_read_only_token_browses_and_cannot_point(self):
        t = harness.shared(harness.TokenDaemon)
        name = f"ro{os.getpid()}"
        t.put_board(name, {"mode": "single", "sections": [
            {"id": "a", "title": "A", "items": ["one", "two"], "expanded": True},
            {"id": "b", "title": "B", "items": ["three"], "expanded": False}]}, token=t.secrets["admin"])
        d = self.d
        d.get(f"{t.base}/b/{name}")
        d.execute_script("sessionStorage.setItem('foldsync.token', arguments[0])", t.secrets["reader"])
        d.get(f"{t.base}/b/{name}")
        wait(d, lambda d: d.find_element(By.ID, "st-user").text == "signed in as reader"
             and d.find_elements(By.CSS_SELECTOR, ".sec-btn"), 10, "the reader did not get the board")
        # Following, a header does not fold (no `fold`): it says so by aria-disabled.
        self.assertEqual(d.find_element(By.ID, "h-b").get_attribute("aria-disabled"), "true")
        rev = t.board(name, token=t.secrets["reader"])["rev"]
        # The presence line is the last to fill in; until it has, it may move
        # the switch between locating it and clicking it.
        wait(d, lambda d: d.find_element(By.ID, "st-following").text == "1 following", 10, "presence following")
        d.find_element(By.ID, "follow").click()
        wait(d, lambda d: d.find_element(By.ID, "follow").get_attribute("aria-checked") == "false", 2)
        self.assertIsNone(d.find_element(By.ID, "h-b").get_attribute("aria-disabled"))
        d.find_element(By.ID, "h-b").click()
        wait(d, lambda d: expanded(d, "b") and not expanded(d, "a"), 2, "a local fold for a read-only viewer")
        # Pointing needs `fold`: refused on the page, nothing sent.
        wait(d, lambda d: d.find_element(By.CSS_SELECTOR, "#r-b .item-btn").is_displayed(), 2)
        time.sleep(0.3)
        d.find_element(By.CSS_SELECTOR, "#r-b .item-btn").click()
        wait(d, lambda d: "may not point at items" in d.find_element(By.ID, "toast").text, 2)
        # The daemon counts it as not following.
        wait(d, lambda d: d.find_element(By.ID, "st-following").text == "0 following", 10)
        # A reconnect redraws the permissions; a browsing reader's headers stay foldable.
        t.stop()
        wait(d, lambda d: d.find_element(By.ID, "st-conn").text != "connected", 10, "the page saw the daemon go")
        t.start()
        wait(d, lambda d: d.find_element(By.ID, "st-conn").text == "connected"
             and d.find_element(By.ID, "st-user").text == "signed in as reader", 20, "the page did not come back")
        wait(d, lambda d: d.find_element(By.ID, "st-following").text == "0 following", 10, "still browsing after the reconnect")
        # Whatever the page sent before the stop was handled before it (a stop
        # drains): no sleep needed for "nothing reached the board".
        self.assertEqual(t.board(name, token=t.secrets["reader"])["rev"], rev, "nothing reached the board")
        self.assertIsNone(d.find_element(By.ID, "h-b").get_attribute("aria-disabled"),
                          "a reconnect must not lock a browsing viewer's headers")


def copy_screenshot():
    """The docs' screenshot: copied into docs/ only on request
    (FOLDSYNC_UPDATE_SCREENSHOT=1); a test run writes only under .build."""
    png = os.path.join(harness.ARTIFACTS, "dashboard-focus.png")
    target = os.path.join(harness.ROOT, "docs", "dashboard-focus.png")
    if os.path.exists(png) and os.environ.get("FOLDSYNC_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(png, target)


def tearDownModule():
    copy_screenshot()


if __name__ == "__main__":
    unittest.main(verbosity=2)
