// One board (`/b/NAME`): its connection, the daemon's messages, and the
// page drawn from the mirror (mirror.js) with this page's actions not yet
// answered applied on top (pending.js, the library's optimistic state): a
// click folds at once, and an action the daemon refuses is taken back out
// and the page says so. The controls that send actions are wired by
// board-controls.js.

import { BoardMirror } from '/lib/mirror.js';
import { PendingActions } from '/lib/pending.js';
import { Connection, socketURL } from './socket.js';
import { getToken } from './auth.js';
import { onClose } from './auth-state.js';
import { AuthView } from './auth-view.js';
import { mayNot } from './permissions.js';
import { SectionList, renders } from './render.js';
import { $, toast, setBanner, setStatus, setConnection, time, showPermissions } from './page-chrome.js';
import { showSignIn, hideSignIn, wireSignIn, refusedMessage } from './signin.js';
import { wireBoardControls } from './board-controls.js';
import { ViewMode } from './view-mode.js';
import { HistoryPanel, summaryOf } from './history-panel.js';

export class BoardPage {
  constructor(board) {
    this.board = board;
    this.mirror = new BoardMirror(board);
    this.optimistic = new PendingActions();
    this.sent = 0;            // actions sent from this page: their keys in `optimistic`
    this.shownOptimistic = false;   // the last render showed pending actions: the next redraws every section
    this.session = null;
    this.lastChange = null;
    this.retryAt = 0;
    this.lastFocus = null;    // section id whose header had focus, restored after reconnects
    this.view = new ViewMode();  // follow the board's folds, or browse on this page
    this.scrolledTo = null;   // the board focus last scrolled into view ("section/item")
    // Every redraw of the permissions (a reconnect's hello, a sign-in) keeps a
    // browsing viewer's headers foldable; the first runs before `may` is set.
    this.auth = new AuthView(board, (root) => { if (this.may) this.showLocalFolds(root); });
    this.may = this.auth.may;
    this.list = new SectionList($('sections'), (node) => { showPermissions(this.may, node); this.showLocalFolds(node); });
    // The library's client (socket.js): `hello` comes through onMessage, and the page subscribes then.
    this.conn = new Connection(socketURL(), {
      onMessage: (m) => this.onMessage(m),
      onState: (s) => this.onState(s),
      onClose: (e) => this.onClose(e),
      token: getToken,
    });
    this.history = new HistoryPanel(this);
    window.foldsync = { page: this, renders, allowed: (perm) => this.may(perm) };
    wireBoardControls(this);
    this.showView();
    wireSignIn((hasToken) => this.tokenChanged(hasToken));
    this.conn.open();
    setInterval(() => this.tick(), 1000);
  }

  // What the tests (and a curious user in the console) read: the board
  // shown, the daemon's (confirmed) one and its rev.
  get doc() { return this.optimistic.state; }
  get confirmed() { return this.mirror.state; }
  get rev() { return this.mirror.rev; }
  get authed() { return this.auth.phase === 'signed-in'; }

  // -- connection --
  subscribe() {
    const msg = { type: 'subscribe', board: this.board };
    const since = this.mirror.position;
    if (since) msg.since = since;
    this.conn.send(msg);
  }

  // A 1008 (policy) close before any `authenticated`, or any close after a
  // refusal, waits for the user to sign in instead of reconnecting.
  onClose(e) {
    const what = onClose(this.auth.state, e.code, e.reason);
    if (what === 'refused') this.needSignIn();
    if (what === 'expired') this.sessionExpired();
    return what === 'retry';
  }

  // The token ran out: the board stays as it was, and a new token resumes it.
  sessionExpired() {
    this.auth.apply({ type: 'expired' });
    showSignIn('Your session expired. Enter a new token to go on: the board stays as it was and catches up.');
    this.tick();
  }

  // `authExpiring`: ask for a new token now, while the connection still holds.
  sessionExpiring(seconds) {
    this.auth.apply({ type: 'expiring' });
    showSignIn(`Your session expires in ${seconds} s. Enter a new token to stay signed in.`);
  }

  needSignIn() {
    this.auth.apply({ type: 'refused' });
    this.clearBoard();
    showSignIn(refusedMessage('This board needs an access token. Enter one to see it.'));
    this.tick();
  }

  tokenChanged(hasToken) {
    // A new token before the old one ends goes in band: nothing reconnects.
    if (hasToken && this.auth.state.expiring && this.conn.authenticate(getToken())) return;
    // After an expiry the board stays, and the new connection resumes it with `since`.
    if (hasToken && this.auth.state.expired) {
      this.auth.apply({ type: 'token', hasToken });
      this.conn.restart();
      return;
    }
    this.auth.apply({ type: 'token', hasToken });
    this.clearBoard();
    this.conn.restart();
  }

