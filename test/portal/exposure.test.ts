/**
 * The exposure search (`/`) and host record (`/host`) pages in Chromium, on each engine: totals and
 * facet counts as the API gives them, facet bars as filters, paging, the map and date chart, the
 * host's CVE evidence, the number of API calls a search makes, and that text from URLs and from
 * ingested scans stays text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TARGET_INTEL_FILTER_NAMES } from '../../src/core/api/index.js';
import { engineCases } from '../support/engines.js';
import { expectAccessible, HAS_CHROMIUM, launchChromium, pageErrors, screenshot, signIn } from './support/browser.js';
import { cliOn, type PortalServer, startPortalServer } from './support/portal-server.js';

/** A scan record whose texts are markup and script URLs: it must show as text. */
// Outside the demo's address ranges, so the search finds this record alone.
const HOSTILE_IP = '100.64.0.66';
const HOSTILE_RECORD = {
  ip: HOSTILE_IP,
  port: 8443,
  protocol: 'tcp',
  hostname: '<script>alert(1)</script>.javascript:alert(1).example',
  timestamp: new Date().toISOString(),
  fingerprints: [
    {
      cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      service: 'https',
      banner: '<script>alert(1)</script> <img src=x onerror=alert(1)>',
      title: '<b>bold</b>',
      url: 'javascript:alert(1)',
      link: 'https://example.com/<script>',
    },
  ],
  cves: ['CVE-2021-41773'],
  country_code: 'US',
  country: 'United States',
  asn: 'AS64496',
};

interface PageAnswer {
  _meta: { total_documents: number; max_pages: number };
  data: Array<{ ip: string; port: number; protocol: string; cve_evidence?: Array<Record<string, unknown>> }>;
}
interface FacetsAnswer {
  _meta: { total_documents: number };
  data: Record<string, { values: Array<{ value: string | number; count: number }> }>;
}

