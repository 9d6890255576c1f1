import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describeErrors } from './contract.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object at type level.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => unknown;

export interface OpenApi {
  paths?: Record<string, Record<string, { responses: Record<string, OpenApiResponse> }>>;
  components: { schemas: Record<string, unknown> };
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema?: unknown }>;
}

const pointer = (...parts: string[]) =>
  parts.map((part) => `/${part.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/**
 * Validation against the schemas of an OpenAPI 3.1 document (JSON Schema 2020-12): the whole
 * document is registered under one id, so a response's schema and its `#/components/...` refs
 * resolve inside it unchanged.
 */
export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly id: string;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    readonly document: OpenApi,
    name: string,
  ) {
    addFormats(this.ajv);
    // The archive download's body is bytes, never validated as JSON.
    this.ajv.addFormat('binary', true);
    this.id = `urn:openapi:${name}`;
    this.ajv.addSchema({ ...document, $id: this.id });
  }

  /** The declared answer of an operation for a status, or undefined when the document has none. */
  response(path: string, method: string, status: number): OpenApiResponse | undefined {
    return this.document.paths?.[path]?.[method]?.responses[String(status)];
  }

  /** Problems of `body` against the schema declared for that answer and media type; `[]` when valid. */
  responseProblems(path: string, method: string, status: number, media: string, body: unknown): string[] {
    const declared = this.response(path, method, status)?.content?.[media];
    if (!declared?.schema) return [`${method} ${path} declares no ${media} schema for ${status}`];
    return this.problems(pointer('paths', path, method, 'responses', String(status), 'content', media, 'schema'), body);
  }

  /** Problems of `value` against a named component schema; `[]` when valid. */
  componentProblems(name: string, value: unknown): string[] {
    if (!(name in this.document.components.schemas)) return [`no component schema "${name}"`];
    return this.problems(pointer('components', 'schemas', name), value);
  }

  private problems(at: string, value: unknown): string[] {
    let validate = this.compiled.get(at);
    if (!validate) {
      validate = this.ajv.getSchema(`${this.id}#${at}`);
      if (!validate) throw new Error(`no schema at ${at}`);
      this.compiled.set(at, validate);
    }
    return validate(value) ? [] : describeErrors([...(validate.errors ?? [])]);
  }
}
