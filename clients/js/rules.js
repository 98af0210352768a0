// The board's rules: applyAction(board, action) gives the board after one
// action exactly as the daemon decides it (the JavaScript twin of
// Sources/FoldCore/Actions, with the checks of Board+Validation.swift,
// Board+Items.swift and Action+Decode.swift), or throws the FoldError the
// daemon refuses it with. Tests/vectors/actions.json pins it, as it pins
// the daemon's core and the other libraries.
//
// `action` is an action message as the daemon reads it: `type` and its
// fields. `board`, `id`, `ifRev` and `key` address and guard a message
// rather than say what it does: the three the daemon checks for type are
// checked the same way; `board` is not read and `ifRev` is not compared
// (the caller knows the rev, this module does not). A message nested
// deeper than the JSON depth limit is `bad_request`, as the daemon's parser
// refuses it. `revert` needs the board's history, which the daemon holds:
// it is refused with `invalid`, as the core refuses it.
//
// Pure: nothing is mutated. The result is { board, changed }; for a no-op
// (the daemon acks at the same rev) `board` is the board given, unchanged.
// Otherwise the board is a new document in the canonical shape (mode,
// sections, then focus when there is one; a section's id, title, items,
// expanded), sharing every section the action did not touch with the
// board given, as patch.js shares them: neither may be mutated in place.

import { FoldError } from './fold-error.js';
import { clone, deepEqual } from './patch.js';
import { safeHref } from './link.js';

/** The daemon's default limits (Limits.swift; docs/PROTOCOL.md, "Limits"). Going over one is `invalid`. */
export const DEFAULT_LIMITS = Object.freeze({
  maxBoards: 1000,
  maxSections: 5000,
  maxItems: 10000,
  maxTitleBytes: 1024,
  maxItemBytes: 4096,
  maxBoardBytes: 4 * 1024 * 1024,
  maxJSONDepth: 32,
});

// A badge is a short tag: at most this many UTF-8 bytes (Item.maxBadgeBytes).
const MAX_BADGE_BYTES = 64;

// The actions by wire `type` (ActionName.swift).
const ACTION_TYPES = Object.freeze([
  'toggle', 'expand', 'collapse', 'expandAll', 'collapseAll',
  'setMode', 'addSection', 'removeSection', 'moveSection', 'setTitle', 'setItems',
  'replace', 'focus', 'clearFocus', 'revert',
]);

const fail = (code, message) => new FoldError(code, message);
const badRequest = (message) => fail('bad_request', message);
const invalid = (message) => fail('invalid', message);

const has = (o, key) => Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// ---- names, sizes, depth ----

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

// Section ids, item ids and board names: 1-64 characters of [A-Za-z0-9_.-] (Names.swift).
function isName(s) {
  return typeof s === 'string' && NAME.test(s);
}

// The length of `s` in UTF-8 bytes.
function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

const LINE_SEPARATORS = /[\u2028\u2029]/g;

// The bytes of the daemon's compact encoding of a JSON value (JSONWriter.swift):
// JSON.stringify's, but for U+2028 and U+2029, which the daemon escapes
// (three bytes become six).
function encodedLength(value) {
  const text = JSON.stringify(value);
  return utf8Length(text) + 3 * (text.match(LINE_SEPARATORS)?.length ?? 0);
}

// Nesting depth (JSON.depth): 0 for a scalar, 1 for a flat array or object.
function depth(v) {
  if (Array.isArray(v)) return 1 + v.reduce((d, x) => Math.max(d, depth(x)), 0);
  if (isObject(v)) return 1 + Object.values(v).reduce((d, x) => Math.max(d, depth(x)), 0);
  return 0;
}

// ---- reading the message (Action+Decode.swift, FieldReader.swift) ----

// JSON.intValue: an integer that fits a 64-bit Int. (A number written `1.0`
// on the wire is no integer to the daemon; once parsed here it is 1.)
const isInt = (v) => typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63;

function fields(o) {
  return {
    string(name) {
      if (typeof o[name] !== 'string') throw badRequest(`field '${name}' must be a string`);
      return o[name];
    },
    optionalString(name) {
      if (!has(o, name)) return null;
      return this.string(name);
    },
    bool(name, fallback) {
      if (!has(o, name)) return fallback;
      if (typeof o[name] !== 'boolean') throw badRequest(`field '${name}' must be a boolean`);
      return o[name];
    },
    int(name) {
      if (!isInt(o[name])) throw badRequest(`field '${name}' must be an integer`);
      return o[name];
    },
    optionalInt(name) {
      if (!has(o, name)) return null;
      return this.int(name);
    },
    array(name) {
      if (!Array.isArray(o[name])) throw badRequest(`field '${name}' must be an array`);
      return o[name];
    },
    object(name) {
      if (!isObject(o[name])) throw badRequest(`field '${name}' must be an object`);
      return o[name];
    },
  };
}

