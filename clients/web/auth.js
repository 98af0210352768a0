// The dashboard's token: kept in sessionStorage only (gone when the tab
// closes; never localStorage, never the URL, never logged), presented in an
// `auth` message on WebSockets (the library's, through socket.js) and as
// `Authorization: Bearer` on HTTP.

const KEY = 'foldsync.token';

export function getToken() {
  try { return sessionStorage.getItem(KEY) || null; } catch { return null; }
}

export function setToken(secret) {
  try { sessionStorage.setItem(KEY, secret); return true; } catch { return false; }
}

export function forgetToken() {
  try { sessionStorage.removeItem(KEY); } catch { /* storage unavailable: nothing kept */ }
}

// Headers for a fetch, with the bearer token when one is set.
export function authHeaders(headers = {}) {
  const t = getToken();
  return t ? { ...headers, authorization: `Bearer ${t}` } : { ...headers };
}
