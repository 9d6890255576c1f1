import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../core/errors.js';

interface PropertySchema {
  type?: string;
  const?: unknown;
  anyOf?: PropertySchema[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
}

/** Parameters whose mere presence is their value: `?start_cursor` starts a walk as the official clients send it. */
const BARE_FLAGS = new Set(['start_cursor']);

/** Whether a declared parameter takes `true`/`false` or one of fixed words (matched case-insensitively). */
function isCaseless(schema: PropertySchema): boolean {
  if (schema.type === 'boolean') return true;
  if (typeof schema.const === 'string') return true;
  if (schema.enum) return schema.enum.every((word) => typeof word === 'string');
  return schema.anyOf?.every((branch) => typeof branch.const === 'string') ?? false;
}

/**
 * Before schema validation, a query parameter given empty counts as not given (the official clients
 * send empty filters), and the values of booleans and enums are lower-cased, so `TRUE` and `ASC`
 * mean what they meant before the parameters were declared by type; an integer must be digits.
 */
export function normaliseQuery(query: Record<string, unknown>, properties: Record<string, PropertySchema>): void {
  for (const [name, value] of Object.entries(query)) {
    if (value === '') {
      const schema = properties[name];
      if (BARE_FLAGS.has(name)) {
        if (schema?.type === 'boolean') query[name] = 'true';
      } else if (schema) delete query[name];
    } else if (typeof value === 'string' && properties[name]) {
      if (isCaseless(properties[name])) query[name] = value.toLowerCase();
      // The schema's coercion would also take `1e3`, `10.0` and `-1`; a whole number is written in digits.
      else if (properties[name].type === 'integer') checkWholeNumber(name, value, properties[name]);
    }
  }
}

/**
 * Digits, and few enough that the number is exact: longer ones would be coerced to a rounded number
 * or to Infinity, which slips past the schema's range check.
 */
function checkWholeNumber(name: string, value: string, schema: PropertySchema): void {
  const shown = JSON.stringify(value.slice(0, 64));
  if (!/^\d+$/.test(value)) throw badRequest(`parameter "${name}" must be a whole number, got ${shown}`);
  if (Number.isSafeInteger(Number(value))) return;
  const range = `between ${schema.minimum ?? 0} and ${schema.maximum ?? Number.MAX_SAFE_INTEGER}`;
  throw badRequest(`parameter "${name}" must be ${range}, got ${shown}`);
}

export function registerQueryNormaliser(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema?.querystring as
      | { properties?: Record<string, PropertySchema> }
      | undefined;
    if (schema?.properties && request.query && typeof request.query === 'object') {
      normaliseQuery(request.query as Record<string, unknown>, schema.properties);
    }
  });
}