// ActionKey.problem: why `key` is no valid key, or null.
function keyProblem(key) {
  const bytes = utf8Length(key);
  if (bytes === 0) return 'must not be empty';
  if (bytes > 64) return `is ${bytes} bytes long; at most 64 are allowed`;
  if (!/^[\x20-\x7e]*$/.test(key)) return 'must be printable ASCII, without control characters';
  return null;
}

/**
 * The action a message asks for, read as the daemon reads it: a plain object
 * { type, ...fields } with its fields' values (addSection's `section` with
 * every member, items cloned), or a FoldError (`bad_request`, `unknown_type`).
 */
function readAction(message, limits = DEFAULT_LIMITS) {
  limits = { ...DEFAULT_LIMITS, ...limits };
  if (!isObject(message)) throw badRequest('a message must be a JSON object');
  if (depth(message) > limits.maxJSONDepth) throw badRequest(`not valid JSON: nesting deeper than ${limits.maxJSONDepth}`);
  const f = fields(message);
  f.optionalString('id');
  const type = f.string('type');
  if (!ACTION_TYPES.includes(type)) throw fail('unknown_type', `unknown action type '${type}'`);
  const ifRev = f.optionalInt('ifRev');
  if (ifRev !== null && ifRev < 0) throw badRequest("field 'ifRev' must be a non-negative integer");
  const key = f.optionalString('key');
  const problem = key === null ? null : keyProblem(key);
  if (problem) throw badRequest(`field 'key' ${problem}`);
  switch (type) {
    case 'toggle': case 'expand': case 'collapse': case 'removeSection':
      return { type, section: f.string('section') };
    case 'expandAll': case 'collapseAll': case 'clearFocus':
      return { type };
    case 'setMode': {
      const mode = f.string('mode');
      if (mode !== 'single' && mode !== 'multi') throw badRequest('field \'mode\' must be "single" or "multi"');
      return { type, mode };
    }
    case 'addSection': {
      const d = fields(f.object('section'));
      const items = has(message.section, 'items') ? clone(d.array('items')) : [];
      const section = { id: d.optionalString('id'), title: d.string('title'), items, expanded: d.bool('expanded', false) };
      return { type, section, at: f.optionalInt('at') };
    }
    case 'moveSection':
      return { type, section: f.string('section'), to: f.int('to') };
    case 'setTitle':
      return { type, section: f.string('section'), title: f.string('title') };
    case 'setItems':
      return { type, section: f.string('section'), items: clone(f.array('items')) };
    case 'focus':
      return { type, section: f.string('section'), item: f.int('item') };
    case 'revert':
      return { type, rev: f.int('rev') };
    case 'replace':
      if (!has(message, 'state')) throw badRequest("field 'state' must be an object");
      return { type, state: readBoard(message.state, limits) };
  }
}

// ---- whole documents (Board+Validation.swift) ----

// A document as the daemon reads one (`replace`): types first, then every
// rule and limit. Unknown members are dropped; the result is canonical.
function readBoard(json, limits) {
  if (!isObject(json)) throw badRequest('board state must be an object');
  if (typeof json.mode !== 'string') throw badRequest("field 'mode' must be a string");
  if (json.mode !== 'single' && json.mode !== 'multi') throw badRequest('field \'mode\' must be "single" or "multi"');
  if (!Array.isArray(json.sections)) throw badRequest("field 'sections' must be an array");
  if (json.sections.length > limits.maxSections) throw invalid(`more than ${limits.maxSections} sections`);
  const sections = json.sections.map((s, i) => {
    if (!isObject(s)) throw badRequest(`section ${i} must be an object`);
    if (typeof s.id !== 'string') throw badRequest(`field 'id' of section ${i} must be a string`);
    if (typeof s.title !== 'string') throw badRequest(`field 'title' of section ${i} must be a string`);
    if (!Array.isArray(s.items)) throw badRequest(`field 'items' of section ${i} must be an array`);
    if (typeof s.expanded !== 'boolean') throw badRequest(`field 'expanded' of section ${i} must be a boolean`);
    return sectionOf(s.id, s.title, clone(s.items), s.expanded);
  });
  let focus = null;
  if (has(json, 'focus')) {
    const f = json.focus;
    if (!isObject(f)) throw badRequest("field 'focus' must be an object");
    if (typeof f.section !== 'string') throw badRequest("field 'section' of 'focus' must be a string");
    if (!isInt(f.item)) throw badRequest("field 'item' of 'focus' must be an integer");
    focus = { section: f.section, item: f.item };
  }
  const board = documentOf(json.mode, sections, focus);
  validate(board, limits);
  return board;
}

