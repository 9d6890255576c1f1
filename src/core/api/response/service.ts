import { type Static, Type } from '@sinclair/typebox';
import { Benchmark, Instant } from './common.js';

/** `GET /healthz`: 200 when this process serves the API, else 503 with the same body. */
export const Health = Type.Object(
  {
    status: Type.Union(
      [Type.Literal('ok'), Type.Literal('starting'), Type.Literal('draining'), Type.Literal('unavailable')],
      { description: '`unavailable`: the database does not answer' },
    ),
    live: Type.Literal(true),
    ready: Type.Boolean({ description: 'Whether this process serves the API (status ok)' }),
    rate_limit: Type.Union([Type.Literal('shared'), Type.Literal('per-instance'), Type.Literal('memory')], {
      description:
        'How request budgets are counted: shared (Redis), per-instance (Redis unreachable) or memory (no Redis configured)',
    }),
  },
  { $id: 'Health' },
);
export type Health = Static<typeof Health>;

/** `GET /healthz/live`: 200 while the process runs. */
export const Liveness = Type.Object({ live: Type.Literal(true) }, { $id: 'Liveness' });
export type Liveness = Static<typeof Liveness>;

/** `GET /whoami`. */
export const WhoAmI = Type.Object(
  {
    _benchmark: Benchmark,
    data: Type.Object({
      id: Type.Integer({ minimum: 1, description: 'Token id' }),
      name: Type.String({ description: 'Token name' }),
      created_at: Instant('When the token was created'),
    }),
  },
  { $id: 'WhoAmI' },
);
export type WhoAmI = Static<typeof WhoAmI>;

/** `GET /openapi.json`: this document. */
export const OpenApiDocument = Type.Object(
  {
    openapi: Type.String({ pattern: '^3\\.1\\.' }),
    info: Type.Object({ title: Type.String(), version: Type.String() }),
    paths: Type.Object({}),
    components: Type.Object({}),
  },
  { $id: 'OpenApiDocument', description: 'OpenAPI 3.1 document of this server' },
);
