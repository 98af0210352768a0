// The foldsync dashboard. `/` lists the boards; `/b/NAME` shows one board,
// kept as a mirror document that every `patch` updates through our own
// RFC 6902 apply (patch.js). Speaks only the wire contract (PROTOCOL.md).

import { applyPatch, parsePointer } from './patch.js';
import { Connection, socketURL, handshake } from './socket.js';
import { getToken, setToken, forgetToken, authHeaders, globMatches } from './auth.js';
import { reconcile, renders, itemsToText, textToItems } from './render.js';

const $ = (id) => document.getElementById(id);
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const TEMPLATE = {
  mode: 'single',
  sections: [
    { id: 'todo', title: 'To do', items: ['First thing'], expanded: true },
    { id: 'done', title: 'Done', items: [], expanded: false },
  ],
};

// ---- Permissions -----------------------------------------------------------
// Every control that changes a board carries data-perm: "fold" (toggle,
// expand/collapse all), "edit" (add, remove, rename, reorder, items, mode) or
// "admin" (create from JSON, replace, delete). Which permissions the current
// user holds is decided here alone. A daemon with no tokens never sends
// `authenticated`: everything is allowed. Once it does, the set is the
// token's, limited to the boards its glob matches; while a token is set but
// not yet confirmed, nothing is shown that might be refused.
const ALL = ['read', 'fold', 'edit', 'admin'];
let permissions = new Set(getToken() ? [] : ALL);
let identity = null;   // { name, permissions, boards } from `authenticated`
let scope = null;      // the board this page shows
export function allowed(perm) {
  if (!permissions.has(perm)) return false;
  return !(identity && scope !== null && !globMatches(identity.boards, scope));
}
export function applyPermissions(root = document) {
  for (const node of root.querySelectorAll('[data-perm]')) {
    node.classList.toggle('no-perm', !allowed(node.dataset.perm));
  }
  // Section headers stay (they show the board) but do not toggle without "fold".
  const fold = allowed('fold');
  for (const b of root.querySelectorAll('.sec-btn')) {
    if (fold) b.removeAttribute('aria-disabled'); else b.setAttribute('aria-disabled', 'true');
  }
}
function setPermissions(list, who = null) {
  permissions = new Set(list);
  identity = who;
  applyPermissions();
  showIdentity();
}

// ---- Signing in ------------------------------------------------------------
// A small form under the status strip: a password-type field, "Use token" and
// "Forget". It appears when the daemon refuses for want of a token, or on
// request from the status strip once tokens are in play.
let tokensInPlay = getToken() !== null;
function showIdentity() {
  const who = $('st-user');
  const text = identity ? `signed in as ${identity.name}` : '';
  who.textContent = text;
  who.hidden = text === '';
  $('signin-open').textContent = getToken() ? 'Token…' : 'Sign in';
  $('signin-open').hidden = !(tokensInPlay || identity || getToken());
  $('token-forget').disabled = !getToken();
}
function showSignIn(message) {
  tokensInPlay = true;
  $('signin-msg').textContent = message || '';
  $('signin-msg').hidden = !message;
  $('signin').hidden = false;
  $('signin-open').setAttribute('aria-expanded', 'true');
  document.body.dataset.auth = message ? 'needed' : 'open';
  showIdentity();
  const a = document.activeElement;
  if (!a || a === document.body) $('token-input').focus({ preventScroll: true });
}
function hideSignIn() {
  $('signin').hidden = true;
  $('signin-open').setAttribute('aria-expanded', 'false');
  delete document.body.dataset.auth;
}
function wireSignIn(onChange) {
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
    setPermissions([], null);   // until the daemon says what this token may do
    onChange();
  });
  $('token-forget').addEventListener('click', () => {
    forgetToken();
    $('token-input').value = '';
    hideSignIn();
    setPermissions([], null);   // until the daemon says what we may do without one
    onChange();
  });
  showIdentity();
}
function mayNot(what) {
  return `This token${identity ? ` (“${identity.name}”)` : ''} may not ${what}.`;
}

// ---- Small UI helpers ------------------------------------------------------
let toastTimer = null;
function toast(text, kind = 'error') {
  const t = $('toast');
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 5000);
}

