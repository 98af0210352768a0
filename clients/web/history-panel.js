// The board's recent changes (GET /api/boards/NAME/history, an extension):
// who, when and what in words, newest first, refreshed as patches arrive,
// each with Undo (a `revert` action) where the viewer's token allows it.

import { authHeaders } from './auth.js';
import { $, time } from './page-chrome.js';

// Entries shown; older ones drop off the end.
const SHOWN = 30;
// The daemon's `ActionName.isFold`: folding, and pointing at an item.
const FOLDS = new Set(['toggle', 'expand', 'collapse', 'expandAll', 'collapseAll', 'focus', 'clearFocus']);

// The permission undoing an entry needs: what its action needed (a revert
// counts as the action it reverted); null when it cannot be undone.
export function undoPermission(entry) {
  if (!entry.inverse || !entry.action) return null;
  const type = entry.action.type === 'revert' ? entry.action.reverts : entry.action.type;
  if (typeof type !== 'string') return null;
  if (FOLDS.has(type)) return 'fold';
  return type === 'replace' ? 'admin' : 'edit';
}

// "alice · c3" or "editor · http"; "anonymous" alone for sessions without a token.
export function who(entry) {
  return entry.session ? `${entry.actor} · ${entry.session === 'http' ? 'HTTP' : entry.session}` : entry.actor;
}

// The daemon's words for the change at `rev`, when the entries hold it.
export function summaryOf(rev, entries) {
  const e = entries.find((x) => x.rev === rev);
  return e && e.summary ? e.summary : null;
}

export class HistoryPanel {
  constructor(page) {
    this.page = page;
    this.entries = [];   // newest first
    this.timer = null;
    this.loading = false;
    this.again = false;
    $('history-list').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-rev]');
      if (b) this.undo(Number(b.dataset.rev), b.dataset.what);
    });
  }

  // Also drops a read still waiting: a board deleted within its 150 ms would answer 404.
  clear() { clearTimeout(this.timer); this.timer = null; this.entries = []; this.draw(); }

  // A patch or snapshot arrived: read what is new (coalesced, one read at a time).
  changed(full) {
    if (full) this.entries = [];
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.load(), 150);
  }

  async load() {
    if (this.loading) { this.again = true; return; }
    this.loading = true;
    try {
      const since = this.entries.length ? `since=${this.entries[0].rev}&` : '';
      const r = await fetch(`/api/boards/${encodeURIComponent(this.page.board)}/history?${since}limit=${SHOWN}`,
        { headers: authHeaders(), cache: 'no-store' });
      if (!r.ok) { $('history').hidden = true; return; }
      const body = await r.json();
      if (since && body.more) {
        // More came than a page since the last read: start again from the latest.
        this.entries = [];
        this.again = true;
        return;
      }
      const fresh = (body.entries || []).slice().reverse();
      this.entries = fresh.concat(this.entries).slice(0, SHOWN);
      this.draw();
      this.page.summarised(this.entries);
    } catch {
      // Offline: the next patch after the reconnect reads again.
    } finally {
      this.loading = false;
      if (this.again) { this.again = false; this.load(); }
    }
  }

  undo(rev, what) {
    this.page.send({ type: 'revert', rev }, `undo rev ${rev} (${what})`);
  }

  draw() {
    const list = $('history-list');
    list.replaceChildren();
    for (const e of this.entries) {
      const li = document.createElement('li');
      li.className = 'hist';
      li.dataset.rev = e.rev;
      const meta = document.createElement('span');
      meta.className = 'hist-meta';
      meta.textContent = e.at ? `rev ${e.rev} · ${time(new Date(e.at))} · ${who(e)}` : `rev ${e.rev}`;
      const what = document.createElement('span');
      what.className = 'hist-what';
      what.textContent = e.summary || '(kept from before history)';
      li.append(meta, what);
      const perm = undoPermission(e);
      if (perm) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'hist-undo';
        b.dataset.rev = e.rev;
        b.dataset.perm = perm;
        b.dataset.what = e.summary || '';
        b.textContent = 'Undo';
        b.setAttribute('aria-label', `Undo rev ${e.rev}: ${e.summary || ''}`);
        li.append(b);
      }
      list.append(li);
    }
    $('history').hidden = this.entries.length === 0;
    for (const b of list.querySelectorAll('[data-perm]')) b.classList.toggle('no-perm', !this.page.may(b.dataset.perm));
  }
}
