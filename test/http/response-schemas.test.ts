/**
 * Every endpoint's real answers against what the served /openapi.json declares for them: the 200
 * body of each (each line of the NDJSON exports), the error bodies, and the headers the document
 * says are always sent; and against the official contract's schemas where VulnCheck has the path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACET_FIELD_NAMES } from '../../src/core/api/index.js';
import { parseFeedEntitlement } from '../../src/core/entitlements.js';
import { Lifecycle } from '../../src/server/lifecycle.js';
import { FACET_FIELDS } from '../../src/search/facets/fields.js';
import { type BackupTestApp, local, startBackupApp } from '../backup/support.js';
import { CONTRACT_ERROR, contractOf } from '../support/contract-of.js';
import { engineCases } from '../support/engines.js';
import { ARCHIVED_FEED, loadEveryKind } from '../support/every-kind.js';
import { type OpenApi, OpenApiValidator } from '../support/openapi-validator.js';

const TI = '/v3/index/target-intel';
const ADVISORY = '/v4/advisory';
const TAGS = '/v3/tags/vulncheck-c2';
const PDNS = '/v3/pdns/vulncheck-c2';

interface Answer {
  method: 'get' | 'post' | 'delete';
  status: number;
  media: string;
  headers: Record<string, unknown>;
  text: string;
  /** The JSON body, or each line of an NDJSON one. */
  bodies: unknown[];
}

/** [documented path, request URL] of answers that must be 200. */
const OK: Array<[string, string]> = [
  [TI, TI],
  [TI, `${TI}?limit=5&page=2&sort=ip&order=asc`],
  [TI, `${TI}?show_pages=true&show_query=true&limit=3&contains_cve=true`],
  [TI, `${TI}?explain=true`],
  [TI, `${TI}?explain=true&cidr=198.51.100.200/29`],
  [TI, `${TI}?contains_cve=false&sort=port`],
  [TI, `${TI}?classifications=c2,cdn&country_code=US`],
  [TI, `${TI}?cve=CVE-1999-0001`],
  [TI, `${TI}?start_cursor=true&limit=2000`],
  [`${TI}/facets`, `${TI}/facets?fields=country,country_code,asn,as_name,port,protocol,vendor,product,version,cpe`],
  [`${TI}/facets`, `${TI}/facets?fields=cve:3,classifications,date_added,timestamp&contains_cve=true`],
  [`${TI}/facets`, `${TI}/facets?fields=port&cve=CVE-1999-0001`],
  [`${TI}/export`, `${TI}/export`],
  [`${TI}/export`, `${TI}/export?confirmed=true`],
  [`${TI}/export`, `${TI}/export?cve=CVE-1999-0001`],
  ['/v3/search/cpe', '/v3/search/cpe?vendor=apache&product=http_server'],
  ['/v3/search/cpe', '/v3/search/cpe?vendor=openbsd&product=openssh&version=8.6'],
  ['/v3/search/cpe', '/v3/search/cpe?vendor=fortinet&product=fortios&version=7.2.*'],
  ['/v3/search/cpe', '/v3/search/cpe?part=o&vendor=netapp&product=aff_a250_firmware&isVulnerable=true'],
  ['/v3/search/cpe', '/v3/search/cpe?part=a&limit=100&page=2&order=desc'],
  ['/v3/search/cpe', '/v3/search/cpe?vendor=no-such-vendor'],
  [ADVISORY, ADVISORY],
  [ADVISORY, `${ADVISORY}?name=mitre-cvelist-v5&limit=100`],
  [ADVISORY, `${ADVISORY}?name=nist-nvd2&limit=100`],
  [ADVISORY, `${ADVISORY}?name=cisa-kev&limit=100&page=3`],
  [ADVISORY, `${ADVISORY}?name=go-vulndb&limit=100`],
  [ADVISORY, `${ADVISORY}?name=pypa&limit=100`],
  [ADVISORY, `${ADVISORY}?name=rustsec&limit=100`],
  [ADVISORY, `${ADVISORY}?cve_id=CVE-2021-41617`],
  [ADVISORY, `${ADVISORY}?cve_id=CVE-1999-0001`],
  [`${ADVISORY}/export`, `${ADVISORY}/export`],
  [`${ADVISORY}/export`, `${ADVISORY}/export?name=go-vulndb&updatedAfter=2000-01-01`],
  [`${ADVISORY}/list`, `${ADVISORY}/list`],
  ['/v4/backup', '/v4/backup'],
  ['/v4/backup/{feed}', `/v4/backup/${ARCHIVED_FEED}`],
  ['/v4/backup/{feed}', '/v4/backup/cisa-kev'],
  ['/v3/backup', '/v3/backup'],
  ['/v3/index', '/v3/index'],
  ['/v3/backup/{index}', '/v3/backup/target-intel'],
  ['/v3/backup/{index}', '/v3/backup/cpecve'],
  ['/v3/search/cve', '/v3/search/cve?cve=CVE-2021-41617'],
  ['/v3/search/cve', '/v3/search/cve?cve=cve-2021-41617&start_cursor=true&limit=1'],
  ['/v3/purl', '/v3/purl?purl=pkg%3Apypi%2Faiohttp%403.7.0'],
  ['/v3/purl', '/v3/purl?purl=pkg:golang/golang.org/x/net@v0.0.0-20180801000000-000000000000'],
  [TAGS, TAGS],
  [TAGS, `${TAGS}?format=json`],
  [PDNS, `${PDNS}?format=txt`],
  [PDNS, `${PDNS}?format=json`],
  ['/healthz', '/healthz'],
  ['/healthz/live', '/healthz/live'],
  ['/whoami', '/whoami'],
  ['/openapi.json', '/openapi.json'],
  ['/v3/cpe', '/v3/cpe?cpe=cpe:2.3:o:fortinet:fortios:7.2.0'],
  ['/v3/cpe', '/v3/cpe?cpe=cpe:/a:openbsd:openssh&isVulnerable=true'],
  ['/v3/cpe', '/v3/cpe?cpe=cpe:2.3:a:no_such_vendor:no_such_product'],
  ['/v3/entitlements', '/v3/entitlements'],
  ['/v3/openapi', '/v3/openapi'],
];

