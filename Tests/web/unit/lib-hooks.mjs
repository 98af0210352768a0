// A module resolution hook for node's test runner: the dashboard's modules
// import the client library as the daemon serves it, from the absolute path
// /lib/NAME (clients/js beside the web root); in node that path means
// clients/js/NAME of this checkout. Registered by lib-register.mjs
// (node --import ./Tests/web/unit/lib-register.mjs --test ...).

const LIB = new URL('../../../clients/js/', import.meta.url);

export async function resolve(specifier, context, next) {
  if (specifier.startsWith('/lib/')) return next(new URL(specifier.slice('/lib/'.length), LIB).href, context);
  return next(specifier, context);
}