function setBanner(show, text) {
  const b = $('banner');
  if (text) b.textContent = text;
  b.hidden = !show;
  document.body.classList.toggle('offline', show);
}

function setStatus(field, text) {
  const node = $(`st-${field}`);
  node.textContent = text;
  node.hidden = text === '';
}

function time(d) { return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }); }

// ---- A board ---------------------------------------------------------------
class BoardPage {
  constructor(board) {
    this.board = board;
    this.doc = null;       // the mirror document
    this.epoch = null;
    this.rev = null;
    this.session = null;
    this.nextId = 1;
    this.pending = new Map(); // action id -> what it was, for errors and acks
    this.lastChange = null;
    this.retryAt = 0;
    this.lastFocus = null; // section id whose header had focus, restored after reconnects
    this.authed = false;   // this connection proved a token (`authenticated`)
    this.known = false;    // we know what this connection may do
    this.needToken = false; // refused for want of a (valid) token: wait for the user
    this.sections = $('sections');
    this.conn = new Connection(socketURL(), {
      onOpen: () => this.subscribe(),
      onMessage: (m) => this.onMessage(m),
      onState: (s) => this.onState(s),
      onClose: (e) => this.onClose(e),
      token: getToken,
    });
    window.foldsync = { page: this, renders, allowed };
    this.wire();
    wireSignIn(() => this.tokenChanged());
    this.conn.open();
    setInterval(() => this.tick(), 1000);
  }

  // -- connection --
  subscribe() {
    const msg = { type: 'subscribe', board: this.board };
    if (this.doc !== null && this.epoch !== null) msg.since = { epoch: this.epoch, rev: this.rev };
    this.conn.send(msg);
  }

  // A 1008 (policy) close, or any close after a refusal for want of a
  // token, waits for the user to sign in instead of reconnecting.
  onClose(e) {
    if (this.needToken) return false;
    if (e.code === 1008 && !this.authed) {
      this.needSignIn();
      return false;
    }
    return true;
  }

  needSignIn() {
    this.needToken = true;
    this.clearBoard();
    setPermissions([], null);
    showSignIn(getToken()
      ? 'The daemon did not accept this token. Enter another one.'
      : 'This board needs an access token. Enter one to see it.');
    this.tick();
  }

  tokenChanged() {
    this.needToken = false;
    this.authed = false;
    this.known = false;
    this.clearBoard();
    this.conn.restart();
  }

  clearBoard() {
    this.doc = null;
    this.epoch = null;
    this.rev = null;
    this.pending.clear();
    this.sections.replaceChildren();
    renders.clear();
    $('missing').hidden = true;
    $('sections-empty').hidden = true;
    $('json-form').hidden = true;
    setStatus('rev', '');
    setStatus('viewers', '');
    this.lastChange = null;
    setStatus('last', '');
  }

  onState({ state, retryAt }) {
    this.retryAt = retryAt;
    const online = state === 'open';
    $('controls').disabled = !online;
    document.body.dataset.conn = state;
    setBanner(state === 'waiting', 'Offline: the connection to the server was lost. Controls are disabled until it is back.');
    this.tick();
    if (online && this.lastFocus && document.activeElement === document.body) {
      const b = document.getElementById(`h-${this.lastFocus}`);
      if (b) b.focus({ preventScroll: true });
    }
  }

  tick() {
    const s = this.conn.state;
    if (this.needToken) setStatus('conn', 'signed out: a token is needed');
    else if (s === 'open') setStatus('conn', 'connected');
    else if (s === 'connecting') setStatus('conn', 'connecting…');
    else if (s === 'stopped') setStatus('conn', 'not connected');
    else setStatus('conn', `reconnecting in ${Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000))}s`);
    $('st-conn').className = `conn ${this.needToken ? 'stopped' : s}`;
    if (this.lastChange) setStatus('last', `last change ${time(this.lastChange.at)}${this.lastChange.what}`);
  }

  send(action, what) {
    const id = `a${this.nextId++}`;
    if (!this.conn.send({ ...action, board: this.board, id })) {
      toast('Not connected: the change was not sent.');
      return null;
    }
    this.pending.set(id, what || action.type);
    return id;
  }

