// node --import ./Tests/web/unit/lib-register.mjs --test Tests/web/unit/*.test.mjs:
// maps the dashboard's /lib/ imports to clients/js (lib-hooks.mjs).
import { register } from 'node:module';

register('./lib-hooks.mjs', import.meta.url);
