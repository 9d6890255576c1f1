/**
 * The tokens page in Chromium, on each engine: an admin creates a token, which then signs in, is
 * revoked from the page and stops working; a regular token creates a child token, which cannot
 * manage tokens and stops working with its parent.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineCases } from '../support/engines.js';
import { expectAccessible, HAS_CHROMIUM, launchChromium, screenshot, signIn } from './support/browser.js';
import { cliOn, type PortalServer, startPortalServer } from './support/portal-server.js';

describe.skipIf(!HAS_CHROMIUM).each(engineCases())('portal tokens ($name)', { timeout: 120_000 }, (engine) => {
  let server: PortalServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    [server, browser] = await Promise.all([startPortalServer(engine), launchChromium()]);
  }, 180_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
  });

  async function signedIn(token: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    await signIn(page, server.base, token);
    return page;
  }

  async function createFromPage(page: Page, name: string): Promise<string> {
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByLabel('New token');
    await expect.poll(() => secret.inputValue()).toMatch(/^vs_/);
    return secret.inputValue();
  }

  it('an admin creates a token, which signs in; revoked from the page, it no longer works', async () => {
    const adminToken = await cliOn(server, ['token', 'create', '--admin', '--name', 'portal-admin']);
    const admin = await signedIn(adminToken);
    await admin.goto(`${server.base}/tokens`);
    await expect.poll(() => admin.getByRole('heading', { name: 'Every token' }).isVisible()).toBe(true);
    await expect.poll(() => admin.getByRole('cell', { name: 'demo', exact: true }).isVisible()).toBe(true);
    await expectAccessible(admin, 'the tokens page (admin)');
    const secret = await createFromPage(admin, 'alice');
    await screenshot(admin, `${engine.name}-tokens-admin`);

    const alice = await signedIn(secret);
    expect(new URL(alice.url()).pathname).toBe('/');
    const asAlice = await fetch(`${server.base}/v3/tokens/self`, { headers: { authorization: `Bearer ${secret}` } });
    expect((await asAlice.json()).name).toBe('alice');

    await admin.getByRole('button', { name: 'Revoke alice' }).click();
    await admin.getByRole('button', { name: 'Confirm revoking alice' }).click();
    await expect.poll(() => admin.getByRole('status').filter({ hasText: 'Revoked' }).textContent()).toContain('alice');
    // Another server process could hold the token's verdict for up to a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await alice.goto(`${server.base}/`);
    expect(new URL(alice.url()).pathname).toBe('/sign-in');
    await expect.poll(() => alice.getByRole('alert').textContent()).toContain('revoked');
    const afterRevoke = await fetch(`${server.base}/v3/tokens/self`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(afterRevoke.status).toBe(401);
  });

  it('a regular token creates a child token, which cannot manage tokens and ends with its parent', async () => {
    const parentToken = await cliOn(server, ['token', 'create', '--name', 'parent']);
    const parent = await signedIn(parentToken);
    await parent.goto(`${server.base}/tokens`);
    await expect.poll(() => parent.getByRole('heading', { name: 'Tokens you created' }).isVisible()).toBe(true);
    const childToken = await createFromPage(parent, 'child-1');
    await expect.poll(() => parent.getByRole('cell', { name: 'child-1', exact: true }).isVisible()).toBe(true);
    await expectAccessible(parent, 'the tokens page (regular token)');
    await screenshot(parent, `${engine.name}-tokens-regular`);

    const child = await signedIn(childToken, { width: 375, height: 800 });
    await child.goto(`${server.base}/tokens`);
    await expect.poll(() => child.getByText('This is a child token').isVisible()).toBe(true);
    expect(await child.getByRole('button', { name: 'Create token' }).count()).toBe(0);
    await expectAccessible(child, 'the tokens page (child token)');
    await screenshot(child, `${engine.name}-tokens-child-phone`);

    const parentId = (
      JSON.parse(await cliOn(server, ['token', 'list', '--json'])) as Array<{ id: number; name: string }>
    ).find((row) => row.name === 'parent')!.id;
    await cliOn(server, ['token', 'revoke', String(parentId)]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const asChild = await fetch(`${server.base}/v3/index/target-intel?limit=1`, {
      headers: { authorization: `Bearer ${childToken}` },
    });
    expect(asChild.status).toBe(401);
    await child.goto(`${server.base}/tokens`);
    expect(new URL(child.url()).pathname).toBe('/sign-in');
  });
});
