// A page's auth state (auth-state.js) and what shows it: the controls its
// permissions hide, and the identity in the status strip. Both pages hold
// one; every change goes through apply(), which redraws only on a change.

import { getToken } from './auth.js';
import { initialAuth, nextAuth } from './auth-state.js';
import { allowed } from './permissions.js';
import { showPermissions } from './page-chrome.js';
import { showIdentity } from './signin.js';

export class AuthView {
  // `scope`: the board the page shows, or null for the list of boards.
  // `afterPermissions(root)`: what the page adds to the permissions' look
  // (a browsing viewer folds on its own page whatever its token allows).
  constructor(scope = null, afterPermissions = () => {}) {
    this.state = initialAuth(getToken() !== null);
    this.may = (perm) => allowed(this.state, perm, scope);
    this.afterPermissions = afterPermissions;
    this.redraw();
  }

  get phase() { return this.state.phase; }

  apply(event) {
    const next = nextAuth(this.state, event);
    if (next === this.state) return;
    this.state = next;
    this.redraw();
  }

  redraw() {
    showPermissions(this.may);
    this.afterPermissions(document);
    showIdentity(this.state);
  }
}
