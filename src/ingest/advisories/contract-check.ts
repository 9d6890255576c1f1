/**
 * Test-only: validates records against the contract schema `advisory.MitreCVEListV5Ref`
 * (components.schemas of /work/shared/contract/vulncheck-openapi.subset.json; OpenAPI 3.1 =
 * JSON Schema 2020-12). The whole `components` object is added as one schema with an `$id`, so the
 * document's `#/components/schemas/...` refs resolve unchanged. Also reports any `null` (the
 * schema rejects it too, but a direct check names every place).
 */
import fs from 'node:fs';
import ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

// CommonJS modules under NodeNext: the classes are the modules' `default` members.
const Ajv2020 = ajv2020.default;
const addFormats = ajvFormats.default;

export const CONTRACT_PATH =
  process.env.VULNSCOPE_CONTRACT_PATH ?? '/work/shared/contract/vulncheck-openapi.subset.json';
export const RECORD_SCHEMA = 'advisory.MitreCVEListV5Ref';
const COMPONENTS_ID = 'urn:vulnscope:advisory-contract';

export interface ContractDocument {
  components: { schemas: Record<string, unknown> };
}

let document: ContractDocument | undefined;
const validators = new Map<string, ValidateFunction>();
let ajv: InstanceType<typeof Ajv2020> | undefined;

export function contractDocument(): ContractDocument {
  document ??= JSON.parse(fs.readFileSync(CONTRACT_PATH, 'utf8')) as ContractDocument;
  return document;
}

function validator(schemaName: string): ValidateFunction {
  let validate = validators.get(schemaName);
  if (validate) return validate;
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: COMPONENTS_ID, components: contractDocument().components });
  }
  const compiled = ajv.compile({ $ref: `${COMPONENTS_ID}#/components/schemas/${schemaName}` });
  validators.set(schemaName, compiled);
  return compiled;
}

/** JSON pointers of every `null` in `value`. */
export function nullPaths(value: unknown, path = ''): string[] {
  if (value === null) return [path || '/'];
  if (typeof value !== 'object') return [];
  const out: string[] = [];
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) out.push(...nullPaths(item, `${path}/${key}`));
  return out;
}

/** Problems of one record: schema errors (one line each) and nulls; `[]` when it is valid. */
export function contractProblems(record: unknown, schemaName = RECORD_SCHEMA): string[] {
  const validate = validator(schemaName);
  const problems: string[] = [];
  if (!validate(record)) {
    for (const e of validate.errors as ErrorObject[]) {
      problems.push(`${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
    }
  }
  for (const path of nullPaths(record)) problems.push(`${path} is null`);
  return problems;
}

/** Test helper: every item of an adapter run. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Test helper: a zip archive (built with yazl) holding the given entries. */
export async function zipOf(entries: Array<[string, string | Buffer]>): Promise<Buffer> {
  const { default: yazl } = await import('yazl');
  const zip = new yazl.ZipFile();
  for (const [name, data] of entries) {
    if (name.endsWith('/')) zip.addEmptyDirectory(name);
    else zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
