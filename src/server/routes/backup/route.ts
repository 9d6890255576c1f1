/**
 * Backups: `GET /v4/backup` and `/v4/backup/{feed}` (advisory feeds, entitlement-checked),
 * `GET /v3/backup`, `/v3/backup/{index}` and `/v3/index` (v3 indexes), and the signed, token-free
 * download `GET /backup-files/{v3|v4}/{name}/{file}.zip` (Content-Length, ETag, Range).
 */
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkDownloadSignature, DOWNLOAD_PREFIX, signedDownloadUrl } from '../../../backup/urls.js';
import { V3_INDEXES } from '../../../backup/sources.js';
import { BackupStore, isSafeName, type ArchiveMeta, type BackupKind } from '../../../backup/store.js';
import { coversFeed } from '../../../core/entitlements.js';
import { notFound, paymentRequired, VulnscopeError } from '../../../core/errors.js';
import { FeedRegistry } from '../../../services/feed-registry.js';
import type { AppContext } from '../../context.js';
import { entitlementOf, knownFeeds, listableFeeds } from '../../feed-access.js';
import { benchmarkSeconds } from '../../plugins/timing.js';
import { BackupArchive, DownloadPath, DownloadQuery, ENDPOINTS } from '../../../core/api/index.js';
import { routeSchema } from '../../route-schema.js';

const forbidden = (message: string) => new VulnscopeError(403, 'forbidden', message);
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The v4 regions whose URL fields all carry the same URL on a self-hosted server. */
const V4_URL_FIELDS = ['url_mrap', 'url_us-east-1', 'url_eu-west-2', 'url_ap-southeast-2'] as const;
const V3_URL_FIELDS = [
  'url_mrap',
  'url_us-east-1',
  'url_us-west-2',
  'url_eu-west-2',
  'url_ap-southeast-2',
  'url_il-central-1',
  'url_me-central-1',
] as const;

export function registerBackup(
  app: FastifyInstance,
  context: AppContext,
  store = new BackupStore(context.config.backupDir),
  registry = new FeedRegistry(context.config.feeds),
): void {
  const { config } = context;
  const signed = (meta: ArchiveMeta) =>
    signedDownloadUrl(context.secret, config.publicUrl, meta, config.backupUrlTtlMinutes);

  app.get(ENDPOINTS.backups.path, { schema: routeSchema(ENDPOINTS.backups) }, async (request) => {
    const feeds = await listableFeeds(request.token!, config, registry, context.storage.advisories);
    await store.checkAvailable();
    const data = [];
    for (const feed of feeds) {
      const latest = await store.latest('v4', feed.name);
      data.push({
        name: feed.name,
        href: `${config.publicUrl}/v4/backup/${encodeURIComponent(feed.name)}`,
        available: latest !== undefined,
        ...(latest ? { backup_written_at: rfc3339(latest.writtenAt) } : {}),
      });
    }
    return { data };
  });

  app.get(ENDPOINTS.backup.path, { schema: routeSchema(ENDPOINTS.backup) }, async (request) => {
    const name = (request.params as { feed: string }).feed;
    const feed = (await knownFeeds(registry, context.storage.advisories)).find((candidate) => candidate.name === name);
    if (!feed || !isSafeName(name))
      throw notFound(`not found: no advisory feed "${name}" (GET /v4/backup lists the feeds)`);
    const entitlement = entitlementOf(request.token!, config);
    if (!coversFeed(entitlement, name))
      throw paymentRequired(`payment required: token "${request.token!.name}" is not entitled to feed "${name}"`);
    await store.checkAvailable();
    const latest = await store.latest('v4', name);
    if (!latest) return { feed: name, available: false };
    const url = signed(latest);
    return {
      feed: name,
      available: true,
      sha256: latest.sha256,
      url_ttl_minutes: config.backupUrlTtlMinutes,
      url_expires: rfc3339(url.expires * 1000),
      ...Object.fromEntries(V4_URL_FIELDS.map((field) => [field, url.url])),
    };
  });

  /** target-intel always; cpecve once an archive of it exists. */
  const indexList = async (request: FastifyRequest, base: string) => {
    const listed = [];
    for (const index of V3_INDEXES)
      if (index.listedBeforeArchive || (await store.latest('v3', index.name)) !== undefined) listed.push(index);
    return {
      _benchmark: benchmarkSeconds(request),
      data: listed.map((index) => ({
        name: index.name,
        description: index.description,
        href: `${config.publicUrl}${base}/${index.name}`,
      })),
    };
  };

  app.get(ENDPOINTS.indexBackups.path, { schema: routeSchema(ENDPOINTS.indexBackups) }, async (request) => {
    await store.checkAvailable();
    return indexList(request, '/v3/backup');
  });

  app.get(ENDPOINTS.indexes.path, { schema: routeSchema(ENDPOINTS.indexes) }, async (request) =>
    indexList(request, '/v3/index'),
  );

  app.get(ENDPOINTS.indexBackup.path, { schema: routeSchema(ENDPOINTS.indexBackup) }, async (request) => {
    const name = (request.params as { index: string }).index;
    if (!V3_INDEXES.some((index) => index.name === name)) {
      throw notFound(
        `not found: no backup of index "${name}" (GET /v3/backup lists the index backups: ${V3_INDEXES.map((i) => i.name).join(', ')})`,
      );
    }
    await store.checkAvailable();
    const archives = await store.list('v3', name);
    if (archives.length === 0)
      throw notFound(
        `not found: no backup of index "${name}" has been written yet (vulnscope backup write --index ${name})`,
      );
    return {
      _benchmark: benchmarkSeconds(request),
      _meta: { timestamp: new Date().toISOString(), index: name },
      data: archives.map((meta) => {
        const url = signed(meta);
        return {
          filename: meta.file,
          sha256: meta.sha256,
          date_added: new Date(meta.writtenAt).toISOString(),
          url: url.url,
          ...Object.fromEntries(V3_URL_FIELDS.map((field) => [field, url.url])),
          url_ttl_minutes: config.backupUrlTtlMinutes,
          url_expires: rfc3339(url.expires * 1000),
        };
      }),
    };
  });

  // GET and HEAD in one route: Fastify's automatic HEAD route would read the whole file to discard it.
  app.route({
    method: ['GET', 'HEAD'],
    url: `${DOWNLOAD_PREFIX}:kind/:name/:file`,
    schema: {
      summary: 'Download a backup zip (signed URL from /v4/backup/{feed} or /v3/backup/{index}; no token)',
      tags: ['backup'],
      body200: BackupArchive,
      params: DownloadPath,
      querystring: DownloadQuery,
    },
    handler: async (request, reply) => {
      const { kind, name, file } = request.params as { kind: string; name: string; file: string };
      const query = request.query as { expires?: string; signature?: string };
      const path = request.url.split('?')[0]!;
      const check = checkDownloadSignature(context.secret, path, query.expires, query.signature);
      if (check === 'expired') throw forbidden('forbidden: this download URL has expired; request a new one');
      if (check !== 'ok') throw forbidden('forbidden: invalid download URL signature');
      if ((kind !== 'v3' && kind !== 'v4') || !isSafeName(name) || !isSafeName(file))
        throw notFound('not found: no such backup');
      await store.checkAvailable();
      const meta = await store.find(kind as BackupKind, name, file);
      if (!meta) throw notFound(`not found: backup ${file} is no longer kept; request a new URL`);
      return sendArchive(request, reply, store.pathOf(meta), meta);
    },
  });
}

