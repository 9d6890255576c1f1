/**
 * Name-based UUIDs, version 5 (RFC 4122 §4.3; RFC 9562 §5.5): SHA-1 of the namespace UUID's 16
 * bytes followed by the name's UTF-8 bytes, first 16 bytes of the digest, version and variant set.
 * The same namespace and name always give the same UUID.
 */
import { createHash } from 'node:crypto';
import { invalidInput } from './errors.js';

/** The namespaces RFC 4122 Appendix C defines. */
export const UUID_NAMESPACES = {
  dns: '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
  url: '6ba7b811-9dad-11d1-80b4-00c04fd430c8',
  oid: '6ba7b812-9dad-11d1-80b4-00c04fd430c8',
  x500: '6ba7b814-9dad-11d1-80b4-00c04fd430c8',
} as const;

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidBytes(uuid: string): Buffer {
  if (!UUID_PATTERN.test(uuid)) throw invalidInput(`not a UUID: ${JSON.stringify(uuid)}`);
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/** The version-5 UUID of `name` in `namespace` (lower-case, hyphenated). */
export function uuidV5(namespace: string, name: string): string {
  const digest = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
