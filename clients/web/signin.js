// The sign-in form under the status strip: a password-type field, "Use
// token" and "Forget". It appears when the daemon refuses for want of a
// token, or on request from the status strip once tokens are in play. The
// token itself is kept by auth.js; what it allows is the auth state's.

import { getToken, setToken, forgetToken } from './auth.js';
import { signInOffered } from './auth-state.js';
import { $, toast } from './page-chrome.js';

// The status strip's "signed in as …" and the sign-in button, from the auth state.
export function showIdentity(auth) {
  const who = $('st-user');
  const text = auth.identity ? `signed in as ${auth.identity.name}` : '';
  who.textContent = text;
  who.hidden = text === '';
  $('signin-open').textContent = auth.hasToken ? 'Token…' : 'Sign in';
  $('signin-open').hidden = !signInOffered(auth);
  $('token-forget').disabled = !auth.hasToken;
}

// Opens the form; a message says why (the daemon refused), none means the user asked.
export function showSignIn(message) {
  $('signin-msg').textContent = message || '';
  $('signin-msg').hidden = !message;
  $('signin').hidden = false;
  $('signin-open').hidden = false;
  $('signin-open').setAttribute('aria-expanded', 'true');
  document.body.dataset.auth = message ? 'needed' : 'open';
  const a = document.activeElement;
  if (!a || a === document.body) $('token-input').focus({ preventScroll: true });
}

export function hideSignIn() {
  $('signin').hidden = true;
  $('signin-open').setAttribute('aria-expanded', 'false');
  delete document.body.dataset.auth;
}

// Whether the form is open because the daemon asked for a token.
export function signInNeeded() { return document.body.dataset.auth === 'needed'; }

// The refusal's words, for a kept token or none.
export function refusedMessage(what) {
  return getToken() ? 'The daemon did not accept this token. Enter another one.' : what;
}

// Wires the form; onToken(hasToken) runs after the user set or forgot the token.
export function wireSignIn(onToken) {
  $('signin-open').addEventListener('click', () => {
    if ($('signin').hidden) { showSignIn(''); $('token-input').focus(); } else hideSignIn();
  });
  $('signin').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('token-input');
    const secret = input.value.trim();
    input.value = '';
    if (!secret) { showSignIn('Enter a token first.'); return; }
    if (!setToken(secret)) { toast('This browser does not allow session storage: the token cannot be kept.'); return; }
    hideSignIn();
    onToken(true);
  });
  $('token-forget').addEventListener('click', () => {
    forgetToken();
    $('token-input').value = '';
    hideSignIn();
    onToken(false);
  });
}
