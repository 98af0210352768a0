// DOM for the sections of a board. Nodes are keyed by section id and updated
// in place, so a patch touching one section leaves every other node (and the
// keyboard focus) alone, and costs what it touches: the patch's copy on
// write (the library's patch.js) keeps every untouched section the same object, so
// "changed?" is one identity check, never a serialisation of the board.
// Text is always set with textContent: any language, no markup injection.
// Links get their href only from safeHref (the library's link.js, through
// item-view.js): http, https and mailto, opened in a new tab with
// rel="noopener noreferrer".

import { deepEqual } from '/lib/patch.js';
import { keepInOrder } from './keep-in-order.js';
import { itemFields } from './item-view.js';

export const renders = new Map(); // section id -> how many times its node was (re)rendered

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') node.textContent = v;
    else if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

export function itemText(item) { return itemFields(item).label; }

// One item: a button that points everyone at it (the board's focus), with
// its badge and detail inside; for an item with a link, the link beside it.
export function itemNode(item, n) {
  const f = itemFields(item);
  const button = el('button', { type: 'button', class: 'item-btn', 'data-item': String(n) },
    el('span', { class: 'item-label', text: f.label }));
  if (f.badge !== null) button.append(el('span', { class: 'badge', text: f.badge }));
  if (f.detail !== null) button.append(el('span', { class: 'item-detail', text: f.detail }));
  const li = el('li', { class: 'item' }, button);
  if (f.href !== null) {
    li.append(el('a', {
      class: 'item-link', href: f.href, target: '_blank', rel: 'noopener noreferrer',
      text: 'open ↗', 'aria-label': `Open “${f.label}” in a new tab`,
    }));
  }
  return li;
}

// Items as editable text: one per line; objects as one line of JSON.
export function itemsToText(items) {
  return items.map((i) => (typeof i === 'string' ? i : JSON.stringify(i))).join('\n');
}

export function textToItems(text) {
  return text.split('\n').filter((l) => l.trim() !== '').map((line) => {
    if (line.trim().startsWith('{')) {
      try {
        const v = JSON.parse(line);
        if (v && typeof v === 'object' && !Array.isArray(v)) return v;
      } catch { /* a plain string that happens to start with { */ }
    }
    return line;
  });
}

const headerId = (id) => `h-${id}`;
const regionId = (id) => `r-${id}`;

export function createSectionNode(id) {
  const title = el('span', { class: 'sec-title' });
  const count = el('span', { class: 'sec-count' });
  const button = el('button', {
    type: 'button', class: 'sec-btn', id: headerId(id), 'aria-expanded': 'false', 'aria-controls': regionId(id),
  }, el('span', { class: 'chev', 'aria-hidden': 'true' }), title, count);
  const tools = el('div', { class: 'sec-tools', 'data-perm': 'edit' },
    el('button', { type: 'button', class: 'tool', 'data-act': 'up', text: '↑' }),
    el('button', { type: 'button', class: 'tool', 'data-act': 'down', text: '↓' }),
    el('button', { type: 'button', class: 'tool', 'data-act': 'edit', text: 'Edit' }),
    el('button', { type: 'button', class: 'tool danger', 'data-act': 'remove', text: 'Remove' }));
  const form = el('form', { class: 'sec-edit', 'data-perm': 'edit', hidden: '' },
    el('label', {}, el('span', { text: 'Title' }), el('input', { name: 'title', autocomplete: 'off' })),
    el('label', {}, el('span', { text: 'Items, one per line ({"label": …} lines are objects)' }),
      el('textarea', { name: 'items', rows: '4' })),
    el('div', { class: 'row' },
      el('button', { type: 'submit', class: 'primary', text: 'Save' }),
      el('button', { type: 'button', 'data-act': 'cancel', text: 'Cancel' })));
  const region = el('div', { class: 'sec-region', id: regionId(id), role: 'region', 'aria-labelledby': headerId(id) },
    el('div', { class: 'sec-inner' }, el('ul', { class: 'items' })));
  const node = el('div', { class: 'section', 'data-id': id },
    el('div', { class: 'sec-head' }, el('h2', { class: 'sec-h' }, button), tools), form, region);
  return node;
}

