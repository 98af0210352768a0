// The board page's controls: section headers (click, arrow keys), the
// per-section tools and editor, the toolbar, adding a section, and the
// whole board as JSON. Each turns into one action sent by the page; what
// the daemon makes of it comes back as a patch like anybody else's.

import { itemsToText, textToItems } from './render.js';
import { deepEqual } from '/lib/patch.js';
import { TEMPLATE } from './new-board.js';
import { $, toast } from './page-chrome.js';
import { mayNot } from './permissions.js';

export function wireBoardControls(page) {
  const sections = $('sections');
  const sectionOf = (id) => page.doc?.sections[page.sectionIndex(id)];
  sections.addEventListener('click', (e) => {
    const btn = e.target.closest('button');
    if (!btn) return;
    const node = btn.closest('.section');
    const id = node.dataset.id;
    if (btn.classList.contains('sec-btn')) {
      if (!page.view.following) page.localFold('toggle', id);
      else if (page.may('fold')) page.send({ type: 'toggle', section: id }, 'fold sections');
      return;
    }
    if (btn.classList.contains('item-btn')) {
      // Pointing is not folding: it is sent while browsing too.
      const item = Number(btn.dataset.item);
      if (page.may('fold')) page.send({ type: 'focus', section: id, item }, 'point at an item');
      else toast(mayNot(page.auth.state, 'point at items for everyone'));
      return;
    }
    const title = sectionOf(id)?.title ?? id;
    switch (btn.dataset.act) {
      case 'up': case 'down': {
        const to = page.sectionIndex(id) + (btn.dataset.act === 'up' ? -1 : 1);
        if (to >= 0 && to < page.doc.sections.length) page.send({ type: 'moveSection', section: id, to }, `move “${title}”`);
        break;
      }
      case 'edit': openEditor(node, sectionOf(id)); break;
      case 'cancel': node.querySelector('.sec-edit').hidden = true; break;
      case 'remove': confirmRemove(btn, () => page.send({ type: 'removeSection', section: id }, `remove “${title}”`)); break;
      default: break;
    }
  });
  sections.addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.target;
    const id = form.closest('.section').dataset.id;
    const s = sectionOf(id);
    if (!s) return;
    const title = form.elements.title.value;
    const items = textToItems(form.elements.items.value);
    if (title !== s.title) page.send({ type: 'setTitle', section: id, title }, `rename “${s.title}”`);
    if (!deepEqual(items, s.items)) page.send({ type: 'setItems', section: id, items }, `edit items of “${s.title}”`);
    form.hidden = true;
    document.getElementById(`h-${id}`)?.focus();
  });
  // ↑/↓/Home/End move between section headers (the WAI-ARIA accordion pattern).
  sections.addEventListener('keydown', (e) => {
    if (!e.target.classList.contains('sec-btn')) return;
    const all = [...sections.querySelectorAll('.sec-btn')];
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
  sections.addEventListener('focusin', (e) => {
    if (e.target.classList.contains('sec-btn')) page.lastFocus = e.target.closest('.section').dataset.id;
  });
  const fold = (type, what) => (page.view.following ? page.send({ type }, what) : page.localFold(type));
  $('expand-all').addEventListener('click', () => fold('expandAll', 'expand all'));
  $('collapse-all').addEventListener('click', () => fold('collapseAll', 'collapse all'));
  $('clear-focus').addEventListener('click', () => page.send({ type: 'clearFocus' }, 'clear the focus'));
  $('follow').addEventListener('click', () => page.setFollowing(!page.view.following));
  $('mode').addEventListener('change', (e) => page.send({ type: 'setMode', mode: e.target.value }, 'change mode'));
  $('add-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('add-title');
    if (!input.value.trim()) return;
    page.send({ type: 'addSection', section: { title: input.value, items: [] } }, 'add section');
    input.value = '';
  });
  const jsonForm = $('json-form');
  $('show-json').addEventListener('click', () => openJSON(page.doc, false));
  $('create-missing').addEventListener('click', () => openJSON(page.doc, true));
  $('json-cancel').addEventListener('click', () => { jsonForm.hidden = true; });
  jsonForm.addEventListener('submit', (e) => {
    e.preventDefault();
    let state;
    try { state = JSON.parse($('json-text').value); } catch (err) { toast(`Not JSON: ${err.message}`); return; }
    if (page.send({ type: 'replace', state }, page.doc === null ? 'create' : 'replace board')) jsonForm.hidden = true;
  });
}

// A remove asks once more: the first click arms the button for 3 s.
function confirmRemove(btn, remove) {
  if (btn.dataset.armed) { remove(); return; }
  btn.dataset.armed = '1';
  btn.textContent = 'Really remove?';
  setTimeout(() => { delete btn.dataset.armed; btn.textContent = 'Remove'; }, 3000);
}

function openEditor(node, s) {
  if (!s) return;
  const form = node.querySelector('.sec-edit');
  form.elements.title.value = s.title;
  form.elements.items.value = itemsToText(s.items);
  form.hidden = false;
  form.elements.title.focus();
}

function openJSON(doc, create) {
  $('json-text').value = JSON.stringify(doc ?? TEMPLATE, null, 2);
  $('json-submit').textContent = create ? 'Create board' : 'Replace board';
  $('json-form').hidden = false;
  $('json-text').focus();
}
