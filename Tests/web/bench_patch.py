"""How long a toggle sent over HTTP takes to show in the dashboard, by board size.

Not part of the test run: it prints figures and asserts nothing about time.
For 10, 200 and 1,000 sections of 10 items it opens the board in headless
Chromium, then, from inside the page (one clock), POSTs a `toggle` for a
random section and waits until that section's header shows the new state and
a frame has been drawn. Printed per size, median and max over the runs:

  shown   POST sent -> the DOM shows it and the next frame is drawn
  script  the patch's WebSocket message arrived -> the DOM shows it (the
          page's JavaScript: parse, apply, render)
  layout  the style and layout that DOM change costs (forced at once)

Run: .build/web-venv/bin/python Tests/web/bench_patch.py [RUNS [SIZES...]]   (builds nothing: needs
.build/debug/foldsyncd and the venv Tests/web/run.sh makes; wait while
/tmp/foldsync-quiet exists). Uses its own daemon on a free port. To time
another version of the page, point FOLDSYNC_WEB_ROOT at its files, e.g.
  git archive 0b4fc95 clients/web | tar -x -C /tmp/before
  FOLDSYNC_WEB_ROOT=/tmp/before/clients/web .build/web-venv/bin/python Tests/web/bench_patch.py
"""
import os
import random
import statistics
import sys

os.environ.setdefault("SE_OFFLINE", "true")       # never let Selenium Manager reach the network
os.environ.setdefault("SE_AVOID_STATS", "true")
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import harness

SIZES = (10, 200, 1000)
ITEMS = 10

# Added before any page script runs: remembers when the last WebSocket
# message arrived (this listener is added first, so it runs before the page's).
STAMP_MESSAGES = """
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); this.addEventListener('message', () => { window.__lastMessageAt = performance.now(); }); }
  };
"""

# One toggle, timed from inside the page.
TOGGLE = """
  const [board, id, done] = arguments;
  const header = document.getElementById('h-' + id);
  const want = header.getAttribute('aria-expanded') === 'true' ? 'false' : 'true';
  const t0 = performance.now();
  const seen = () => {
    const dom = performance.now();
    const arrived = window.__lastMessageAt;
    void document.documentElement.offsetHeight;   // style and layout, now rather than at the next frame
    const laidOut = performance.now();
    // requestAnimationFrame runs before the next paint; the task after it runs once that frame is drawn.
    requestAnimationFrame(() => setTimeout(() => {
      const shown = performance.now();
      done({ shown: shown - t0, daemon: arrived - t0, script: dom - arrived, layout: laidOut - dom, frame: shown - laidOut });
    }, 0));
  };
  const watch = new MutationObserver(() => {
    if (header.getAttribute('aria-expanded') === want) { watch.disconnect(); seen(); }
  });
  watch.observe(header, { attributes: true, attributeFilter: ['aria-expanded'] });
  fetch('/api/boards/' + board + '/actions', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'toggle', section: id }),
  }).then((r) => { if (!r.ok) done({ error: 'HTTP ' + r.status }); }, (e) => done({ error: String(e) }));
"""


def board(sections):
    return {"mode": "single", "sections": [
        {"id": f"s{i}", "title": f"Section {i}", "items": [f"item {i}.{j}" for j in range(ITEMS)], "expanded": False}
        for i in range(sections)]}


def measure(daemon, d, sections, runs, rng):
    name = f"bench{os.getpid()}-{sections}-{rng.randrange(10**6)}"
    daemon.put_board(name, board(sections))
    d.get(f"{daemon.base}/b/{name}")
    WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "st-conn").text == "connected"
                               and len(d.find_elements(By.CSS_SELECTOR, ".section")) == sections)
    d.set_script_timeout(10)
    samples = []
    for _ in range(runs + 2):
        r = d.execute_async_script(TOGGLE, name, f"s{rng.randrange(sections)}")
        if "error" in r:
            raise SystemExit(f"toggle failed: {r['error']}")
        samples.append(r)
    samples = samples[2:]   # the first toggles warm up the page and the daemon
    doc_ok = d.execute_script("return window.foldsync.page.doc") == daemon.board(name)["state"]
    daemon.request("DELETE", f"/api/boards/{name}")
    return samples, doc_ok


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    sizes = [int(a) for a in sys.argv[2:]] or SIZES
    os.environ.pop("FOLDSYNC_WEB_PORT", None)   # always our own daemon
    daemon = harness.Daemon()
    d = harness.browser()
    rng = random.Random(11)
    try:
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STAMP_MESSAGES})
        print(f"toggle over HTTP -> shown in the page, {runs} runs per size, {ITEMS} items per section (ms)")
        cols = ("shown", "daemon", "script", "layout", "frame")
        print(f"{'sections':>8}" + "".join(f"  {c + ' median':>13}  {c + ' max':>10}" for c in cols) + "  mirror")
        for n in sizes:
            samples, ok = measure(daemon, d, n, runs, rng)
            line = f"{n:>8}"
            for c in cols:
                xs = [s[c] for s in samples]
                line += f"  {statistics.median(xs):>13.1f}  {max(xs):>10.1f}"
            print(line + f"  {'ok' if ok else 'DIFFERS'}")
    finally:
        d.quit()
        daemon.stop()


if __name__ == "__main__":
    main()