// Brings one node up to date with its section; only what differs from
// `shown` (the section as last rendered, or undefined) is touched.
export function updateSectionNode(node, section, shown) {
  renders.set(section.id, (renders.get(section.id) || 0) + 1);
  const button = node.querySelector('.sec-btn');
  const title = node.querySelector('.sec-title');
  if (title.textContent !== section.title) title.textContent = section.title;
  node.classList.toggle('untitled', section.title === '');
  const count = String(section.items.length);
  const countNode = node.querySelector('.sec-count');
  if (countNode.textContent !== count) {
    countNode.textContent = count;
    countNode.setAttribute('aria-label', `${count} item${count === '1' ? '' : 's'}`);
  }
  const expanded = section.expanded ? 'true' : 'false';
  if (button.getAttribute('aria-expanded') !== expanded) button.setAttribute('aria-expanded', expanded);
  const region = node.querySelector('.sec-region');
  region.classList.toggle('open', section.expanded);
  region.toggleAttribute('inert', !section.expanded);
  // A snapshot brings new objects with the same items: compare before rebuilding.
  if (!shown || (shown.items !== section.items && !deepEqual(shown.items, section.items))) {
    const lis = section.items.map((item, n) => itemNode(item, n));
    if (lis.length === 0) lis.push(el('li', { class: 'empty', text: 'No items' }));
    node.querySelector('.items').replaceChildren(...lis);
  }
  if (!shown || shown.title !== section.title) {
    node.querySelector('[data-act="up"]').setAttribute('aria-label', `Move “${section.title}” up`);
    node.querySelector('[data-act="down"]').setAttribute('aria-label', `Move “${section.title}” down`);
    node.querySelector('[data-act="edit"]').setAttribute('aria-label', `Edit “${section.title}”`);
    node.querySelector('[data-act="remove"]').setAttribute('aria-label', `Remove “${section.title}”`);
  }
}

// The sections shown in `container`, with an index by id so that a patch
// finds its nodes without walking the others.
export class SectionList {
  // onNew(node) runs once for each node created (e.g. to hide controls).
  constructor(container, onNew) {
    this.container = container;
    this.onNew = onNew;
    this.nodes = new Map();   // section id -> its node
    this.shown = new Map();   // section id -> the section object last rendered into it
    this.focused = null;      // the <li> marked aria-current, if any
  }

  // Marks the focused item (`focus` as the board holds it, or null) with
  // aria-current; returns its <li>, or null when it is not shown.
  markFocus(focus) {
    const node = focus ? this.nodes.get(focus.section) : undefined;
    const li = node ? node.querySelectorAll('.items > li.item')[focus.item] || null : null;
    if (li === this.focused) return li;
    if (this.focused) { this.focused.removeAttribute('aria-current'); this.focused.classList.remove('focused'); }
    if (li) { li.setAttribute('aria-current', 'true'); li.classList.add('focused'); }
    this.focused = li;
    return li;
  }

  // Makes the container show `sections`. `touched` (a Map of id -> section,
  // from mirror.js) refreshes just those; null means the list itself changed:
  // nodes are then added, removed and reordered, and refreshed where their
  // section is not the object last shown and differs from it (an action
  // shown at once, then its own patch, brings an equal section twice).
  show(sections, touched) {
    if (touched !== null && [...touched.keys()].every((id) => this.nodes.has(id))) {
      for (const [id, s] of touched) this.update(this.nodes.get(id), s);
      return;
    }
    const active = document.activeElement;
    const ids = new Set(sections.map((s) => s.id));
    for (const [id, node] of this.nodes) if (!ids.has(id)) this.drop(id, node);
    const wanted = sections.map((s) => {
      let node = this.nodes.get(s.id);
      if (!node) {
        node = createSectionNode(s.id);
        this.nodes.set(s.id, node);
        this.onNew(node);
      }
      const was = this.shown.get(s.id);
      if (was !== s) {
        if (was !== undefined && deepEqual(was, s)) this.shown.set(s.id, s);
        else this.update(node, s);
      }
      return node;
    });
    this.order(wanted);
    // Moving a node out of the document blurs it: give the focus back.
    if (active && active !== document.activeElement && this.container.contains(active)) active.focus({ preventScroll: true });
  }

  // Puts the container's children in the order of `wanted` (every node
  // shown, new ones included) with as few moves as possible: from the end,
  // each node not in the longest run already in order goes before its successor.
  order(wanted) {
    const now = new Map();
    let i = 0;
    for (const child of this.container.children) now.set(child, i++);
    const keep = keepInOrder(wanted.map((n) => (now.has(n) ? now.get(n) : -1)));
    let next = null;
    for (let k = wanted.length - 1; k >= 0; k--) {
      if (!keep.has(k)) this.container.insertBefore(wanted[k], next);
      next = wanted[k];
    }
  }

  update(node, section) {
    updateSectionNode(node, section, this.shown.get(section.id));
    this.shown.set(section.id, section);
  }

  drop(id, node) {
    node.remove();
    this.nodes.delete(id);
    this.shown.delete(id);
    renders.delete(id);
  }

  clear() {
    this.focused = null;
    this.container.replaceChildren();
    this.nodes.clear();
    this.shown.clear();
    renders.clear();
  }
}
