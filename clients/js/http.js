// The daemon's HTTP API on the same port as its WebSocket: the history has
// no WebSocket message. Its base is the socket URL's, so a daemon behind a
// proxy at wss://host/foldsync/ws is asked at https://host/foldsync/api/...

import { FoldError } from './fold-error.js';

export function apiBase(socketURL) {
  const u = new URL(socketURL);
  u.protocol = u.protocol === 'wss:' ? 'https:' : 'http:';
  u.pathname = u.pathname.replace(/\/ws\/?$/, '').replace(/\/$/, '');
  u.search = '';
  u.hash = '';
  return u.href.replace(/\/$/, '');
}

// GET one resource; the daemon's {code, message} refusals become FoldErrors.
export async function getJSON(url, token) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(url, { headers, cache: 'no-store' });
  } catch (e) {
    throw new FoldError('disconnected', `GET ${url} failed: ${e.message}`);
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    throw new FoldError(body?.code ?? 'internal', body?.message ?? `HTTP ${response.status}`, { status: response.status });
  }
  return body;
}

// Whether the daemon answers plain HTTP (GET /healthz, no token needed)
// within `ms`: tells a WebSocket that cannot get through from a daemon that
// is not there at all.
export async function httpAnswers(base, doFetch = globalThis.fetch, ms = 5000) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), ms);
  try {
    const response = await doFetch(`${base}/healthz`, { signal: ctl.signal, cache: 'no-store' });
    await response.text().catch(() => '');
    return response.ok;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
