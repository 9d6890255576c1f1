/**
 * Expiring download URLs: `/backup-files/<kind>/<name>/<file>.zip?expires=<unix s>&signature=<hmac>`,
 * signed with the server secret over the path and the expiry. They need no token (clients fetch them
 * without auth), so the path is public; the signature is the authorisation.
 */
import { sign, verifySignature } from '../core/signing.js';
import type { ArchiveMeta } from './store.js';

export const DOWNLOAD_PREFIX = '/backup-files/';

export function downloadPath(meta: Pick<ArchiveMeta, 'kind' | 'name' | 'file'>): string {
  return `${DOWNLOAD_PREFIX}${meta.kind}/${encodeURIComponent(meta.name)}/${encodeURIComponent(meta.file)}`;
}

const payload = (path: string, expires: number) => `backup-download\n${path}\n${expires}`;

export interface SignedUrl {
  url: string;
  /** Unix seconds. */
  expires: number;
}

export function signedDownloadUrl(
  secret: string,
  publicUrl: string,
  meta: Pick<ArchiveMeta, 'kind' | 'name' | 'file'>,
  ttlMinutes: number,
  now = Date.now(),
): SignedUrl {
  const path = downloadPath(meta);
  const expires = Math.floor(now / 1000) + ttlMinutes * 60;
  return { url: `${publicUrl}${path}?expires=${expires}&signature=${sign(secret, payload(path, expires))}`, expires };
}

/**
 * The expiry exactly as `signedDownloadUrl` writes it: decimal without a sign or leading zeros.
 * The signature covers the number, so another spelling of it (`0179…`) must not verify.
 */
const CANONICAL_EXPIRES = /^(0|[1-9]\d{0,11})$/;

/** 'ok', or why the URL is refused. */
export function checkDownloadSignature(
  secret: string,
  path: string,
  expires: unknown,
  signature: unknown,
  now = Date.now(),
): 'ok' | 'invalid' | 'expired' {
  if (
    typeof expires !== 'string' ||
    !CANONICAL_EXPIRES.test(expires) ||
    typeof signature !== 'string' ||
    signature === ''
  )
    return 'invalid';
  if (!verifySignature(secret, payload(path, Number(expires)), signature)) return 'invalid';
  return Number(expires) * 1000 <= now ? 'expired' : 'ok';
}
