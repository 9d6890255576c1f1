import fs from 'node:fs';
import { fixture } from './fixtures.js';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is the module object at type level.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => unknown;

/**
 * Validation of response bodies and records against the component schemas of the official OpenAPI
 * document (test/fixtures/contract/vulncheck-openapi.subset.json, OpenAPI 3.1 = JSON Schema
 * 2020-12). Refs in the document are `#/components/schemas/...`; each requested schema is compiled
 * inside a wrapper that carries `components`, so those refs resolve unchanged.
 */
export const CONTRACT_PATH = fixture('contract/vulncheck-openapi.subset.json');
export const RECORD_SCHEMA = 'advisory.MitreCVEListV5Ref';

export interface OpenApiDocument {
  components: { schemas: Record<string, unknown> };
}

let document: OpenApiDocument | undefined;
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

export function contract(): OpenApiDocument {
  document ??= JSON.parse(fs.readFileSync(CONTRACT_PATH, 'utf8')) as OpenApiDocument;
  return document;
}

/** Names of every component schema in the contract. */
export function schemaNames(): string[] {
  return Object.keys(contract().components.schemas);
}

function validatorFor(schemaName: string): ValidateFunction {
  const cached = compiled.get(schemaName);
  if (cached) return cached;
  const { components } = contract();
  if (!(schemaName in components.schemas)) {
    throw new Error(`no component schema "${schemaName}" in ${CONTRACT_PATH}`);
  }
  if (!ajv) {
    // strict: false — the OpenAPI document carries keywords (example, …) plain JSON Schema does not know.
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
  }
  const validate = ajv.compile({
    $id: `urn:vulnscope-contract:${encodeURIComponent(schemaName)}`,
    $ref: `#/components/schemas/${schemaName.replace(/~/g, '~0').replace(/\//g, '~1')}`,
    components,
  });
  compiled.set(schemaName, validate);
  return validate;
}

/**
 * Validates `body` against the named component schema (e.g.
 * `render.ResponseWithMetadata-array_api_TargetIntel-paginate_Pagination`). Returns the ajv errors,
 * `[]` when the body is valid.
 */
export function validateAgainst(schemaName: string, body: unknown): ErrorObject[] {
  const validate = validatorFor(schemaName);
  return validate(body) ? [] : [...(validate.errors ?? [])];
}

/** One line per error, for readable assertion failures. */
export function describeErrors(errors: ErrorObject[]): string[] {
  return errors.map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
}

/** JSON pointers of every `null` in `value`. */
export function nullPaths(value: unknown, path = ''): string[] {
  if (value === null) return [path || '/'];
  if (typeof value !== 'object') return [];
  const out: string[] = [];
  for (const [key, item] of Object.entries(value as Record<string, unknown>))
    out.push(...nullPaths(item, `${path}/${key}`));
  return out;
}

/** Problems of one record: schema errors (one line each) and nulls, which the schema names less clearly; `[]` when valid. */
export function contractProblems(record: unknown, schemaName = RECORD_SCHEMA): string[] {
  return [
    ...describeErrors(validateAgainst(schemaName, record)),
    ...nullPaths(record).map((path) => `${path} is null`),
  ];
}
