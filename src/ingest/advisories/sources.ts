/**
 * The inputs an advisory adapter accepts, as a sequence of documents (byte streams with a name):
 * a plain or gzipped file, a directory tree (walked recursively in name order), or a zip archive
 * (entries in archive order; a zip inside the zip — cvelistV5 release zips carry `cves.zip` — is
 * streamed to a temporary file and read the same way). Gzip is recognised by its magic bytes.
 * Documents are produced one at a time: the consumer reads each before asking for the next.
 */
import { createReadStream, createWriteStream, type Stats } from 'node:fs';
import { mkdtemp, open, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, basename } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';
import { invalidInput, unreadableInput } from '../../core/errors.js';

export interface SourceDocument {
  /** For reports: the file path, or `archive.zip#member` (nested: `a.zip#cves.zip#cves/…`). */
  name: string;
  /** The document's bytes, gunzipped when they are gzip. */
  open(): Promise<Readable>;
}

/** Decides which files of a directory or zip are documents (by path inside the tree). */
export type AcceptName = (path: string) => boolean;

const isGzip = (head: Buffer) => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
const isZip = (head: Buffer) =>
  head.length >= 4 &&
  head[0] === 0x50 &&
  head[1] === 0x4b &&
  (head[2] === 3 || head[2] === 5) &&
  (head[3] === 4 || head[3] === 6);

/** Reads the first bytes of a stream and returns them with a stream that still yields everything. */
async function peek(stream: Readable, bytes: number): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = stream[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  let finished = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      finished = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : (next.value as Buffer);
    chunks.push(chunk);
    length += chunk.length;
  }
  const head = Buffer.concat(chunks);
  async function* rest(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (finished) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield typeof next.value === 'string' ? Buffer.from(next.value) : (next.value as Buffer);
    }
  }
  const combined = Readable.from(rest(), { objectMode: false });
  combined.once('close', () => {
    if (!stream.destroyed) stream.destroy();
  });
  return { head, stream: combined };
}

/**
 * Gunzips `stream` when it starts with the gzip magic bytes. Damaged or truncated gzip data ends
 * the stream with one error naming the document (`name`), not zlib's bare "unexpected end of file".
 */
export async function decompressed(stream: Readable, name?: string): Promise<Readable> {
  const peeked = await peek(stream, 2);
  if (!isGzip(peeked.head)) return peeked.stream;
  const gunzip = createGunzip();
  // Errors of either stream end up on `gunzip`, which the reader consumes.
  pipeline(peeked.stream, gunzip).catch(() => {});
  if (name === undefined) return gunzip;
  const named = new PassThrough();
  gunzip.on('error', (error) => named.destroy(isGzipDataError(error) ? gzipError(name, error) : error));
  named.once('close', () => gunzip.destroy());
  gunzip.pipe(named);
  return named;
}

/** True for the errors zlib raises on damaged or truncated gzip data. */
const isGzipDataError = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
};

const gzipError = (name: string, error: Error) =>
  unreadableInput(`${name}: corrupt or truncated gzip data (${error.message})`);

async function fileHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function inputError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return invalidInput(`advisory source not found: ${path}`);
  if (code === 'EACCES') return invalidInput(`cannot read ${path}: permission denied`);
  return error;
}

/**
 * The documents of `source`. A file named directly is always a document (or, when it is a zip,
 * its accepted members); inside directories and zips only names `accept` approves are read.
 */
export async function* sourceDocuments(source: string, accept: AcceptName): AsyncGenerator<SourceDocument> {
  let info: Stats;
  try {
    info = await stat(source);
  } catch (error) {
    throw inputError(source, error);
  }
  if (info.isDirectory()) {
    yield* directoryDocuments(source, '', accept);
    return;
  }
  if (isZip(await fileHead(source, 4))) {
    yield* zipDocuments(source, source, accept);
    return;
  }
  yield { name: source, open: () => decompressed(createReadStream(source), source) };
}

async function* directoryDocuments(root: string, relative: string, accept: AcceptName): AsyncGenerator<SourceDocument> {
  const entries = await readdir(join(root, relative), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
    const full = join(root, path);
    if (entry.isDirectory()) yield* directoryDocuments(root, path, accept);
    else if (entry.isFile() && accept(path))
      yield { name: full, open: () => decompressed(createReadStream(full), full) };
  }
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | undefined> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (entry: yauzl.Entry) => {
      cleanup();
      resolve(entry);
    };
    const onEnd = () => {
      cleanup();
      resolve(undefined);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

const openZip = (path: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) => (error ? reject(error) : resolve(zip))),
  );

const openEntry = (zip: yauzl.ZipFile, entry: yauzl.Entry) =>
  new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))),
  );

async function* zipDocuments(path: string, label: string, accept: AcceptName): AsyncGenerator<SourceDocument> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch (error) {
    throw invalidInput(`cannot read zip ${label}: ${(error as Error).message}`);
  }
  try {
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      const current = entry;
      if (/\.zip$/i.test(name)) {
        const dir = await mkdtemp(join(tmpdir(), 'vulnscope-advisory-zip-'));
        try {
          const inner = join(dir, basename(name));
          await pipeline(await openEntry(zip, current), createWriteStream(inner));
          yield* zipDocuments(inner, `${label}#${name}`, accept);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      } else if (accept(name)) {
        const document = `${label}#${name}`;
        yield { name: document, open: async () => decompressed(await openEntry(zip, current), document) };
      }
    }
  } finally {
    zip.close();
  }
}