describe.skipIf(!HAS_CHROMIUM).each(engineCases())('portal exposure search ($name)', (engine) => {
  let server: PortalServer;
  let browser: Browser;
  let context: BrowserContext;

  /** The API's answer to `pathAndQuery`, with the demo token as a Bearer header. */
  async function apiGet<T>(pathAndQuery: string): Promise<T> {
    const response = await fetch(`${server.base}${pathAndQuery}`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    expect(response.status, pathAndQuery).toBe(200);
    return (await response.json()) as T;
  }

  /** A signed-in page that records the API calls it makes and the dialogs it opens. */
  async function openPage(): Promise<{ page: Page; apiCalls: string[]; dialogs: string[]; errors: string[] }> {
    const page = await context.newPage();
    const apiCalls: string[] = [];
    const dialogs: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/v3/')) apiCalls.push(request.url());
    });
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const errors = pageErrors(page);
    return { page, apiCalls, dialogs, errors };
  }

  /** The total the page shows, as a number. */
  async function shownTotal(page: Page): Promise<number> {
    const text = await page.locator('.summary strong').textContent();
    return Number(text!.replace(/[^0-9]/g, ''));
  }

  /** Waits until the results, the facets, the map and the date chart are drawn. */
  async function settled(page: Page): Promise<void> {
    await page.locator('.summary strong').waitFor();
    await page.locator('.facets .bars').first().waitFor();
    await page.locator('figure.map svg path').first().waitFor();
    await page.locator('figure.chart svg rect').first().waitFor();
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startPortalServer(engine), launchChromium()]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-hostile-'));
    const file = path.join(dir, 'hostile.ndjson');
    fs.writeFileSync(file, `${JSON.stringify(HOSTILE_RECORD)}\n`);
    await cliOn(server, ['ingest', 'scans', file]);
    fs.rmSync(dir, { recursive: true, force: true });
    // The server picks up records another process ingested within a second or so.
    for (let tries = 0; ; tries++) {
      const answer = await apiGet<PageAnswer>(`/v3/index/target-intel?cidr=${HOSTILE_IP}`);
      if (answer._meta.total_documents === 1) break;
      if (tries > 60) throw new Error('the server did not pick up the ingested record');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page, server.base, server.token);
    await page.close();
  }, 180_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('shows the whole index without filters: first page, facets, map and date chart, in two API calls', async () => {
    const { page, apiCalls, errors } = await openPage();
    await page.goto(`${server.base}/`);
    await settled(page);
    const facets = await apiGet<FacetsAnswer>('/v3/index/target-intel/facets?fields=country_code:250,date_added:1000');
    expect(await shownTotal(page)).toBe(facets._meta.total_documents);
    expect(await page.locator('table.records tbody tr').count()).toBe(25);

    // The map: every country of world-atlas drawn, those with matches titled with their count.
    expect(await page.locator('figure.map svg path').count()).toBeGreaterThan(150);
    const top = facets.data.country_code!.values[0]!;
    const title = await page.locator(`figure.map path[data-code="${top.value}"] title`).textContent();
    expect(title).toMatch(new RegExp(`: ${top.count.toLocaleString('en-US')} records$`));
    expect(await page.locator('figure.map svg').getAttribute('aria-label')).toContain('by country');
    // The date chart: one bar per day from the first to the last, a table of the same numbers.
    const days = facets.data.date_added!.values.map((entry) => String(entry.value)).sort();
    const span = (Date.parse(days[days.length - 1]!) - Date.parse(days[0]!)) / 86_400_000 + 1;
    expect(await page.locator('figure.chart svg rect').count()).toBe(span);
    expect(await page.locator('figure.chart table tbody tr').count()).toBe(span);

    await page.waitForTimeout(300);
    expect(apiCalls).toHaveLength(2);
    expect(apiCalls.some((url) => url.includes('/v3/index/target-intel/facets?'))).toBe(true);
    await expectAccessible(page, 'the exposure search without filters');
    await screenshot(page, `${engine.name}-exposure`);
    await page.setViewportSize({ width: 375, height: 800 });
    await expectAccessible(page, 'the exposure search at phone width');
    await screenshot(page, `${engine.name}-exposure-phone`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the total and facet counts the API gives for the same query', async () => {
    const { page, apiCalls, errors } = await openPage();
    await page.goto(`${server.base}/?contains_cve=true&country_code=BR`);
    await settled(page);
    const listing = await apiGet<PageAnswer>('/v3/index/target-intel?contains_cve=true&country_code=BR&limit=1');
    const facets = await apiGet<FacetsAnswer>(
      '/v3/index/target-intel/facets?contains_cve=true&country_code=BR&fields=port,product,cve',
    );
    expect(await shownTotal(page)).toBe(listing._meta.total_documents);
    for (const [field, heading] of [
      ['port', 'Ports'],
      ['cve', 'CVEs'],
    ] as const) {
      const first = facets.data[field]!.values[0]!;
      const bar = page.getByRole('region', { name: heading }).getByRole('link').first();
      expect(await bar.locator('.label').textContent()).toBe(String(first.value));
      expect(await bar.locator('.count').textContent()).toBe(first.count.toLocaleString('en-US'));
    }
    // The form shows the search it made.
    expect(await page.getByLabel('Has a CVE').inputValue()).toBe('true');
    expect(await page.getByLabel('Country code').inputValue()).toBe('BR');
    await page.waitForTimeout(300);
    expect(apiCalls.length).toBeLessThanOrEqual(2);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('applies a facet bar as a filter when clicked, in at most two API calls', async () => {
    const { page, apiCalls, errors } = await openPage();
    await page.goto(`${server.base}/?contains_cve=true`);
    await settled(page);
    const ports = await apiGet<FacetsAnswer>('/v3/index/target-intel/facets?contains_cve=true&fields=port');
    const port = ports.data.port!.values[0]!;
    apiCalls.length = 0;
    await page.getByRole('region', { name: 'Ports' }).getByRole('link').first().click();
    await page.waitForURL((url) => url.searchParams.get('port') === String(port.value));
    expect(new URL(page.url()).searchParams.get('contains_cve')).toBe('true');
    await expect.poll(() => shownTotal(page)).toBe(port.count);
    await page.locator('figure.map svg path').first().waitFor();
    const services = await page.locator('table.records tbody tr td:first-child').allTextContents();
    expect(services.length).toBeGreaterThan(0);
    for (const service of services) expect(service).toContain(`:${port.value}/`);
    // The bar of the filter in force is marked, and the form shows the filter.
    expect(await page.getByLabel('Port', { exact: true }).inputValue()).toBe(String(port.value));
    await expect
      .poll(() => page.getByRole('region', { name: 'Ports' }).locator('a[aria-current="true"]').count())
      .toBe(1);
    await page.waitForTimeout(300);
    expect(apiCalls.length).toBeLessThanOrEqual(2);
    await expectAccessible(page, 'the exposure search with a facet filter');
    await screenshot(page, `${engine.name}-exposure-facet-filter`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('pages forward and back with the page number in the URL', async () => {
    const { page, apiCalls, errors } = await openPage();
    await page.goto(`${server.base}/?contains_cve=true&sort=ip&order=asc`);
    await settled(page);
    const listing = await apiGet<PageAnswer>(
      '/v3/index/target-intel?contains_cve=true&sort=ip&order=asc&limit=25&page=2',
    );
    const firstOnPage1 = await page.locator('table.records tbody tr').first().textContent();
    expect(await page.locator('.pager').textContent()).toContain(
      `Page 1 of ${listing._meta.max_pages.toLocaleString('en-US')}`,
    );
    apiCalls.length = 0;
    await page.getByRole('link', { name: 'Next →' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '2');
    await expect.poll(() => page.locator('.summary').textContent()).toContain('showing 26–50');
    const second = listing.data[0]!;
    await expect
      .poll(() => page.locator('table.records tbody tr').first().locator('td').first().textContent())
      .toBe(`${second.ip}:${second.port}/${second.protocol}`);
    expect(await page.locator('table.records tbody tr').first().textContent()).not.toBe(firstOnPage1);
    // Paging keeps the filters, so the counts are not asked for again.
    await page.waitForTimeout(300);
    expect(apiCalls).toHaveLength(1);
    await expectAccessible(page, 'the second page of results');
    await page.getByRole('link', { name: '← Previous' }).click();
    await page.waitForURL((url) => !url.searchParams.has('page'));
    await expect.poll(() => page.locator('table.records tbody tr').first().textContent()).toBe(firstOnPage1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('submits the form to the URL of the new search', async () => {
    const { page, errors } = await openPage();
    await page.goto(`${server.base}/`);
    await page.locator('.summary strong').waitFor();
    await page.getByLabel('CVE', { exact: true }).fill('CVE-2024-6387');
    await page.getByLabel('Has a confirmed CVE').selectOption('true');
    await page.getByLabel('CVE', { exact: true }).press('Enter');
    await page.waitForURL((url) => url.searchParams.get('cve') === 'CVE-2024-6387');
    expect(new URL(page.url()).searchParams.get('confirmed')).toBe('true');
    const listing = await apiGet<PageAnswer>('/v3/index/target-intel?cve=CVE-2024-6387&confirmed=true&limit=1');
    await expect.poll(() => shownTotal(page)).toBe(listing._meta.total_documents);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens a host record with every field and the CVE evidence', async () => {
    const { page, apiCalls, errors } = await openPage();
    await page.goto(`${server.base}/?cve=CVE-2024-6387&confirmed=true`);
    await settled(page);
    const link = page.locator('table.records tbody tr').first().locator('td').first().getByRole('link');
    const service = (await link.textContent())!;
    apiCalls.length = 0;
    await link.click();
    await page.waitForURL((url) => url.pathname === '/host');
    const where = new URL(page.url()).searchParams;
    const query = `cidr=${where.get('ip')}&port=${where.get('port')}&protocol=${where.get('protocol')}&explain=true`;
    const record = (await apiGet<PageAnswer>(`/v3/index/target-intel?${query}`)).data[0]!;
    expect(`${record.ip}:${record.port}/${record.protocol}`).toBe(service);
    await page.getByRole('heading', { name: 'CVE evidence' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(service);

    const rows = page.locator('table.evidence tbody tr');
    expect(await rows.count()).toBe(record.cve_evidence!.length);
    const confirmed = record.cve_evidence!.find((item) => item.confirmed && item.cve === 'CVE-2024-6387')!;
    const row = rows.filter({ hasText: String(confirmed.criterion) }).first();
    expect(await row.textContent()).toContain(String(confirmed.cpe));
    expect(await row.textContent()).toContain(String(confirmed.range));
    expect(await row.locator('td').nth(1).textContent()).toBe('yes');
    // Each CVE links to its advisory page and to the search for it.
    expect(await row.getByRole('link', { name: 'CVE-2024-6387', exact: true }).getAttribute('href')).toBe(
      '/advisory?cve=CVE-2024-6387',
    );
    expect(await row.getByRole('link', { name: 'Services exposed to CVE-2024-6387' }).getAttribute('href')).toBe(
      '/?cve=CVE-2024-6387',
    );
    // Every field of the record, as text.
    const fields = (await page.locator('.host-record > dl.fields').textContent())!;
    for (const value of [record.ip, String(record.port), record.protocol]) expect(fields).toContain(value);
    expect(apiCalls).toHaveLength(1);
    expect(apiCalls[0]).toContain('explain=true');
    await expectAccessible(page, 'a host record');
    await screenshot(page, `${engine.name}-exposure-host`);
    await page.setViewportSize({ width: 375, height: 800 });
    await expectAccessible(page, 'a host record at phone width');
    await screenshot(page, `${engine.name}-exposure-host-phone`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows an API error naming the parameter, and an empty result as such', async () => {
    const { page } = await openPage();
    await page.goto(`${server.base}/?port=99999`);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('"port"');
    // One message, though both calls failed the same way.
    expect(await page.getByRole('alert').count()).toBe(1);
    await expectAccessible(page, 'the exposure search with an error');
    await screenshot(page, `${engine.name}-exposure-error`);

    await page.goto(`${server.base}/?cidr=192.0.2.250/32&port=1`);
    await expect.poll(() => page.locator('.empty').first().textContent()).toContain('No record matches');
    await expectAccessible(page, 'the exposure search without matches');
    await page.close();
  });

  it.each([
    ['markup', '<script>alert(1)</script>'],
    ['a script URL', 'javascript:alert(1)'],
  ])('renders %s in every filter of the URL as text', async (_, payload) => {
    const { page, dialogs } = await openPage();
    const query = new URLSearchParams();
    for (const name of TARGET_INTEL_FILTER_NAMES) query.set(name, payload);
    await page.goto(`${server.base}/?${query}`);
    await page.getByRole('alert').first().waitFor();
    for (const name of TARGET_INTEL_FILTER_NAMES) {
      expect(await page.locator(`#filter-${name}`).inputValue(), name).toBe(payload);
    }
    const injected = await page.evaluate(() => ({
      scripts: document.querySelectorAll('script').length,
      created: document.querySelectorAll('main script, main img, main iframe, main object, main embed').length,
      scriptLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
    }));
    expect(injected).toEqual({ scripts: 1, created: 0, scriptLinks: 0 });
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
    await expectAccessible(page, 'the exposure search with hostile filters');
    await page.close();
  });

  it('renders markup and script URLs from ingested scans as text, in results and on the host page', async () => {
    const { page, dialogs, errors } = await openPage();
    await page.goto(`${server.base}/?cidr=${HOSTILE_IP}`);
    await settled(page);
    const row = page.locator('table.records tbody tr').first();
    expect(await row.locator('td').nth(1).textContent()).toBe(HOSTILE_RECORD.hostname);
    await row.locator('td').first().getByRole('link').click();
    await page.waitForURL((url) => url.pathname === '/host');
    await page.getByRole('heading', { name: 'Fingerprint 1' }).waitFor();
    const fingerprint = page.getByRole('region', { name: 'Fingerprint 1' });
    const print = HOSTILE_RECORD.fingerprints[0]!;
    expect(await fingerprint.locator('pre').textContent()).toBe(print.banner);
    expect(await fingerprint.textContent()).toContain(print.title);
    expect(await fingerprint.textContent()).toContain(print.url);
    expect(await page.locator('.host-record > dl.fields').textContent()).toContain(HOSTILE_RECORD.hostname);
    // Only the https URL is a link, opened without a referrer.
    const link = fingerprint.getByRole('link');
    expect(await link.count()).toBe(1);
    expect(await link.getAttribute('href')).toBe('https://example.com/%3Cscript%3E');
    expect(await link.getAttribute('rel')).toContain('noreferrer');
    const injected = await page.evaluate(() => ({
      scripts: document.querySelectorAll('script').length,
      created: document.querySelectorAll('main script, main img, main b, main iframe').length,
      scriptLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
    }));
    expect(injected).toEqual({ scripts: 1, created: 0, scriptLinks: 0 });
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
    await screenshot(page, `${engine.name}-exposure-host-hostile`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
