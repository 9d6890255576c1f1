/**
 * The portal's advisory pages (search, record view), CPE search and feeds & backups in Chromium,
 * on each engine, against `vulnscope demo`: what they show equals what the API answers, backups
 * download through the page's links, and text from outside (URL filters, advisory records) stays
 * text.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineCases } from '../support/engines.js';
import { expectAccessible, HAS_CHROMIUM, launchChromium, pageErrors, screenshot, signIn } from './support/browser.js';
import { cliOn, type PortalServer, startPortalServer } from './support/portal-server.js';

const SCRIPT = '<script>alert(1)</script>';
const JS_URL = 'javascript:alert(1)';
const ADVISORY_FILTERS = [
  'name',
  'cve_id',
  'vendor',
  'product',
  'platform',
  'version',
  'cpe',
  'package_name',
  'purl',
  'reference_url',
  'reference_tag',
  'description_lang',
  'updatedAfter',
  'updatedBefore',
];
const CPE_FILTERS = ['part', 'vendor', 'product', 'version', 'order'];

/** A CVE 5 record whose texts and references are hostile, loaded as feed `crafted-test`. */
const CRAFTED = {
  dataType: 'CVE_RECORD',
  dataVersion: '5.1',
  cveMetadata: {
    cveId: 'CVE-2099-0001',
    state: 'PUBLISHED',
    assignerOrgId: '8254265b-2729-46b6-b9e3-3dfca2d5bfca',
    assignerShortName: 'mitre',
    datePublished: '2099-01-02T00:00:00.000Z',
  },
  containers: {
    cna: {
      providerMetadata: { orgId: '8254265b-2729-46b6-b9e3-3dfca2d5bfca', shortName: 'mitre' },
      title: `${SCRIPT} crafted title`,
      descriptions: [{ lang: 'en', value: `Crafted ${SCRIPT} and <img src=x onerror=alert(2)> in the text.` }],
      affected: [
        {
          vendor: '<b>acme</b>',
          product: 'widget<script>',
          versions: [{ version: '1.0', lessThan: '1.2', status: 'affected', versionType: 'semver' }],
          defaultStatus: 'unaffected',
        },
      ],
      references: [
        { url: JS_URL, name: 'javascript-reference' },
        { url: 'https://example.com/advisory?<script>', tags: ['vendor-advisory'] },
      ],
    },
  },
};