/** The zip with Content-Length, ETag and single-range support (206, 416). */
async function sendArchive(request: FastifyRequest, reply: FastifyReply, file: string, meta: ArchiveMeta) {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch {
    throw notFound(`not found: backup ${meta.file} is no longer kept; request a new URL`);
  }
  const size = (await handle.stat()).size;
  const etag = `"${meta.sha256}"`;
  reply.header('Content-Type', 'application/zip');
  reply.header('Accept-Ranges', 'bytes');
  reply.header('ETag', etag);
  reply.header('Last-Modified', new Date(meta.writtenAt).toUTCString());
  reply.header('Cache-Control', 'private, max-age=0');
  reply.header('Content-Disposition', `attachment; filename="${meta.file}"`);
  // The client already holds these bytes: a 304 without a body (evaluated before Range, RFC 9110 §13.2.2).
  if (etagMatches(request.headers['if-none-match'], etag)) {
    await handle.close();
    reply.removeHeader('Content-Type');
    return reply.status(304).send();
  }
  const range = request.headers.range;
  const ifRange = request.headers['if-range'];
  let start = 0;
  let end = size - 1;
  if (typeof range === 'string' && (ifRange === undefined || ifRange === etag)) {
    const parsed = parseRange(range, size);
    if (parsed === 'unsatisfiable') {
      await handle.close();
      reply.header('Content-Range', `bytes */${size}`);
      reply.header('Content-Type', 'application/json; charset=utf-8');
      return reply.status(416).send({ error: true, errors: [`range not satisfiable: ${range} (size ${size})`] });
    }
    if (parsed) {
      [start, end] = parsed;
      reply.status(206);
      reply.header('Content-Range', `bytes ${start}-${end}/${size}`);
    }
  }
  reply.header('Content-Length', String(end - start + 1));
  if (request.method === 'HEAD' || size === 0) {
    await handle.close();
    return reply.send();
  }
  return reply.send(handle.createReadStream({ start, end, autoClose: true }));
}

/** Whether an `If-None-Match` header names this ETag (`*`, or a list compared weakly: `W/"x"` matches `"x"`). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag));
}

/** A single `bytes=` range, clamped; undefined to ignore the header (serve 200); 'unsatisfiable' for 416. */
export function parseRange(header: string, size: number): [number, number] | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== '' && Number(match[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return [start, end];
}
