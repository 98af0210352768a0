// A token is a string, nothing (no tokens configured on the daemon), or a
// function returning either, synchronously or as a promise. The function is
// asked at every connect and on `authExpiring`, so a short-lived token (a
// JWT) is always fresh; a string is used as it is.

export async function resolveToken(token) {
  const value = typeof token === 'function' ? await token() : token;
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string') throw new TypeError('a token is a string');
  return value;
}

// When a JWT expires, in milliseconds since 1970, from its `exp` claim; null
// for a token that is not a JWT (three dot-separated base64url parts) or
// has no `exp`. Read, not verified: the daemon verifies. The stream
// transport has no `authExpiring`, so this is how it knows when to renew.
export function jwtExpiry(token) {
  if (typeof token !== 'string') return null;
  const parts = token.split('.');
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]+$/.test(parts[1])) return null;
  try {
    const b64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes));
    return typeof claims?.exp === 'number' && Number.isFinite(claims.exp) ? claims.exp * 1000 : null;
  } catch {
    return null;
  }
}
