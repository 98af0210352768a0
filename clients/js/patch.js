// RFC 6902 JSON Patch, applied to plain JSON values (RFC 6901 pointers).
// applyPatch(doc, ops) returns the patched document and never touches `doc`;
// any invalid operation throws a PatchError and nothing is changed.
//
// Copy on write: only the containers on an operation's path are copied, and
// the result shares every other value with `doc`. A toggle on a board of
// 1,000 sections copies the root, the sections array and one section, not
// the board; the page relies on that identity to re-render only what
// changed (render.js). Neither `doc` nor the result may be mutated in place.
//
// The dashboard imports this very file: the daemon serves clients/js at /lib/.

export class PatchError extends Error {
  constructor(message) { super(message); this.name = 'PatchError'; }
}

const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

export function clone(v) {
  if (Array.isArray(v)) return v.map(clone);
  if (isObject(v)) {
    const out = {};
    for (const k of Object.keys(v)) setKey(out, k, clone(v[k]));
    return out;
  }
  return v;
}

// Own, enumerable, and safe for keys such as "__proto__".
function setKey(obj, key, value) {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

export function deepEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => has(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

export function parsePointer(pointer) {
  if (typeof pointer !== 'string') throw new PatchError('path is not a string');
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new PatchError(`pointer "${pointer}" does not start with /`);
  return pointer.slice(1).split('/').map((t) => {
    if (/~[^01]|~$/.test(t)) throw new PatchError(`bad escape in "${pointer}"`);
    return t.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

// An array index token: "0" or digits without a leading zero.
function arrayIndex(token, length, allowEnd) {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`"${token}" is not an array index`);
  const i = Number(token);
  if (i > length || (!allowEnd && i === length)) throw new PatchError(`index ${i} out of range`);
  return i;
}

// Where `token` points inside `node` (an array index or an own key), or a PatchError.
function childKey(node, token) {
  if (Array.isArray(node)) return arrayIndex(token, node.length, false);
  if (isObject(node) && has(node, token)) return token;
  throw new PatchError(`path component "${token}" not found`);
}

function isContainer(v) { return v !== null && typeof v === 'object'; }

// The container that holds the last token, read-only.
function parent(doc, tokens) {
  let node = doc;
  for (let n = 0; n < tokens.length - 1; n++) node = node[childKey(node, tokens[n])];
  if (!isContainer(node)) throw new PatchError('parent is not a container');
  return node;
}

// A copy of `v` that this patch may change in place (or `v` itself, when
// this patch made it). `fresh` holds the containers made by this patch.
function own(v, fresh) {
  if (fresh.has(v)) return v;
  let copy;
  if (Array.isArray(v)) copy = v.slice();
  else {
    copy = {};
    for (const k of Object.keys(v)) setKey(copy, k, v[k]);
  }
  fresh.add(copy);
  return copy;
}

// Copies the root and every container down to the last token's parent, and
// returns [the new root, that parent]: what an add, remove or replace may write.
function writablePath(doc, tokens, fresh) {
  if (!isContainer(doc)) throw new PatchError('parent is not a container');
  const root = own(doc, fresh);
  let node = root;
  for (let n = 0; n < tokens.length - 1; n++) {
    const key = childKey(node, tokens[n]);
    const child = node[key];
    if (!isContainer(child)) throw new PatchError('parent is not a container');
    const copy = own(child, fresh);
    if (copy !== child) {
      if (Array.isArray(node)) node[key] = copy; else setKey(node, key, copy);
    }
    node = copy;
  }
  return [root, node];
}

function get(doc, tokens) {
  if (tokens.length === 0) return doc;
  const p = parent(doc, tokens), t = tokens[tokens.length - 1];
  if (Array.isArray(p)) return p[arrayIndex(t, p.length, false)];
  if (!has(p, t)) throw new PatchError(`"${t}" not found`);
  return p[t];
}

function add(doc, tokens, value, fresh) {
  if (tokens.length === 0) return value;
  const [root, p] = writablePath(doc, tokens, fresh), t = tokens[tokens.length - 1];
  if (Array.isArray(p)) p.splice(arrayIndex(t, p.length, true), 0, value);
  else setKey(p, t, value);
  return root;
}

function remove(doc, tokens, fresh) {
  if (tokens.length === 0) throw new PatchError('cannot remove the whole document');
  get(doc, tokens);   // fails before anything is copied
  const [root, p] = writablePath(doc, tokens, fresh), t = tokens[tokens.length - 1];
  if (Array.isArray(p)) p.splice(arrayIndex(t, p.length, false), 1);
  else delete p[t];
  return root;
}

function replace(doc, tokens, value, fresh) {
  get(doc, tokens);
  if (tokens.length === 0) return value;
  const [root, p] = writablePath(doc, tokens, fresh), t = tokens[tokens.length - 1];
  if (Array.isArray(p)) p[arrayIndex(t, p.length, false)] = value;
  else setKey(p, t, value);
  return root;
}

function need(op, field) {
  if (!has(op, field)) throw new PatchError(`"${op.op}" needs "${field}"`);
  return op[field];
}

// One operation; `fresh` (a WeakSet) carries the containers this patch has
// already copied, so a second operation on the same path copies nothing more.
export function applyOperation(doc, op, fresh = new WeakSet()) {
  if (!isObject(op)) throw new PatchError('operation is not an object');
  const path = parsePointer(need(op, 'path'));
  switch (op.op) {
    case 'add':
      return add(doc, path, clone(need(op, 'value')), fresh);
    case 'remove':
      return remove(doc, path, fresh);
    case 'replace':
      return replace(doc, path, clone(need(op, 'value')), fresh);
    case 'move': {
      const fromText = need(op, 'from');
      const from = parsePointer(fromText);
      if (fromText === op.path) { get(doc, from); return doc; }
      if (op.path.startsWith(fromText + '/')) throw new PatchError('cannot move a value into itself');
      const value = get(doc, from);   // shared, not copied: nothing writes into it without copying first
      return add(remove(doc, from, fresh), path, value, fresh);
    }
    case 'copy': {
      const value = clone(get(doc, parsePointer(need(op, 'from'))));
      return add(doc, path, value, fresh);
    }
    case 'test':
      if (!deepEqual(get(doc, path), need(op, 'value'))) throw new PatchError(`test failed at "${op.path}"`);
      return doc;
    default:
      throw new PatchError(`unknown op "${op.op}"`);
  }
}

export function applyPatch(doc, ops) {
  if (!Array.isArray(ops)) throw new PatchError('a patch is an array of operations');
  const fresh = new WeakSet();
  let out = doc;
  for (const op of ops) out = applyOperation(out, op, fresh);
  return out;
}
