/**
 * `vulnscope token` on the server: `create --admin` (the only way to an admin token), `list` with
 * the admin flag and each token's parent, `revoke` taking the children along.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CHILD_TOKENS } from '../../src/core/tokens.js';
import { createStorage } from '../../src/storage/index.js';
import { runCli } from '../support/cli.js';

let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-tokens-cli-'));
  env = { VULNSCOPE_DATABASE_URL: path.join(dir, 'cli.db'), VULNSCOPE_RETENTION_DAYS: '0' };
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Row {
  id: number;
  name: string;
  state: string;
  admin: boolean;
  parent: number | null;
  rate_limit: string;
}

const listed = async () => JSON.parse((await runCli(['token', 'list', '--json'], env)).stdout) as Row[];

describe('vulnscope token', () => {
  it('create --admin makes an admin token; list shows the flag and the parent', async () => {
    const created = await runCli(['token', 'create', '--name', 'root', '--admin'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^vs_[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr).toContain('created admin token');
    const plain = await runCli(['token', 'create', '--name', 'plain', '--rate-limit', '7'], env);
    expect(plain.code).toBe(0);

    const rows = await listed();
    expect(rows.find((row) => row.name === 'root')).toMatchObject({ admin: true, parent: null, state: 'active' });
    expect(rows.find((row) => row.name === 'plain')).toMatchObject({ admin: false, parent: null });
    expect(JSON.stringify(rows)).not.toContain(created.stdout.trim());

    const table = await runCli(['token', 'list'], env);
    expect(table.stdout).toMatch(/ID\s+NAME\s+CREATED\s+LAST USED\s+STATE\s+ADMIN\s+PARENT\s+FEEDS\s+RATE LIMIT/);
    expect(table.stdout).toMatch(/root\s.*\sactive\s+yes\s+-\s/);
  });

  it("revoking a parent revokes its children; a child's row names its parent and the budget it spends", async () => {
    const plain = (await listed()).find((row) => row.name === 'plain')!;
    const storage = await createStorage({ engine: 'sqlite', file: env.VULNSCOPE_DATABASE_URL! });
    try {
      await storage.tokens.createChild(plain.id, 'kid', {}, MAX_CHILD_TOKENS);
    } finally {
      await storage.close();
    }
    const kid = (await listed()).find((row) => row.name === 'kid')!;
    expect(kid).toMatchObject({ admin: false, parent: plain.id, state: 'active' });
    expect(kid.rate_limit).toBe(`token ${plain.id}'s: 7 requests per 60 s`);

    const revoked = await runCli(['token', 'revoke', String(plain.id)], env);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain('and the 1 child token it created');
    const after = await listed();
    expect(after.find((row) => row.id === kid.id)!.state).toBe('revoked');
    expect(after.find((row) => row.name === 'root')!.state).toBe('active');
  });
});
