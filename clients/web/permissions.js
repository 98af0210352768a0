// What the current user may do. Every control that changes a board carries
// data-perm: "fold" (toggle, expand/collapse all), "edit" (add, remove,
// rename, reorder, items, mode) or "admin" (create from JSON, replace,
// delete). A daemon with no tokens never sends `authenticated`: everything
// is allowed. Once it does, the set is the token's, limited to the boards
// its glob matches. Pure: decided from the auth state (auth-state.js) alone.

export const ALL = Object.freeze(['read', 'fold', 'edit', 'admin']);

// `scope` is the board the page shows, or null (the list of boards). A
// JWT's grants give a board the union of what its matching globs grant.
export function allowed(auth, perm, scope = null) {
  if (!auth.granted.includes(perm)) return false;
  if (!auth.identity || scope === null) return true;
  const grants = auth.identity.grants;
  if (grants) return Object.entries(grants).some(([glob, perms]) => perms.includes(perm) && globMatches(glob, scope));
  return globMatches(auth.identity.boards, scope);
}

// Board-name globs as the daemon reads them: `*` any run, `?` one character.
export function globMatches(pattern, name) {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return re.test(name);
}

// The identity an `authenticated` message names, read defensively.
export function identityFrom(m) {
  const permissions = Array.isArray(m.permissions) ? m.permissions.filter((p) => typeof p === 'string') : [];
  const identity = { name: String(m.name), permissions, boards: typeof m.boards === 'string' ? m.boards : '*' };
  if (m.grants && typeof m.grants === 'object' && !Array.isArray(m.grants)) {
    identity.grants = Object.fromEntries(Object.entries(m.grants)
      .map(([glob, perms]) => [glob, Array.isArray(perms) ? perms.filter((p) => typeof p === 'string') : []]));
  }
  if (typeof m.expires === 'number') identity.expires = m.expires;
  return identity;
}

// "This token (“viewer”) may not add a section."
export function mayNot(auth, what) {
  return `This token${auth.identity ? ` (“${auth.identity.name}”)` : ''} may not ${what}.`;
}