function validate(board, limits) {
  if (board.sections.length > limits.maxSections) throw invalid(`more than ${limits.maxSections} sections`);
  const seen = new Set();
  for (const s of board.sections) {
    if (!isName(s.id)) throw badRequest(`section id '${s.id}' must be 1-64 characters of [A-Za-z0-9_.-]`);
    if (seen.has(s.id)) throw invalid(`duplicate section id '${s.id}'`);
    seen.add(s.id);
    checkTitle(s.title, limits);
    checkItems(s.items, limits);
  }
  if (board.mode === 'single' && board.sections.filter((s) => s.expanded).length > 1) {
    throw invalid('more than one section expanded in single mode');
  }
  if (!focusIsValid(board)) throw invalid("field 'focus' must name an existing section and item");
  checkSize(board, limits);
}

function checkSize(board, limits) {
  if (encodedLength(board) > limits.maxBoardBytes) throw invalid(`board larger than ${limits.maxBoardBytes} bytes`);
}

// The size check of an edit, on the document the draft would be.
function checkDraftSize(draft, limits) {
  checkSize(documentOf(draft.mode, draft.sections.map(canonicalSection), draft.focus), limits);
}

function checkTitle(title, limits) {
  if (utf8Length(title) > limits.maxTitleBytes) throw invalid(`title longer than ${limits.maxTitleBytes} bytes`);
}

// The item rules (Board+Items.swift): a wrong type is `bad_request`, a
// broken rule `invalid`. Members outside the known five are kept.
function checkItems(items, limits) {
  if (items.length > limits.maxItems) throw invalid(`more than ${limits.maxItems} items`);
  const ids = new Set();
  items.forEach((item, n) => {
    if (isObject(item)) {
      checkFields(item, n, ids);
      if (depth(item) > limits.maxJSONDepth) throw invalid(`item ${n} nested deeper than ${limits.maxJSONDepth}`);
    } else if (typeof item !== 'string') {
      throw badRequest(`item ${n} must be a string or an object with a string 'label'`);
    }
    if (encodedLength(item) > limits.maxItemBytes) throw invalid(`item ${n} larger than ${limits.maxItemBytes} bytes`);
  });
}

function checkFields(item, n, ids) {
  const field = (name) => {
    if (!has(item, name)) return null;
    if (typeof item[name] !== 'string') throw badRequest(`field '${name}' of item ${n} must be a string`);
    return item[name];
  };
  if (field('label') === null) throw badRequest(`field 'label' of item ${n} must be a string`);
  field('detail');
  const href = field('href');
  if (href !== null && safeHref(href) === null) throw invalid(`field 'href' of item ${n} must be an http, https or mailto link`);
  const badge = field('badge');
  if (badge !== null && utf8Length(badge) > MAX_BADGE_BYTES) throw invalid(`field 'badge' of item ${n} is longer than ${MAX_BADGE_BYTES} bytes`);
  const id = field('id');
  if (id !== null) {
    if (!isName(id)) throw invalid(`field 'id' of item ${n} must be 1-64 characters of [A-Za-z0-9_.-]`);
    if (ids.has(id)) throw invalid(`field 'id' of item ${n}: duplicate item id '${id}'`);
    ids.add(id);
  }
}

// ---- the canonical shape (Board+Encoding.swift) ----

const sectionOf = (id, title, items, expanded) => ({ id, title, items, expanded });

function documentOf(mode, sections, focus) {
  const doc = { mode, sections };
  if (focus) doc.focus = { section: focus.section, item: focus.item };
  return doc;
}

const SECTION_KEYS = ['id', 'title', 'items', 'expanded'];

// A section of the board given, shared when it already has the canonical shape.
function canonicalSection(s) {
  const keys = Object.keys(s);
  if (keys.length === 4 && keys.every((k, i) => k === SECTION_KEYS[i])) return s;
  return sectionOf(s.id, s.title, s.items, s.expanded);
}

