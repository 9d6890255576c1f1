import { type Static, Type } from '@sinclair/typebox';

/** `GET /v3/entitlements` (VulnCheck's `models.Entitlements`). */
export const Entitlements = Type.Object(
  {
    entitlements: Type.Object(
      {
        feeds: Type.Array(Type.String(), { description: 'The advisory feeds the token may read, by name' }),
        rate_limit: Type.Array(Type.String(), {
          description:
            'Its request budget per endpoint group, as GROUP=REQUESTS/WINDOW (index=600/60s) or GROUP=unlimited',
        }),
        admin: Type.Array(Type.String(), {
          description:
            'Whether it is an admin token (may list, create and revoke every token): `["true"]` or `["false"]` (Vulnscope\'s own entry)',
        }),
      },
      { description: 'What the calling token may do, each as a list of strings' },
    ),
  },
  { $id: 'Entitlements' },
);
export type Entitlements = Static<typeof Entitlements>;
