import type { TSchema } from '@sinclair/typebox';

type Json = Record<string, unknown>;

/** Keywords whose value is one subschema, a list of them, or a map of them (the rest are data). */
const ONE = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const MAP = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The named schemas of a document: each subschema carrying a TypeBox `$id` becomes
 * `components.schemas[$id]` and is referenced by `$ref` wherever it is used, so a record shape
 * shared by a page and an export line is one component.
 */
export class SchemaComponents {
  readonly schemas: Record<string, Json> = {};

  /** `schema` as plain JSON Schema with its named parts replaced by references. */
  use(schema: TSchema): Json {
    // JSON round trip: TypeBox's symbol keys are not part of the schema.
    return this.visit(JSON.parse(JSON.stringify(schema)) as Json);
  }

  private visit(node: Json): Json {
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$id') continue;
      if (ONE.has(key) && isObject(value)) out[key] = this.visit(value);
      else if (LIST.has(key) && Array.isArray(value)) out[key] = value.map((item: Json) => this.visit(item));
      else if (MAP.has(key) && isObject(value))
        out[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, this.visit(item as Json)]));
      else out[key] = value;
    }
    const name = node.$id;
    if (typeof name !== 'string') return out;
    const known = this.schemas[name];
    if (known && JSON.stringify(known) !== JSON.stringify(out)) {
      throw new Error(`two different schemas are named "${name}"`);
    }
    this.schemas[name] = out;
    return { $ref: `#/components/schemas/${name}` };
  }
}