const sameFocus = (a, b) => (a ?? null) === (b ?? null) || (!!a && !!b && a.section === b.section && a.item === b.item);

function sameBoard(a, b) {
  return a.mode === b.mode && a.sections.length === b.sections.length
    && a.sections.every((s, i) => {
      const t = b.sections[i];
      return s.id === t.id && s.title === t.title && s.expanded === t.expanded && deepEqual(s.items, t.items);
    })
    && sameFocus(a.focus, b.focus);
}

// ---- the focus (Focus.swift, Board+Focusing.swift) ----

function indexOf(draft, id) {
  return draft.sections.findIndex((s) => s.id === id);
}

function focusIsValid(board) {
  const f = board.focus;
  if (!f) return true;
  const i = indexOf(board, f.section);
  return i >= 0 && f.item >= 0 && f.item < board.sections[i].items.length;
}

function focusedItem(board) {
  return focusIsValid(board) && board.focus ? board.sections[indexOf(board, board.focus.section)].items[board.focus.item] : undefined;
}

const itemID = (item) => (isObject(item) && typeof item.id === 'string' ? item.id : null);

// After an action that did not set the focus itself: a focused item with an
// `id` is followed to its new index in its section, and the focus is
// removed when that id is gone; any other focus is removed when its index
// no longer reaches an item.
function keepingFocus(draft, old) {
  const focus = draft.focus;
  if (!focus || !sameFocus(focus, old.focus)) return;
  const id = itemID(focusedItem(old));
  if (id !== null) {
    const i = indexOf(draft, focus.section);
    const moved = i < 0 ? -1 : draft.sections[i].items.findIndex((item) => itemID(item) === id);
    if (moved < 0) draft.focus = null;
    else if (moved !== focus.item) draft.focus = { section: focus.section, item: moved };
  } else if (!focusIsValid(draft)) {
    draft.focus = null;
  }
}

// ---- the actions (Board+Applying, +Folding, +Editing, +Focusing, +Replacing) ----

// A draft is { mode, sections, focus }, its sections array a copy; each
// rule returns true when it changed the draft, false for a no-op.

function requireIndex(draft, id) {
  const i = indexOf(draft, id);
  if (i < 0) throw fail('not_found', `no section '${id}'`);
  return i;
}

function setExpanded(draft, i, expanded) {
  const s = draft.sections[i];
  draft.sections[i] = sectionOf(s.id, s.title, s.items, expanded);
}

// Expands section i; in single mode the open one is collapsed (the accordion).
function expanding(draft, i) {
  if (draft.mode === 'single') {
    draft.sections.forEach((s, j) => { if (j !== i && s.expanded) setExpanded(draft, j, false); });
  }
  setExpanded(draft, i, true);
  return true;
}

function settingAll(draft, expanded) {
  let changed = false;
  draft.sections.forEach((s, i) => {
    if (s.expanded !== expanded) { setExpanded(draft, i, expanded); changed = true; }
  });
  return changed;
}

// Switching to single keeps only the first expanded section open.
function settingMode(draft, mode) {
  if (mode === draft.mode) return false;
  draft.mode = mode;
  if (mode === 'single') {
    let seenOpen = false;
    draft.sections.forEach((s, i) => {
      if (!s.expanded) return;
      if (seenOpen) setExpanded(draft, i, false);
      seenOpen = true;
    });
  }
  return true;
}

// The smallest n ≥ the section count such that "s<n>" is unused.
function generatedID(draft) {
  const used = new Set(draft.sections.map((s) => s.id));
  let n = draft.sections.length;
  while (used.has(`s${n}`)) n++;
  return `s${n}`;
}

function adding(draft, section, at, limits) {
  let id;
  if (section.id !== null) {
    if (!isName(section.id)) throw badRequest(`section id '${section.id}' must be 1-64 characters of [A-Za-z0-9_.-]`);
    if (indexOf(draft, section.id) >= 0) throw invalid(`section '${section.id}' already exists`);
    id = section.id;
  } else {
    id = generatedID(draft);
  }
  checkTitle(section.title, limits);
  checkItems(section.items, limits);
  const count = draft.sections.length;
  if (count >= limits.maxSections) throw invalid(`a board holds at most ${limits.maxSections} sections`);
  const index = at ?? count;
  if (index < 0 || index > count) throw invalid(`index ${index} is outside 0...${count}`);
  if (draft.mode === 'single' && section.expanded) {
    draft.sections.forEach((s, j) => { if (s.expanded) setExpanded(draft, j, false); });
  }
  draft.sections.splice(index, 0, sectionOf(id, section.title, section.items, section.expanded));
  checkDraftSize(draft, limits);
  return true;
}

