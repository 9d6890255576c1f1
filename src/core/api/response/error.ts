import { type Static, Type } from '@sinclair/typebox';

/** Every 4xx and 5xx body; named `ErrorResponse` in the document, like VulnCheck's `search.ErrorResponse`. */
export const ErrorBody = Type.Object(
  {
    error: Type.Literal(true),
    errors: Type.Array(Type.String(), {
      minItems: 1,
      description: 'What went wrong; a bad parameter is named in the message',
    }),
  },
  { $id: 'ErrorResponse', description: 'An error answer' },
);
export type ErrorBody = Static<typeof ErrorBody>;
