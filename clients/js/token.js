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
