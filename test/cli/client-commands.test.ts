/**
 * The client commands (`index`, `indices`, `advisory`, `cpe`, `backup url|list`) of the built CLI
 * against a live server on each engine: tables, --json, --ndjson, --all, exports, and the exit
 * statuses 2 (usage), 3 (401, 402), 4 (429) and 5 (server or network).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import {
  ALPHA,
  awayFromWindowEnd,
  HOSTS,
  ON_443,
  startClientTestServer,
  stubServer,
  type ClientTestServer,
} from '../client/support.js';
import { freePort, runCli } from '../support/cli.js';
import { engineCases } from '../support/engines.js';

const lines = (text: string) => text.split('\n').filter((line) => line !== '');
const records = (text: string) => lines(text).map((line) => JSON.parse(line));

describe('client commands without a server', () => {
  it('--version before any command prints the version; cpe --version is a filter', async () => {
    expect((await runCli(['--version'], {})).stdout.trim()).toBe(VERSION);
    expect((await runCli(['-V'], {})).stdout.trim()).toBe(VERSION);
    const help = await runCli(['cpe', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--version <text>/);
    expect(help.stdout).toMatch(/--isVulnerable <true\|false>/);
  });

  it('lists the client commands in --help with their exit statuses', async () => {
    const help = await runCli(['--help'], {});
    for (const command of ['index', 'indices', 'advisory', 'cpe', 'backup']) expect(help.stdout).toContain(command);
    expect(help.stdout).toMatch(/exit 3 for authentication/);
    const index = await runCli(['index', 'list', '--help'], {});
    for (const option of [
      '--cidr',
      '--country_code',
      '--contains_cve',
      '--port',
      '--all',
      '--ndjson',
      '--url',
      '--token',
    ])
      expect(index.stdout).toContain(option);
  });

  it('no server or no token: a usage error (2) naming the variable', async () => {
    const noUrl = await runCli(['advisory', 'feeds'], {});
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/VULNSCOPE_URL/);
    const noToken = await runCli(['advisory', 'feeds'], { VULNSCOPE_URL: 'http://127.0.0.1:9' });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/VULNSCOPE_TOKEN/);
  });

  it('a server that cannot be reached: 5', async () => {
    const port = await freePort();
    const result = await runCli(['indices', 'list'], {
      VULNSCOPE_URL: `http://127.0.0.1:${port}`,
      VULNSCOPE_TOKEN: 't',
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^vulnscope: GET \/v3\/index: cannot connect/);
  });

  it('a cut export: the records that arrived, then 5', async () => {
    const stub = await stubServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.end('{"ip":"192.0.2.1","port":443}\n');
    });
    try {
      const result = await runCli(['index', 'export', 'target-intel'], {
        VULNSCOPE_URL: stub.base,
        VULNSCOPE_TOKEN: 't',
      });
      expect(result.code).toBe(5);
      expect(records(result.stdout)).toEqual([{ ip: '192.0.2.1', port: 443 }]);
      expect(result.stderr).toMatch(/export was cut after 1 records/);
    } finally {
      await stub.close();
    }
  });

  it('a 503: 5', async () => {
    const stub = await stubServer((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":true,"errors":["starting"]}');
    });
    try {
      const result = await runCli(['advisory', 'feeds'], { VULNSCOPE_URL: stub.base, VULNSCOPE_TOKEN: 't' });
      expect(result.code).toBe(5);
      expect(result.stderr).toMatch(/503 service unavailable: starting/);
    } finally {
      await stub.close();
    }
  });
});

describe.each(engineCases())('client commands against a live server ($name)', (engine) => {
  let s: ClientTestServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    s = await startClientTestServer(engine);
    env = { VULNSCOPE_URL: s.base, VULNSCOPE_TOKEN: s.token };
  });
  afterAll(async () => {
    await s?.close();
  });

  it('index list target-intel: a table of one page, --json, --ndjson', async () => {
    const args = ['index', 'list', 'target-intel', '--port', '443', '--contains_cve', 'false', '--limit', '5'];
    const table = await runCli(args, env);
    expect(table.code, table.stderr).toBe(0);
    const rows = lines(table.stdout);
    expect(rows[0]).toMatch(/^IP\s+PORT\s+HOSTNAME\s+PRODUCT\s+CVES\s+COUNTRY\s+LAST SEEN$/);
    expect(rows).toHaveLength(6);
    expect(rows[1]).toMatch(/^198\.51\.100\.\d+\s+443\/tcp\s+host\d+\.example\.test/);
    expect(table.stderr).toMatch(/^5 of 8 records \(page 1 of 2; --all for every record\)$/m);

    const json = await runCli([...args, '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const page = JSON.parse(json.stdout);
    expect(page._meta.total_documents).toBe(ON_443 - 4);
    expect(page.data).toHaveLength(5);

    const ndjson = await runCli([...args, '--ndjson'], env);
    expect(records(ndjson.stdout).map((r) => r.port)).toEqual([443, 443, 443, 443, 443]);
  });

  it('index list --all walks every page (NDJSON or a table), without control characters off a terminal', async () => {
    const walked = await runCli(['index', 'list', 'target-intel', '--all', '--ndjson', '--limit', '7'], env);
    expect(walked.code, walked.stderr).toBe(0);
    const all = records(walked.stdout);
    expect(all).toHaveLength(HOSTS);
    expect(new Set(all.map((r) => r.ip)).size).toBe(HOSTS);
    expect(walked.stderr).toBe(`${HOSTS} records\n`);

    const table = await runCli(['index', 'list', 'target-intel', '--all', '--limit', '9', '--sort', 'ip'], env);
    expect(table.code, table.stderr).toBe(0);
    expect(lines(table.stdout)).toHaveLength(HOSTS + 1);
    expect(table.stderr).not.toContain('\x1b');
  });

  it('usage errors exit 2: --all with --json, a bad integer, a value the server refuses, an unknown index', async () => {
    const both = await runCli(['index', 'list', 'target-intel', '--all', '--json'], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--ndjson/);
    const port = await runCli(['index', 'list', 'target-intel', '--port', 'https'], env);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port expects a whole number/);
    const cidr = await runCli(['index', 'list', 'target-intel', '--cidr', 'nonsense'], env);
    expect(cidr.code).toBe(2);
    expect(cidr.stderr).toMatch(/^vulnscope: GET \/v3\/index\/target-intel: 400 bad request: .*cidr/);
    const unknown = await runCli(['index', 'list', 'exploits'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/queryable: target-intel/);
  });

  it('index facets and index export', async () => {
    const facets = await runCli(['index', 'facets', 'target-intel', '--fields', 'port:3', '--port', '443'], env);
    expect(facets.code, facets.stderr).toBe(0);
    expect(lines(facets.stdout)).toEqual(['FIELD  VALUE  COUNT', `port   443    ${ON_443}`]);
    expect(facets.stderr).toBe(`${ON_443} matching records\n`);
    const json = JSON.parse(
      (await runCli(['index', 'facets', 'target-intel', '--fields', 'port', '--json'], env)).stdout,
    );
    expect(json._meta.total_documents).toBe(HOSTS);

    const exported = await runCli(['index', 'export', 'target-intel', '--port', '443'], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(records(exported.stdout)).toHaveLength(ON_443);
    expect(exported.stderr).toBe(`exported ${ON_443} records (complete)\n`);
  });

  it('indices list and advisory feeds', async () => {
    const indices = await runCli(['indices', 'list'], env);
    expect(indices.code, indices.stderr).toBe(0);
    expect(indices.stdout).toMatch(/^target-intel\s+Target intelligence/m);
    const feeds = await runCli(['advisory', 'feeds'], env);
    expect(feeds.stdout).toMatch(/^NAME\s+DESCRIPTION$/m);
    expect(feeds.stdout).toMatch(/^alpha\s/m);
    const json = JSON.parse((await runCli(['advisory', 'feeds', '--json'], env)).stdout);
    expect(json.data.map((feed: { name: string }) => feed.name)).toEqual(expect.arrayContaining(['alpha', 'beta']));
  });

  it('advisory list (a page, --all) and advisory export', async () => {
    const page = await runCli(['advisory', 'list', '--name', 'alpha', '--limit', '10', '--page', '3'], env);
    expect(page.code, page.stderr).toBe(0);
    expect(lines(page.stdout)[0]).toMatch(/^ID\s+STATE\s+UPDATED\s+DESCRIPTION$/);
    expect(lines(page.stdout)).toHaveLength(ALPHA - 20 + 1);
    expect(page.stdout).toMatch(/^CVE-2024-00021\s+PUBLISHED\s/m);
    expect(page.stderr).toMatch(/^5 of 25 advisories \(page 3 of 3/m);

    const all = await runCli(
      ['advisory', 'list', '--name', 'alpha', '--product', 'widget', '--all', '--ndjson', '--limit', '4'],
      env,
    );
    expect(all.code, all.stderr).toBe(0);
    expect(records(all.stdout)).toHaveLength(Math.ceil(ALPHA / 2));

    const exported = await runCli(['advisory', 'export', '--name', 'alpha'], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(records(exported.stdout).map((r) => r.cveMetadata.cveId)).toHaveLength(ALPHA);
  });

  it('cpe: a CPE name or options (--version is the CPE version)', async () => {
    const byName = await runCli(['cpe', 'cpe:2.3:o:fortinet:fortios:7.2.1'], env);
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.stdout).toMatch(/^CPE\s+CVES\s+CVE IDS$/m);
    expect(byName.stdout).toMatch(/^cpe:2\.3:o:fortinet:fortios:7\.2\.1:\S+\s+2\s+CVE-2022-40684,CVE-2024-23113$/m);
    const byOptions = await runCli(
      ['cpe', '--part', 'o', '--vendor', 'fortinet', '--product', 'fortios', '--version', '7.2.1', '--json'],
      env,
    );
    expect(byOptions.code, byOptions.stderr).toBe(0);
    expect(JSON.parse(byOptions.stdout).data[0].cves).toEqual(['CVE-2022-40684', 'CVE-2024-23113']);
    const bad = await runCli(['cpe', 'not-a-cpe'], env);
    expect(bad.code).toBe(2);
  });

  it('backup url prints the signed URL; backup list asks the server', async () => {
    const url = await runCli(['backup', 'url', 'alpha'], env);
    expect(url.code, url.stderr).toBe(0);
    expect(url.stdout.trim()).toMatch(new RegExp(`^${s.base}/.+\\.zip\\?`));
    expect(url.stderr).toMatch(/^sha256 [0-9a-f]{64}; the URL expires at /);
    const index = JSON.parse((await runCli(['backup', 'url', 'target-intel', '--json'], env)).stdout);
    expect(index).toMatchObject({ name: 'target-intel', kind: 'index' });
    const list = await runCli(['backup', 'list', '--url', s.base, '--token', s.token], {});
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^alpha\s+yes\s+\d{4}-\S+\s+feed$/m);
    expect(list.stdout).toMatch(/^target-intel\s+yes\s+\d{4}-\S+\s+index$/m);
  });

  it('--url and --token instead of the environment', async () => {
    const result = await runCli(['indices', 'list', '--url', s.base, '--token', s.token], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^target-intel\s/m);
  });

  it('401: exit 3, and the token is never echoed', async () => {
    const secret = 'vs_not_a_valid_token_0123456789';
    for (const args of [
      ['advisory', 'feeds'],
      ['index', 'export', 'target-intel'],
      ['backup', 'url', 'alpha'],
    ]) {
      const result = await runCli(args, { ...env, VULNSCOPE_TOKEN: secret });
      expect(result.code, args.join(' ')).toBe(3);
      expect(result.stderr).toMatch(/401 unauthorized/);
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
    const flag = await runCli(['indices', 'list', '--token', secret], { VULNSCOPE_URL: s.base });
    expect(flag.code).toBe(3);
    expect(flag.stdout + flag.stderr).not.toContain(secret);
  });

  it('402: a feed the token may not read exits 3', async () => {
    const beta = { ...env, VULNSCOPE_TOKEN: s.betaToken };
    expect((await runCli(['advisory', 'list', '--name', 'beta'], beta)).code).toBe(0);
    const result = await runCli(['advisory', 'list', '--name', 'alpha'], beta);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/402 payment required: .*not entitled/);
    expect((await runCli(['advisory', 'export', '--name', 'alpha'], beta)).code).toBe(3);
  });

  it('429: rate limited beyond what the retries can wait for exits 4', async () => {
    const limited = { ...env, VULNSCOPE_TOKEN: await s.oneRequestToken() };
    await awayFromWindowEnd();
    expect((await runCli(['backup', 'url', 'alpha'], limited)).code).toBe(0);
    // Backups have a one-hour window: the client does not wait that long.
    const result = await runCli(['backup', 'url', 'alpha'], limited);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/429 too many requests: rate limit exceeded/);
  });

  it('429 within the retry cap: retried after Retry-After, then success', async () => {
    const limited = { ...env, VULNSCOPE_TOKEN: s.twoToken };
    // Spend the token's CPE search budget (two per 10 s window) with time left in the window,
    // so the command's request meets a 429, waits for the next window and gets its answer.
    await awayFromWindowEnd(10_000, 6_000);
    for (let i = 0; i < 2; i++) {
      const spent = await fetch(`${s.base}/v3/search/cpe?vendor=fortinet`, {
        headers: { authorization: `Bearer ${s.twoToken}` },
      });
      expect(spent.status).toBe(200);
    }
    const result = await runCli(['cpe', '--vendor', 'fortinet', '--product', 'fortios', '--version', '7.2.1'], limited);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^GET \/v3\/search\/cpe: rate limited; retrying in \d+ s \(retry 1\)$/m);
    expect(result.stdout).toMatch(/CVE-2022-40684,CVE-2024-23113/);
  });
});
