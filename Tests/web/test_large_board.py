"""A board of 1,000 sections of 10 items in a real browser: after toggles
(over HTTP and by click), a rename and moves, the page shows exactly the
daemon's board, each patch re-rendered only the sections it touched, and a
move moved one node.
Correctness only: how long a patch takes is Tests/web/bench_patch.py's
business, never an assertion here."""
import os
import random
import unittest

from selenium.webdriver.common.by import By

import harness
from test_dashboard import wait

DAEMON = None
SECTIONS = 1000
ITEMS = 10

# Every section's node against the page's mirror: order, title, count,
# expanded state, items. Read with textContent and attributes, which do not
# depend on the section being on screen. Returns the differences.
CHECK_DOM = """
  const doc = window.foldsync.page.doc;
  const nodes = [...document.querySelectorAll('#sections > .section')];
  const bad = [];
  if (nodes.length !== doc.sections.length) bad.push(`nodes ${nodes.length} != sections ${doc.sections.length}`);
  doc.sections.forEach((s, i) => {
    const n = nodes[i];
    if (!n || n.dataset.id !== s.id) { bad.push(`#${i}: node ${n && n.dataset.id} for section ${s.id}`); return; }
    const header = n.querySelector('.sec-btn');
    if (header.getAttribute('aria-expanded') !== String(s.expanded)) bad.push(`${s.id}: aria-expanded`);
    if (n.querySelector('.sec-region').classList.contains('open') !== s.expanded) bad.push(`${s.id}: region`);
    if (n.querySelector('.sec-title').textContent !== s.title) bad.push(`${s.id}: title`);
    if (n.querySelector('.sec-count').textContent !== String(s.items.length)) bad.push(`${s.id}: count`);
    const items = [...n.querySelectorAll('.items li')].map((li) => li.textContent);
    if (JSON.stringify(items) !== JSON.stringify(s.items)) bad.push(`${s.id}: items`);
  });
  return bad;
"""


def setUpModule():
    global DAEMON
    DAEMON = harness.shared()


def big_board():
    return {"mode": "single", "sections": [
        {"id": f"s{i}", "title": f"Section {i}", "items": [f"item {i}.{j}" for j in range(ITEMS)], "expanded": False}
        for i in range(SECTIONS)]}


class LargeBoard(harness.OneBrowser):

    def wait_in_step(self, name):
        harness.wait_answered(self.d)
        rev = DAEMON.board(name)["rev"]
        wait(self.d, lambda d: d.execute_script("return window.foldsync.page.rev") == rev, 10,
             f"the page never reached rev {rev}")

    def scroll_to(self, element_id):
        """Scrolls the element to the middle of the viewport and waits until
        it stays put: sections drawn for the first time on the way may take
        another height than the one reserved for them, and a click aimed
        before that settles would land on a neighbour."""
        d = self.d
        top = lambda: d.execute_script(
            "const e = document.getElementById(arguments[0]); e.scrollIntoView({block: 'center'});"
            "return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(e.getBoundingClientRect().top))));",
            element_id)
        last = [None]

        def settled(_):
            now, prev = top(), last[0]
            last[0] = now
            return prev is not None and abs(now - prev) < 1
        wait(d, settled, 10, f"{element_id} never stopped moving")

    def renders(self):
        return self.d.execute_script("return Object.fromEntries(window.foldsync.renders)")

    def assert_shows_the_board(self, name):
        self.wait_in_step(name)
        self.assertEqual(self.d.execute_script("return window.foldsync.page.doc"), DAEMON.board(name)["state"])
        self.assertEqual(self.d.execute_script(CHECK_DOM), [])

    def test_thousand_sections_stay_correct_after_patches(self):
        name = f"large{os.getpid()}"
        DAEMON.put_board(name, big_board())
        d = self.d
        d.get(f"{DAEMON.base}/b/{name}")
        wait(d, lambda d: d.find_element(By.ID, "st-conn").text == "connected"
             and len(d.find_elements(By.CSS_SELECTOR, "#sections > .section")) == SECTIONS, 30, "board did not load")
        self.assert_shows_the_board(name)
        before = self.renders()
        self.assertEqual(set(before.values()), {1}, "the first render drew some section twice")

        # Toggles over HTTP, spread over the board; the accordion closes the
        # one open before. Touched: each toggled section (and the one it closed).
        rng = random.Random(1000)
        toggled = [f"s{rng.randrange(SECTIONS)}" for _ in range(20)] + ["s999", "s0"]
        for sid in toggled:
            DAEMON.action(name, {"type": "toggle", "section": sid})
        self.assert_shows_the_board(name)
        # A click far down the board (Selenium scrolls to it) and one at the top.
        for sid in ("s998", "s1"):
            self.scroll_to(f"h-{sid}")
            d.find_element(By.ID, f"h-{sid}").click()
            wait(d, lambda d: d.find_element(By.ID, f"h-{sid}").get_attribute("aria-expanded") == "true", 10,
                 f"click on {sid} did not expand it")
        self.assert_shows_the_board(name)
        open_now = [s["id"] for s in DAEMON.board(name)["state"]["sections"] if s["expanded"]]
        self.assertEqual(open_now, ["s1"])

        after = self.renders()
        touched = set(toggled) | {"s998", "s1"}
        untouched = [sid for sid, n in after.items() if n != before[sid] and sid not in touched]
        self.assertEqual(untouched, [], "sections no patch touched were re-rendered")
        self.assertLessEqual(sum(after.values()) - sum(before.values()), 2 * (len(toggled) + 2))

        # A rename in the middle, items at the end, then a move: the list is
        # reordered without rebuilding the nodes.
        d.execute_script("document.getElementById('h-s500').__mark = 1")
        DAEMON.action(name, {"type": "setTitle", "section": "s500", "title": "Πέντε 五百"})
        DAEMON.action(name, {"type": "setItems", "section": "s999", "items": ["only"]})
        DAEMON.action(name, {"type": "moveSection", "section": "s500", "to": 0})
        self.assert_shows_the_board(name)
        self.assertEqual(d.execute_script("return document.querySelector('#sections > .section').dataset.id"), "s500")
        self.assertEqual(d.execute_script("return document.getElementById('h-s500').__mark"), 1, "the moved node was rebuilt")
        quiet = next(f"s{i}" for i in range(SECTIONS) if f"s{i}" not in touched | {"s500", "s999"})
        self.assertEqual(self.renders()[quiet], before[quiet], "a move re-rendered an untouched section")

        # A move from the top to the bottom moves one node, not the 999 in between.
        first = d.execute_script("return document.querySelector('#sections > .section').dataset.id")
        d.execute_script("""
            window.__moved = 0;
            window.__watch = new MutationObserver((records) => {
              for (const r of records) window.__moved += r.addedNodes.length; });
            window.__watch.observe(document.getElementById('sections'), { childList: true });""")
        DAEMON.action(name, {"type": "moveSection", "section": first, "to": SECTIONS - 1})
        self.assert_shows_the_board(name)
        self.assertEqual(d.execute_script("window.__watch.disconnect(); return window.__moved"), 1,
                         "nodes moved for one section's move")
        # Every patch followed the one before and applied: no resynchronising, no errors.
        bad = [l["message"] for l in d.get_log("browser")
               if l["level"] == "SEVERE" or "resynchronising" in l["message"]]
        self.assertEqual(bad, [])
        DAEMON.request("DELETE", f"/api/boards/{name}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
