// The foldsync dashboard. `/` lists the boards; `/b/NAME` shows one board,
// kept as a mirror document that every `patch` updates through our own
// RFC 6902 apply (patch.js). Speaks only the wire contract (PROTOCOL.md).

import { applyPatch, parsePointer } from './patch.js';
import { Connection, socketURL } from './socket.js';
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
// Every control that changes a board carries data-perm="edit". Which
// permissions the current user holds is decided here alone; once the daemon
// has tokens, this set comes from them, and the controls hide themselves.
const permissions = new Set(['view', 'fold', 'edit']);
export function allowed(perm) { return permissions.has(perm); }
export function applyPermissions(root = document) {
  for (const node of root.querySelectorAll('[data-perm]')) {
    node.classList.toggle('no-perm', !allowed(node.dataset.perm));
  }
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
    this.sections = $('sections');
    this.conn = new Connection(socketURL(), {
      onOpen: () => this.subscribe(),
      onMessage: (m) => this.onMessage(m),
      onState: (s) => this.onState(s),
    });
    window.foldsync = { page: this, renders };
    this.wire();
    this.conn.open();
    setInterval(() => this.tick(), 1000);
  }

  // -- connection --
  subscribe() {
    const msg = { type: 'subscribe', board: this.board };
    if (this.doc !== null && this.epoch !== null) msg.since = { epoch: this.epoch, rev: this.rev };
    this.conn.send(msg);
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
    if (s === 'open') setStatus('conn', 'connected');
    else if (s === 'connecting') setStatus('conn', 'connecting…');
    else setStatus('conn', `reconnecting in ${Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000))}s`);
    $('st-conn').className = `conn ${s}`;
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
      case 'hello': this.session = m.session; break;
      case 'snapshot': this.onSnapshot(m); break;
      case 'patch': this.onPatch(m); break;
      case 'presence': setStatus('viewers', `${m.viewers} viewer${m.viewers === 1 ? '' : 's'}`); break;
      case 'ack': this.onAck(m); break;
      case 'error': this.onError(m); break;
      case 'deleted': this.onDeleted(); break;
      default: break; // the daemon may add message types
    }
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
    toast(`${what ? `${what}: ` : ''}${m.message} (${m.code})`);
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
        this.send({ type: 'toggle', section: id }, 'toggle');
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
    $('create-json').value = JSON.stringify(TEMPLATE, null, 2);
    $('create-form').addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    $('refresh').addEventListener('click', () => this.load());
    this.load();
    setInterval(() => this.load(), 5000);
  }

  async load() {
    let body;
    try {
      const r = await fetch('/api/boards', { cache: 'no-store' });
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
        method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(state),
      });
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
    if (!NAME.test(board)) { toast('Not a valid board name.'); return; }
    new BoardPage(board);
  } else {
    $('list-view').hidden = false;
    new ListPage();
  }
}

start();
