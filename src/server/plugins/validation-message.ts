import type { FastifyError, FastifyRequest } from 'fastify';

interface PropertySchema {
  type?: string;
  const?: unknown;
  anyOf?: PropertySchema[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  description?: string;
  examples?: unknown[];
}

const SHOWN_VALUE_MAX = 64;

/** What a declared parameter accepts, in words. */
function expectation(schema: PropertySchema, keyword: string): string {
  const words =
    schema.enum ?? schema.anyOf?.map((branch) => branch.const) ?? (schema.const !== undefined ? [schema.const] : []);
  if (words.length > 0) return `must be one of ${words.join(', ')}`;
  if (schema.type === 'boolean') return 'must be true or false';
  if (schema.type === 'integer') {
    if (keyword === 'type') return 'must be a whole number';
    return schema.maximum === undefined
      ? `must be a whole number of at least ${schema.minimum}`
      : `must be between ${schema.minimum} and ${schema.maximum}`;
  }
  if (keyword === 'maxLength') return `must be at most ${schema.maxLength} characters long`;
  if (keyword === 'minLength') return 'must not be empty';
  // A pattern or format: its examples show the form.
  if (schema.examples?.length) return `must be a value like ${schema.examples.join(' or ')}`;
  return `must be ${(schema.description ?? 'a valid value').split(';')[0]}`;
}

function shown(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > SHOWN_VALUE_MAX ? `${text.slice(0, SHOWN_VALUE_MAX)}…` : text);
}

/** A JSON body's failure: its item (by index) and the limit it broke. */
function describeBody(keyword: string, instancePath: string, params: Record<string, unknown>): string {
  const item = instancePath.split('/')[1];
  const where = item === undefined ? 'the request body' : `item ${item} of the request body`;
  if (keyword === 'maxItems') return `the request body must hold at most ${String(params.limit)} items`;
  if (keyword === 'maxLength') return `${where} must be at most ${String(params.limit)} characters long`;
  if (keyword === 'minLength') return `${where} must not be empty`;
  if (keyword === 'type') return `${where} must be of type ${String(params.type)}`;
  return `${where} is invalid (${keyword})`;
}

/** Turns a schema failure into a sentence naming the parameter, from what the schema declares. */
export function describeValidation(error: FastifyError, request: FastifyRequest): string {
  const first = error.validation![0]!;
  const params = first.params as Record<string, unknown>;
  if (error.validationContext === 'body') return describeBody(first.keyword, first.instancePath, params);
  if (first.keyword === 'additionalProperties') return `unknown parameter "${String(params.additionalProperty)}"`;
  if (first.keyword === 'required') return `parameter "${String(params.missingProperty)}" is required`;
  const name = first.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  const source = (error.validationContext === 'params' ? request.params : request.query) as Record<string, unknown>;
  const value = source?.[name];
  if (Array.isArray(value)) return `parameter "${name}" must be given once, as a single value`;
  const schemas = request.routeOptions.schema?.[error.validationContext === 'params' ? 'params' : 'querystring'] as
    | { properties?: Record<string, PropertySchema> }
    | undefined;
  const schema = schemas?.properties?.[name];
  if (!schema) return `parameter "${name}" ${first.message ?? 'is invalid'}`;
  return `parameter "${name}" ${expectation(schema, first.keyword)}, got ${shown(value)}`;
}