const DOWNLOAD = '/backup-files/{kind}/{name}/{file}';

describe('the facet fields', () => {
  it('are declared as the index counts them', () => {
    expect([...FACET_FIELD_NAMES]).toEqual([...FACET_FIELDS]);
  });
});

describe.each(engineCases())('every answer against the served document ($name)', (engine) => {
  let t: BackupTestApp;
  let served: OpenApiValidator;
  const tokens: Record<'budgeted' | 'once' | 'noFeeds', string> = { budgeted: '', once: '', noFeeds: '' };
  /** `get <path> <status>` of every answer checked, to show each operation was answered. */
  const answered = new Set<string>();
  /** The most items (records, names, feeds, counted fields, export lines) a 200 of each path held. */
  const mostItems = new Map<string, number>();

  beforeAll(async () => {
    t = await startBackupApp(engine, { VULNSCOPE_BACKUP_INTERVAL: '0' });
    await loadEveryKind(t);
    // A C2 record with a hostname, so the pdns list has an entry; older than the dataset, so no page starts with it.
    await t.ingest([
      {
        ip: '198.51.100.250',
        port: 50050,
        hostnames: ['c2.example.test'],
        classifications: ['c2:sliver'],
        timestamp: Date.parse('2024-01-01T00:00:00Z'),
      },
    ]);
    // A budget large enough never to run out, so every answer carries the RateLimit headers.
    tokens.budgeted = (await t.storage.tokens.create('budgeted', { rateLimit: 1_000_000 })).token;
    tokens.once = (await t.storage.tokens.create('once', { rateLimit: 1 })).token;
    tokens.noFeeds = (await t.storage.tokens.create('no-feeds', { feeds: parseFeedEntitlement('none') })).token;
    const document = await call('/openapi.json', { token: null });
    served = new OpenApiValidator(document.bodies[0] as OpenApi, `served-${engine.name}`);
  }, 300_000);
  afterAll(async () => t?.close());

  async function call(
    url: string,
    options: { token?: string | null; headers?: Record<string, string>; body?: unknown; method?: 'delete' } = {},
  ): Promise<Answer> {
    const token = options.token === undefined ? tokens.budgeted : options.token;
    const headers = { ...options.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const method = options.method ?? (options.body === undefined ? 'get' : 'post');
    const response = await t.app.inject(
      method === 'post'
        ? { method: 'POST', url, headers, payload: options.body as object }
        : { method: method === 'get' ? 'GET' : 'DELETE', url, headers },
    );
    const media = mediaOf(response.headers);
    const text = media === 'application/zip' ? '' : response.body;
    const bodies =
      media === 'application/x-ndjson'
        ? text
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as unknown)
        : media === 'application/json'
          ? [JSON.parse(text) as unknown]
          : media === 'text/plain'
            ? [text]
            : [];
    return { method, status: response.statusCode, media, headers: response.headers, text, bodies };
  }

  const mediaOf = (headers: Record<string, unknown>) =>
    String(headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();

  /** What the answer does differently from what the document declares for it; `[]` when nothing. */
  function problems(path: string, answer: Answer): string[] {
    const declared = served.response(path, answer.method, answer.status);
    if (!declared) return [`${answer.method.toUpperCase()} ${path} declares no ${answer.status} answer`];
    answered.add(`${answer.method} ${path} ${answer.status}`);
    const found: string[] = [];
    for (const [name, header] of Object.entries(declared.headers ?? {}))
      if (header.required && answer.headers[name.toLowerCase()] === undefined) found.push(`header ${name} missing`);
    if (!declared.content) return answer.text === '' ? found : [...found, 'a body where none is declared'];
    if (!(answer.media in declared.content)) return [...found, `media type ${answer.media} is not declared`];
    answer.bodies.forEach((body, line) => {
      const where = answer.bodies.length > 1 ? `line ${line + 1}: ` : '';
      for (const problem of served.responseProblems(path, answer.method, answer.status, answer.media, body))
        found.push(`${where}${problem}`);
    });
    return found;
  }

  /** The contract's problems with each body (each export line), when VulnCheck has the path. */
  function contractProblems(path: string, answer: Answer): string[] {
    const check = answer.status === 200 ? contractOf(path) : CONTRACT_ERROR;
    if (!check) return [];
    return answer.bodies.flatMap((body, line) => check(body).map((problem) => `line ${line + 1}: ${problem}`));
  }

  async function expectValid(path: string, url: string, status: number, options: Parameters<typeof call>[1] = {}) {
    const answer = await call(url, options);
    expect(answer.status, answer.text.slice(0, 500)).toBe(status);
    expect(problems(path, answer)).toEqual([]);
    expect(contractProblems(path, answer)).toEqual([]);
    if (status === 200 || status === 201) mostItems.set(path, Math.max(mostItems.get(path) ?? -1, itemsOf(answer)));
    return answer;
  }

  /** Export lines but the closing one, a list's entries or lines, or the entries of `data`; -1 for a body without either. */
  const itemsOf = (answer: Answer) => {
    if (answer.media === 'application/x-ndjson') return answer.bodies.length - 1;
    if (answer.media === 'text/plain') return answer.text === '' ? 0 : answer.text.split('\n').length;
    if (Array.isArray(answer.bodies[0])) return answer.bodies[0].length;
    const data = (answer.bodies[0] as { data?: unknown } | undefined)?.data;
    return typeof data === 'object' && data !== null ? Object.keys(data).length : -1;
  };

  /** The success status an operation declares: 200, or 201 for a creation. */
  const successOf = (operation: { responses: Record<string, unknown> }) =>
    '201' in operation.responses ? '201' : '200';

  it('declares a schema for the 200 body of every operation (and of each format where a parameter chooses one)', () => {
    for (const [path, methods] of Object.entries(served.document.paths ?? {}))
      for (const [method, operation] of Object.entries(methods)) {
        const content = Object.entries(operation.responses[successOf(operation)]?.content ?? {});
        expect(content.length, `${method} ${path}`).toBe(path === TAGS || path === PDNS ? 2 : 1);
        for (const [media, declared] of content) expect(declared.schema, `${method} ${path} ${media}`).toBeDefined();
      }
  });

  it.each(OK)('200 of %s: %s', async (path, url) => {
    const answer = await expectValid(path, url, 200);
    if (path.endsWith('/export'))
      expect(answer.bodies.at(-1)).toEqual({ _meta: { complete: true, records: answer.bodies.length - 1 } });
  });

  it('200 of POST /v3/purls', async () => {
    const purls = ['pkg:pypi/aiohttp@3.7.0', 'pkg:npm/left-pad@1.0.0'];
    const answer = await expectValid('/v3/purls', '/v3/purls', 200, { body: purls });
    expect((answer.bodies[0] as { data: unknown[] }).data).toHaveLength(2);
  });

  it('the token endpoints: 201 of POST /v3/tokens, the list, the calling token, 200 of DELETE', async () => {
    const created = await expectValid('/v3/tokens', '/v3/tokens', 201, { body: { name: 'schema-child' } });
    const id = (created.bodies[0] as { id: number }).id;
    await expectValid('/v3/tokens', '/v3/tokens', 200);
    await expectValid('/v3/tokens/self', '/v3/tokens/self', 200);
    await expectValid('/v3/tokens/{id}', `/v3/tokens/${id}`, 200, { method: 'delete' });
    await expectValid('/v3/tokens/{id}', `/v3/tokens/${id + 1000}`, 404, { method: 'delete' });
    await expectValid('/v3/tokens', '/v3/tokens', 403, {
      token: null,
      headers: { cookie: `token=${tokens.budgeted}` },
      body: { name: 'x' },
    });
  });

  it('explain=true serves evidence of knowledge and of the scanner', async () => {
    const answer = await expectValid(TI, `${TI}?explain=true&cidr=198.51.100.200/29`, 200);
    const evidence = (answer.bodies[0] as { data: Array<{ cve_evidence: Array<{ source: string }> }> }).data.flatMap(
      (record) => record.cve_evidence,
    );
    expect(new Set(evidence.map((entry) => entry.source))).toEqual(new Set(['nvd', 'scanner']));
  });

  it.each([
    [TI, `${TI}?start_cursor=true&limit=4`],
    [ADVISORY, `${ADVISORY}?start_cursor=true&limit=50&name=go-vulndb`],
  ])('every page of a cursor walk on %s', async (path, first) => {
    let answer = await expectValid(path, first, 200);
    let pages = 1;
    for (
      let next = (answer.bodies[0] as any)._meta.next_cursor;
      next;
      next = (answer.bodies[0] as any)._meta.next_cursor
    ) {
      answer = await expectValid(path, `${path}?cursor=${encodeURIComponent(next)}`, 200);
      expect(typeof (answer.bodies[0] as any)._meta.cursor).toBe('string');
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
  });

  it('the archive download: whole (200), a range (206), unchanged (304), a range past its end (416)', async () => {
    const listed = await call('/v3/backup/target-intel');
    const archive = (listed.bodies[0] as { data: Array<{ url: string; sha256: string }> }).data[0]!;
    const url = local(archive.url);
    const whole = await expectValid(DOWNLOAD, url, 200, { token: null });
    expect(whole.media).toBe('application/zip');
    await expectValid(DOWNLOAD, url, 206, { token: null, headers: { range: 'bytes=0-9' } });
    await expectValid(DOWNLOAD, url, 304, { token: null, headers: { 'if-none-match': `"${archive.sha256}"` } });
    await expectValid(DOWNLOAD, url, 416, { token: null, headers: { range: 'bytes=999999999-' } });
    await expectValid(DOWNLOAD, url.replace(/signature=[^&]+/, 'signature=0000'), 403, { token: null });
  });

  it.each<[string, string, number, 'none' | 'noFeeds' | undefined, unknown?]>([
    [TI, `${TI}?nope=1`, 400, undefined],
    [TI, `${TI}?port=0`, 400, undefined],
    [TI, `${TI}?cursor=forged.sig`, 400, undefined],
    [`${TI}/facets`, `${TI}/facets`, 400, undefined],
    [`${TI}/export`, `${TI}/export?cve=nope`, 400, undefined],
    ['/v3/search/cpe', '/v3/search/cpe?limit=101', 400, undefined],
    [ADVISORY, `${ADVISORY}?name=no-such-feed`, 400, undefined],
    [`${ADVISORY}/export`, `${ADVISORY}/export?page=1`, 400, undefined],
    ['/v4/backup', '/v4/backup?nope=1', 400, undefined],
    ['/whoami', '/whoami?name=%01', 400, undefined],
    ['/v3/search/cve', '/v3/search/cve?cve=nope', 400, undefined],
    ['/v3/purl', '/v3/purl?purl=pkg%3Apypi%2Faiohttp', 400, undefined],
    ['/v3/purls', '/v3/purls', 400, undefined, { purls: [] }],
    ['/v3/purl', '/v3/purl?purl=pkg%3Apypi%2Faiohttp%403.7.0', 401, 'none'],
    ['/v3/purls', '/v3/purls', 401, 'none', []],
    ['/v3/purl', '/v3/purl?purl=pkg%3Apypi%2Faiohttp%403.7.0', 402, 'noFeeds'],
    ['/v3/purls', '/v3/purls', 402, 'noFeeds', ['pkg:pypi/aiohttp@3.7.0']],
    [TI, TI, 401, 'none'],
    [`${TI}/facets`, `${TI}/facets?fields=port`, 401, 'none'],
    [`${TI}/export`, `${TI}/export`, 401, 'none'],
    ['/v3/search/cpe', '/v3/search/cpe', 401, 'none'],
    [ADVISORY, ADVISORY, 401, 'none'],
    [`${ADVISORY}/export`, `${ADVISORY}/export`, 401, 'none'],
    [`${ADVISORY}/list`, `${ADVISORY}/list`, 401, 'none'],
    ['/v4/backup', '/v4/backup', 401, 'none'],
    ['/v4/backup/{feed}', `/v4/backup/${ARCHIVED_FEED}`, 401, 'none'],
    ['/v3/backup', '/v3/backup', 401, 'none'],
    ['/v3/index', '/v3/index', 401, 'none'],
    ['/v3/backup/{index}', '/v3/backup/target-intel', 401, 'none'],
    ['/whoami', '/whoami', 401, 'none'],
    ['/v3/search/cve', '/v3/search/cve?cve=CVE-2021-41617', 401, 'none'],
    [TAGS, TAGS, 401, 'none'],
    [PDNS, `${PDNS}?format=json`, 401, 'none'],
    [TAGS, `${TAGS}?format=csv`, 400, undefined],
    [ADVISORY, `${ADVISORY}?name=${ARCHIVED_FEED}`, 402, 'noFeeds'],
    [`${ADVISORY}/export`, `${ADVISORY}/export`, 402, 'noFeeds'],
    [`${ADVISORY}/list`, `${ADVISORY}/list`, 402, 'noFeeds'],
    ['/v4/backup', '/v4/backup', 402, 'noFeeds'],
    ['/v4/backup/{feed}', `/v4/backup/${ARCHIVED_FEED}`, 402, 'noFeeds'],
    ['/v4/backup/{feed}', '/v4/backup/no-such-feed', 404, undefined],
    ['/v3/backup/{index}', '/v3/backup/no-such-index', 404, undefined],
  ])('%s: %s answers %i in the declared error shape', async (path, url, status, token, body) => {
    const answer = await expectValid(path, url, status, {
      token: token === 'none' ? null : token === 'noFeeds' ? tokens.noFeeds : undefined,
      body,
    });
    expect(answer.bodies).toEqual([{ error: true, errors: [expect.any(String)] }]);
  });

  it('429 once the budget is spent, with Retry-After and the budget headers', async () => {
    await expectValid('/whoami', '/whoami', 200, { token: tokens.once });
    const refused = await expectValid('/whoami', '/whoami', 429, { token: tokens.once });
    for (const header of [
      'retry-after',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'ratelimit-policy',
    ])
      expect(refused.headers[header], header).toBeDefined();
  });

  it('503 while starting: the error shape, and the readiness probe its own body', async () => {
    const ready = t.context.lifecycle;
    t.context.lifecycle = new Lifecycle('starting');
    try {
      await expectValid(TI, TI, 503);
      await expectValid(`${ADVISORY}/list`, `${ADVISORY}/list`, 503);
      const probe = await expectValid('/healthz', '/healthz', 503, { token: null });
      expect(probe.bodies[0]).toMatchObject({ status: 'starting', ready: false });
    } finally {
      t.context.lifecycle = ready;
    }
  });

  it('a path the server does not have answers the error shape', async () => {
    const answer = await call('/v3/no-such-path');
    expect(answer.status).toBe(404);
    expect(served.componentProblems('ErrorResponse', answer.bodies[0])).toEqual([]);
    expect(CONTRACT_ERROR(answer.bodies[0])).toEqual([]);
  });

  it('every operation of the document was answered with a 200 above', () => {
    const operations = Object.entries(served.document.paths ?? {}).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => `${method} ${path} ${successOf(operation)}`),
    );
    expect(operations.filter((operation) => !answered.has(operation))).toEqual([]);
    // An empty list validates against any item schema: each was seen with items at least once.
    expect([...mostItems].filter(([, items]) => items === 0)).toEqual([]);
  });

  describe('a body missing a field, or with one of the wrong type, fails', () => {
    const mutated = async (path: string, url: string, mutate: (body: any) => void) => {
      const answer = await call(url);
      expect(answer.status).toBe(200);
      const body = structuredClone(answer.bodies[0]) as any;
      mutate(body);
      return served.responseProblems(path, 'get', 200, 'application/json', body);
    };

    it.each<[string, string, (body: any) => void]>([
      [TI, TI, (body) => delete body.data[0].port],
      [TI, TI, (body) => (body.data[0].port = String(body.data[0].port))],
      [TI, TI, (body) => delete body._meta.total_documents],
      [TI, TI, (body) => (body._meta.timestamp = 'today')],
      [TI, TI, (body) => (body.data.find((record: any) => record.cve === null).cve = [])],
      [TI, `${TI}?explain=true`, (body) => (body.data[0].cve_evidence[0].confirmed = 'yes')],
      [`${TI}/facets`, `${TI}/facets?fields=port`, (body) => (body.data.port.values[0].count = '1')],
      ['/v3/search/cpe', '/v3/search/cpe?vendor=openbsd', (body) => delete body.data[0].cpe_struct.target_hw],
      [ADVISORY, ADVISORY, (body) => delete body.data[0].cveMetadata.cveId],
      [ADVISORY, ADVISORY, (body) => (body.data[0].containers.cna.descriptions = 'text')],
      ['/v4/backup/{feed}', `/v4/backup/${ARCHIVED_FEED}`, (body) => delete body.sha256],
      ['/v3/backup/{index}', '/v3/backup/target-intel', (body) => (body.data = [])],
      ['/healthz', '/healthz', (body) => (body.ready = 'true')],
    ])('%s (%s): %s', async (path, url, mutate) => {
      expect(await mutated(path, url, mutate)).not.toEqual([]);
    });

    it('an export line, and an error body without its message', () => {
      const line = (path: string, body: unknown) =>
        served.responseProblems(path, 'get', 200, 'application/x-ndjson', body);
      expect(line(`${TI}/export`, { _meta: { complete: true, records: -1 } })).not.toEqual([]);
      expect(line(`${TI}/export`, { _meta: { complete: false, records: 1 } })).not.toEqual([]);
      expect(line(`${ADVISORY}/export`, { dataType: 'CVE_RECORD', dataVersion: '5.0' })).not.toEqual([]);
      expect(served.componentProblems('ErrorResponse', { error: true, errors: [] })).not.toEqual([]);
    });
  });
});
