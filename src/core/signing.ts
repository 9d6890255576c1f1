import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 over `payload` with the server secret, base64url. */
export function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function verifySignature(secret: string, payload: string, signature: string): boolean {
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** `base64url(JSON).signature` — opaque to clients, tamper-evident to us. */
export function sealJson(secret: string, value: unknown): string {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

/** The value sealed by sealJson, or undefined when malformed or tampered with. */
export function openJson(secret: string, sealed: string): unknown {
  const dot = sealed.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const payload = sealed.slice(0, dot);
  if (!verifySignature(secret, payload, sealed.slice(dot + 1))) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
