"""The dashboard signed in with JWTs (made by PyJWT): when the token is about
to expire the sign-in form asks for a new one and it goes in band; when it
has expired the form says so, the board stays on screen, and a new token
resumes it with whatever changed meanwhile."""
import hashlib
import os
import secrets
import time
import unittest

import jwt
from selenium.webdriver.common.by import By

import harness
from test_dashboard import wait, expanded, three

J = None


class JWTDaemon(harness.Daemon):
    """A daemon of its own: HS256 keys, authExpiring 2 s before `exp`, no
    leeway, and a static admin token to set up boards."""

    ENV = "FOLDSYNC_WEB_JWT_"

    def prepare(self, tmp):
        self.secret = secrets.token_bytes(48)
        self.admin = "adm-" + secrets.token_urlsafe(18)
        key = os.path.join(tmp, "jwt.secret")
        with open(os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            f.write(self.secret)
        self.config = os.path.join(tmp, "jwt.conf")
        with open(self.config, "w") as f:
            f.write(f"jwt-key = HS256:{key}\njwt-refresh-before = 2\njwt-leeway = 0\n"
                    f"token = admin read,fold,edit,admin {hashlib.sha256(self.admin.encode()).hexdigest()}\n")

    def token(self, life, sub="wall"):
        claims = {"sub": sub, "exp": int(time.time() + life), "foldsync": {"*": ["read", "fold"]}}
        return jwt.encode(claims, self.secret, algorithm="HS256")


def setUpModule():
    global J
    J = JWTDaemon()


class ExpiringSessions(harness.OneBrowser):

    def setUp(self):
        self.d.get(f"{J.base}/healthz")
        self.d.execute_script("sessionStorage.clear(); localStorage.clear()")
        self.name = f"jwt{os.getpid()}-{self._testMethodName[-12:]}"
        J.put_board(self.name, three("multi"), token=J.admin)

    def sign_in(self, token):
        d = self.d
        if not d.find_element(By.ID, "token-input").is_displayed():
            d.find_element(By.ID, "signin-open").click()
        d.find_element(By.ID, "token-input").send_keys(token)
        d.find_element(By.ID, "token-use").click()

    def open_signed_in(self, token):
        d = self.d
        d.get(f"{J.base}/b/{self.name}")
        wait(d, lambda d: d.find_element(By.ID, "signin").is_displayed(), 5, "no sign-in prompt")
        self.sign_in(token)
        wait(d, lambda d: d.find_element(By.ID, "st-user").text == "signed in as wall", 5, "not signed in")
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".sec-btn"), 5, "board did not load")
        # Every token, a JWT too, goes as an auth message (the library's rule).
        self.assertTrue(d.execute_script("return window.foldsync.page.conn.authByMessage"))

    def signin_message(self):
        return self.d.find_element(By.ID, "signin-msg").text

    def test_a_token_about_to_expire_is_replaced_in_band(self):
        d = self.d
        self.open_signed_in(J.token(5))
        opens = d.execute_script("return window.foldsync.page.conn.opens")
        wait(d, lambda d: d.find_element(By.ID, "signin").is_displayed() and "expires in" in self.signin_message(),
             6, "the page never asked for a new token before expiry")
        self.assertIn("Enter a new token", self.signin_message())
        self.sign_in(J.token(120))
        wait(d, lambda d: not d.find_element(By.ID, "signin").is_displayed(), 5, "the form stayed open")
        # Past the first token's exp: the same connection, still signed in, still folding.
        time.sleep(4)
        self.assertEqual(d.execute_script("return window.foldsync.page.conn.opens"), opens, "it reconnected")
        self.assertEqual(d.find_element(By.ID, "st-conn").text, "connected")
        self.assertEqual(d.find_element(By.ID, "st-user").text, "signed in as wall")
        d.find_element(By.ID, "h-b").click()
        wait(d, lambda d: expanded(d, "b"), 3, "could not expand after the refresh")
        harness.wait_answered(d)
        self.assertTrue(J.board(self.name, token=J.admin)["state"]["sections"][1]["expanded"])

    def test_an_expired_session_keeps_the_board_and_a_new_token_resumes_it(self):
        d = self.d
        self.open_signed_in(J.token(3))
        rev = d.execute_script("return window.foldsync.page.rev")
        wait(d, lambda d: "session expired" in d.find_element(By.ID, "st-conn").text, 8, "the expiry was not shown")
        self.assertIn("Your session expired", self.signin_message())
        # The board is still on screen, as it was.
        self.assertEqual(len(d.find_elements(By.CSS_SELECTOR, ".section")), 3)
        self.assertIsNotNone(d.execute_script("return window.foldsync.page.doc"))
        # Meanwhile someone else changes the board.
        status, body, _ = J.request("POST", f"/api/boards/{self.name}/actions", {"type": "expand", "section": "c"}, token=J.admin)
        self.assertEqual(status, 200, body)
        self.sign_in(J.token(120))
        wait(d, lambda d: d.find_element(By.ID, "st-conn").text == "connected"
             and d.find_element(By.ID, "st-user").text == "signed in as wall", 5, "not back")
        wait(d, lambda d: expanded(d, "c"), 5, "the change made meanwhile did not arrive")
        self.assertEqual(d.execute_script("return window.foldsync.page.rev"), rev + 1)
        self.assertEqual(d.execute_script("return window.foldsync.page.doc"), J.board(self.name, token=J.admin)["state"])


if __name__ == "__main__":
    unittest.main()
