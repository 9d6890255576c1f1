import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../core/errors.js';

/**
 * Every text a request carries in its query string or path parameters is checked once, here,
 * before any route reads it: the query must be well-formed percent-encoding of UTF-8, and no name
 * or value may hold a control character (U+0000–U+001F, U+007F). Without this, a NUL byte reached
 * PostgreSQL ("invalid byte sequence for encoding UTF8", a 500) while SQLite compared it (a 200),
 * and a malformed `%zz` was taken literally by the query parser.
 */

const SHOWN_NAME_MAX = 64;

/** True when the text holds U+0000–U+001F or U+007F. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** A name as a message shows it: quoted, control characters escaped, long names cut. */
function shown(name: string): string {
  const cut = name.length > SHOWN_NAME_MAX ? `${name.slice(0, SHOWN_NAME_MAX)}…` : name;
  return JSON.stringify(cut);
}

/** One query-string component decoded as the query parser decodes it (`+` is a space); undefined when malformed. */
function decodeComponent(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    // Malformed percent-encoding (`%zz`, a lone `%`) or bytes that are not UTF-8 (`%C0%AE`, `%E2%82`).
    return undefined;
  }
}

const malformed = (name: string) =>
  badRequest(`parameter ${shown(name)} is not valid percent-encoded UTF-8 (malformed escape or invalid byte sequence)`);
const control = (name: string) =>
  badRequest(`parameter ${shown(name)} must not contain control characters (U+0000–U+001F, U+007F)`);

/**
 * Checks the raw query string of a request URL (the part after `?`, split on `&` as the query
 * parser splits it); throws a 400 naming the first bad parameter.
 */
export function checkQueryText(url: string): void {
  const question = url.indexOf('?');
  if (question < 0) return;
  for (const pair of url.slice(question + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decodeComponent(rawName);
    // A name that cannot be decoded is shown as sent (the URL holds printable ASCII only).
    if (name === undefined) throw malformed(rawName);
    if (hasControlCharacter(name)) throw control(name);
    if (eq < 0) continue;
    const value = decodeComponent(pair.slice(eq + 1));
    if (value === undefined) throw malformed(name);
    if (hasControlCharacter(value)) throw control(name);
  }
}

/** Checks the decoded path parameters (the router has already refused malformed path encoding). */
export function checkPathText(params: unknown): void {
  if (typeof params !== 'object' || params === null) return;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string' && hasControlCharacter(value)) throw control(name);
  }
}

/** Runs the checks on every route (and the not-found handler) before schema validation. */
export function registerRequestTextChecks(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    checkQueryText(request.url);
    checkPathText(request.params);
  });
}
