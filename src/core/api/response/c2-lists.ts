import { type Static, Type } from '@sinclair/typebox';

const Families = Type.Array(Type.String(), {
  description:
    'The C2 families (classification products, e.g. `cobalt_strike`) the entry is classified under, sorted; absent when none is known',
  minItems: 1,
});

/** `GET /v3/tags/vulncheck-c2?format=json`. */
export const C2AddressList = Type.Array(
  Type.Object(
    {
      ip: Type.String({
        description: 'An IP address, or a network (CIDR) a classification list names as a whole',
      }),
      families: Type.Optional(Families),
    },
    { $id: 'C2Address', additionalProperties: false },
  ),
  { $id: 'C2AddressList', description: 'C2 addresses, IPv4 before IPv6, in address order' },
);
export type C2AddressList = Static<typeof C2AddressList>;

/** `GET /v3/pdns/vulncheck-c2?format=json`. */
export const C2HostnameList = Type.Array(
  Type.Object(
    {
      hostname: Type.String({ description: 'A hostname, lower-case' }),
      families: Type.Optional(Families),
    },
    { $id: 'C2Hostname', additionalProperties: false },
  ),
  { $id: 'C2HostnameList', description: 'C2 hostnames in alphabetical order' },
);
export type C2HostnameList = Static<typeof C2HostnameList>;

/** The text format of both lists: firewalls and DNS resolvers read it as it is. */
export const C2ListText = Type.String({
  $id: 'C2ListText',
  description: 'One entry per line, separated by a newline (none after the last); empty when the list is empty',
});