  clearBoard() {
    this.mirror.clear();
    this.optimistic.confirm(null, null);
    this.list.clear();
    $('missing').hidden = true;
    $('sections-empty').hidden = true;
    $('json-form').hidden = true;
    setStatus('rev', '');
    setStatus('viewers', '');
    setStatus('following', '');
    this.lastChange = null;
    setStatus('last', '');
    this.history.clear();
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
    if (this.auth.state.expired) setConnection('session expired: a new token is needed', 'stopped');
    else if (this.auth.phase === 'signed-out') setConnection('signed out: a token is needed', 'stopped');
    else if (s === 'open') setConnection('connected', s);
    else if (s === 'connecting') setConnection('connecting…', s);
    else if (s === 'stopped') setConnection('not connected', s);
    else setConnection(`reconnecting in ${Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000))}s`, s);
    if (this.lastChange) setStatus('last', `last change ${time(this.lastChange.at)}${this.lastChange.what}`);
  }

  // One action, shown at once and answered by the library (a rev, or a
  // FoldError); the daemon's change itself comes as a patch. The answer
  // reaches `optimistic` a microtask after its message: before the browser
  // paints, even when one frame batched it with later patches.
  send(action, what) {
    if (!this.conn.isOpen) {
      toast('Not connected: the change was not sent.');
      return false;
    }
    this.sent += 1;
    const key = `page-${this.sent}`;
    this.showing(() => this.optimistic.act(key, action));
    this.conn.act(this.board, action).then(
      (rev) => {
        this.showing(() => this.optimistic.ack(key, rev));
        if (what === 'create') this.subscribe();
      },
      (e) => this.rollBack(key, e, what || action.type));
    return true;
  }

  // A step of the optimistic state, drawn when it changed what is shown.
  showing(step) {
    const before = this.doc;
    step();
    if (this.doc !== before && this.doc !== null) this.render(null, true);
  }

  // The daemon refused the action (or the connection's end gave it up): the
  // board shows it no more, and the page says so.
  rollBack(key, e, what) {
    this.showing(() => this.optimistic.refuse(key));
    this.onError(e, what, true);
  }

  // -- messages --
  onMessage(m) {
    if (m.board !== undefined && m.board !== this.board) return;
    switch (m.type) {
      case 'hello':
        this.session = m.session;
        this.optimistic.session = m.session;
        this.auth.apply({ type: 'hello' });
        // `view` first, so presence never counts this page following for a moment.
        if (!this.view.following) this.sendView();
        this.subscribe();
        return;
      case 'authenticated': this.auth.apply(m); hideSignIn(); this.tick(); return;
      case 'authExpiring': this.sessionExpiring(m.in); return;
      case 'ack': return;   // an action's: the library settled its promise (send)
      case 'error':
        // An action's refusal rejects its promise (send); the rest answer the subscribe.
        if (m.id === undefined || m.id === null) this.onError(m, null);
        return;
      case 'snapshot': case 'patch': this.auth.apply({ type: 'data' }); break;
      default: break;
    }
    const before = this.mirror.state;
    const outcome = this.mirror.apply(m);
    this.confirmedMoved(m, outcome, before);
    switch (outcome.kind) {
      case 'changed': this.onChanged(m, outcome); break;
      case 'presence': this.showPresence(outcome); break;
      case 'deleted': this.showDeleted(); break;
      case 'outOfStep': console.warn(`resynchronising: ${outcome.reason}`); this.subscribe(); break;
      default: break; // the daemon may add message types
    }
  }

  // The daemon's board moved under the pending actions.
  confirmedMoved(m, outcome, before) {
    if (outcome.kind === 'changed' && m.type === 'patch') this.optimistic.patched(before, this.mirror.state, m.rev, m.by);
    else if (outcome.kind === 'changed' || outcome.kind === 'deleted' || this.mirror.state === null) this.optimistic.confirm(this.mirror.state, this.mirror.rev);
  }

  onChanged(m, { ops, touched, mode }) {
    this.history.changed(m.type === 'snapshot');
    if (ops === null) {
      $('missing').hidden = true;
    } else {
      const mine = m.by !== undefined && m.by === this.session;
      const by = m.by === undefined ? ' via HTTP' : mine ? ' by you' : ' by another viewer';
      // In words once the history has it: the daemon's summary, the one the history shows.
      this.lastChange = { at: new Date(), rev: m.rev, by, what: `: rev ${m.rev}${by}` };
    }
    this.render(touched, mode);
  }

  // The history read what is new: the last change gets the daemon's words for it.
  summarised(entries) {
    const words = this.lastChange && summaryOf(this.lastChange.rev, entries);
    if (words) {
      this.lastChange.what = `: ${words}${this.lastChange.by}`;
      this.tick();
    }
  }