describe.skipIf(!HAS_CHROMIUM).each(engineCases())('portal advisories, CPE search, feeds ($name)', (engine) => {
  let server: PortalServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  const dialogs: string[] = [];

  /** The API's answer to the demo token, as the test's own reference. */
  async function apiGet<T>(pathAndQuery: string): Promise<T> {
    const response = await fetch(`${server.base}${pathAndQuery}`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    expect(response.status, pathAndQuery).toBe(200);
    return (await response.json()) as T;
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startPortalServer(engine), launchChromium()]);
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
    errors = pageErrors(page);
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signIn(page, server.base, server.token);
  }, 180_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  const total = (testId: string) => page.getByTestId(testId).textContent();

  it('searches advisories by CVE and by vendor; the total shown is the API’s', async () => {
    await page.goto(`${server.base}/advisories?cve_id=CVE-2021-41773`);
    const byCve = await apiGet<{ _meta: { filtered: number } }>('/v4/advisory?cve_id=CVE-2021-41773');
    await expect.poll(() => total('advisory-total')).toBe(String(byCve._meta.filtered));
    expect(await page.getByLabel('CVE or advisory id').inputValue()).toBe('CVE-2021-41773');
    // The feed select lists the feeds the token may read.
    const feeds = await apiGet<{ data: Array<{ name: string }> }>('/v4/advisory/list');
    const options = await page
      .getByLabel('Feed')
      .locator('option')
      .evaluateAll((nodes) => nodes.map((node) => (node as HTMLOptionElement).value));
    expect(options).toEqual(['', ...feeds.data.map((feed) => feed.name)]);

    // A search through the form puts its filters in the URL.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Vendor').fill('apache');
    await page.getByLabel('Feed').selectOption('nist-nvd2');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('vendor') === 'apache');
    expect(new URL(page.url()).searchParams.get('name')).toBe('nist-nvd2');
    const byVendor = await apiGet<{ _meta: { filtered: number } }>('/v4/advisory?name=nist-nvd2&vendor=apache');
    expect(byVendor._meta.filtered).toBeGreaterThan(0);
    await expect.poll(() => total('advisory-total')).toBe(String(byVendor._meta.filtered));
    await expectAccessible(page, 'the advisory search');
    await screenshot(page, `${engine.name}-advisories`);

    // Paging: every record once over the pages, with the whole list's total.
    await page.goto(`${server.base}/advisories?limit=10`);
    const all = await apiGet<{ _meta: { filtered: number; pages: number } }>('/v4/advisory?limit=10');
    await expect.poll(() => total('advisory-total')).toBe(String(all._meta.filtered));
    if (all._meta.pages > 1) {
      await page.getByRole('link', { name: 'Next →' }).click();
      await page.waitForURL((url) => url.searchParams.get('page') === '2');
      await expect.poll(() => page.getByText(/Page 2 of/).count()).toBe(1);
    }
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${server.base}/advisories?cve_id=CVE-2021-41773`);
    await expect.poll(() => total('advisory-total')).toBe(String(byCve._meta.filtered));
    await screenshot(page, `${engine.name}-advisories-375`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows an advisory: description, CVSS, KEV, references, and the hosts that carry it', async () => {
    await page.goto(`${server.base}/advisories?name=nist-nvd2&cve_id=CVE-2021-41773`);
    await page.getByRole('link', { name: 'CVE-2021-41773' }).click();
    await page.waitForURL((url) => url.pathname === '/advisory');
    expect(new URL(page.url()).searchParams.get('feed')).toBe('nist-nvd2');
    const article = page.locator('article.advisory');
    await expect.poll(() => article.count()).toBe(1);
    const text = (await article.textContent()) ?? '';
    expect(text).toContain('path normalization in Apache HTTP Server 2.4.49');
    expect(text).toContain('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N');
    expect(text).toContain('7.5');
    expect(text).toContain('HIGH');
    expect(text).toContain('Known exploited');
    expect(text).toContain('2021-11-17');
    expect(text).toContain('Apply updates per vendor instructions.');
    expect(text).toContain('cpe:2.3:a:apache:http_server:2.4.49');
    const reference = article.getByRole('link', { name: 'https://httpd.apache.org/security/vulnerabilities_24.html' });
    expect(await reference.getAttribute('rel')).toContain('noreferrer');

    // The hosts link, with the count the target-intel index gives.
    const hosts = await apiGet<{ _meta: { total_documents: number } }>(
      '/v3/index/target-intel?cve=CVE-2021-41773&limit=1',
    );
    const hostsLink = page.locator('.hosts-link a');
    await expect
      .poll(() => hostsLink.textContent())
      .toContain(`${hosts._meta.total_documents.toLocaleString('en')} host record`);
    await expectAccessible(page, 'an advisory');
    await screenshot(page, `${engine.name}-advisory`);

    // Without a feed: every feed's record of the CVE.
    await page.goto(`${server.base}/advisory?cve=CVE-2021-41773`);
    await expect.poll(() => page.locator('article.advisory').count()).toBe(2);
    await expectAccessible(page, 'an advisory of two feeds');
    await page.setViewportSize({ width: 375, height: 800 });
    await screenshot(page, `${engine.name}-advisory-375`);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.locator('.hosts-link a').click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(new URL(page.url()).searchParams.get('cve')).toBe('CVE-2021-41773');
  });

  it('says what is wrong: 400 naming the parameter, 402 for a feed the token may not read', async () => {
    await page.goto(`${server.base}/advisories?version=*`);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('parameter "version"');
    await page.goto(`${server.base}/advisory?feed=no-such-feed&id=CVE-2021-41773`);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('unknown feed');

    const token = await cliOn(server, ['token', 'create', '--name', 'nvd-only', '--feeds', 'nist-nvd2']);
    const other = await browser.newContext();
    const limited = await other.newPage();
    await signIn(limited, server.base, token);
    await limited.goto(`${server.base}/advisories?name=mitre-cvelist-v5`);
    await expect.poll(() => limited.getByRole('alert').first().textContent()).toMatch(/payment required/i);
    await expectAccessible(limited, 'an advisory search refused with 402');
    await screenshot(limited, `${engine.name}-advisories-402`);
    await other.close();
  });

  it('CPE search lists each name with its CVEs, linked to their advisories', async () => {
    await page.goto(`${server.base}/cpe?vendor=apache&product=http_server`);
    const answer = await apiGet<{ _meta: { total_documents: number }; data: Array<{ cpe: string; cves: string[] }> }>(
      '/v3/search/cpe?vendor=apache&product=http_server&limit=25',
    );
    await expect.poll(() => total('cpe-total')).toBe(String(answer._meta.total_documents));
    const first = answer.data.find((item) => item.cves.length > 0)!;
    const row = page.locator('tr', { hasText: first.cpe });
    for (const cve of first.cves) {
      expect(await row.getByRole('link', { name: cve }).getAttribute('href')).toBe(`/advisory?cve=${cve}`);
    }
    await expectAccessible(page, 'the CPE search');
    await screenshot(page, `${engine.name}-cpe`);
    await page.setViewportSize({ width: 375, height: 800 });
    await screenshot(page, `${engine.name}-cpe-375`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await row.getByRole('link', { name: first.cves[0]! }).click();
    await page.waitForURL((url) => url.pathname === '/advisory');
    await expect.poll(() => page.locator('article.advisory').count()).toBeGreaterThan(0);
  });

  it('lists feeds and backups, and downloads a backup whose sha256 is the one shown and listed', async () => {
    await page.goto(`${server.base}/feeds`);
    const nvd = page.locator('tr[data-feed="nist-nvd2"]');
    await expect.poll(() => nvd.locator('code.hash').count()).toBe(1);
    const shown = (await nvd.locator('code.hash').textContent())!.trim();
    const listed = await apiGet<{ sha256: string }>('/v4/backup/nist-nvd2');
    expect(shown).toBe(listed.sha256);
    const count = await apiGet<{ _meta: { total: number } }>('/v4/advisory?name=nist-nvd2&limit=1');
    expect(await nvd.locator('td.number').textContent()).toBe(count._meta.total.toLocaleString('en'));

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      nvd.getByRole('link', { name: /^Download nist-nvd2-/ }).click(),
    ]);
    const file = await download.path();
    expect(createHash('sha256').update(fs.readFileSync(file)).digest('hex')).toBe(shown);

    // The target-intel index backup, likewise.
    const index = page.locator('tr[data-index="target-intel"]').first();
    const indexSha = (await index.locator('code.hash').textContent())!.trim();
    const indexListed = await apiGet<{ data: Array<{ sha256: string }> }>('/v3/backup/target-intel');
    expect(indexSha).toBe(indexListed.data[0]!.sha256);
    const [indexDownload] = await Promise.all([
      page.waitForEvent('download'),
      index.getByRole('link', { name: /^Download target-intel-/ }).click(),
    ]);
    expect(
      createHash('sha256')
        .update(fs.readFileSync(await indexDownload.path()))
        .digest('hex'),
    ).toBe(indexSha);

    await expectAccessible(page, 'the feeds and backups');
    await screenshot(page, `${engine.name}-feeds`);
    await page.setViewportSize({ width: 375, height: 800 });
    await screenshot(page, `${engine.name}-feeds-375`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows script and javascript: given in every filter of the URL as text, and runs nothing', async () => {
    for (const payload of [SCRIPT, JS_URL]) {
      const advisories = new URLSearchParams(ADVISORY_FILTERS.map((name) => [name, payload]));
      await page.goto(`${server.base}/advisories?${advisories}`);
      // The server refuses the query and says why, quoting the value as text.
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('parameter');
      for (const name of ADVISORY_FILTERS) {
        expect(await page.locator(`#filter-${name}`).inputValue(), name).toBe(payload);
      }
      // Each filter alone, so each reaches the API and its answer is shown.
      for (const name of ADVISORY_FILTERS) {
        await page.goto(`${server.base}/advisories?${new URLSearchParams({ [name]: payload })}`);
        await expect
          .poll(
            async () => (await page.getByRole('alert').count()) + (await page.getByTestId('advisory-total').count()),
          )
          .toBeGreaterThan(0);
        expect(await page.locator(`#filter-${name}`).inputValue(), name).toBe(payload);
      }
      const cpe = new URLSearchParams(CPE_FILTERS.map((name) => [name, payload]));
      cpe.set('isVulnerable', payload);
      await page.goto(`${server.base}/cpe?${cpe}`);
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('parameter');
      for (const name of CPE_FILTERS) expect(await page.locator(`#filter-${name}`).inputValue(), name).toBe(payload);
      for (const name of CPE_FILTERS) {
        await page.goto(`${server.base}/cpe?${new URLSearchParams({ [name]: payload })}`);
        await expect
          .poll(async () => (await page.getByRole('alert').count()) + (await page.getByTestId('cpe-total').count()))
          .toBeGreaterThan(0);
        expect(await page.locator(`#filter-${name}`).inputValue(), name).toBe(payload);
      }
      await page.goto(`${server.base}/advisory?${new URLSearchParams({ feed: payload, id: payload })}`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(payload);
      await expect.poll(() => page.getByRole('alert').count()).toBeGreaterThan(0);
      expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
      // Only the portal's own script element is in the document.
      expect(await page.locator('script').count()).toBe(1);
    }
    expect(dialogs).toEqual([]);
    expect(errors.filter((error) => /Content Security Policy/i.test(error))).toEqual([]);
  });

  it('renders an advisory holding <script> and a javascript: reference inert', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-crafted-'));
    try {
      const file = path.join(dir, 'CVE-2099-0001.json');
      fs.writeFileSync(file, JSON.stringify(CRAFTED));
      await cliOn(server, ['ingest', 'advisories', '--feed', 'crafted-test', '--adapter', 'mitre-cvelist-v5', file]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await page.goto(`${server.base}/advisory?feed=crafted-test&id=CVE-2099-0001`);
    const article = page.locator('article.advisory');
    await expect.poll(() => article.count()).toBe(1);
    const text = (await article.textContent()) ?? '';
    expect(text).toContain(`${SCRIPT} crafted title`);
    expect(text).toContain(`Crafted ${SCRIPT} and <img src=x onerror=alert(2)> in the text.`);
    expect(text).toContain('<b>acme</b>');
    expect(text).toContain('widget<script>');
    expect(await article.locator('script, img, b').count()).toBe(0);
    // The javascript: reference is text, not a link; the https one is a link.
    const inert = article.getByText(JS_URL, { exact: true });
    expect(await inert.evaluate((node) => node.tagName)).toBe('SPAN');
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    const safe = article.getByRole('link', { name: 'https://example.com/advisory?<script>' });
    expect(await safe.getAttribute('href')).toBe('https://example.com/advisory?%3Cscript%3E');
    await expectAccessible(page, 'a crafted advisory');
    await screenshot(page, `${engine.name}-advisory-crafted`);

    // In the list, too.
    await page.goto(`${server.base}/advisories?name=crafted-test`);
    await expect.poll(() => total('advisory-total')).toBe('1');
    expect(await page.locator('.advisory-list').textContent()).toContain(`${SCRIPT} crafted title`);
    expect(dialogs).toEqual([]);
  });
});
