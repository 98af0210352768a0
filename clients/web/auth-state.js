// Where the page stands with the daemon's tokens: one value, changed only
// by nextAuth(), in place of separate "authenticated", "known", "needs a
// token" and "tokens in play" flags. Pure, so the rules are tested in node.
//
//   phase      'unknown'     nothing said yet on this connection (what was
//                            granted before stays shown until it is)
//              'open'        the daemon has no tokens: everything is allowed
//              'signed-in'   the daemon accepted the token (`identity`)
//              'signed-out'  refused for want of a (valid) token: wait for
//                            the user instead of reconnecting
//   hasToken   a token is kept in this tab
//   identity   { name, permissions, boards, grants, expires } from
//              `authenticated`, or null (grants and expires: a JWT's)
//   granted    the permissions in force now (permissions.js reads them)
//   expiring   the daemon said `authExpiring`: a new token goes in band
//   expired    the connection was closed because its token expired: the
//              board stays shown, and a new token resumes it

import { ALL, identityFrom } from './permissions.js';

export function initialAuth(hasToken) {
  // A kept token may be refused: show nothing that might be, until the daemon says.
  return Object.freeze({ phase: 'unknown', hasToken, identity: null, granted: hasToken ? [] : ALL, expiring: false, expired: false });
}

// Events:
//   { type: 'hello' }                        a new connection greeted us
//   { type: 'authenticated', name, permissions, boards }
//   { type: 'data' }                         a snapshot or patch; before any
//                                            `authenticated`, the daemon has no tokens
//   { type: 'open' }                         the daemon serves us without a token
//                                            (the list page's HTTP answer or probe)
//   { type: 'refused' }                      a 1008 close, 401 or `forbidden` without a valid token
//   { type: 'token', hasToken }              the user set or forgot the token
//   { type: 'expiring' }                     `authExpiring`: the token ends soon
//   { type: 'expired' }                      closed with 1008 "token expired"
// Returns the same object when nothing changed, so callers can skip redrawing.
export function nextAuth(auth, event) {
  const to = (fields) => Object.freeze({ ...auth, ...fields });
  switch (event.type) {
    case 'hello':
      return auth.phase === 'unknown' || auth.phase === 'signed-out' ? auth : to({ phase: 'unknown' });
    case 'authenticated': {
      const identity = identityFrom(event);
      return to({ phase: 'signed-in', identity, granted: identity.permissions, expiring: false, expired: false });
    }
    case 'data':
      return auth.phase === 'unknown' ? to({ phase: 'open', identity: null, granted: ALL }) : auth;
    case 'open':
      return auth.phase === 'open' ? auth : to({ phase: 'open', identity: null, granted: ALL });
    case 'refused':
      return auth.phase === 'signed-out' ? auth : to({ phase: 'signed-out', identity: null, granted: [] });
    case 'token':
      return to({ phase: 'unknown', hasToken: Boolean(event.hasToken), identity: null, granted: [], expiring: false, expired: false });
    case 'expiring':
      return auth.phase === 'signed-in' && !auth.expiring ? to({ expiring: true }) : auth;
    case 'expired':
      return to({ phase: 'signed-out', identity: null, granted: [], expiring: false, expired: true });
    default:
      return auth;
  }
}

// What to do when the WebSocket closes: 'retry' (back off and reconnect),
// 'refused' (a 1008 policy close before any `authenticated`: the daemon
// wants a token; ask the user), 'expired' (the token ran out: ask for a new
// one, keep the board) or 'stop' (already waiting for the user).
export function onClose(auth, code, reason = '') {
  if (auth.phase === 'signed-out') return 'stop';
  if (code === 1008 && reason === 'token expired') return 'expired';
  if (code === 1008 && auth.phase !== 'signed-in') return 'refused';
  return 'retry';
}

// Whether the status strip offers "Sign in" / "Token…": once tokens are in play.
export function signInOffered(auth) {
  return auth.hasToken || auth.phase === 'signed-in' || auth.phase === 'signed-out';
}