  // -- messages --
  onMessage(m) {
    if (m.board !== undefined && m.board !== this.board) return;
    switch (m.type) {
      case 'hello': this.session = m.session; this.authed = false; this.known = false; break;
      case 'authenticated': this.onAuthenticated(m); break;
      case 'snapshot': this.learnAnonymous(); this.onSnapshot(m); break;
      case 'patch': this.learnAnonymous(); this.onPatch(m); break;
      case 'presence': setStatus('viewers', `${m.viewers} viewer${m.viewers === 1 ? '' : 's'}`); break;
      case 'ack': this.onAck(m); break;
      case 'error': this.onError(m); break;
      case 'deleted': this.onDeleted(); break;
      default: break; // the daemon may add message types
    }
  }

  onAuthenticated(m) {
    this.authed = true;
    this.known = true;
    this.needToken = false;
    hideSignIn();
    const perms = Array.isArray(m.permissions) ? m.permissions : [];
    setPermissions(perms, { name: String(m.name), permissions: perms, boards: typeof m.boards === 'string' ? m.boards : '*' });
    this.tick();
  }

  // Data without `authenticated` first: the daemon has no tokens, all is allowed.
  learnAnonymous() {
    if (this.known) return;
    this.known = true;
    tokensInPlay = getToken() !== null;
    setPermissions(ALL, null);
  }

  onSnapshot(m) {
    this.conn.healthy();
    this.doc = m.state;
    this.epoch = m.epoch;
    this.rev = m.rev;
    $('missing').hidden = true;
    this.render(null, true);
  }

  onPatch(m) {
    if (this.doc === null) return;
    if (m.epoch !== this.epoch || m.rev > this.rev + 1) { this.resync(); return; }
    if (m.rev <= this.rev) return; // already applied
    let next;
    try {
      next = applyPatch(this.doc, m.ops);
    } catch (e) {
      console.warn('patch did not apply, resynchronising', e);
      this.doc = null;
      this.resync();
      return;
    }
    this.conn.healthy();
    const touched = touchedSections(m.ops, next);
    this.doc = next;
    this.rev = m.rev;
    const mine = m.by !== undefined && m.by === this.session;
    const by = m.by === undefined ? ' via HTTP' : mine ? ' by you' : ' by another viewer';
    this.lastChange = { at: new Date(), what: `${describe(m.ops, next)}${by}` };
    this.render(touched.ids, touched.mode);
  }

  resync() {
    this.conn.send({ type: 'subscribe', board: this.board, ...(this.doc ? { since: { epoch: this.epoch, rev: this.rev } } : {}) });
  }

  onAck(m) {
    const what = this.pending.get(m.id);
    this.pending.delete(m.id);
    if (what === 'create') this.subscribe();
  }

  onError(m) {
    const what = m.id ? this.pending.get(m.id) : null;
    if (m.id) this.pending.delete(m.id);
    if (m.code === 'not_found' && !m.id && this.doc === null) { this.onDeleted(); return; }
    if (m.code === 'forbidden') { this.onForbidden(m, what); return; }
    toast(`${what ? `${what}: ` : ''}${m.message} (${m.code})`);
  }

  onForbidden(m, what) {
    if (!this.authed) { this.needSignIn(); return; }   // no valid token on this connection
    if (!m.id) {
      // The subscribe: this token does not reach this board.
      this.clearBoard();
      setBanner(true, mayNot('read this board'));
      showSignIn(`${mayNot('read this board')} Enter another token to see it.`);
      return;
    }
    toast(mayNot(what || 'do that'));
  }

  onDeleted() {
    this.doc = null;
    this.epoch = null;
    this.rev = null;
    this.sections.replaceChildren();
    $('missing').hidden = false;
    setStatus('rev', '');
    this.lastChange = null;
    setStatus('last', '');
  }