function moving(draft, id, to) {
  const i = requireIndex(draft, id);
  const count = draft.sections.length;
  if (to < 0 || to >= count) throw invalid(`index ${to} is outside 0..<${count}`);
  if (to === i) return false;
  const [section] = draft.sections.splice(i, 1);
  draft.sections.splice(to, 0, section);
  return true;
}

function settingTitle(draft, id, title, limits) {
  const i = requireIndex(draft, id);
  checkTitle(title, limits);
  const s = draft.sections[i];
  if (s.title === title) return false;
  draft.sections[i] = sectionOf(s.id, title, s.items, s.expanded);
  if (utf8Length(title) > utf8Length(s.title)) checkDraftSize(draft, limits);
  return true;
}

function settingItems(draft, id, items, limits) {
  const i = requireIndex(draft, id);
  checkItems(items, limits);
  const s = draft.sections[i];
  if (deepEqual(s.items, items)) return false;
  draft.sections[i] = sectionOf(s.id, s.title, items, s.expanded);
  checkDraftSize(draft, limits);
  return true;
}

// `focus` expands its section (the accordion as always) and points at the item.
function focusing(draft, id, item) {
  const i = requireIndex(draft, id);
  const count = draft.sections[i].items.length;
  if (item < 0 || item >= count) {
    throw invalid(count === 0 ? `section '${id}' has no items to focus`
      : `item ${item} is outside 0..<${count} of section '${id}'`);
  }
  const wanted = { section: id, item };
  const expanded = draft.sections[i].expanded;
  if (sameFocus(draft.focus, wanted) && expanded) return false;
  if (!expanded) expanding(draft, i);
  draft.focus = wanted;
  return true;
}

function applyEdit(draft, action, limits) {
  switch (action.type) {
    case 'toggle': {
      const i = requireIndex(draft, action.section);
      if (draft.sections[i].expanded) { setExpanded(draft, i, false); return true; }
      return expanding(draft, i);
    }
    case 'expand': {
      const i = requireIndex(draft, action.section);
      return draft.sections[i].expanded ? false : expanding(draft, i);
    }
    case 'collapse': {
      const i = requireIndex(draft, action.section);
      if (!draft.sections[i].expanded) return false;
      setExpanded(draft, i, false);
      return true;
    }
    case 'expandAll':
      if (draft.mode !== 'multi') throw invalid('expandAll is not allowed in single mode');
      return settingAll(draft, true);
    case 'collapseAll':
      return settingAll(draft, false);
    case 'setMode':
      return settingMode(draft, action.mode);
    case 'addSection':
      return adding(draft, action.section, action.at, limits);
    case 'removeSection':
      draft.sections.splice(requireIndex(draft, action.section), 1);
      return true;
    case 'moveSection':
      return moving(draft, action.section, action.to);
    case 'setTitle':
      return settingTitle(draft, action.section, action.title, limits);
    case 'setItems':
      return settingItems(draft, action.section, action.items, limits);
    case 'focus':
      return focusing(draft, action.section, action.item);
    case 'clearFocus':
      if (!draft.focus) return false;
      draft.focus = null;
      return true;
    case 'revert':
      throw invalid("revert needs the board's history");
    default:
      throw fail('unknown_type', `unknown action type '${action.type}'`);
  }
}

/**
 * The board after `action` by the daemon's rules: { board, changed }
 * (changed false: a no-op, `board` is the one given), or a thrown FoldError
 * with the daemon's code. `board` is a valid document (a mirror's state);
 * `limits` overrides any of DEFAULT_LIMITS (a daemon started with other flags).
 */
export function applyAction(board, action, limits = DEFAULT_LIMITS) {
  limits = { ...DEFAULT_LIMITS, ...limits };
  const a = readAction(action, limits);
  if (a.type === 'replace') {
    return sameBoard(a.state, board) ? { board, changed: false } : { board: a.state, changed: true };
  }
  const old = { mode: board.mode, sections: board.sections, focus: board.focus ?? null };
  const draft = { mode: old.mode, sections: old.sections.slice(), focus: old.focus };
  if (!applyEdit(draft, a, limits)) return { board, changed: false };
  keepingFocus(draft, old);
  return { board: documentOf(draft.mode, draft.sections.map(canonicalSection), draft.focus), changed: true };
}
