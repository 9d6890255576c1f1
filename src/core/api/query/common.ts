import { type Static, type TSchema, Type, type TUnsafe } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** What every declared parameter may carry besides its JSON Schema: the rules a schema cannot say. */
export const optional = <T extends TSchema>(schema: T) => Type.Optional(schema);

export const Flag = (description: string) => Type.Boolean({ description });

/** Free text, bounded so no request can ask the server to compare megabytes. */
export const Text = (description: string, maxLength = 500) => Type.String({ description, maxLength });

/** A day or an RFC 3339 date-time; whether the day exists is checked when it is read. */
export const DateOrDateTime = (description: string) =>
  Type.String({
    description: `${description} (YYYY-MM-DD or RFC 3339)`,
    pattern: '^\\d{4}-\\d{2}-\\d{2}([Tt ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?([Zz]|[+-]\\d{2}:?\\d{2}))?$',
    examples: ['2026-11-01', '2026-11-01T12:00:00Z'],
  });

export const CVE_PATTERN = '^[Cc][Vv][Ee]-\\d{4}-\\d{4,}$';

/**
 * Parameters given as strings (a URL's, a benchmark's) converted to their declared types, unchecked:
 * for callers that bypass the server's validation, whose values are known to be valid.
 */
export function typedQuery<T extends TSchema>(schema: T, strings: Record<string, string>): Static<T> {
  return Value.Convert(schema, strings) as Static<T>;
}

/** The token as a query parameter (`?token=`), one of the four ways to send it. */
export const TokenParameter = {
  token: optional(Type.String({ description: 'The API token, when not sent in a header or cookie' })),
};

/** One of fixed words, as a JSON Schema `enum` (what client generators turn into enum types). */
export const Words = <const T extends readonly string[]>(values: T, description: string): TUnsafe<T[number]> =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });

export const Order = Words(['asc', 'desc'], 'Sort direction');

/** A cursor walk continues with the opaque `_meta.next_cursor` of the previous page. */
export const CursorParameter = Type.String({
  description: 'Continue a cursor walk: the `_meta.next_cursor` of the previous page',
  maxLength: 4096,
});