  // -- rendering --
  render(touchedIds, modeChanged) {
    reconcile(this.sections, this.doc.sections, touchedIds, (node) => applyPermissions(node));
    if (modeChanged) {
      $('mode').value = this.doc.mode;
      $('expand-all').disabled = this.doc.mode === 'single';
      document.body.dataset.mode = this.doc.mode;
    }
    setStatus('rev', `rev ${this.rev}`);
    $('sections-empty').hidden = this.doc.sections.length > 0;
    this.tick();
  }

  sectionIndex(id) { return this.doc ? this.doc.sections.findIndex((s) => s.id === id) : -1; }

  // -- input --
  wire() {
    const headers = () => [...this.sections.querySelectorAll('.sec-btn')];
    this.sections.addEventListener('click', (e) => {
      const btn = e.target.closest('button');
      if (!btn) return;
      const node = btn.closest('.section');
      const id = node.dataset.id;
      if (btn.classList.contains('sec-btn')) {
        if (allowed('fold')) this.send({ type: 'toggle', section: id }, 'fold sections');
        return;
      }
      const title = this.doc.sections[this.sectionIndex(id)]?.title ?? id;
      switch (btn.dataset.act) {
        case 'up': case 'down': {
          const to = this.sectionIndex(id) + (btn.dataset.act === 'up' ? -1 : 1);
          if (to >= 0 && to < this.doc.sections.length) this.send({ type: 'moveSection', section: id, to }, `move “${title}”`);
          break;
        }
        case 'edit': this.openEditor(node, id); break;
        case 'cancel': node.querySelector('.sec-edit').hidden = true; break;
        case 'remove':
          if (btn.dataset.armed) {
            this.send({ type: 'removeSection', section: id }, `remove “${title}”`);
          } else {
            btn.dataset.armed = '1';
            btn.textContent = 'Really remove?';
            setTimeout(() => { delete btn.dataset.armed; btn.textContent = 'Remove'; }, 3000);
          }
          break;
        default: break;
      }
    });
    this.sections.addEventListener('submit', (e) => {
      e.preventDefault();
      const form = e.target;
      const id = form.closest('.section').dataset.id;
      const s = this.doc.sections[this.sectionIndex(id)];
      if (!s) return;
      const title = form.elements.title.value;
      const items = textToItems(form.elements.items.value);
      if (title !== s.title) this.send({ type: 'setTitle', section: id, title }, `rename “${s.title}”`);
      if (JSON.stringify(items) !== JSON.stringify(s.items)) this.send({ type: 'setItems', section: id, items }, `edit items of “${s.title}”`);
      form.hidden = true;
      document.getElementById(`h-${id}`)?.focus();
    });
    this.sections.addEventListener('keydown', (e) => {
      if (!e.target.classList.contains('sec-btn')) return;
      const all = headers();
      const i = all.indexOf(e.target);
      let to = null;
      if (e.key === 'ArrowDown') to = Math.min(all.length - 1, i + 1);
      else if (e.key === 'ArrowUp') to = Math.max(0, i - 1);
      else if (e.key === 'Home') to = 0;
      else if (e.key === 'End') to = all.length - 1;
      if (to === null) return;
      e.preventDefault();
      all[to].focus();
    });
    this.sections.addEventListener('focusin', (e) => {
      if (e.target.classList.contains('sec-btn')) this.lastFocus = e.target.closest('.section').dataset.id;
    });
    $('expand-all').addEventListener('click', () => this.send({ type: 'expandAll' }, 'expand all'));
    $('collapse-all').addEventListener('click', () => this.send({ type: 'collapseAll' }, 'collapse all'));
    $('mode').addEventListener('change', (e) => this.send({ type: 'setMode', mode: e.target.value }, 'change mode'));
    $('add-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const input = $('add-title');
      if (!input.value.trim()) return;
      this.send({ type: 'addSection', section: { title: input.value, items: [] } }, 'add section');
      input.value = '';
    });
    const jsonForm = $('json-form');
    $('show-json').addEventListener('click', () => this.openJSON(false));
    $('create-missing').addEventListener('click', () => this.openJSON(true));
    $('json-cancel').addEventListener('click', () => { jsonForm.hidden = true; });
    jsonForm.addEventListener('submit', (e) => {
      e.preventDefault();
      let state;
      try { state = JSON.parse($('json-text').value); } catch (err) { toast(`Not JSON: ${err.message}`); return; }
      if (this.send({ type: 'replace', state }, this.doc === null ? 'create' : 'replace board')) jsonForm.hidden = true;
    });
  }

  openEditor(node, id) {
    const s = this.doc.sections[this.sectionIndex(id)];
    const form = node.querySelector('.sec-edit');
    form.elements.title.value = s.title;
    form.elements.items.value = itemsToText(s.items);
    form.hidden = false;
    form.elements.title.focus();
  }

  openJSON(create) {
    $('json-text').value = JSON.stringify(this.doc ?? TEMPLATE, null, 2);
    $('json-submit').textContent = create ? 'Create board' : 'Replace board';
    $('json-form').hidden = false;
    $('json-text').focus();
  }
}

