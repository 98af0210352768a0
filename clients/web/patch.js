// RFC 6902 JSON Patch, applied to plain JSON values (RFC 6901 pointers).
// applyPatch(doc, ops) returns the patched document and never touches `doc`;
// any invalid operation throws a PatchError and nothing is changed.

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

// The container holding the last token, and that token.
function parent(doc, tokens) {
  let node = doc;
  for (let n = 0; n < tokens.length - 1; n++) {
    const t = tokens[n];
    if (Array.isArray(node)) node = node[arrayIndex(t, node.length, false)];
    else if (isObject(node) && has(node, t)) node = node[t];
    else throw new PatchError(`path component "${t}" not found`);
  }
  if (!Array.isArray(node) && !isObject(node)) throw new PatchError('parent is not a container');
  return node;
}

function get(doc, tokens) {
  if (tokens.length === 0) return doc;
  const p = parent(doc, tokens), t = tokens[tokens.length - 1];
  if (Array.isArray(p)) return p[arrayIndex(t, p.length, false)];
  if (!has(p, t)) throw new PatchError(`"${t}" not found`);
  return p[t];
}

function add(doc, tokens, value) {
  if (tokens.length === 0) return value;
  const p = parent(doc, tokens), t = tokens[tokens.length - 1];
  if (Array.isArray(p)) p.splice(arrayIndex(t, p.length, true), 0, value);
  else setKey(p, t, value);
  return doc;
}

function remove(doc, tokens) {
  if (tokens.length === 0) throw new PatchError('cannot remove the whole document');
  const p = parent(doc, tokens), t = tokens[tokens.length - 1];
  if (Array.isArray(p)) p.splice(arrayIndex(t, p.length, false), 1);
  else if (has(p, t)) delete p[t];
  else throw new PatchError(`"${t}" not found`);
  return doc;
}

function need(op, field) {
  if (!has(op, field)) throw new PatchError(`"${op.op}" needs "${field}"`);
  return op[field];
}

export function applyOperation(doc, op) {
  if (!isObject(op)) throw new PatchError('operation is not an object');
  const path = parsePointer(need(op, 'path'));
  switch (op.op) {
    case 'add':
      return add(doc, path, clone(need(op, 'value')));
    case 'remove':
      return remove(doc, path);
    case 'replace': {
      const value = clone(need(op, 'value'));
      get(doc, path);
      return path.length === 0 ? value : add(remove(doc, path), path, value);
    }
    case 'move': {
      const fromText = need(op, 'from');
      const from = parsePointer(fromText);
      if (fromText === op.path) { get(doc, from); return doc; }
      if (op.path.startsWith(fromText + '/')) throw new PatchError('cannot move a value into itself');
      const value = get(doc, from);
      return add(remove(doc, from), path, value);
    }
    case 'copy': {
      const value = clone(get(doc, parsePointer(need(op, 'from'))));
      return add(doc, path, value);
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
  let out = clone(doc);
  for (const op of ops) out = applyOperation(out, op);
  return out;
}
