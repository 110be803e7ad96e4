// A NUL byte (U+0000) is refused at the edge of both servers, whatever the database: PostgreSQL cannot store one in
// text ("invalid byte sequence for encoding UTF8: 0x00"), and no field of either API has a use for it. One middleware
// looks at everything a route may read (path parameters, query, a JSON body's keys and strings) and answers 400 naming
// the field, so SQLite and PostgreSQL answer alike and no handler meets one. Headers need no look: Node's HTTP parser
// refuses a NUL in one before any route, and the Headers class cannot hold one (test/provider/hardening.test.ts).
import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
import type { Context } from 'hono';
import { ApiError } from './errors.js';

const NUL = '\u0000';

/** Where in a JSON value a NUL byte is (`note`, `items[2].sku`), or undefined. */
function nulIn(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulIn(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const name = path ? `${path}.${key}` : key;
      if (key.includes(NUL)) return `${path || 'body'} (a key)`;
      const found = nulIn(item, name);
      if (found) return found;
    }
  }
  return undefined;
}

/** A printable field name: what a client sent, without the NUL itself and not too long. */
const printable = (name: string) => name.replaceAll(NUL, '\\0').slice(0, 64);

/** The path parameter holding the NUL, named by the route that will answer (`id` of /checkout/:id/session). */
function pathField(c: Context): string {
  const segments = c.req.path.split('/');
  const route = matchedRoutes(c)
    .filter((r) => r.method !== 'ALL')
    .at(-1); // the handler's route, not a middleware's
  const pattern = route?.path.split('/');
  const at = segments.findIndex((s) => s.includes(NUL));
  const param = pattern?.length === segments.length ? pattern[at] : undefined;
  return param?.startsWith(':') ? param.slice(1).replace(/[{?].*$/, '') : 'path';
}

async function bodyField(c: Context): Promise<string | undefined> {
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || !/[/+]json\b/i.test(c.req.header('content-type') ?? ''))
    return undefined;
  // Read as bytes (Hono keeps them for the route: a signature over the raw body still verifies), parsed only when a
  // NUL may be there; malformed JSON is the route's to refuse.
  const text = new TextDecoder().decode(await c.req.arrayBuffer());
  if (!text.includes('\\u0000') && !text.includes(NUL)) return undefined;
  try {
    return nulIn(JSON.parse(text), '') ?? undefined;
  } catch {
    return undefined;
  }
}

/** Refuses a request with a NUL byte anywhere a route may read it: 400 `<field>: must not contain a NUL byte`. */
export const refuseNulBytes = createMiddleware(async (c, next) => {
  let field: string | undefined;
  if (c.req.path.includes(NUL)) field = pathField(c);
  if (!field) {
    for (const [key, values] of Object.entries(c.req.queries())) {
      if (key.includes(NUL) || values.some((v) => v.includes(NUL))) {
        field = key;
        break;
      }
    }
  }
  field ??= await bodyField(c);
  if (field !== undefined)
    throw new ApiError(400, `${printable(field) || 'body'}: must not contain a NUL byte (\\u0000)`);
  await next();
});