// Which sections a patch touched: a set of ids, or null when sections were
// added, removed, moved or replaced wholesale (then the list is reconciled).
export function touchedSections(ops, next) {
  const ids = new Set();
  let mode = false;
  for (const op of ops) {
    for (const p of [op.path, op.from]) {
      if (p === undefined) continue;
      const t = parsePointer(p);
      if (t.length === 0) return { ids: null, mode: true };
      if (t[0] === 'mode') { mode = true; continue; }
      if (t[0] !== 'sections' || t.length <= 2 || t[2] === 'id') return { ids: null, mode: true };
      const s = next.sections[Number(t[1])];
      if (!s) return { ids: null, mode: true };
      ids.add(s.id);
    }
  }
  return { ids, mode };
}

// A few words for the status strip about what a patch did.
function describe(ops, next) {
  const op = ops[0];
  if (!op) return '';
  const t = parsePointer(op.path);
  const s = t[0] === 'sections' && t.length >= 2 ? next.sections[Number(t[1])] : null;
  const name = s ? `“${s.title}”` : '';
  if (t[0] === 'mode') return `: mode ${next.mode}`;
  if (t.length === 3 && t[2] === 'expanded' && s) {
    const opened = ops.map((o) => parsePointer(o.path)).find((p) => p[2] === 'expanded' && next.sections[Number(p[1])]?.expanded);
    const openedTitle = opened ? `“${next.sections[Number(opened[1])].title}”` : null;
    return openedTitle ? `: ${openedTitle} expanded` : `: ${name} collapsed`;
  }
  if (t.length === 3 && t[2] === 'title') return `: renamed ${name}`;
  if (t.length >= 3 && t[2] === 'items') return `: items of ${name}`;
  if (op.op === 'move') return ': sections reordered';
  if (op.op === 'add' && t.length === 2) return `: added ${name}`;
  if (op.op === 'remove' && t.length === 2) return ': section removed';
  return '';
}

// ---- The list of boards ----------------------------------------------------
class ListPage {
  constructor() {
    this.needToken = false;
    this.probed = null;   // the token whose permissions were asked for
    $('create-json').value = JSON.stringify(TEMPLATE, null, 2);
    $('create-form').addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    $('refresh').addEventListener('click', () => this.load());
    wireSignIn(() => { this.needToken = false; this.probed = null; this.load(); });
    window.foldsync = { page: this, allowed };
    this.load();
    setInterval(() => { if (!this.needToken) this.load(); }, 5000);
  }

  // 401: no (valid) token. Show nothing, ask for one, stop polling until then.
  signedOut() {
    this.needToken = true;
    setPermissions([], null);
    const list = $('boards');
    list.replaceChildren();
    delete list.dataset.key;
    $('no-boards').hidden = true;
    setBanner(false);
    setStatus('conn', 'signed out: a token is needed');
    $('st-conn').className = 'conn stopped';
    setStatus('rev', '');
    setStatus('last', '');
    showSignIn(getToken()
      ? 'The daemon did not accept this token. Enter another one.'
      : 'This server needs an access token to list boards. Enter one.');
  }

