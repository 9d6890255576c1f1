/**
 * Downloads a feed source over HTTP(S) to a temporary file (streamed, never held in memory),
 * with a conditional request when the previous download's validators are known.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { invalidInput } from '../../core/errors.js';

export interface DownloadOptions {
  etag?: string;
  lastModified?: string;
  onProgress?: (bytes: number, total: number | undefined) => void;
}

export type Download =
  | { notModified: true }
  | { notModified: false; file: string; etag?: string; lastModified?: string; bytes: number; cleanup(): Promise<void> };

/** The URL's file name (adapters recognise `.json`, `.jsonl.gz`, `.zip`, …), made safe for the file system. */
function fileNameOf(url: URL): string {
  const name = basename(decodeURIComponent(url.pathname)).replace(/[^A-Za-z0-9._-]/g, '_');
  return name === '' || name === '.' || name === '..' ? 'download' : name;
}

export async function downloadToTemp(source: string, options: DownloadOptions = {}): Promise<Download> {
  const url = new URL(source);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidInput(`not an http(s) URL: ${source}`);
  const headers: Record<string, string> = { 'user-agent': 'vulnscope-sync' };
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;
  let response: Response;
  try {
    response = await fetch(url, { headers, redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: Error }).cause;
    throw invalidInput(`cannot download ${source}: ${cause?.message ?? (error as Error).message}`);
  }
  if (response.status === 304) {
    await response.body?.cancel();
    return { notModified: true };
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw invalidInput(`cannot download ${source}: HTTP ${response.status} ${response.statusText}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'vulnscope-sync-'));
  const file = join(dir, fileNameOf(url));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : undefined;
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      options.onProgress?.(bytes, total);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body as unknown as WebReadableStream), count, createWriteStream(file));
  } catch (error) {
    await cleanup();
    throw invalidInput(`download of ${source} failed: ${(error as Error).message}`);
  }
  if (total !== undefined && bytes !== total) {
    await cleanup();
    throw invalidInput(`download of ${source} ended early: ${bytes} of ${total} bytes`);
  }
  return {
    notModified: false,
    file,
    bytes,
    cleanup,
    ...(response.headers.get('etag') ? { etag: response.headers.get('etag')! } : {}),
    ...(response.headers.get('last-modified') ? { lastModified: response.headers.get('last-modified')! } : {}),
  };
}
