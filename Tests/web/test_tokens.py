"""The dashboard against a daemon with tokens (run.sh starts it with a
configuration file holding their hashes): signing in, permissions hiding
controls, the token kept in session storage only, and no reconnect loop."""
import itertools
import os
import unittest

from selenium.webdriver.common.by import By

import harness
from harness import shown
from test_dashboard import wait, expanded, three

T = None
_names = itertools.count()


def setUpModule():
    global T
    T = harness.TokenDaemon()


def new_board(prefix="tok"):
    name = f"{prefix}{os.getpid()}-{next(_names)}"
    T.put_board(name, three("multi"), token=T.secrets["admin"])
    return name


def session_token(d):
    return d.execute_script("return sessionStorage.getItem('foldsync.token')")


class Tokens(harness.OneBrowser):

    def setUp(self):
        # Each test starts signed out: storage is per origin (and per tab for sessionStorage).
        self.d.get(f"{T.base}/healthz")
        self.d.execute_script("sessionStorage.clear(); localStorage.clear()")

    def sign_in(self, who):
        d = self.d
        if not d.find_element(By.ID, "token-input").is_displayed():
            d.find_element(By.ID, "signin-open").click()
        d.find_element(By.ID, "token-input").send_keys(T.secrets[who])
        d.find_element(By.ID, "token-use").click()

    def wait_signed_in(self, who):
        wait(self.d, lambda d: d.find_element(By.ID, "st-user").text == f"signed in as {who}", 5,
             f"the status strip never named {who}")

    def wait_board(self):
        wait(self.d, lambda d: d.find_element(By.ID, "st-conn").text == "connected"
             and d.find_elements(By.CSS_SELECTOR, ".sec-btn"), 5, "board did not load")

    def assert_signin_prompt(self):
        d = self.d
        wait(d, lambda d: d.find_element(By.ID, "signin").is_displayed()
             and "token" in d.find_element(By.ID, "signin-msg").text, 5, "no sign-in prompt")
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, ".section"), [], "board data shown without a token")
        self.assertIsNone(d.execute_script("return window.foldsync.page.doc"))
        for css in ("#add-form", "#show-json", "#mode", "#expand-all", "#collapse-all"):
            self.assertFalse(shown(d, css), f"{css} shown without a token")

    def test_the_page_connects_through_the_library(self):
        d = self.d
        d.get(f"{T.base}/")
        r = d.execute_async_script("""
            const done = arguments[0];
            Promise.all([import('/socket.js'), import('/lib/foldsync.js')]).then(([m, lib]) => {
              const conn = new m.Connection(m.socketURL(), { token: () => null, onMessage() {}, onState() {} });
              conn.open();
              done({ library: conn.client instanceof lib.Client, transport: conn.client.transport,
                     backoff: m.backoffDelay === lib.backoffDelay });
              conn.close();
            }, (e) => done(String(e)));
        """)
        self.assertEqual(r, {"library": True, "transport": "websocket", "backoff": True})

    def test_no_token_prompts_and_does_not_reconnect(self):
        name = new_board()
        d = self.d
        d.get(f"{T.base}/b/{name}")
        self.assert_signin_prompt()
        self.assertIn("needs an access token", d.find_element(By.ID, "signin-msg").text)
        self.assertEqual(d.switch_to.active_element.get_attribute("id"), "token-input")
        self.assertEqual(d.find_element(By.ID, "token-input").get_attribute("type"), "password")
        os.makedirs(harness.ARTIFACTS, exist_ok=True)
        d.save_screenshot(os.path.join(harness.ARTIFACTS, "signin.png"))
        # The daemon closes the unauthenticated connection (1008, auth-timeout 2 s): no reconnect loop.
        wait(d, lambda d: (d.execute_script("return window.foldsync.page.conn.lastClose") or {}).get("code") == 1008,
             6, "the daemon did not close with 1008")
        # No sleep: a timer the page starts now, as long as the longest retry
        # the close could have scheduled, fires after that retry would have
        # opened (JavaScript runs timers of equal or shorter delay set earlier
        # first); only then is "no second open" worth checking.
        opens, timer = d.execute_async_script("""
            const done = arguments[0], conn = window.foldsync.page.conn;
            import('/socket.js').then((m) => {
              const longest = Math.min(m.BACKOFF_CAP_MS, m.BACKOFF_BASE_MS * 2 ** Math.max(1, conn.attempt));
              setTimeout(() => done([conn.opens, conn.timer]), longest + 1);
            }, (e) => done(String(e)));""")
        self.assertEqual(opens, 1, "reconnected after 1008")
        self.assertIsNone(timer, "a retry is scheduled after 1008")
        self.assertEqual(d.execute_script("return window.foldsync.page.conn.state"), "stopped")
        self.assertIn("signed out", d.find_element(By.ID, "st-conn").text)
        self.assertFalse(d.find_element(By.ID, "banner").is_displayed(), "an offline banner instead of the prompt")
        self.assert_signin_prompt()
        # A token entered now connects at once.
        self.sign_in("viewer")
        self.wait_signed_in("viewer")
        self.wait_board()

    def test_viewer_folds_but_cannot_edit_and_token_stays_in_session(self):
        name = new_board()
        d = self.d
        d.get(f"{T.base}/b/{name}")
        self.assert_signin_prompt()
        self.sign_in("viewer")
        self.wait_signed_in("viewer")
        self.wait_board()
        self.assertFalse(d.find_element(By.ID, "signin").is_displayed())
        # Sections toggle (fold), and the daemon saw it.
        d.find_element(By.ID, "h-b").click()
        wait(d, lambda d: expanded(d, "b"), 3, "viewer could not expand")
        harness.wait_answered(d)
        self.assertTrue(T.board(name, token=T.secrets["viewer"])["state"]["sections"][1]["expanded"])
        self.assertTrue(shown(d, "#collapse-all") and shown(d, "#expand-all"))
        # Edit and admin controls are hidden.
        for css in ("#add-form", "#mode", "#show-json", ".sec-tools", '[data-act="remove"]'):
            self.assertFalse(shown(d, css), f"{css} shown to a viewer")
        self.assertEqual(d.execute_script("return ['read','fold','edit','admin'].map(window.foldsync.allowed)"),
                         [True, True, False, False])
        # Only sessionStorage holds the token: not localStorage, not the URL, not cookies.
        secret = T.secrets["viewer"]
        self.assertEqual(session_token(d), secret)
        self.assertEqual(d.execute_script("return localStorage.length"), 0)
        self.assertNotIn(secret, d.current_url)
        self.assertNotIn(secret, d.execute_script("return document.cookie"))
        self.assertNotIn(secret, d.execute_script("return document.documentElement.outerHTML"))
        self.assertFalse(any(secret in l["message"] for l in d.get_log("browser")), "the token was logged")
        # An action beyond the token's rights: a clear message.
        d.execute_script("window.foldsync.page.send({type: 'addSection', section: {title: 'x', items: []}}, 'add a section')")
        wait(d, lambda d: d.find_element(By.ID, "toast").is_displayed(), 3, "forbidden not shown")
        self.assertIn("This token (“viewer”) may not add a section", d.find_element(By.ID, "toast").text)
        # A reload keeps the token (same tab).
        d.refresh()
        self.wait_signed_in("viewer")
        self.wait_board()
        # Forget: gone from storage, the board goes away, the daemon refuses again.
        d.find_element(By.ID, "signin-open").click()
        d.find_element(By.ID, "token-forget").click()
        self.assertIsNone(session_token(d))
        self.assert_signin_prompt()
        self.assertFalse(d.find_element(By.ID, "st-user").is_displayed())
        self.assertEqual(d.execute_script("return window.foldsync.page.authed"), False)

    def test_admin_sees_every_control(self):
        name = new_board()
        d = self.d
        d.get(f"{T.base}/b/{name}")
        self.assert_signin_prompt()
        self.sign_in("admin")
        self.wait_signed_in("admin")
        self.wait_board()
        for css in ("#add-form", "#mode", "#show-json", ".sec-tools", "#expand-all", "#collapse-all"):
            self.assertTrue(shown(d, css), f"{css} hidden from admin")
        d.find_element(By.ID, "add-title").send_keys("Added by admin")
        d.find_element(By.CSS_SELECTOR, "#add-form button[type=submit]").click()
        wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".section")) == 4, 3)
        # The library's `auth` message carried it (never a subprotocol or the URL).
        self.assertTrue(d.execute_script("return window.foldsync.page.conn.authByMessage"))

    def test_secret_unfit_for_a_subprotocol_goes_in_an_auth_message(self):
        name = new_board()
        d = self.d
        d.get(f"{T.base}/b/{name}")
        self.assert_signin_prompt()
        self.sign_in("editor")
        self.wait_signed_in("editor")
        self.wait_board()
        self.assertTrue(d.execute_script("return window.foldsync.page.conn.authByMessage"))
        self.assertTrue(shown(d, "#add-form") and shown(d, "#mode") and shown(d, ".sec-tools"))
        self.assertFalse(shown(d, "#show-json"), "admin control shown to an editor")

    def test_token_outside_its_boards(self):
        name = new_board()
        d = self.d
        d.get(f"{T.base}/b/{name}")
        self.assert_signin_prompt()
        self.sign_in("opsonly")
        wait(d, lambda d: "may not read this board" in d.find_element(By.ID, "signin-msg").text, 5)
        self.assertIn("“opsonly”", d.find_element(By.ID, "signin-msg").text)
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, ".section"), [])
        self.assertFalse(shown(d, "#add-form"))

    def test_board_list_needs_a_token_and_hides_create_from_viewers(self):
        name = new_board(prefix="listtok")
        d = self.d
        d.get(f"{T.base}/")
        wait(d, lambda d: d.find_element(By.ID, "signin").is_displayed(), 5, "no sign-in prompt on the list")
        self.assertEqual(d.find_elements(By.LINK_TEXT, name), [])
        self.assertFalse(shown(d, "#create-form"))
        self.sign_in("viewer")
        wait(d, lambda d: d.find_elements(By.LINK_TEXT, name), 5, "boards not listed with a token")
        wait(d, lambda d: d.find_element(By.ID, "st-user").text == "signed in as viewer", 5)
        self.assertFalse(shown(d, "#create-form"), "create form shown to a viewer")
        # Admin: the form shows, and its PUT carries the bearer token.
        d.find_element(By.ID, "signin-open").click()
        d.find_element(By.ID, "token-forget").click()
        wait(d, lambda d: d.find_element(By.ID, "signin").is_displayed() and not d.find_elements(By.LINK_TEXT, name), 5)
        self.sign_in("admin")
        wait(d, lambda d: shown(d, "#create-form"), 5, "create form hidden from admin")
        fresh = f"madetok{os.getpid()}-{next(_names)}"
        d.find_element(By.ID, "create-name").send_keys(fresh)
        d.find_element(By.CSS_SELECTOR, "#create-form button[type=submit]").click()
        wait(d, lambda d: d.current_url.endswith(f"/b/{fresh}"), 5)
        self.wait_signed_in("admin")
        self.wait_board()
        self.assertEqual(T.request("GET", f"/api/boards/{fresh}", token=T.secrets["admin"])[0], 200)


if __name__ == "__main__":
    unittest.main(verbosity=2)