  // HTTP says nothing of permissions: ask a WebSocket once per token. A
  // daemon without tokens sends no `authenticated`: everything is allowed.
  probe() {
    const secret = getToken();
    if (!secret) { tokensInPlay = false; setPermissions(ALL, null); return; }
    if (this.probed === secret) return;
    this.probed = secret;
    const { protocols, auth } = handshake(secret);
    let ws;
    try { ws = new WebSocket(socketURL(), protocols); } catch { return; }
    let timer = null;
    const finish = () => { clearTimeout(timer); try { ws.close(1000); } catch { /* closing */ } };
    ws.onopen = () => { if (auth) ws.send(JSON.stringify(auth)); };
    ws.onmessage = (event) => {
      for (const line of String(event.data).split('\n')) {
        let m;
        try { m = JSON.parse(line); } catch { continue; }
        if (m.type === 'authenticated') {
          const perms = Array.isArray(m.permissions) ? m.permissions : [];
          setPermissions(perms, { name: String(m.name), permissions: perms, boards: typeof m.boards === 'string' ? m.boards : '*' });
          finish();
        } else if (m.type === 'hello') {
          // `authenticated` follows `hello` at once when the token is good.
          timer = setTimeout(() => { setPermissions(ALL, null); finish(); }, 1500);
        } else if (m.type === 'error') {
          finish();
        }
      }
    };
  }

  async load() {
    let body;
    try {
      const r = await fetch('/api/boards', { cache: 'no-store', headers: authHeaders() });
      if (r.status === 401) { this.signedOut(); return; }
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      body = await r.json();
    } catch (e) {
      setStatus('conn', 'offline');
      $('st-conn').className = 'conn waiting';
      setBanner(true, 'Offline: cannot reach the server. Retrying every 5 seconds.');
      $('controls').disabled = true;
      return;
    }
    setBanner(false);
    if (document.body.dataset.auth === 'needed') hideSignIn();
    this.probe();
    $('controls').disabled = false;
    setStatus('conn', 'connected');
    $('st-conn').className = 'conn open';
    setStatus('rev', `${body.boards.length} board${body.boards.length === 1 ? '' : 's'}`);
    setStatus('last', `updated ${time(new Date())}`);
    const list = $('boards');
    const rows = body.boards.map((b) => {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = `/b/${encodeURIComponent(b.board)}`;
      a.textContent = b.board;
      const rev = document.createElement('span');
      rev.className = 'muted';
      rev.textContent = `rev ${b.rev}`;
      li.append(a, rev);
      return li;
    });
    // Keep the list as it is when nothing changed (keeps focus on a link).
    const key = JSON.stringify(body.boards.map((b) => [b.board, b.rev]));
    if (list.dataset.key !== key) { list.dataset.key = key; list.replaceChildren(...rows); }
    $('no-boards').hidden = rows.length > 0;
  }

  async create() {
    const name = $('create-name').value.trim();
    if (!NAME.test(name)) { toast('A board name is 1-64 characters of A-Z a-z 0-9 _ . -'); return; }
    let state;
    try { state = JSON.parse($('create-json').value); } catch (e) { toast(`Not JSON: ${e.message}`); return; }
    try {
      const r = await fetch(`/api/boards/${encodeURIComponent(name)}`, {
        method: 'PUT', headers: authHeaders({ 'content-type': 'application/json' }), body: JSON.stringify(state),
      });
      if (r.status === 401) { this.signedOut(); return; }
      if (r.status === 403) { toast(mayNot(`create the board “${name}”`)); return; }
      if (!r.ok) {
        const err = await r.json().catch(() => ({ message: `HTTP ${r.status}`, code: '' }));
        toast(`${err.message} (${err.code})`);
        return;
      }
    } catch (e) { toast(`Cannot reach the server: ${e.message}`); return; }
    window.location.assign(`/b/${encodeURIComponent(name)}`);
  }
}

// ---- Start -----------------------------------------------------------------
function start() {
  applyPermissions();
  const m = window.location.pathname.match(/^\/b\/([^/]+)\/?$/);
  if (m) {
    const board = decodeURIComponent(m[1]);
    document.title = `${board} · foldsync`;
    $('crumb').textContent = board;
    $('board-view').hidden = false;
    scope = board;
    if (!NAME.test(board)) { toast('Not a valid board name.'); return; }
    new BoardPage(board);
  } else {
    $('list-view').hidden = false;
    new ListPage();
  }
}

start();
