// The list of boards (`/`): polled over HTTP every 5 s, and a form to create
// a board from pasted JSON. HTTP says nothing of permissions, so the page
// asks a WebSocket once per token (the library's client through socket.js,
// like the board page).

import { Connection, socketURL } from './socket.js';
import { getToken, authHeaders } from './auth.js';
import { AuthView } from './auth-view.js';
import { mayNot } from './permissions.js';
import { BOARD_NAME, TEMPLATE } from './new-board.js';
import { $, toast, setBanner, setStatus, setConnection, time } from './page-chrome.js';
import { showSignIn, hideSignIn, wireSignIn, signInNeeded, refusedMessage } from './signin.js';

// How long to wait for `authenticated` after `hello`: the daemon sends it at
// once for a good token, so silence means it has no tokens at all.
const PROBE_SILENCE_MS = 1500;

export class ListPage {
  constructor() {
    this.auth = new AuthView();
    this.probed = null;   // the token whose permissions were asked for
    this.may = this.auth.may;
    $('create-json').value = JSON.stringify(TEMPLATE, null, 2);
    $('create-form').addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    $('refresh').addEventListener('click', () => this.load());
    wireSignIn((hasToken) => { this.auth.apply({ type: 'token', hasToken }); this.probed = null; this.load(); });
    window.foldsync = { page: this, allowed: (perm) => this.may(perm) };
    this.load();
    setInterval(() => { if (this.auth.phase !== 'signed-out') this.load(); }, 5000);
  }

  // 401: no (valid) token. Show nothing, ask for one, stop polling until then.
  signedOut() {
    this.auth.apply({ type: 'refused' });
    const list = $('boards');
    list.replaceChildren();
    delete list.dataset.key;
    $('no-boards').hidden = true;
    setBanner(false);
    setConnection('signed out: a token is needed', 'stopped');
    setStatus('rev', '');
    setStatus('last', '');
    showSignIn(refusedMessage('This server needs an access token to list boards. Enter one.'));
  }

  // Once per token: open a WebSocket, read `authenticated` (or its absence), close.
  probe() {
    const secret = getToken();
    if (!secret) { this.auth.apply({ type: 'open' }); return; }
    if (this.probed === secret) return;
    this.probed = secret;
    let timer = null;
    const conn = new Connection(socketURL(), {
      token: () => secret,
      onState: ({ state }) => { if (state === 'stopped') finish(); },
      onClose: () => false,   // a probe never reconnects
      onMessage: (m) => {
        if (m.type === 'authenticated') {
          this.auth.apply(m);
          finish();
        } else if (m.type === 'hello') {
          timer = setTimeout(() => { this.auth.apply({ type: 'open' }); finish(); }, PROBE_SILENCE_MS);
        } else if (m.type === 'error') {
          finish();
        }
      },
    });
    const finish = () => { clearTimeout(timer); conn.close(); };
    conn.open();
  }

  async load() {
    let body;
    try {
      const r = await fetch('/api/boards', { cache: 'no-store', headers: authHeaders() });
      if (r.status === 401) { this.signedOut(); return; }
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      body = await r.json();
    } catch (e) {
      setConnection('offline', 'waiting');
      setBanner(true, 'Offline: cannot reach the server. Retrying every 5 seconds.');
      $('controls').disabled = true;
      return;
    }
    setBanner(false);
    if (signInNeeded()) hideSignIn();
    this.probe();
    $('controls').disabled = false;
    setConnection('connected', 'open');
    setStatus('rev', `${body.boards.length} board${body.boards.length === 1 ? '' : 's'}`);
    setStatus('last', `updated ${time(new Date())}`);
    this.showBoards(body.boards);
  }

  showBoards(boards) {
    const list = $('boards');
    // Keep the list as it is when nothing changed (keeps focus on a link).
    const key = JSON.stringify(boards.map((b) => [b.board, b.rev]));
    if (list.dataset.key !== key) {
      list.dataset.key = key;
      list.replaceChildren(...boards.map((b) => {
        const li = document.createElement('li');
        const a = document.createElement('a');
        a.href = `/b/${encodeURIComponent(b.board)}`;
        a.textContent = b.board;
        const rev = document.createElement('span');
        rev.className = 'muted';
        rev.textContent = `rev ${b.rev}`;
        li.append(a, rev);
        return li;
      }));
    }
    $('no-boards').hidden = boards.length > 0;
  }

  async create() {
    const name = $('create-name').value.trim();
    if (!BOARD_NAME.test(name)) { toast('A board name is 1-64 characters of A-Z a-z 0-9 _ . -'); return; }
    let state;
    try { state = JSON.parse($('create-json').value); } catch (e) { toast(`Not JSON: ${e.message}`); return; }
    try {
      const r = await fetch(`/api/boards/${encodeURIComponent(name)}`, {
        method: 'PUT', headers: authHeaders({ 'content-type': 'application/json' }), body: JSON.stringify(state),
      });
      if (r.status === 401) { this.signedOut(); return; }
      if (r.status === 403) { toast(mayNot(this.auth.state, `create the board “${name}”`)); return; }
      if (!r.ok) {
        const err = await r.json().catch(() => ({ message: `HTTP ${r.status}`, code: '' }));
        toast(`${err.message} (${err.code})`);
        return;
      }
    } catch (e) { toast(`Cannot reach the server: ${e.message}`); return; }
    window.location.assign(`/b/${encodeURIComponent(name)}`);
  }
}