  // m: the daemon's error (a subscribe's, what null) or an action's FoldError
  // (what it was; undone: it had been shown and is taken back).
  onError(m, what, undone = false) {
    if (m.code === 'not_found' && what === null && this.doc === null) { this.showDeleted(); return; }
    if (m.code === 'forbidden') { this.onForbidden(m, what); return; }
    // The connection went with the action: the offline banner says so, and the board catches up.
    if (m.code === 'disconnected') return;
    toast(`${what ? `${what}: ` : ''}${m.message} (${m.code})${undone ? ' — undone' : ''}`);
  }

  onForbidden(m, what) {
    if (!this.authed) { this.needSignIn(); return; }   // no valid token on this connection
    if (what === null) {
      // The subscribe: this token does not reach this board.
      this.clearBoard();
      setBanner(true, mayNot(this.auth.state, 'read this board'));
      showSignIn(`${mayNot(this.auth.state, 'read this board')} Enter another token to see it.`);
      return;
    }
    toast(mayNot(this.auth.state, what || 'do that'));
  }

  showDeleted() {
    this.mirror.clear();
    this.optimistic.confirm(null, null);
    this.list.clear();
    $('missing').hidden = false;
    setStatus('rev', '');
    this.lastChange = null;
    setStatus('last', '');
    this.history.clear();
  }

  showPresence({ viewers, following }) {
    setStatus('viewers', `${viewers} viewer${viewers === 1 ? '' : 's'}`);
    setStatus('following', typeof following === 'number' ? `${following} following` : '');
  }

  // -- follow or browse (view-mode.js) --
  setFollowing(following) {
    if (following === this.view.following) return;
    if (following) { this.view.follow(); this.scrolledTo = null; } else this.view.browse(this.doc);
    this.sendView();
    this.showView();
    if (this.doc) this.render(null, false);
  }

  // The daemon counts who follows (presence); a new connection follows until told.
  sendView() { this.conn.send({ type: 'view', following: this.view.following }); }

  showView() {
    const following = this.view.following;
    const sw = $('follow');
    sw.hidden = false;
    sw.setAttribute('aria-checked', following ? 'true' : 'false');
    setStatus('view', following ? 'following the board' : 'browsing on your own: folds stay on this page');
    document.body.dataset.view = following ? 'following' : 'browsing';
    this.showLocalFolds(document);
  }

  // Browsing, every header folds (on this page), and so do Expand all and
  // Collapse all, with or without `fold`.
  showLocalFolds(root) {
    const off = this.view.following && !this.may('fold');
    for (const b of root.querySelectorAll('.sec-btn')) {
      if (off) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
    }
    if (root === document) {
      for (const id of ['expand-all', 'collapse-all']) $(id).classList.toggle('no-perm', off);
    }
  }

  // A fold while browsing: applied here with the board's rules, nothing sent.
  localFold(type, id) {
    if (!this.doc) return;
    const refused = this.view.fold(this.doc, type, id);
    if (refused) { toast(`${refused} (invalid)`); return; }
    this.render(null, false);
  }

  // -- rendering: what the patch touched, and the strip --
  render(touched, modeChanged) {
    const doc = this.doc;
    // A patch's touched sections are the confirmed board's: while pending
    // actions are shown (or were, last time) every section is looked at.
    const optimistic = doc !== this.mirror.state;
    const exact = this.view.following && !optimistic && !this.shownOptimistic;
    this.shownOptimistic = optimistic;
    this.list.show(this.view.sections(doc), exact ? touched : null);
    this.showFocus(doc.focus || null);
    if (modeChanged) {
      $('mode').value = doc.mode;
      $('expand-all').disabled = doc.mode === 'single';
      document.body.dataset.mode = doc.mode;
    }
    setStatus('rev', `rev ${this.rev}`);
    $('sections-empty').hidden = doc.sections.length > 0;
    this.tick();
  }

  // The board's focus, marked on every page; scrolled into view on pages
  // that follow, once per new focus (again after the opening animation).
  showFocus(focus) {
    const li = this.list.markFocus(focus);
    $('clear-focus').disabled = focus === null;
    const key = focus ? `${focus.section}/${focus.item}` : null;
    if (!this.view.following || key === this.scrolledTo || !li) return;
    this.scrolledTo = key;
    li.scrollIntoView({ block: 'nearest' });
    setTimeout(() => { if (this.list.focused === li) li.scrollIntoView({ block: 'nearest' }); }, 300);
  }

  sectionIndex(id) { return this.doc ? this.doc.sections.findIndex((s) => s.id === id) : -1; }
}
