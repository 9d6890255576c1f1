/**
 * Signing in and out of the portal in Chromium, on each engine: the form, the cookie, the pages
 * a visitor without a token reaches, and bad, revoked and expired tokens.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createStorage } from '../../src/storage/index.js';
import { engineCases } from '../support/engines.js';
import { expectAccessible, HAS_CHROMIUM, launchChromium, screenshot, signIn } from './support/browser.js';
import { cliOn, type PortalServer, startPortalServer } from './support/portal-server.js';

describe.skipIf(!HAS_CHROMIUM).each(engineCases())('portal sign-in ($name)', { timeout: 120_000 }, (engine) => {
  let server: PortalServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startPortalServer(engine), launchChromium()]);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('sends a visitor without a token to sign-in, and back to the page asked for after it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.base}/advisories?cve=CVE-2021-41773`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await expect.poll(() => page.getByLabel('API token').isVisible()).toBe(true);
    await expectAccessible(page, 'the sign-in page');
    await screenshot(page, `${engine.name}-sign-in`);
    await page.getByLabel('API token').fill(server.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/advisories');
    expect(new URL(page.url()).searchParams.get('cve')).toBe('CVE-2021-41773');
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({
      name: 'token',
      value: server.token,
      httpOnly: true,
      sameSite: 'Lax',
      secure: false,
    });
    await context.close();
  });

  it('refuses a bad token with a message and sets no cookie', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.base}/sign-in`);
    await page.getByLabel('API token').fill('vs_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('unknown token');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    expect(await context.cookies()).toEqual([]);
    await screenshot(page, `${engine.name}-sign-in-refused`);
    await context.close();
  });

  it('signs out: the cookie is cleared and the pages lead to sign-in again', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, server.base, server.token);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/sign-in');
    expect(await context.cookies()).toEqual([]);
    await page.goto(`${server.base}/`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await context.close();
  });

  it('says why when the signed-in token was revoked', async () => {
    const token = await cliOn(server, ['token', 'create', '--name', 'to-revoke']);
    const id = (
      JSON.parse(await cliOn(server, ['token', 'list', '--json'])) as Array<{ id: number; name: string }>
    ).find((row) => row.name === 'to-revoke')!.id;
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, server.base, token);
    await cliOn(server, ['token', 'revoke', String(id)]);
    // The server's token cache holds a verdict for up to a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await page.goto(`${server.base}/`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('revoked');
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it('refuses a token that expired unused, with a message', async () => {
    const token = await cliOn(server, ['token', 'create', '--name', 'idle']);
    // Made 40 days old: past the default 30 idle days, as if it had not been used since.
    const storage = await createStorage(parseDatabaseUrl(server.env.VULNSCOPE_DATABASE_URL!), { migrate: false });
    try {
      await storage.db.run('UPDATE tokens SET created_at = ? WHERE name = ?', [Date.now() - 40 * 86_400_000, 'idle']);
    } finally {
      await storage.close();
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.base}/sign-in`);
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('expired');
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it('works from the keyboard: skip link, navigation and sign-in with Enter', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.base}/sign-in`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token');
    await page.keyboard.type(server.token);
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/');
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((element) => element === document.activeElement)).toBe(true);
    // The focused element is drawn with a visible outline.
    expect(await skip.evaluate((element) => getComputedStyle(element).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent);
    expect(focused).toBe('Exposure');
    // A page reached in place takes focus to its heading, as a page load would for a screen reader.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/advisories');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.tagName + ' ' + document.activeElement?.textContent))
      .toBe('H1 Advisories');
    await context.close();
  });
});
