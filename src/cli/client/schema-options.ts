/**
 * Command-line options made from an endpoint's query schema (src/core/api): one option per
 * parameter, named exactly as the API names it (`--country_code`, `--contains_cve`), as the
 * official VulnCheck CLI names its index flags. Values are read by the schema's type: integers and
 * `true`/`false` are checked here (a usage error), the rest the server validates.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { type Command, InvalidArgumentError, Option } from 'commander';

interface PropertySchema {
  type?: string;
  const?: string;
  anyOf?: Array<{ const?: string }>;
  description?: string;
  minimum?: number;
  maximum?: number;
}

/** Parameters no command takes as an option: the token goes in a header, cursor walks are `--all`. */
export const NOT_OPTIONS = new Set(['token', 'start_cursor', 'cursor']);

const integer = (name: string, schema: PropertySchema) => (value: string) => {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError(`--${name} expects a whole number`);
  }
  if ((schema.minimum !== undefined && n < schema.minimum) || (schema.maximum !== undefined && n > schema.maximum)) {
    throw new InvalidArgumentError(`--${name} expects ${schema.minimum ?? '…'}–${schema.maximum ?? '…'}`);
  }
  return n;
};

const boolean = (name: string) => (value: string) => {
  const text = value.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new InvalidArgumentError(`--${name} expects true or false`);
};

/** The names of a schema's parameters that become options. */
export function optionNames(schema: TObject): string[] {
  return Object.keys(schema.properties).filter((name) => !NOT_OPTIONS.has(name));
}

/** Adds an option for each parameter of `schema` (the required ones as required options). */
export function addSchemaOptions(command: Command, schema: TObject): Command {
  const required = new Set(schema.required ?? []);
  for (const name of optionNames(schema)) {
    const property = schema.properties[name] as TSchema & PropertySchema;
    const choices = property.anyOf?.every((item) => typeof item.const === 'string')
      ? property.anyOf.map((item) => item.const!)
      : property.const !== undefined
        ? [property.const]
        : undefined;
    const placeholder =
      property.type === 'integer' ? 'n' : property.type === 'boolean' ? 'true|false' : choices ? 'value' : 'text';
    const option = new Option(`--${name} <${placeholder}>`, property.description ?? name);
    if (choices) option.choices(choices);
    else if (property.type === 'integer') option.argParser(integer(name, property));
    else if (property.type === 'boolean') option.argParser(boolean(name));
    if (required.has(name)) option.makeOptionMandatory();
    command.addOption(option);
  }
  return command;
}

/** The query of the options given: each parameter of `schema` the user set, under its API name. */
export function queryOf<Q>(schema: TObject, options: Record<string, unknown>): Q {
  const query: Record<string, unknown> = {};
  for (const name of optionNames(schema)) {
    // commander keeps `--country_code` as `country_code` (it camel-cases dashes only).
    if (options[name] !== undefined) query[name] = options[name];
  }
  return query as Q;
}
