import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import type { AppContext } from '../../src/server/context.js';
import { createContext } from '../../src/server/main.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { describeErrors, validateAgainst } from '../support/contract.js';
import { POSTGRES_URL, postgresCase } from '../support/engines.js';
import { ADVISORY, advisory, loadRecords } from './support.js';

/**
 * The database goes away and comes back: a TCP proxy in front of the shared PostgreSQL server is
 * cut (connections destroyed, new ones refused) and restored. Requests get a JSON 503 with
 * Retry-After meanwhile, and the same server answers again afterwards, without a restart.
 */
class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (this.server!.address() as net.AddressInfo).port;
  }

  /** Destroys every connection and refuses new ones. */
  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server!.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  async restore(): Promise<void> {
    if (!this.server?.listening) await this.start();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server?.listening) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

describe.runIf(POSTGRES_URL)('PostgreSQL outage and recovery', () => {
  let proxy: TcpProxy;
  let app: FastifyInstance;
  let context: AppContext;
  let storage: Storage;
  let drop: () => Promise<void>;
  let token: string;

  const get = async (url: string) => {
    const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    return { status: response.statusCode, body: response.json(), headers: response.headers };
  };

  beforeAll(async () => {
    const fresh = await postgresCase.fresh();
    drop = fresh.drop;
    const target = new URL(POSTGRES_URL!);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const proxied = new URL(POSTGRES_URL!);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const database = {
      ...(fresh.config as { engine: 'postgres'; url: string; schema?: string }),
      url: proxied.toString(),
    };
    const config = { ...loadConfig({ VULNSCOPE_RATE_LIMIT: 'unlimited', VULNSCOPE_LOG_LEVEL: 'fatal' }), database };
    storage = await createStorage(database);
    context = await createContext(config, storage);
    app = await buildApp(context, { logStream: { write: () => true } as unknown as NodeJS.WritableStream });
    token = (await storage.tokens.create('outage')).token;
    await loadRecords(storage, 'alpha', [advisory('CVE-2024-0001'), advisory('CVE-2024-0002')]);
  });
  afterAll(async () => {
    await proxy?.restore();
    await app?.close();
    await context?.tokens.stop().catch(() => {});
    await storage?.close();
    await proxy?.stop();
    await drop?.();
  });

  const urls = [`${ADVISORY}?name=alpha`, '/v4/advisory/list', '/v3/index/target-intel?limit=1', '/whoami'];

  it('answers normally through the proxy', async () => {
    for (const url of urls) expect((await get(url)).status, url).toBe(200);
  });

  it('answers 503 JSON with Retry-After while the database is unreachable, then recovers by itself', async () => {
    await proxy.cut();
    // Past the token cache: authentication itself needs the database now.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (const url of urls) {
      const response = await get(url);
      expect(response.status, `${url}: ${JSON.stringify(response.body)}`).toBe(503);
      expect(response.body).toEqual({ error: true, errors: [expect.stringMatching(/unreachable|try again/)] });
      expect(describeErrors(validateAgainst('search.ErrorResponse', response.body))).toEqual([]);
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(503);

    await proxy.restore();
    const deadline = Date.now() + 15_000;
    let statuses: number[] = [];
    while (Date.now() < deadline) {
      statuses = [];
      for (const url of urls) statuses.push((await get(url)).status);
      if (statuses.every((status) => status === 200)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(statuses).toEqual(urls.map(() => 200));
    const records = await get(`${ADVISORY}?name=alpha`);
    expect(records.body._meta.total).toBe(2);
  });
});
