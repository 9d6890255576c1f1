/**
 * The index-backed lookups of `/v3/tags/vulncheck-c2`, `/v3/pdns/vulncheck-c2` and the
 * target-intel side of `/v3/search/cve`, timed in process as their routes make them: the lists
 * through the route's kept bodies (first: read from the index and formatted; then: kept), and a
 * page of the records naming the CVE most records name (the posting list, then the records read).
 */
import type { C2ListFormat } from '../src/core/api/index.js';
import { classifiedAddresses, classifiedHostnames } from '../src/search/classified-members.js';
import type { IndexSync } from '../src/search/index-sync.js';
import { KeptListBodies } from '../src/server/routes/c2-lists/body.js';
import { parseHostQuery } from '../src/server/routes/target-intel/query.js';
import { ClassifiedLists } from '../src/services/classified-lists.js';
import type { Storage } from '../src/storage/index.js';
import { percentile } from './http-load.js';

const PAGE = 100;

async function timed(runs: number, fn: () => Promise<unknown>): Promise<{ firstMs: number; p50Ms: number }> {
  let started = performance.now();
  await fn();
  const firstMs = performance.now() - started;
  const wall: number[] = [];
  for (let run = 0; run < runs; run++) {
    started = performance.now();
    await fn();
    wall.push(performance.now() - started);
  }
  return {
    firstMs,
    p50Ms: percentile(
      wall.sort((a, b) => a - b),
      0.5,
    ),
  };
}

type ListKind = 'addresses' | 'hostnames';

/** A C2 list as its route gets it: the list now, and its whole body (kept or made); returns the body's bytes and entries. */
export async function listBodyOf(
  lists: ClassifiedLists,
  bodies: KeptListBodies,
  engine: IndexSync,
  kind: ListKind,
  format: C2ListFormat,
): Promise<{ bytes: number; entries: () => number }> {
  const list = kind === 'addresses' ? await lists.addresses(engine, -Infinity) : lists.hostnames(engine, -Infinity);
  const body = bodies.body(list, format, kind === 'addresses' ? 'ip' : 'hostname');
  let bytes = 0;
  if (Buffer.isBuffer(body)) bytes = body.length;
  else for await (const chunk of body) bytes += (chunk as Buffer).length;
  const entries = () => {
    let count = 0;
    for (const _entry of list.entries()) count++;
    return count;
  };
  return { bytes, entries };
}

export async function printIndexLookups(storage: Storage, engine: IndexSync, runs: number): Promise<void> {
  const lists = new ClassifiedLists(storage, 'c2');
  const bodies = new KeptListBodies();
  console.log('\n| lookup | size | first ms | p50 ms |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, kind, format] of [
    ['C2 addresses, text', 'addresses', 'text'],
    ['C2 addresses, JSON', 'addresses', 'json'],
    ['C2 hostnames, text', 'hostnames', 'text'],
  ] as const) {
    let made = { bytes: 0, entries: () => 0 };
    const { firstMs, p50Ms } = await timed(runs, async () => {
      made = await listBodyOf(lists, bodies, engine, kind, format);
    });
    console.log(
      `| ${name} | ${made.entries().toLocaleString('en')} entries, ${made.bytes.toLocaleString('en')} bytes | ${firstMs.toFixed(1)} | ${p50Ms.toFixed(2)} |`,
    );
  }
  // What a request after any change of the index pays before formatting: the members read afresh.
  for (const [name, read] of [
    ['C2 addresses read afresh', () => classifiedAddresses(engine.index, engine.seq, 'c2', -Infinity).ipv4.length],
    ['C2 hostnames read afresh', () => classifiedHostnames(engine.index, engine.seq, 'c2', -Infinity).hostnames.length],
  ] as const) {
    let members = 0;
    const { firstMs, p50Ms } = await timed(runs, async () => {
      members = read();
    });
    console.log(`| ${name} | ${members.toLocaleString('en')} members | ${firstMs.toFixed(1)} | ${p50Ms.toFixed(2)} |`);
  }
  const top = await engine.readStill((index) => index.facets(parseHostQuery({}), [{ field: 'cve', top: 1 }]));
  const cve = top.counts.get('cve')?.values[0]?.value;
  if (typeof cve !== 'string') return;
  for (const [name, at] of [
    ['first page', 0],
    ['a middle page', 0.5],
  ] as const) {
    let records = 0;
    let naming = 0;
    const page = async () => {
      // Synchronously from the posting list to the page's ids, as the route reads them.
      const matches = engine.index.evaluate({ cve, dateAdded: [], observed: [] });
      naming = matches.size;
      const ids = Array.from(matches.rangeUint32Array(new Uint32Array(PAGE), Math.floor(matches.size * at), PAGE));
      records = (await storage.hosts.getPageRecords(ids)).length;
    };
    const { firstMs, p50Ms } = await timed(runs, page);
    console.log(
      `| search/cve target-intel, ${cve}: ${name} | ${records} of ${naming.toLocaleString('en')} records | ${firstMs.toFixed(1)} | ${p50Ms.toFixed(2)} |`,
    );
  }
}
