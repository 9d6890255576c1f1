/**
 * A migration's data step: records stored before advisory records carried provenance get it, as a
 * load by the current adapters would store them (same JSON, same content hash, so the next load of
 * an unchanged source finds them unchanged). Rows are rewritten in place, in batches by row id.
 */
import { withProvenance } from '../../core/advisory/provenance.js';
import type { Sql } from '../database.js';
import { putSetting } from '../settings.js';
import { contentHash } from './load.js';

/** When stored records were last rewritten in place (epoch ms): archives written before are stale. */
export const RECORDS_REWRITTEN_AT = 'advisories_rewritten_at';

/**
 * The adapters whose containers named a provider that was not the feed: KEV `CISA`, OSV the id
 * prefix's database, NVD the assigner. Their providers are now the feed.
 */
const FEED_PROVIDED = new Set(['cisa-kev', 'osv', 'nist-nvd2']);

const BATCH = 200;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored record in the shape the current adapter gives it (`record` is changed in place). */
function currentShape(record: unknown, feed: string, adapter: string | undefined): unknown {
  if (adapter !== undefined && FEED_PROVIDED.has(adapter) && isObject(record) && isObject(record.containers)) {
    const provider = isObject(record.containers.cna) ? record.containers.cna.providerMetadata : undefined;
    if (isObject(provider)) {
      delete provider.orgId;
      delete provider.shortName;
    }
  }
  return withProvenance(record, feed);
}

export async function fillAdvisoryProvenance(tx: Sql): Promise<void> {
  const feeds = await tx.all<{ name: string; adapter: string }>(`SELECT name, adapter FROM advisory_feeds`);
  const adapterOf = new Map(feeds.map((feed) => [feed.name, feed.adapter]));
  let after = 0;
  let rewritten = 0;
  for (;;) {
    const rows = await tx.all<{ id: number | string; feed: string; record: string }>(
      `SELECT id, feed, record FROM advisories WHERE id > ? ORDER BY id LIMIT ${BATCH}`,
      [after],
    );
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.id);
    const updates: Array<{ id: number; json: string; hash: string }> = [];
    for (const row of rows) {
      let json: string;
      try {
        json = JSON.stringify(currentShape(JSON.parse(row.record), row.feed, adapterOf.get(row.feed)));
      } catch {
        continue; // not JSON: left as it is, as the served text has always been
      }
      if (json !== row.record) updates.push({ id: Number(row.id), json, hash: contentHash(json) });
    }
    if (updates.length === 0) continue;
    rewritten += updates.length;
    // One statement per batch; the CASTs keep PostgreSQL from typing the ids as text.
    const when = updates.map(() => 'WHEN CAST(? AS BIGINT) THEN ?').join(' ');
    await tx.run(
      `UPDATE advisories SET record = CASE id ${when} END, content_hash = CASE id ${when} END
       WHERE id IN (${updates.map(() => 'CAST(? AS BIGINT)').join(', ')})`,
      [
        ...updates.flatMap((update) => [update.id, update.json]),
        ...updates.flatMap((update) => [update.id, update.hash]),
        ...updates.map((update) => update.id),
      ],
    );
  }
  if (rewritten > 0) await putSetting(tx, RECORDS_REWRITTEN_AT, String(Date.now()));
}
